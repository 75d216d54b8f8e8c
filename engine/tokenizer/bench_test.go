package tokenizer

import (
	"bufio"
	"encoding/json"
	"os"
	"testing"

	"github.com/entropix-eval/entropix-eval/internal/sharedtest"
)

// gsm8kTexts reads every question and answer of the GSM8K test set.
func gsm8kTexts(b testing.TB) ([]string, int64) {
	f, err := os.Open(sharedtest.Path(b, "data/gsm8k/test.jsonl"))
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	var texts []string
	var n int64
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var row struct{ Question, Answer string }
		if err := json.Unmarshal(sc.Bytes(), &row); err != nil {
			b.Fatal(err)
		}
		texts = append(texts, row.Question, row.Answer)
		n += int64(len(row.Question) + len(row.Answer))
	}
	return texts, n
}

// BenchmarkEncodeGSM8K measures encode throughput (MB/s) over the whole GSM8K
// test set. The word cache is warm after the first iteration, as in a sweep.
func BenchmarkEncodeGSM8K(b *testing.B) {
	for _, name := range []string{"llama3", "llama2"} {
		b.Run(name, func(b *testing.B) {
			tok := loadShared(b, name)
			texts, n := gsm8kTexts(b)
			b.SetBytes(n)
			b.ReportAllocs()
			var buf []int32
			for b.Loop() {
				for _, s := range texts {
					var err error
					if buf, err = tok.AppendEncode(buf[:0], s, true); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}

// BenchmarkEncodeGSM8KCold is the same without the word cache, the cost of text
// never seen before.
func BenchmarkEncodeGSM8KCold(b *testing.B) {
	tok := loadShared(b, "llama3")
	texts, n := gsm8kTexts(b)
	b.SetBytes(n)
	var buf []int32
	for b.Loop() {
		tok.model.cache.init()
		tok.model.rawCache.init()
		for _, s := range texts {
			var err error
			if buf, err = tok.AppendEncode(buf[:0], s, true); err != nil {
				b.Fatal(err)
			}
		}
	}
}

func BenchmarkDecodeGSM8K(b *testing.B) {
	tok := loadShared(b, "llama3")
	texts, n := gsm8kTexts(b)
	ids := make([][]int32, len(texts))
	for i, s := range texts {
		var err error
		if ids[i], err = tok.Encode(s, false); err != nil {
			b.Fatal(err)
		}
	}
	b.SetBytes(n)
	for b.Loop() {
		for _, seq := range ids {
			if _, err := tok.Decode(seq, false); err != nil {
				b.Fatal(err)
			}
		}
	}
}

func BenchmarkLoadLlama3(b *testing.B) {
	path := sharedtest.Path(b, "tokenizers/llama3")
	for b.Loop() {
		if _, err := Load(path); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLlama3Split compares the hand-written Llama 3 scanner with regexp2
// running the same pattern (the peer for the scanner's speed-up).
func BenchmarkLlama3Split(b *testing.B) {
	texts, n := gsm8kTexts(b)
	re, err := newRegexMatcher(llama3Pattern)
	if err != nil {
		b.Fatal(err)
	}
	for _, m := range []struct {
		name string
		m    matcher
	}{{"scanner", fastScanner(llama3Pattern)}, {"regexp2", re}} {
		b.Run(m.name, func(b *testing.B) {
			b.SetBytes(n)
			count := 0
			for b.Loop() {
				for _, s := range texts {
					if err := m.m.matches(s, func(start, end int) { count++ }); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}
