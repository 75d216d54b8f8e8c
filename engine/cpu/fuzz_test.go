package cpu

import (
	"context"
	"testing"

	"github.com/entropix-eval/entropix-eval/engine"
)

// FuzzStep feeds arbitrary slot/token sequences to a small engine: a step may be
// rejected, but never panics, and a rejected step leaves every slot's length as it was.
func FuzzStep(f *testing.F) {
	f.Add([]byte{0, 3, 1, 2, 3, 1, 1, 9})
	f.Add([]byte{2, 0, 255, 255, 255})
	f.Add([]byte{1, 40, 7})
	spec, err := engine.TestModelPreset("tiny")
	if err != nil {
		f.Fatal(err)
	}
	m := buildModel(f, spec)
	e, err := New(m, engine.Options{Slots: 2, MaxSeqLen: 16, PrefillChunk: 8, TopK: 4, MetricLayer: -1})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		// Each input is (slot byte, count byte, count token bytes); byte 255 as a
		// token maps beyond the vocabulary (256 → out of range), slot bytes ≥ 2 too.
		var in []engine.Input
		for len(data) >= 2 && len(in) < 4 {
			slot, n := int(data[0])-1, int(data[1])%12
			data = data[2:]
			n = min(n, len(data))
			toks := make([]int32, n)
			for i := range toks {
				toks[i] = int32(data[i])
				if data[i] == 255 {
					toks[i] = 256
				}
			}
			data = data[n:]
			in = append(in, engine.Input{Slot: slot, Tokens: toks})
		}
		before := [2]int{e.Len(0), e.Len(1)}
		var out []engine.Output
		if err := e.Step(context.Background(), in, &out); err != nil {
			if after := [2]int{e.Len(0), e.Len(1)}; after != before {
				t.Fatalf("rejected step changed lengths %v → %v: %v", before, after, err)
			}
		} else if len(out) != len(in) {
			t.Fatalf("%d outputs for %d inputs", len(out), len(in))
		}
		for s := range 2 {
			if e.Len(s) > 12 {
				e.Free(s)
			}
		}
	})
}
