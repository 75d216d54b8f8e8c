package cpu

import (
	"context"
	"math"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/entropix-eval/entropix-eval/engine"
	"github.com/entropix-eval/entropix-eval/internal/sharedtest"
)

type (
	gf      = sharedtest.Float
	pairs   = [][2]gf // [[id, logit], ...]
	goldenF struct {
		Model           string `json:"model"`
		ModelDir        string `json:"model_dir"`
		RopeInvFreq     []gf   `json:"rope_inv_freq"`
		GreedyNewTokens int    `json:"greedy_new_tokens"`
		Cases           []goldenCase
		Batch           struct {
			Cases []int `json:"cases"`
		} `json:"batch"`
	}
	goldenCase struct {
		Name         string  `json:"name"`
		PromptIDs    []int32 `json:"prompt_ids"`
		LastLogits   []gf    `json:"last_logits"`
		Top10        []pairs `json:"top10"`
		GreedyIDs    []int32 `json:"greedy_ids"`
		GreedyTop10  []pairs `json:"greedy_top10"`
		AttnScores   [][]gf  `json:"last_layer_attn_scores"`
		AttnEntropy  []gf    `json:"last_layer_attn_entropy_bits"`
		LogPartition gf      `json:"logits_log_partition"`
		Entropy      gf      `json:"logits_entropy_bits"`
		Varentropy   gf      `json:"logits_varentropy_bits2"`
	}
)

// Tolerances from ../shared/golden/models/README.md.
const (
	relTol   = 2e-5 // per element, times max(1, max|want|)
	l2Tol    = 1e-4 // relative L2 of the last logits
	statsTol = 1e-4 // entropies, varentropy, log Z (absolute)
)

// maxErr tracks the largest deviation seen per check, for the report.
type maxErr map[string]float64

func (m maxErr) see(name string, v float64) {
	if v > m[name] {
		m[name] = v
	}
}

func loadGolden(t *testing.T, name string) (*goldenF, *engine.Model) {
	t.Helper()
	var g goldenF
	sharedtest.ReadJSON(t, filepath.Join("golden/models", name+".json"), &g)
	m, err := engine.Load(sharedtest.Path(t, g.ModelDir))
	require.NoError(t, err)
	t.Cleanup(func() { _ = m.Close() })
	return &g, m
}

func newEngine(t testing.TB, m *engine.Model, o engine.Options) *Engine {
	t.Helper()
	e, err := New(m, o)
	require.NoError(t, err)
	t.Cleanup(func() { _ = e.Close() })
	return e
}

var ctx = context.Background()

func step(t testing.TB, e *Engine, in ...engine.Input) []engine.Output {
	t.Helper()
	var out []engine.Output
	require.NoError(t, e.Step(context.Background(), in, &out))
	return out
}

// stepLogits is the full logits vector behind output i of the engine's last step
// (the public Dist carries only the top K).
func stepLogits(e *Engine, i int) []float32 {
	v := e.cfg.VocabSize
	return e.buf.logits[i*v : (i+1)*v]
}

// logitsOf rebuilds the full logits vector from a whole-vocabulary Dist (TopK 0).
func logitsOf(t testing.TB, d *engine.Dist) []float32 {
	t.Helper()
	require.Len(t, d.Candidates, d.VocabSize, "engine must run with TopK 0 for this check")
	l := make([]float32, d.VocabSize)
	for _, c := range d.Candidates {
		l[c.ID] = c.Logit
	}
	return l
}

func maxAbs(v []gf) float64 {
	m := 0.0
	for _, x := range v {
		m = math.Max(m, math.Abs(float64(x)))
	}
	return m
}

// checkVector compares element-wise within relTol·max(1, max|want|) and returns
// the largest absolute error.
func checkVector(t *testing.T, what string, got []float32, want []gf) float64 {
	t.Helper()
	require.Len(t, got, len(want), what)
	tol := relTol * math.Max(1, maxAbs(want))
	worst := 0.0
	for i := range want {
		d := math.Abs(float64(got[i]) - float64(want[i]))
		worst = math.Max(worst, d)
		if d > tol {
			t.Errorf("%s[%d]: got %.8g want %.8g (|Δ| %.3g > %.3g)", what, i, got[i], float64(want[i]), d, tol)
			return worst
		}
	}
	return worst
}

// relL2 is ‖got − want‖ / ‖want‖.
func relL2(got []float32, want []gf) float64 {
	var num, den float64
	for i := range want {
		d := float64(got[i]) - float64(want[i])
		num += d * d
		den += float64(want[i]) * float64(want[i])
	}
	return math.Sqrt(num / den)
}

// checkTop10 checks a golden top-10 list against an engine's logits: every golden
// id's logit within tol, the sorted values within tol, and where the ranked ids
// differ, the two ids are tied within tol in the engine's own logits (the README
// allows reordering only among entries that close). It returns the worst |Δ|.
func checkTop10(t *testing.T, what string, logits []float32, d *engine.Dist, want pairs, scale float64) float64 {
	t.Helper()
	tol := relTol * math.Max(1, scale)
	worst := 0.0
	require.GreaterOrEqual(t, len(d.Candidates), len(want), what)
	for k, w := range want {
		id, wl := int(w[0]), float64(w[1])
		dl := math.Abs(float64(logits[id]) - wl)
		worst = math.Max(worst, dl)
		got := d.Candidates[k]
		if dl > tol || math.Abs(float64(got.Logit)-wl) > tol {
			t.Errorf("%s rank %d: golden id %d logit %.8g; engine has %.8g for it and id %d (%.8g) at that rank",
				what, k, id, wl, logits[id], got.ID, got.Logit)
			return worst
		}
		if int(got.ID) != id && math.Abs(float64(logits[id]-got.Logit)) > tol {
			t.Errorf("%s rank %d: id %d instead of golden %d, and they are %.3g apart (> %.3g)",
				what, k, got.ID, id, math.Abs(float64(logits[id]-got.Logit)), tol)
			return worst
		}
	}
	return worst
}

// maxTop10Logit is the scale of a top-10 list for the tolerance.
func maxTop10Logit(p pairs) float64 {
	m := 0.0
	for _, x := range p {
		m = math.Max(m, math.Abs(float64(x[1])))
	}
	return m
}
