package tokenizer

import (
	"bufio"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/entropix-eval/entropix-eval/internal/sharedtest"
)

var goldenTokenizers = []string{"llama3", "smollm", "gpt2", "llama2", "phi3", "stories260k"}

type encodeGolden struct {
	Text       string  `json:"text"`
	AddSpecial bool    `json:"add_special_tokens"`
	IDs        []int32 `json:"ids"`
	Decoded    string  `json:"decoded"`
}

type decodeGolden struct {
	IDs         []int32 `json:"ids"`
	SkipSpecial bool    `json:"skip_special_tokens"`
	Decoded     string  `json:"decoded"`
}

// readGoldenLines decodes every JSON line of a (possibly gzipped) golden file.
func readGoldenLines[T any](t *testing.T, rel string) []T {
	t.Helper()
	f, err := os.Open(sharedtest.Path(t, rel))
	require.NoError(t, err)
	defer f.Close()
	var r io.Reader = f
	if strings.HasSuffix(rel, ".gz") {
		gz, err := gzip.NewReader(f)
		require.NoError(t, err)
		defer gz.Close()
		r = gz
	}
	var out []T
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	for sc.Scan() {
		var v T
		require.NoError(t, json.Unmarshal(sc.Bytes(), &v), "%s line %d", rel, len(out)+1)
		out = append(out, v)
	}
	require.NoError(t, sc.Err())
	require.NotEmpty(t, out, rel)
	return out
}

func loadShared(t testing.TB, name string) *Tokenizer {
	t.Helper()
	tok, err := Load(sharedtest.Path(t, sharedDir(name)))
	require.NoError(t, err)
	return tok
}

// TestGoldenEncode requires identical ids and decoded text on every line of the
// edge-case and GSM8K goldens produced by the Rust tokenizers library.
func TestGoldenEncode(t *testing.T) {
	for _, name := range goldenTokenizers {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			tok := cachedShared(t, name)
			for _, file := range []string{name + ".jsonl", name + ".gsm8k.jsonl.gz"} {
				lines := readGoldenLines[encodeGolden](t, "golden/tokenizers/"+file)
				pass, shown := 0, 0
				for i, g := range lines {
					ids, err := tok.Encode(g.Text, g.AddSpecial)
					require.NoError(t, err)
					dec, err := tok.Decode(g.IDs, false)
					require.NoError(t, err)
					idsOK := equalIDs(ids, g.IDs)
					if idsOK && dec == g.Decoded {
						pass++
						continue
					}
					if shown < 5 {
						shown++
						t.Errorf("%s line %d text %q special=%v:\n ids  got %v\n     want %v\n decoded got %q\n        want %q",
							file, i+1, trunc(g.Text), g.AddSpecial, ids, g.IDs, trunc(dec), trunc(g.Decoded))
					}
				}
				t.Logf("%s: %d/%d lines identical", file, pass, len(lines))
			}
		})
	}
}

// TestGoldenDecode requires identical text for random, special, byte and cut-off
// id sequences, with and without skipping special tokens.
func TestGoldenDecode(t *testing.T) {
	for _, name := range goldenTokenizers {
		t.Run(name, func(t *testing.T) {
			tok := cachedShared(t, name)
			file := name + ".decode.jsonl"
			lines := readGoldenLines[decodeGolden](t, "golden/tokenizers/"+file)
			pass := 0
			for i, g := range lines {
				got, err := tok.Decode(g.IDs, g.SkipSpecial)
				require.NoError(t, err)
				if got == g.Decoded {
					pass++
					continue
				}
				t.Errorf("%s line %d ids %v skip=%v:\n got  %q\n want %q", file, i+1, g.IDs, g.SkipSpecial, got, g.Decoded)
			}
			t.Logf("%s: %d/%d lines identical", file, pass, len(lines))
		})
	}
}

func equalIDs(a, b []int32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func trunc(s string) string {
	if len(s) > 300 {
		return s[:300] + "…"
	}
	return s
}

// sharedDir maps a golden tokenizer name to its directory; a name with a slash
// is already a path inside the shared directory.
func sharedDir(name string) string {
	if strings.Contains(name, "/") {
		return name
	}
	return "tokenizers/" + name
}

// TestConcurrentEncode shares one Tokenizer between goroutines (the word cache
// and scratch pool are the shared state); run it under -race.
func TestConcurrentEncode(t *testing.T) {
	tok := cachedShared(t, "llama3")
	lines := readGoldenLines[encodeGolden](t, "golden/tokenizers/llama3.gsm8k.jsonl.gz")[:400]
	errs := make(chan error, 4)
	for w := 0; w < 4; w++ {
		go func() {
			for i := range lines {
				g := lines[(i+w*97)%len(lines)]
				ids, err := tok.Encode(g.Text, g.AddSpecial)
				if err == nil && !equalIDs(ids, g.IDs) {
					err = fmt.Errorf("%q: got %v want %v", g.Text, ids, g.IDs)
				}
				if err != nil {
					errs <- err
					return
				}
			}
			errs <- nil
		}()
	}
	for w := 0; w < 4; w++ {
		require.NoError(t, <-errs)
	}
}
