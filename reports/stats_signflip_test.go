package reports

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSignFlipEnumeratedByHand(t *testing.T) {
	tests := []struct {
		name string
		d    []float64
		p    float64
	}{
		// Non-zero d = 1, 1, 1, −1 (the 0 cannot flip), observed sum 2. Sums of
		// four ±1: 4 (1 pattern), 2 (4), 0 (6), −2 (4), −4 (1): |sum| ≥ 2 in 10 of 16.
		{"four ±1", []float64{1, 1, 1, -1, 0}, 10.0 / 16},
		// d = 0.5, 1, 1, observed 2.5. Sums ±0.5 ± 1 ± 1: 2.5, 0.5, 0.5, −1.5,
		// 1.5, −0.5, −0.5, −2.5: |sum| ≥ 2.5 in 2 of 8.
		{"halves", []float64{0.5, 1, 1}, 2.0 / 8},
		// All equal signs, n = 6: only the all-plus and all-minus patterns: 2/64.
		{"six wins", []float64{1, 1, 1, 1, 1, 1}, 2.0 / 64},
		{"no difference", []float64{0, 0, 0}, 1},
		// Balanced: observed sum 0, every pattern is at least as extreme.
		{"balanced", []float64{1, -1}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := SignFlip(tt.d, SignFlipOptions{})
			require.NoError(t, err)
			assert.Equal(t, SignFlipExact, got.Method)
			assert.InDelta(t, tt.p, got.P, 1e-15)
		})
	}
}

// thirds are twelve per-problem differences of means over 3 samples a side
// (multiples of 1/3), two of them 0: small enough to enumerate all 4096 sign
// patterns. The expected values below come from that enumeration in exact
// rational arithmetic (Python fractions, every pattern's |Σ ε(d − δ)| against
// |Σ (d − δ)| at every candidate end (D − s)/(n − c) and (s + D)/(c + n)),
// written independently of this package.
var thirds = []float64{2.0 / 3, 1.0 / 3, 1, 1, 0, -1.0 / 3, 1, 2.0 / 3, -2.0 / 3, 1.0 / 3, 0, 1.0 / 3}

func TestSignFlipIntervalInvertsTheEnumeratedTest(t *testing.T) {
	tests := []struct {
		alt    string
		p      float64
		lo, hi float64
	}{
		// Two-sided: p = 33/512 = 0.0645 ≥ 0.05, and the interval [0, 2/3] holds 0
		// at its end: just below 0 the two zero differences turn positive and
		// p(δ) drops under 0.05.
		{TwoSided, 33.0 / 512, 0, 2.0 / 3},
		// Greater (H1: Δ > δ): p = 33/1024 = 0.032 < 0.05, interval [1/12, 1].
		{Greater, 33.0 / 1024, 1.0 / 12, 1},
		// Less: p = 505/512, interval [−1, 2/3].
		{Less, 505.0 / 512, -1, 2.0 / 3},
	}
	for _, tt := range tests {
		t.Run(tt.alt, func(t *testing.T) {
			got, err := SignFlip(thirds, SignFlipOptions{Alternative: tt.alt})
			require.NoError(t, err)
			assert.Equal(t, SignFlipExact, got.Method)
			assert.Equal(t, 10, got.Differing)
			assert.InDelta(t, tt.p, got.P, 1e-14)
			assert.InDelta(t, tt.lo, got.CILow, 1e-9)
			assert.InDelta(t, tt.hi, got.CIHigh, 1e-9)
			// The interval and the test agree, also at the end that sits on 0.
			assert.Equal(t, got.P < 0.05, got.CILow > 0 || got.CIHigh < 0)
		})
	}
}

// TestSignFlipExactOnAFineLattice: 61 and 67 samples a side put the
// differences on multiples of 1/4087, which the old rule (denominators up to
// 3600) sent to Monte Carlo; the exact path takes them when they fit its
// budget, and its p matches a plain enumeration of the 2^10 sign patterns.
func TestSignFlipExactOnAFineLattice(t *testing.T) {
	a := []int{61, 40, 33, 50, 12, 61, 0, 45, 30, 59}
	b := []int{60, 41, 20, 31, 20, 40, 10, 45, 11, 30}
	d := make([]float64, len(a))
	for i := range d {
		d[i] = float64(a[i])/61 - float64(b[i])/67
	}
	got, err := SignFlip(d, SignFlipOptions{})
	require.NoError(t, err)
	assert.Equal(t, SignFlipExact, got.Method)
	var obs float64
	for _, v := range d {
		obs += v
	}
	extreme := 0
	for mask := range 1 << len(d) {
		var s float64
		for i, v := range d {
			if mask>>i&1 == 1 {
				s += v
			} else {
				s -= v
			}
		}
		if math.Abs(s) >= math.Abs(obs)-1e-9 {
			extreme++
		}
	}
	assert.InDelta(t, float64(extreme)/1024, got.P, 1e-12)
	assert.Equal(t, got.P < 0.05, got.CILow > 0 || got.CIHigh < 0)
}

func TestSignFlipMonteCarloAgreesWithExact(t *testing.T) {
	// Irrational differences have no lattice: the Monte-Carlo path runs, and its
	// p for √2·(0.5, 1, 1)/2 must be the enumerated 2/8 within 4 Monte-Carlo SEs.
	d := []float64{0.25 * math.Sqrt2, 0.5 * math.Sqrt2, 0.5 * math.Sqrt2}
	got, err := SignFlip(d, SignFlipOptions{Permutations: 100_000, Seed: 7})
	require.NoError(t, err)
	assert.Equal(t, SignFlipMC, got.Method)
	assert.Equal(t, 100_000, got.Permutations)
	se := math.Sqrt(0.25 * 0.75 / 100_000)
	assert.InDelta(t, 0.25, got.P, 4*se)

	again, err := SignFlip(d, SignFlipOptions{Permutations: 100_000, Seed: 7})
	require.NoError(t, err)
	assert.Equal(t, got, again, "a fixed seed repeats")

	// The enumerated case above, nudged off its lattice: the Monte-Carlo p and
	// interval are the exact ones within Monte-Carlo error.
	mcD := make([]float64, len(thirds))
	for i, v := range thirds {
		mcD[i] = v * (1 - math.Sqrt2*1e-9)
	}
	mc, err := SignFlip(mcD, SignFlipOptions{Alternative: Greater, Seed: 11})
	require.NoError(t, err)
	require.Equal(t, SignFlipMC, mc.Method)
	exactP := 33.0 / 1024
	assert.InDelta(t, exactP, mc.P, 5*math.Sqrt(exactP*(1-exactP)/DefaultPermutations))
	assert.Equal(t, mc.P < 0.05, mc.CILow > 0)
	assert.Equal(t, 1.0, mc.CIHigh)
}

func TestSignFlipRejectsBadInput(t *testing.T) {
	_, err := SignFlip(nil, SignFlipOptions{})
	assert.Error(t, err)
	_, err = SignFlip([]float64{math.NaN()}, SignFlipOptions{})
	assert.Error(t, err)
	_, err = SignFlip([]float64{1.5}, SignFlipOptions{})
	assert.ErrorContains(t, err, "want [−1, 1]")
	_, err = SignFlip([]float64{1}, SignFlipOptions{Permutations: -1})
	assert.Error(t, err)
	_, err = SignFlip([]float64{1}, SignFlipOptions{Alternative: "lower"})
	assert.ErrorContains(t, err, `alternative "lower"`)
	_, err = SignFlip([]float64{1}, SignFlipOptions{Level: 1})
	assert.Error(t, err)
}

// FuzzSignFlip: for any differences, p is in (0, 1], the interval holds the
// estimate and excludes 0 exactly when p < 0.05, −d mirrors d (two-sided
// p equal, interval negated; Less on d is Greater on −d), exact p is at least
// 2/2^m with m non-zero differences, and p = 1 when they sum to zero.
func FuzzSignFlip(f *testing.F) {
	f.Add([]byte{1, 2, 3, 200}, uint8(3))
	f.Add([]byte{0, 0, 0}, uint8(1))
	f.Add([]byte{14, 14, 14, 14, 14, 14, 14, 0, 7}, uint8(0))
	f.Fuzz(func(t *testing.T, raw []byte, k uint8) {
		if len(raw) == 0 || len(raw) > 40 {
			return
		}
		scale := float64(k%7 + 1) // scores averaged over 1..7 samples
		d := make([]float64, len(raw))
		neg := make([]float64, len(raw))
		m, sum := 0, 0
		for i, b := range raw {
			v := int(b%15) - 7 // −7..7 samples' worth of difference
			v = max(-int(scale), min(int(scale), v))
			d[i], neg[i] = float64(v)/scale, -float64(v)/scale
			if v != 0 {
				m++
			}
			sum += v
		}
		opt := SignFlipOptions{Permutations: 2000, Seed: 1}
		got, err := SignFlip(d, opt)
		require.NoError(t, err)
		assert.True(t, got.P > 0 && got.P <= 1, "p = %v", got.P)
		mean := float64(sum) / scale / float64(len(d))
		assert.True(t, got.CILow <= mean+1e-12 && mean-1e-12 <= got.CIHigh, "estimate %v outside [%v, %v]", mean, got.CILow, got.CIHigh)
		assert.Equal(t, got.P < 0.05, got.CILow > 0 || got.CIHigh < 0, "p = %v, CI [%v, %v]", got.P, got.CILow, got.CIHigh)
		back, err := SignFlip(neg, opt)
		require.NoError(t, err)
		if got.Method == SignFlipExact {
			assert.InDelta(t, got.P, back.P, 1e-12, "p(d) = p(−d)")
			assert.InDelta(t, -got.CIHigh, back.CILow, 1e-9)
			if m > 0 {
				assert.GreaterOrEqual(t, got.P, 2/math.Pow(2, float64(m))*(1-1e-12))
			}
			opt.Alternative = Less
			less, err := SignFlip(d, opt)
			require.NoError(t, err)
			opt.Alternative = Greater
			greater, err := SignFlip(neg, opt)
			require.NoError(t, err)
			assert.InDelta(t, less.P, greater.P, 1e-12)
			assert.InDelta(t, less.CIHigh, -greater.CILow, 1e-9)
		}
		if sum == 0 {
			assert.Equal(t, 1.0, got.P)
		}
	})
}

// signFlipCase is n problems with k_a and k_b 0/1 samples a side, the
// sampler a little better than the baseline on correlated problems.
func signFlipCase(n, ka, kb int, seed uint64) []float64 {
	rng := splitMix64{state: seed}
	d := make([]float64, n)
	for i := range d {
		theta := float64(rng.next()>>11) / (1 << 53)
		theta *= theta
		var a, b int
		for range ka {
			if float64(rng.next()>>11)/(1<<53) < min(1, theta+0.03) {
				a++
			}
		}
		for range kb {
			if float64(rng.next()>>11)/(1<<53) < theta {
				b++
			}
		}
		d[i] = float64(a)/float64(ka) - float64(b)/float64(kb)
	}
	return d
}

// BenchmarkSignFlip: the test and its inverted interval at the sizes a report
// meets; the method each size takes is in the name's last part, checked.
func BenchmarkSignFlip(b *testing.B) {
	for _, c := range []struct {
		name      string
		n, ka, kb int
		method    string
	}{
		{"n=80/k=1/exact", 80, 1, 1, SignFlipExact},
		{"n=80/k=3/exact", 80, 3, 3, SignFlipExact},
		{"n=80/k=61x67/mc", 80, 61, 67, SignFlipMC},
		{"n=1319/k=1/exact", 1319, 1, 1, SignFlipExact},
		{"n=1319/k=3/exact", 1319, 3, 3, SignFlipExact},
		{"n=1319/k=30/mc", 1319, 30, 30, SignFlipMC},
	} {
		d := signFlipCase(c.n, c.ka, c.kb, 3)
		b.Run(c.name, func(b *testing.B) {
			for range b.N {
				got, err := SignFlip(d, SignFlipOptions{})
				if err != nil || got.Method != c.method {
					b.Fatalf("%v, method %s", err, got.Method)
				}
			}
		})
	}
}
