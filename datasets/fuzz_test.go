package datasets

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/entropix-eval/entropix-eval/internal/sharedtest"
)

// fuzzSeedFiles adds small shared files to a fuzz corpus when ENTROPIX_SHARED
// is set; without it the fuzzers run from their built-in seeds.
func fuzzSeedFiles(f *testing.F, rels ...string) {
	if os.Getenv("ENTROPIX_SHARED") == "" {
		return
	}
	root := sharedtest.Root(f)
	for _, rel := range rels {
		b, err := os.ReadFile(filepath.Join(root, rel))
		if err != nil {
			f.Fatalf("shared fuzz seed missing (ENTROPIX_SHARED is set): %v", err)
		}
		f.Add(b)
	}
}

func FuzzParseJSONL(f *testing.F) {
	f.Add([]byte(`{"question": "q", "answer": "a\n#### 1"}` + "\n"))
	f.Add([]byte("\xef\xbb\xbf{\"question\": \"q\", \"answer\": \"#### 2\"}\r\n{\"question\": \"r\", \"answer\": \"s\"}\r\n"))
	f.Add([]byte(`{"question": "q", "answer": nul`))
	f.Add([]byte("\n\n"))
	f.Add([]byte(`{"question": 1, "answer": null}`))
	f.Add([]byte(`[]`))
	fuzzSeedFiles(f, "data/bad/broken-line.jsonl", "data/bad/bom-crlf.jsonl")
	f.Fuzz(func(t *testing.T, data []byte) {
		ps, err := ParseJSONL("fuzz.jsonl", data)
		if err != nil {
			if ps != nil {
				t.Fatal("rows returned with an error")
			}
			if !strings.HasPrefix(err.Error(), "fuzz.jsonl") {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		if len(ps) == 0 {
			t.Fatal("no rows and no error")
		}
		for i, p := range ps {
			if p.Index != i || !utf8.ValidString(p.Question) || !utf8.ValidString(p.Answer) {
				t.Fatalf("row %d: bad problem %+v", i, p)
			}
		}
		// What parsed must survive a write and re-read unchanged.
		var buf bytes.Buffer
		if err := WriteJSONL(&buf, ps); err != nil {
			t.Fatal(err)
		}
		again, err := ParseJSONL("again.jsonl", buf.Bytes())
		if err != nil {
			t.Fatalf("re-read of written JSONL: %v", err)
		}
		for i := range ps {
			if again[i].Question != ps[i].Question || again[i].Answer != ps[i].Answer {
				t.Fatalf("row %d changed in a JSONL round trip", i)
			}
		}
	})
}

func FuzzReadParquet(f *testing.F) {
	var buf bytes.Buffer
	if err := WriteParquet(&buf, []Problem{{Question: "q", Answer: "a\n#### 1"}, {Question: "r", Answer: "s"}}, nil); err != nil {
		f.Fatal(err)
	}
	f.Add(buf.Bytes())
	f.Add([]byte("PAR1"))
	f.Add([]byte("PAR1\x00\x00\x00\x00PAR1"))
	fuzzSeedFiles(f, "data/gsm8k/sample/test-50.parquet", "data/bad/no-final-answer.parquet",
		"data/bad/null-answers.parquet", "data/bad/question-int64.parquet", "data/bad/zero-rows.parquet",
		"data/bad/missing-answer-column.parquet")
	f.Fuzz(func(t *testing.T, data []byte) {
		ps, err := ReadParquet("fuzz.parquet", bytes.NewReader(data), int64(len(data)))
		if err != nil {
			if ps != nil {
				t.Fatal("rows returned with an error")
			}
			if !strings.Contains(err.Error(), "fuzz.parquet") {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		for i, p := range ps {
			if !utf8.ValidString(p.Question) || !utf8.ValidString(p.Answer) {
				t.Fatalf("row %d: invalid UTF-8 accepted", i)
			}
		}
	})
}

// TestParquetMutations is a deterministic, uninstrumented companion of
// FuzzReadParquet: 2000 damaged copies of real foreign-writer files (bytes
// changed, dropped, inserted, huge varints, a bad footer length) must each
// fail or succeed quickly with an error naming the file.
func TestParquetMutations(t *testing.T) {
	var seeds [][]byte
	for _, rel := range []string{"data/gsm8k/sample/test-50.parquet", "data/bad/null-answers.parquet", "data/bad/no-final-answer.parquet"} {
		b, err := os.ReadFile(sharedtest.Path(t, rel))
		if err != nil {
			t.Fatal(err)
		}
		seeds = append(seeds, b)
	}
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 2000 {
		b := bytes.Clone(seeds[r.IntN(len(seeds))])
		for range 1 + r.IntN(6) {
			switch at := r.IntN(len(b) - 8); r.IntN(5) {
			case 0:
				b[at] = byte(r.IntN(256))
			case 1:
				b = append(b[:at], b[at+1:]...)
			case 2:
				b = append(b[:at], append([]byte{byte(r.IntN(256))}, b[at:]...)...)
			case 3:
				copy(b[at:], []byte{0xff, 0xff, 0xff, 0x7f})
			case 4:
				b[len(b)-8+r.IntN(4)] = byte(r.IntN(256)) // footer length
			}
		}
		start := time.Now()
		_, err := ReadParquet("mutant.parquet", bytes.NewReader(b), int64(len(b)))
		if d := time.Since(start); d > 5*time.Second {
			t.Fatalf("mutant %d took %v", i, d)
		}
		if err != nil && !strings.Contains(err.Error(), "mutant.parquet") {
			t.Fatalf("mutant %d: error does not name the file: %v", i, err)
		}
	}
}

// FuzzRenderValue: a doc_to_choice / doc_to_target template and a doc value
// of any text never panic, and a single-expression template that evaluates
// gives back the value itself (strings with quotes included).
func FuzzRenderValue(f *testing.F) {
	f.Add("{{choices.text}}", `it's "x"`)
	f.Add("{{[a, 'b']}}", "a")
	f.Add("{{choices.label.index(a)}}", "B")
	f.Add("{{ a }} and {{ a }}", "")
	f.Fuzz(func(t *testing.T, src, s string) {
		if len(src) > 200 || len(s) > 200 {
			return
		}
		d := Doc{"a": s, "choices": map[string]any{"text": []any{s, "y"}, "label": []any{"A", "B"}}}
		v, err := NewTemplate("doc_to_choice", src).RenderValue(d)
		if err == nil && src == "{{choices.text}}" && utf8.ValidString(s) {
			if got, ok := v.([]any); !ok || len(got) != 2 || got[0] != s {
				t.Fatalf("%q gave %#v", s, v)
			}
		}
		task := &Task{DocToTarget: NewTemplate("doc_to_target", src), DocToChoice: NewTemplate("doc_to_choice", "{{choices.text}}")}
		_, _ = task.Gold(d)
	})
}
