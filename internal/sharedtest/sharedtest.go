// Package sharedtest locates the read-only test data in ../shared (the goldens, the
// test models, the GSM8K files) for tests of every package.
//
// Tests find it through ENTROPIX_SHARED. When the variable is unset the test is
// skipped (a developer without the data can still run the fast tests); when it is
// set and a file is missing the test fails, so CI cannot pass by skipping.
package sharedtest

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"
)

// Root returns the absolute path of the shared directory, or skips t.
// A relative ENTROPIX_SHARED (CI uses ../shared) is taken relative to the module
// root, not to the package directory go test runs in.
func Root(t testing.TB) string {
	t.Helper()
	root := os.Getenv("ENTROPIX_SHARED")
	if root == "" {
		t.Skip("ENTROPIX_SHARED is not set; skipping a test that needs ../shared")
	}
	if !filepath.IsAbs(root) {
		mod, err := moduleRoot()
		if err != nil {
			t.Fatalf("resolve ENTROPIX_SHARED=%q: %v", root, err)
		}
		root = filepath.Join(mod, root)
	}
	return root
}

// Path returns the absolute path of rel inside the shared directory and fails t
// when it does not exist.
func Path(t testing.TB, rel string) string {
	t.Helper()
	p := filepath.Join(Root(t), rel)
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("shared test data missing (ENTROPIX_SHARED is set): %v", err)
	}
	return p
}

// ReadJSON decodes the shared JSON file rel into v.
func ReadJSON(t testing.TB, rel string, v any) {
	t.Helper()
	b, err := os.ReadFile(Path(t, rel))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("decode %s: %v", rel, err)
	}
}

func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("no go.mod above the working directory")
		}
		dir = parent
	}
}

// Float is a float64 that also decodes the goldens' non-finite strings
// "inf", "-inf" and "nan".
type Float float64

func (f *Float) UnmarshalJSON(b []byte) error {
	switch string(b) {
	case `"inf"`:
		*f = Float(math.Inf(1))
	case `"-inf"`:
		*f = Float(math.Inf(-1))
	case `"nan"`, "null":
		*f = Float(math.NaN())
	default:
		var v float64
		if err := json.Unmarshal(b, &v); err != nil {
			return err
		}
		*f = Float(v)
	}
	return nil
}

// Float32s converts golden numbers to the float32 an engine stores; the goldens'
// inputs are float32-exact, so nothing is lost.
func Float32s(in []Float) []float32 {
	out := make([]float32, len(in))
	for i, v := range in {
		out[i] = float32(v)
	}
	return out
}

// Close reports whether got is within atol + rtol·|want| of want (NaN equals NaN).
func Close(got, want, rtol, atol float64) bool {
	if math.IsNaN(want) {
		return math.IsNaN(got)
	}
	return math.Abs(got-want) <= atol+rtol*math.Abs(want)
}
