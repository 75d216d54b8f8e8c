package pyhooks

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
)

// benchDocs are n GSM8K-sized rows (a question and a worked answer).
func benchDocs(b *testing.B, n int) [][]byte {
	out := make([][]byte, n)
	for i := range out {
		d := map[string]any{
			"question": fmt.Sprintf("Janet's ducks lay %d eggs per day. She eats three for breakfast every morning and bakes muffins for her friends every day with four. She sells the remainder at the farmers' market daily for $2 per fresh duck egg. How much in dollars does she make every day?", i),
			"answer":   fmt.Sprintf("Janet sells %d - 3 - 4 = <<%d-3-4=%d>>%d duck eggs a day.\nShe makes %d * 2 = $<<%d*2=%d>>%d every day.\n#### %d", i, i, i-7, i-7, i-7, i-7, 2*(i-7), 2*(i-7), 2*(i-7)),
		}
		var err error
		if out[i], err = json.Marshal(d); err != nil {
			b.Fatal(err)
		}
	}
	return out
}

// BenchmarkBridgeProcessDocs runs a one-line process_docs over 10,000 docs
// in one call (lm-eval hands process_docs the whole split).
func BenchmarkBridgeProcessDocs(b *testing.B) {
	br := testBridge(b, Options{})
	docs := benchDocs(b, 10000)
	ctx := context.Background()
	hook := Hook{File: mustAbs(b, "testdata/hooks/utils.py"), Function: "bench_process_docs"}
	if _, _, err := br.ProcessDocs(ctx, Call{Task: "bench", Kind: "process_docs", Hook: hook}, []string{"question", "answer"}, docs); err != nil {
		b.Fatal(err) // warm: the interpreter and the module are loaded
	}
	b.ResetTimer()
	for range b.N {
		if _, _, err := br.ProcessDocs(ctx, Call{Task: "bench", Kind: "process_docs", Hook: hook}, []string{"question", "answer"}, docs); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N*len(docs))/b.Elapsed().Seconds(), "docs/s")
}

// BenchmarkBridgeProcessResults scores 10,000 responses with a one-line
// process_results, in batches of 256 docs.
func BenchmarkBridgeProcessResults(b *testing.B) {
	br := testBridge(b, Options{})
	docs := benchDocs(b, 10000)
	items := make([]ResultsItem, len(docs))
	for i, d := range docs {
		items[i] = ResultsItem{Doc: d, Results: json.RawMessage(fmt.Sprintf(`["The answer is %d."]`, 2*(i-7)))}
	}
	ctx := context.Background()
	hook := Hook{File: mustAbs(b, "testdata/hooks/utils.py"), Function: "bench_process_results"}
	if _, err := br.ProcessResults(ctx, Call{Task: "bench", Kind: "process_results", Hook: hook}, items[:1]); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for range b.N {
		for start := 0; start < len(items); start += 256 {
			batch := items[start:min(start+256, len(items))]
			if _, err := br.ProcessResults(ctx, Call{Task: "bench", Kind: "process_results", Hook: hook}, batch); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(b.N*len(items))/b.Elapsed().Seconds(), "docs/s")
}

// BenchmarkBridgeStartup starts an interpreter, loads the bridge and
// answers its first request, then stops it: the fixed cost of a run.
func BenchmarkBridgeStartup(b *testing.B) {
	py := testBridge(b, Options{}).opts.Python
	ctx := context.Background()
	for range b.N {
		br := New(Options{Python: py})
		if _, err := br.Interpreter(ctx); err != nil {
			b.Fatal(err)
		}
		if err := br.Close(); err != nil {
			b.Fatal(err)
		}
	}
}
