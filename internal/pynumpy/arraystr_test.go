package pynumpy

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/entropix-eval/entropix-eval/internal/pythontest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Hand-checked against numpy 1.24 (str(np.array(...))).
func TestArrayStrCases(t *testing.T) {
	for _, tc := range []struct {
		in   []float64
		want string
	}{
		{[]float64{0.1, 0.25, 0.65}, "[0.1  0.25 0.65]"},
		{[]float64{1e-5, 0.5}, "[1.e-05 5.e-01]"},
		{[]float64{1.0 / 3, 2.0 / 3}, "[0.33333333 0.66666667]"},
		{[]float64{1, 0}, "[1. 0.]"},
		{[]float64{0.1, 0}, "[0.1 0. ]"},
		{[]float64{1e-300, 1}, "[1.e-300 1.e+000]"},
		{[]float64{2.5e-05, 0.999975}, "[2.50000e-05 9.99975e-01]"},
		{[]float64{0.999999999, 1e-9}, "[9.99999999e-01 1.00000000e-09]"},
		{[]float64{0.25, 0.25, 0.25, 0.25}, "[0.25 0.25 0.25 0.25]"},
	} {
		assert.Equal(t, tc.want, ArrayStr(tc.in), "%v", tc.in)
	}
}

// numpy's own str() of random arrays — probability vectors like lm-eval's
// softmax, with zeros, tiny and huge values, negatives, non-finite values, and
// long ones that wrap — equals ArrayStr's, byte for byte. Debian's python3 with
// python3-numpy (.ci/run installs it).
func TestArrayStrMatchesNumpy(t *testing.T) {
	py := pythontest.Python(t, "numpy")
	rng := rand.New(rand.NewPCG(7, 11))
	var arrays [][]float64
	for i := range 600 {
		n := 1 + rng.IntN(14)
		if i%20 == 0 {
			n = 20 + rng.IntN(40) // several lines
		}
		xs := make([]float64, n)
		var sum float64
		for j := range xs {
			switch rng.IntN(10) {
			case 0:
				xs[j] = 0
			case 1:
				xs[j] = math.Exp(-rng.Float64() * 700) // down to 1e-304
			case 2:
				xs[j] = math.Round(rng.Float64()*100) / 100
			default:
				xs[j] = rng.ExpFloat64()
			}
			sum += xs[j]
		}
		switch {
		case i%7 == 0: // raw values: large, negative
			for j := range xs {
				xs[j] = (xs[j] - 0.5) * math.Pow(10, float64(rng.IntN(20)-6))
			}
		case sum > 0: // a probability vector
			for j := range xs {
				xs[j] /= sum
			}
		}
		arrays = append(arrays, xs)
	}
	arrays = append(arrays, []float64{math.NaN(), 0.5}, []float64{math.Inf(-1), 1e-5, 3}, []float64{math.Inf(1), 0.25})
	// One array a line, as Python's json reads it (NaN, Infinity included) and
	// with every digit of each float.
	var in strings.Builder
	for _, xs := range arrays {
		vals := make([]string, len(xs))
		for j, x := range xs {
			switch {
			case math.IsNaN(x):
				vals[j] = "NaN"
			case math.IsInf(x, 1):
				vals[j] = "Infinity"
			case math.IsInf(x, -1):
				vals[j] = "-Infinity"
			default:
				vals[j] = strconv.FormatFloat(x, 'g', -1, 64)
			}
		}
		in.WriteString("[" + strings.Join(vals, ",") + "]\n")
	}
	cmd := exec.Command(py, "-c", `import json, sys, numpy as np
for line in sys.stdin:
    print(json.dumps(str(np.array(json.loads(line), dtype=np.float64))))`)
	cmd.Stdin = strings.NewReader(in.String())
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	require.Len(t, lines, len(arrays))
	for i, l := range lines {
		var want string
		require.NoError(t, json.Unmarshal([]byte(l), &want))
		assert.Equal(t, want, ArrayStr(arrays[i]), "array %d: %v", i, arrays[i])
	}
}
