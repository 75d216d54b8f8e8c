package cpu

import (
	"cmp"
	"fmt"
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/entropix-eval/entropix-eval/engine"
)

// roundBF16Cases are float32 bits and their bfloat16 rounding, derived by hand.
var roundBF16Cases = []struct {
	in   uint32
	want uint16
	why  string
}{
	{0x3f800000, 0x3f80, "exact"},
	{0x3f808000, 0x3f80, "tie to even (down)"},
	{0x3f818000, 0x3f82, "tie to even (up)"},
	{0x3f808001, 0x3f81, "above the tie"},
	{0xbf80ffff, 0xbf81, "negative rounds by magnitude"},
	{0x7f7fffff, 0x7f80, "overflow to infinity"},
	{0x7f800000, 0x7f80, "infinity"},
	{0x00800000, 0x0080, "smallest normal"},
	{0x007fffff, 0x0000, "subnormal to zero (DAZ), not up to 0x0080"},
	{0x80000001, 0x8000, "negative subnormal to -0"},
	{0x7fc12345, 0x7fc1, "quiet NaN keeps its top payload"},
	{0x7f812345, 0x7fc1, "signalling NaN made quiet"},
	{0xff812345, 0xffc1, "negative NaN"},
	{0x7f800001, 0x7fc0, "NaN whose payload is all below bit 16 stays a NaN"},
}

func TestRoundBF16(t *testing.T) {
	for _, c := range roundBF16Cases {
		require.Equal(t, c.want, roundBF16(math.Float32frombits(c.in)), "%#08x: %s", c.in, c.why)
	}
}

// TestBF16DotOrder spells the contract out where the order shows: the odd
// element of a pair is added before the even one, each step rounding.
func TestBF16DotOrder(t *testing.T) {
	one, big, negBig := roundBF16(1), roundBF16(1<<24), roundBF16(-1<<24)
	ones := []uint16{one, one, one, one}
	for _, c := range []struct {
		w    []uint16
		want float32
		why  string
	}{
		{[]uint16{one, 0, big, negBig}, 1, "1 − 2²⁴ is exact, + 2²⁴ gives 1 back"},
		{[]uint16{one, 0, negBig, big}, 0, "1 + 2²⁴ ties to 2²⁴ and loses the 1"},
		{[]uint16{one, 0, big}, 1 << 24, "odd length: the padded pair adds 0, then 2²⁴"},
	} {
		require.Equal(t, c.want, bf16Dot(c.w, ones), "w=%04x: %s", c.w, c.why)
	}
}

// precisions are the matmul modes every invariance check runs in.
var precisions = []engine.MatmulPrecision{engine.MatmulFP32, engine.MatmulBF16}

// bf16 golden tolerances. Rounding an activation to bfloat16 is a relative error
// of at most u = 2⁻⁹, RMS u/√3 ≈ 1.1e-3 for a uniformly spread rounding error.
// Each layer rounds four matmul inputs (q/k/v, o, gate/up, down) and the lm head
// one more: S = 4·layers + 1 independent perturbations whose effects add in
// quadrature, so the logits' relative L2 error is about (u/√3)·√S times how much
// the network amplifies a relative perturbation. The tolerance allows an
// amplification of 4: bf16L2Tol(S) = 4·(u/√3)·√S (1.4e-2 at S = 9). The goldens'
// models measure 2e-3 to 6e-3, an amplification of 0.6 to 1.3, against fp32's
// 1e-7 (the test log prints both).
func bf16L2Tol(layers int) float64 {
	const u = 1.0 / 512
	return 4 * u / math.Sqrt(3) * math.Sqrt(float64(4*layers+1))
}

// TestBF16Golden runs every golden prompt in one prefill in BF16 precision and
// checks the last logits against the float64 goldens: relative L2 within
// bf16L2Tol, and the top-1 token the goldens' unless their top two are closer
// than the error measured (a tie at this precision). It logs fp32's errors beside.
func TestBF16Golden(t *testing.T) {
	for _, name := range goldenModels {
		t.Run(name, func(t *testing.T) {
			g, m := loadGolden(t, name)
			tol := bf16L2Tol(m.Config.Layers)
			for _, c := range g.Cases {
				errs := map[engine.MatmulPrecision]string{}
				l2s := map[engine.MatmulPrecision]float64{}
				for _, prec := range precisions {
					e := newEngine(t, m, engine.Options{MaxSeqLen: len(c.PromptIDs), MetricLayer: -1, TopK: 16, MatmulPrecision: prec})
					step(t, e, engine.Input{Slot: 0, Tokens: c.PromptIDs})
					logits := stepLogits(e, 0)
					l2, maxAbsErr := relL2(logits, c.LastLogits), 0.0
					for i, w := range c.LastLogits {
						maxAbsErr = math.Max(maxAbsErr, math.Abs(float64(logits[i])-float64(w)))
					}
					gotTop, wantTop, margin := argmax(logits), argmax(c.LastLogits), top2Margin(c.LastLogits)
					l2s[prec] = l2
					errs[prec] = fmt.Sprintf("relL2 %.2e max|Δ| %.2e (max|logit| %.3g) top1 %v", l2, maxAbsErr, maxAbs(c.LastLogits), gotTop == wantTop)
					if prec != engine.MatmulBF16 {
						continue
					}
					require.LessOrEqual(t, l2, tol, "%s: relative L2 of the last logits", c.Name)
					require.Greater(t, l2, 100*l2s[engine.MatmulFP32], "%s: BF16 precision must round (fp32 runs first)", c.Name)
					if margin > 2*maxAbsErr {
						require.Equal(t, wantTop, gotTop, "%s: top-1 (golden margin %.3g)", c.Name, margin)
					}
				}
				t.Logf("%s %s: bf16 %s | fp32 %s (bf16 tol %.2e)", name, c.Name, errs[engine.MatmulBF16], errs[engine.MatmulFP32], tol)
			}
		})
	}
}

// argmax is the index of the first largest value.
func argmax[T cmp.Ordered](v []T) int {
	best := 0
	for i, x := range v {
		if x > v[best] {
			best = i
		}
	}
	return best
}

// top2Margin is the gap between the two largest values.
func top2Margin(v []gf) float64 {
	a, b := math.Inf(-1), math.Inf(-1)
	for _, x := range v {
		f := float64(x)
		if f > a {
			a, b = f, a
		} else if f > b {
			b = f
		}
	}
	return a - b
}

// TestBF16PlanCountsPanels checks that the memory plan counts exactly the panels
// an engine in BF16 precision builds (the tied head once, for a tied model).
func TestBF16PlanCountsPanels(t *testing.T) {
	for name, spec := range invarianceSpecs {
		t.Run(name, func(t *testing.T) {
			m := buildModel(t, spec)
			e := newEngine(t, m, engine.Options{MaxSeqLen: 8, MatmulPrecision: engine.MatmulBF16})
			var built int64
			for _, p := range e.bf16.panels {
				built += int64(len(p.data)) * 4
			}
			require.Equal(t, bf16PlanBytes(&m.Config, 0), built)
			fp32 := planMemory(&m.Config, engine.Options{Slots: 1, MaxSeqLen: 8, PrefillChunk: 8, Threads: 1}, 0)
			bf16 := planMemory(&m.Config, engine.Options{Slots: 1, MaxSeqLen: 8, PrefillChunk: 8, Threads: 1, MatmulPrecision: engine.MatmulBF16}, 0)
			require.Equal(t, bf16PlanBytes(&m.Config, 8), bf16.total()-fp32.total())
		})
	}
}
