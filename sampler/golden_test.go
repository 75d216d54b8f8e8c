package sampler

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/entropix-eval/entropix-eval/internal/sharedtest"
	"github.com/entropix-eval/entropix-eval/sampler/metrics"
)

// Golden tests of the truncation core: truncation.json and original_sample_quirks.json.

// Tolerances of golden/sampler/README.md for a float64 implementation.
const (
	probRtol, probAtol   = 1e-9, 1e-12
	paramRtol, paramAtol = 1e-12, 1e-12
)

type goldenParams struct {
	Temperature float64 `json:"temperature"`
	TopK        int     `json:"top_k"`
	TopP        float64 `json:"top_p"`
	MinP        float64 `json:"min_p"`
}

func (g goldenParams) params() Params { return Params{g.Temperature, g.TopK, g.TopP, g.MinP} }

type truncationCase struct {
	ID       string             `json:"id"`
	Note     string             `json:"note"`
	Order    string             `json:"order"`
	Logits   []sharedtest.Float `json:"logits"`
	Params   goldenParams       `json:"params"`
	Expected struct {
		Mode      string             `json:"mode"`
		Survivors []int32            `json:"survivors"`
		Probs     []sharedtest.Float `json:"probs"`
	} `json:"expected"`
}

func loadTruncation(t *testing.T) []truncationCase {
	var g struct{ Cases []truncationCase }
	sharedtest.ReadJSON(t, "golden/sampler/truncation.json", &g)
	require.Len(t, g.Cases, 60)
	return g.Cases
}

// fullDist summarises logits keeping k candidates (0: the whole vocabulary).
func fullDist(logits []float32, k int) *metrics.Dist {
	var d metrics.Dist
	metrics.FillDist(&d, logits, k)
	return &d
}

// support lists a cut's tokens with nonzero probability, ascending by id, with
// their renormalised probabilities.
func support(d *metrics.Dist, tr *truncator, c cut) ([]int32, []float64) {
	if c.greedy {
		return []int32{d.Candidates[0].ID}, []float64{1}
	}
	w := tr.weights(c)
	type tp struct {
		id int32
		p  float64
	}
	var all []tp
	for i, x := range w {
		all = append(all, tp{d.Candidates[c.start+i].ID, x / c.z})
	}
	slices.SortFunc(all, func(a, b tp) int { return int(a.id - b.id) })
	ids, ps := make([]int32, len(all)), make([]float64, len(all))
	for i, x := range all {
		ids[i], ps[i] = x.id, x.p
	}
	return ids, ps
}

func assertProbs(t *testing.T, want []sharedtest.Float, got []float64) {
	t.Helper()
	require.Len(t, got, len(want))
	for i := range want {
		assert.Truef(t, sharedtest.Close(got[i], float64(want[i]), probRtol, probAtol),
			"prob %d: got %.17g want %.17g", i, got[i], float64(want[i]))
	}
}

func TestTruncationGolden(t *testing.T) {
	for _, c := range loadTruncation(t) {
		t.Run(c.ID, func(t *testing.T) {
			order, err := ParseOrder(c.Order)
			require.NoError(t, err)
			logits := sharedtest.Float32s(c.Logits)
			d := fullDist(logits, 0)
			var tr truncator
			got := tr.truncate(d, c.Params.params(), order)
			assert.Equal(t, c.Expected.Mode == "greedy", got.greedy, "mode")
			assert.False(t, got.tailCut, "no tail with the full vocabulary")
			ids, probs := support(d, &tr, got)
			assert.Equal(t, c.Expected.Survivors, ids, c.Note)
			assertProbs(t, c.Expected.Probs, probs)
		})
	}
}

// With fewer candidates than the vocabulary the truncation must either reproduce the
// full-vocabulary answer exactly or say that the tail could matter.
func TestTruncationGoldenWithTopKCandidates(t *testing.T) {
	var exact, flagged int
	for _, c := range loadTruncation(t) {
		order, _ := ParseOrder(c.Order)
		logits := sharedtest.Float32s(c.Logits)
		for _, k := range []int{1, 2, len(c.Expected.Survivors), len(c.Expected.Survivors) + 1, 2 * len(c.Expected.Survivors), len(logits) - 1} {
			if k < 1 || k >= len(logits) {
				continue
			}
			d := fullDist(logits, k)
			var tr truncator
			got := tr.truncate(d, c.Params.params(), order)
			if got.tailCut {
				flagged++
				assert.GreaterOrEqual(t, got.tailMass, 0.0, "%s k=%d: tail mass reported", c.ID, k)
				continue
			}
			exact++
			ids, probs := support(d, &tr, got)
			assert.Equal(t, c.Expected.Survivors, ids, "%s k=%d", c.ID, k)
			if len(probs) == len(c.Expected.Probs) {
				assertProbs(t, c.Expected.Probs, probs)
			}
		}
	}
	t.Logf("top-K candidates: %d exact, %d flagged as needing the tail", exact, flagged)
	assert.Greater(t, exact, 100)
}

type quirksCase struct {
	ID       string             `json:"id"`
	Note     string             `json:"note"`
	Logits   []sharedtest.Float `json:"logits"`
	Params   goldenParams       `json:"params"`
	Expected struct {
		Support       []int32            `json:"support"`
		SupportProbs  []sharedtest.Float `json:"support_probs"`
		RemovesArgmax bool               `json:"removes_argmax"`
		Argmax        int32              `json:"argmax"`
	} `json:"expected"`
}

func TestOriginalSampleQuirksGolden(t *testing.T) {
	var g struct{ Cases []quirksCase }
	sharedtest.ReadJSON(t, "golden/sampler/original_sample_quirks.json", &g)
	require.Len(t, g.Cases, 36)
	for _, c := range g.Cases {
		t.Run(c.ID, func(t *testing.T) {
			logits := sharedtest.Float32s(c.Logits)
			d := fullDist(logits, 0)
			var tr truncator
			got := tr.originalSample(d, c.Params.params())
			assert.False(t, got.tailCut)
			ids, probs := support(d, &tr, got)
			var nz []int32
			var nzp []float64
			for i := range ids {
				if probs[i] > 0 {
					nz, nzp = append(nz, ids[i]), append(nzp, probs[i])
				}
			}
			assert.Equal(t, c.Expected.Support, nz, c.Note)
			assertProbs(t, c.Expected.SupportProbs, nzp)
			assert.Equal(t, c.Expected.Argmax, d.Candidates[0].ID)
			assert.Equal(t, c.Expected.RemovesArgmax, got.start > 0, "removes argmax")

			// Top-K candidates only (K > top_k): exact, or flagged.
			if k := c.Params.TopK + 3; k < len(logits) {
				d := fullDist(logits, k)
				var tr truncator
				got := tr.originalSample(d, c.Params.params())
				if !got.tailCut {
					ids, probs := support(d, &tr, got)
					var nz []int32
					for i := range ids {
						if probs[i] > 0 {
							nz = append(nz, ids[i])
						}
					}
					assert.Equal(t, c.Expected.Support, nz, "top-%d candidates", k)
				}
			}
		})
	}
}
