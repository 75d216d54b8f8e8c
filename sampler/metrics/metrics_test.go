package metrics

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/entropix-eval/entropix-eval/internal/sharedtest"
)

type goldenAttn struct {
	NSlots          int                `json:"n_slots"`
	Entropy         sharedtest.Float   `json:"attn_entropy"`
	Varentropy      sharedtest.Float   `json:"attn_varentropy"`
	VarentropyDDOF1 sharedtest.Float   `json:"attn_varentropy_ddof1"`
	Agreement       sharedtest.Float   `json:"agreement"`
	Interaction     sharedtest.Float   `json:"interaction_strength"`
	PerHead         []sharedtest.Float `json:"attn_entropy_per_head"`
}

type goldenMetrics struct {
	Cases []struct {
		ID       string               `json:"id"`
		Note     string               `json:"note"`
		NHeads   int                  `json:"n_heads"`
		KVLen    int                  `json:"kv_len"`
		CacheLen int                  `json:"cache_len"`
		Logits   []sharedtest.Float   `json:"logits"`
		Scores   [][]sharedtest.Float `json:"attn_scores"`
		Expected struct {
			Logits struct {
				Entropy      sharedtest.Float `json:"entropy_bits"`
				Varentropy   sharedtest.Float `json:"varentropy_bits2"`
				LogPartition sharedtest.Float `json:"log_partition"`
				Argmax       int              `json:"argmax"`
			} `json:"logits"`
			Masked   goldenAttn `json:"masked"`
			Faithful goldenAttn `json:"faithful"`
		} `json:"expected"`
	} `json:"cases"`
}

// The float64 tolerances of golden/sampler/README.md.
const (
	rtol = 1e-9
	atol = 1e-12
)

func TestMetricsGolden(t *testing.T) {
	var g goldenMetrics
	sharedtest.ReadJSON(t, "golden/sampler/metrics.json", &g)
	require.Len(t, g.Cases, 40)
	for _, c := range g.Cases {
		t.Run(c.ID, func(t *testing.T) {
			logits := sharedtest.Float32s(c.Logits)
			logZ, h, v := LogitStats(logits)
			want := c.Expected.Logits
			assertClose(t, "entropy", h, float64(want.Entropy))
			assertClose(t, "varentropy", v, float64(want.Varentropy))
			assertClose(t, "log_partition", logZ, float64(want.LogPartition))
			assert.Equal(t, want.Argmax, Argmax(logits), "argmax")

			var flat []float32
			for _, row := range c.Scores {
				flat = append(flat, sharedtest.Float32s(row)...)
			}
			for _, mode := range []struct {
				mode AttnMode
				want goldenAttn
			}{{Masked, c.Expected.Masked}, {Padded, c.Expected.Faithful}} {
				var a AttnStats
				require.NoError(t, a.Compute(flat, c.NHeads, c.KVLen, mode.mode, c.CacheLen))
				w := mode.want
				assert.Equal(t, w.NSlots, a.Slots, "%s slots", mode.mode)
				assertClose(t, mode.mode.String()+" entropy", a.Entropy, float64(w.Entropy))
				assertClose(t, mode.mode.String()+" varentropy", a.Varentropy, float64(w.Varentropy))
				assertClose(t, mode.mode.String()+" varentropy ddof1", a.VarentropyDDOF1, float64(w.VarentropyDDOF1))
				assertClose(t, mode.mode.String()+" agreement", a.Agreement, float64(w.Agreement))
				assertClose(t, mode.mode.String()+" interaction", a.InteractionStrength, float64(w.Interaction))
				require.Len(t, a.HeadEntropy, len(w.PerHead))
				for i := range w.PerHead {
					assertClose(t, mode.mode.String()+" head entropy", a.HeadEntropy[i], float64(w.PerHead[i]))
				}
			}
		})
	}
}

func assertClose(t *testing.T, what string, got, want float64) {
	t.Helper()
	assert.Truef(t, sharedtest.Close(got, want, rtol, atol), "%s: got %.17g want %.17g", what, got, want)
}

func TestFillDistTailMass(t *testing.T) {
	logits := []float32{0, 0, 0, 0}
	var d Dist
	FillDist(&d, logits, 1)
	assert.InDelta(t, 0.75, d.TailMass, 1e-12)
	assert.InDelta(t, 2.0, d.Entropy, 1e-12)
	assert.True(t, d.Truncated())
	FillDist(&d, logits, 0)
	assert.Equal(t, 0.0, d.TailMass)
	assert.Len(t, d.Candidates, 4)
}

func TestAttnStatsRejectsBadShapes(t *testing.T) {
	var a AttnStats
	assert.Error(t, a.Compute([]float32{1, 2, 3}, 2, 2, Masked, 0))
	assert.Error(t, a.Compute([]float32{1, 2}, 1, 2, Padded, 1))
}

func TestLogitStatsAllNegInf(t *testing.T) {
	z, h, v := LogitStats([]float32{float32(math.Inf(-1)), float32(math.Inf(-1))})
	assert.True(t, math.IsNaN(z) && math.IsNaN(h) && math.IsNaN(v))
}

func BenchmarkFillDist128k(b *testing.B) {
	logits := make([]float32, 128256)
	for i := range logits {
		logits[i] = float32(math.Sin(float64(i)*0.37) * 8)
	}
	var d Dist
	b.ReportAllocs()
	for b.Loop() {
		FillDist(&d, logits, 1024)
	}
}

// BenchmarkAttnStats: one sequence's statistics over 512 real keys and 32 heads
// (Llama-3.2-1B), masked and padded over 4096 slots; the padded view costs about
// the masked one because the empty slots enter in closed form.
func BenchmarkAttnStats(b *testing.B) {
	const heads, kv = 32, 512
	scores := make([]float32, heads*kv)
	for i := range scores {
		scores[i] = float32(math.Cos(float64(i) * 0.11))
	}
	for _, v := range []AttnView{{Mode: Masked}, {Mode: Padded, PadLen: 4096}} {
		b.Run(v.String(), func(b *testing.B) {
			var a AttnStats
			b.ReportAllocs()
			for b.Loop() {
				_ = a.ComputeView(scores, heads, kv, v)
			}
		})
	}
}
