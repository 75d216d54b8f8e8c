package sampler

import (
	"fmt"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/entropix-eval/entropix-eval/internal/sharedtest"
)

// Statistical tests: draw many tokens with a fixed seed and compare the empirical
// frequencies with the GOLDEN truncated distribution by Pearson's chi-square test.
// Bins whose expected count is below 5 are pooled into one. The significance level is
// fixed at alpha = 1e-3; the seeds are fixed too, so each test is deterministic (it
// cannot flake) and a correct sampler fails it for only ~0.1% of seed choices.
const chiAlpha = 1e-3

// chiSquareP returns the p-value of observed counts against expected probabilities.
func chiSquareP(t *testing.T, counts []int, probs []float64, n int) (p, stat float64, df int) {
	t.Helper()
	var s, pooledE float64
	var pooledO, bins int
	for i, pr := range probs {
		e := pr * float64(n)
		if e < 5 {
			pooledE += e
			pooledO += counts[i]
			continue
		}
		d := float64(counts[i]) - e
		s += d * d / e
		bins++
	}
	if pooledE > 0 {
		d := float64(pooledO) - pooledE
		s += d * d / math.Max(pooledE, 1e-300)
		bins++
	}
	if bins < 2 {
		return 1, s, 0
	}
	df = bins - 1
	return gammaQ(float64(df)/2, s/2), s, df
}

// gammaQ is the regularised upper incomplete gamma function Q(a, x) (series for
// x < a+1, Lentz continued fraction otherwise), enough for chi-square p-values.
func gammaQ(a, x float64) float64 {
	if x <= 0 {
		return 1
	}
	lg, _ := math.Lgamma(a)
	if x < a+1 {
		sum, term := 1/a, 1/a
		for n := 1; n < 1000; n++ {
			term *= x / (a + float64(n))
			sum += term
			if term < sum*1e-15 {
				break
			}
		}
		return 1 - sum*math.Exp(-x+a*math.Log(x)-lg)
	}
	const tiny = 1e-300
	b := x + 1 - a
	c, d := 1/tiny, 1/b
	h := d
	for i := 1; i < 1000; i++ {
		an := -float64(i) * (float64(i) - a)
		b += 2
		d = an*d + b
		if math.Abs(d) < tiny {
			d = tiny
		}
		c = b + an/c
		if math.Abs(c) < tiny {
			c = tiny
		}
		d = 1 / d
		del := d * c
		h *= del
		if math.Abs(del-1) < 1e-15 {
			break
		}
	}
	return math.Exp(-x+a*math.Log(x)-lg) * h
}

func TestGammaQKnownValues(t *testing.T) {
	// Chi-square upper tails from tables: P(X > 3.841 | df 1) = 0.05,
	// P(X > 18.307 | df 10) = 0.05, P(X > 124.342 | df 100) = 0.05.
	for _, c := range []struct{ x, df float64 }{{3.841458820694124, 1}, {18.307038053275146, 10}, {124.34211340400407, 100}} {
		assert.InDelta(t, 0.05, gammaQ(c.df/2, c.x/2), 1e-9, "df %v", c.df)
	}
}

// drawsFor keeps the package fast: large vocabularies cost more per draw.
func drawsFor(vocab int) int {
	switch {
	case vocab > 10000:
		return 600
	case vocab > 500:
		return 6000
	}
	return 20000
}

// TestBaselineFrequencies draws through Baseline.Sample (the public path) for every
// sampled case of truncation.json.
func TestBaselineFrequencies(t *testing.T) {
	for _, c := range loadTruncation(t) {
		if c.Expected.Mode == "greedy" {
			continue
		}
		t.Run(c.ID, func(t *testing.T) {
			order, _ := ParseOrder(c.Order)
			b, err := NewBaseline("combined", c.Params.params(), order)
			require.NoError(t, err)
			d := fullDist(sharedtest.Float32s(c.Logits), 0)
			index := map[int32]int{}
			probs := make([]float64, len(c.Expected.Survivors))
			for i, id := range c.Expected.Survivors {
				index[id] = i
				probs[i] = float64(c.Expected.Probs[i])
			}
			n := drawsFor(len(c.Logits))
			counts := make([]int, len(probs))
			r := NewRNG(20261122, "chi-square/"+c.ID, 0)
			for range n {
				dec, err := b.Sample(d, nil, nil, r)
				require.NoError(t, err)
				i, ok := index[dec.Token]
				require.True(t, ok, "token %d is not a golden survivor", dec.Token)
				counts[i]++
			}
			p, stat, df := chiSquareP(t, counts, probs, n)
			assert.Greater(t, p, chiAlpha, "chi2 %.2f df %d p %.3g (%s)", stat, df, p, c.Note)
		})
	}
}

// TestOriginalSampleFrequencies draws from the faithful _sample distribution for
// every case of original_sample_quirks.json.
func TestOriginalSampleFrequencies(t *testing.T) {
	var g struct{ Cases []quirksCase }
	sharedtest.ReadJSON(t, "golden/sampler/original_sample_quirks.json", &g)
	for _, c := range g.Cases {
		t.Run(c.ID, func(t *testing.T) {
			d := fullDist(sharedtest.Float32s(c.Logits), 0)
			var tr truncator
			cut := tr.originalSample(d, c.Params.params())
			w := tr.weights(cut)
			index := map[int32]int{}
			probs := make([]float64, len(c.Expected.Support))
			for i, id := range c.Expected.Support {
				index[id] = i
				probs[i] = float64(c.Expected.SupportProbs[i])
			}
			n := 20000
			counts := make([]int, len(probs))
			r := NewRNG(7, "quirks/"+c.ID, 0)
			for range n {
				id := d.Candidates[cut.start+r.race(w)].ID
				i, ok := index[id]
				require.True(t, ok, "token %d outside the golden support", id)
				counts[i]++
			}
			p, stat, df := chiSquareP(t, counts, probs, n)
			assert.Greater(t, p, chiAlpha, "chi2 %.2f df %d p %.3g (%s)", stat, df, p, c.Note)
		})
	}
}

// TestAdaptiveBestOfFrequencies checks the adaptive pick: the best (most likely) of
// n i.i.d. draws from a golden distribution p sorted descending lands on rank i with
// probability T_i^n − T_{i+1}^n, T_i = Σ_{j≥i} p_j.
func TestAdaptiveBestOfFrequencies(t *testing.T) {
	cases := loadTruncation(t)
	for _, id := range []string{"t24", "t26", "t40", "t52"} {
		t.Run(id, func(t *testing.T) {
			var c truncationCase
			for _, x := range cases {
				if x.ID == id {
					c = x
				}
			}
			order, _ := ParseOrder(c.Order)
			d := fullDist(sharedtest.Float32s(c.Logits), 0)
			var tr truncator
			cut := tr.truncate(d, c.Params.params(), order)
			w := tr.weights(cut)
			// Golden probabilities in the candidates' (descending) order.
			golden := map[int32]float64{}
			for i, s := range c.Expected.Survivors {
				golden[s] = float64(c.Expected.Probs[i])
			}
			p := make([]float64, cut.end)
			for i := range p {
				p[i] = golden[d.Candidates[i].ID]
			}
			const nSamples = 5
			expect := make([]float64, len(p))
			for i := range p {
				var ti, tnext float64
				for j := i; j < len(p); j++ {
					ti += p[j]
				}
				tnext = ti - p[i]
				expect[i] = math.Pow(ti, nSamples) - math.Pow(math.Max(tnext, 0), nSamples)
			}
			n := 20000
			counts := make([]int, len(p))
			picks := make([]int, nSamples)
			r := NewRNG(11, "adaptive/"+id, 0)
			for range n {
				for k := range picks {
					picks[k] = r.race(w)
				}
				counts[picks[selectBest(d, picks, false)]]++
			}
			pv, stat, df := chiSquareP(t, counts, expect, n)
			assert.Greater(t, pv, chiAlpha, "chi2 %.2f df %d p %.3g", stat, df, pv)
		})
	}
}

// TestRNGUniformity checks the stream's uniform and exponential variates.
func TestRNGUniformity(t *testing.T) {
	r := NewRNG(1, "uniformity", 0)
	const bins, n = 64, 64000
	counts := make([]int, bins)
	probs := make([]float64, bins)
	var expSum float64
	for i := range probs {
		probs[i] = 1.0 / bins
	}
	for range n {
		u := r.Float64()
		require.True(t, u > 0 && u < 1)
		counts[int(u*bins)]++
		expSum += r.Exp()
	}
	p, stat, df := chiSquareP(t, counts, probs, n)
	assert.Greater(t, p, chiAlpha, "chi2 %.2f df %d", stat, df)
	// Exp(1) has mean 1 and sd 1: the mean of n draws is within 5 sd/sqrt(n).
	assert.InDelta(t, 1, expSum/n, 5/math.Sqrt(n), fmt.Sprint("exp mean"))
}

// TestEntropixAdaptiveFrequencies draws through Entropix.Sample in the adaptive branch
// (fixed and faithful) and compares with best-of-5 over the truncated distribution
// (whose survivors and probabilities the golden tests above pin down).
func TestEntropixAdaptiveFrequencies(t *testing.T) {
	for _, f := range []string{"entropix", "entropix,faithful=true", "entropix:frog"} {
		t.Run(f, func(t *testing.T) {
			smp := mustSpec(t, f).(*Entropix)
			d := fullDist(testLogits(40, 17), 0)
			attn := adaptiveAttn
			m, err := smp.metricsOf(d, &attn, nil)
			require.NoError(t, err)
			pl := smp.plan(m, false)
			require.Equal(t, StrategyAdaptive, pl.strategy)
			var tr truncator
			c := tr.truncate(d, pl.params, smp.order)
			if smp.cfg.Faithful {
				c = tr.originalSample(d, pl.params)
			}
			w := tr.weights(c)
			p := make([]float64, len(d.Candidates)) // by candidate rank
			for i, x := range w {
				p[c.start+i] = x / c.z
			}
			expect := make([]float64, len(p))
			var tail float64 // Σ_{j ≥ i} p_j, from the least likely up
			for i := len(p) - 1; i >= 0; i-- {
				next := tail
				tail += p[i]
				expect[i] = math.Pow(tail, float64(pl.nSamples)) - math.Pow(next, float64(pl.nSamples))
			}
			rank := map[int32]int{}
			for i, cand := range d.Candidates {
				rank[cand.ID] = i
			}
			n := 20000
			counts := make([]int, len(p))
			r := NewRNG(5, "entropix-adaptive/"+f, 0)
			for range n {
				dec, err := smp.Sample(d, &attn, []int32{1}, r)
				require.NoError(t, err)
				require.Equal(t, StrategyAdaptive, dec.Strategy)
				counts[rank[dec.Token]]++
			}
			pv, stat, df := chiSquareP(t, counts, expect, n)
			assert.Greater(t, pv, chiAlpha, "chi2 %.2f df %d p %.3g", stat, df, pv)
		})
	}
}
