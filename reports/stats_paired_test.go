package reports

import (
	"fmt"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// threeSeeds is four problems scored by greedy (identical on its three seeds,
// as greedy decoding is) and by a sampled method on three seeds.
//
//	problem  greedy seeds  mean   sampled seeds  mean
//	0        1 1 1         1      1 1 1          1
//	1        0 0 0         0      1 0 1          2/3
//	2        1 1 1         1      1 1 0          2/3
//	3        0 0 0         0      0 0 1          1/3
func threeSeeds() (sampled, greedy []Scored) {
	g := [][]float64{{1, 1, 1}, {0, 0, 0}, {1, 1, 1}, {0, 0, 0}}
	s := [][]float64{{1, 1, 1}, {1, 0, 1}, {1, 1, 0}, {0, 0, 1}}
	for p := range g {
		for seed := range 3 {
			greedy = append(greedy, Scored{Sampler: "greedy", Filter: "strict-match", Seed: int64(seed), Problem: int32(p), Score: g[p][seed]})
			sampled = append(sampled, Scored{Sampler: "entropix", Filter: "strict-match", Seed: int64(seed), Problem: int32(p), Score: s[p][seed]})
		}
	}
	return sampled, greedy
}

func TestClusteredAccuracyThreeSeeds(t *testing.T) {
	sampled, greedy := threeSeeds()
	groups, err := GroupScores(append(sampled, greedy...))
	require.NoError(t, err)
	require.Len(t, groups, 2)

	// Greedy: problem means 1, 0, 1, 0 → mean 0.5; (n−1) variance 1/3;
	// SE = √(1/3 / 4) = √(1/12) = 0.288675. Identical seeds: within SD 0.
	// The interval is the SE's: 0.5 ± 1.959964·0.288675 = 0.5 ± 0.565792 → [0, 1] clipped.
	g, err := ClusteredAccuracyOf(groups[SamplerFilter{"greedy", "strict-match"}])
	require.NoError(t, err)
	assert.Equal(t, 4, g.N)
	assert.Equal(t, 12, g.Samples)
	assert.InDelta(t, 0.5, g.Mean, 1e-15)
	assert.InDelta(t, 0.288675, g.SE, 1e-6)
	assert.Equal(t, [2]float64{0, 1}, [2]float64{g.CILow, g.CIHigh})
	assert.InDelta(t, 0, g.WithinSD, 1e-15)

	// Sampled: means 1, 2/3, 2/3, 1/3 → mean 2/3; deviations 1/3, 0, 0, −1/3,
	// variance (2/9)/3 = 2/27, SE = √(2/27 / 4) = √(1/54) = 0.136083.
	// Within: (k−1) variances 0, 1/3, 1/3, 1/3 (e.g. {1,0,1}: (1/9+4/9+1/9)/2)
	// → mean 1/4, within SD 0.5.
	s, err := ClusteredAccuracyOf(groups[SamplerFilter{"entropix", "strict-match"}])
	require.NoError(t, err)
	assert.InDelta(t, 2.0/3, s.Mean, 1e-15)
	assert.InDelta(t, 0.136083, s.SE, 1e-6)
	assert.InDelta(t, 2.0/3-1.959964*0.136083, s.CILow, 1e-6)
	assert.InDelta(t, 0.5, s.WithinSD, 1e-15)
}

func TestComparePairedThreeSeeds(t *testing.T) {
	sampled, greedy := threeSeeds()
	groups, err := GroupScores(append(sampled, greedy...))
	require.NoError(t, err)
	row, err := ComparePaired(groups[SamplerFilter{"entropix", "strict-match"}], groups[SamplerFilter{"greedy", "strict-match"}], PairedOptions{})
	require.NoError(t, err)

	// d = 0, 2/3, −1/3, 1/3: Δ = (2/3)/4 = 1/6; deviations −1/6, 1/2, −1/2, 1/6,
	// Σ² = 1/36 + 1/4 + 1/4 + 1/36 = 5/9, variance 5/27, SE = √(5/108) = 0.215166;
	// CI 1/6 ± 1.959964·0.215166 = [−0.255050, 0.588384];
	// MDE80 = (1.959964 + 0.841621)·0.215166 = 0.602805.
	assert.Equal(t, int32(4), row.NProblems)
	assert.Equal(t, int32(3), row.SamplesPerProblem)
	assert.Equal(t, int32(3), row.BaselineSamplesPerProblem)
	assert.InDelta(t, 2.0/3, row.SamplerAcc, 1e-15)
	assert.InDelta(t, 0.5, row.BaselineAcc, 1e-15)
	assert.InDelta(t, 1.0/6, row.Delta, 1e-15)
	assert.InDelta(t, 0.215166, row.DeltaSE, 1e-6)
	assert.InDelta(t, -0.255050, row.CILow, 1e-6)
	assert.InDelta(t, 0.588384, row.CIHigh, 1e-6)
	assert.InDelta(t, 0.602805, row.MDE80, 1e-6)

	// Sign flip, in thirds: non-zero d = 2, −1, 1, observed sum 2. The 8 sign
	// patterns of ±2 ± 1 ± 1 sum to 4, 2, 2, 0, 0, −2, −2, −4: six have |sum| ≥ 2,
	// p = 6/8 = 0.75 — one test over 4 problems, however many seeds.
	assert.Equal(t, SignFlipExact, row.PTest)
	assert.InDelta(t, 0.75, row.P, 1e-15)

	// Bootstrap: a resample mean is (sum of 4 draws from {0, 2, −1, 1})/12. Its
	// CDF (256 equally likely draws) is 0.0195 at −3 and 0.0586 at −2, 0.9414 at 5
	// and 0.9805 at 6, so the 95% percentile interval is [−2/12, 6/12] (both
	// ends four Monte-Carlo SEs from a neighbouring value at 10000 resamples).
	assert.InDelta(t, -1.0/6, row.BootCILow, 1e-12)
	assert.InDelta(t, 0.5, row.BootCIHigh, 1e-12)
	assert.Equal(t, int32(DefaultResamples), row.BootResamples)

	// Three samples a side: McNemar would count greedy's identical answers three
	// times, so it is not reported.
	assert.False(t, row.McNemarB.Valid || row.McNemarC.Valid || row.McNemarP.Valid)
}

func TestComparePairedOneSampleIsMcNemar(t *testing.T) {
	// 8 problems, one response each: sampler right on 1..7, baseline on 0..2.
	// b (sampler only) = problems 3..7 = 5, c (baseline only) = problem 0 = 1:
	// exact McNemar p = 2·(C(6,0) + C(6,1))/2^6 = 14/64 = 0.21875, and the exact
	// sign flip over the six discordant ±1 gives the same number.
	a := ProblemSamples{Problems: []int32{0, 1, 2, 3, 4, 5, 6, 7}, Scores: [][]float64{{0}, {1}, {1}, {1}, {1}, {1}, {1}, {1}}}
	b := ProblemSamples{Problems: []int32{0, 1, 2, 3, 4, 5, 6, 7}, Scores: [][]float64{{1}, {1}, {1}, {0}, {0}, {0}, {0}, {0}}}
	row, err := ComparePaired(a, b, PairedOptions{Bootstrap: BootstrapOptions{Resamples: 1000, Seed: 1}})
	require.NoError(t, err)
	assert.InDelta(t, 0.5, row.Delta, 1e-15)
	assert.Equal(t, Some[int32](5), row.McNemarB)
	assert.Equal(t, Some[int32](1), row.McNemarC)
	assert.InDelta(t, 0.21875, row.McNemarP.V, 1e-15)
	assert.InDelta(t, 0.21875, row.P, 1e-15)

	// A problem only one side has is left out.
	row, err = ComparePaired(a, ProblemSamples{Problems: b.Problems[:7], Scores: b.Scores[:7]}, PairedOptions{})
	require.NoError(t, err)
	assert.Equal(t, int32(7), row.NProblems)
	assert.Equal(t, Some[int32](4), row.McNemarB)

	_, err = ComparePaired(a, ProblemSamples{Problems: []int32{99}, Scores: [][]float64{{1}}}, PairedOptions{})
	assert.ErrorContains(t, err, "no problem scored by both")
}

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
			got, err := SignFlip(tt.d, 0, 0)
			require.NoError(t, err)
			assert.Equal(t, SignFlipExact, got.Method)
			assert.InDelta(t, tt.p, got.P, 1e-15)
		})
	}
}

func TestSignFlipMonteCarloAgreesWithExact(t *testing.T) {
	// Irrational differences have no lattice: the Monte-Carlo path runs, and its
	// p for √2·(0.5, 1, 1) must be the enumerated 2/8 within 4 Monte-Carlo SEs.
	d := []float64{0.5 * math.Sqrt2, math.Sqrt2, math.Sqrt2}
	got, err := SignFlip(d, 100_000, 7)
	require.NoError(t, err)
	assert.Equal(t, SignFlipMC, got.Method)
	assert.Equal(t, 100_000, got.Permutations)
	se := math.Sqrt(0.25 * 0.75 / 100_000)
	assert.InDelta(t, 0.25, got.P, 4*se)

	again, err := SignFlip(d, 100_000, 7)
	require.NoError(t, err)
	assert.Equal(t, got, again, "a fixed seed repeats")

	// A larger case both ways: 300 problems with 0/1 scores (exact by lattice) and
	// the same values nudged off the lattice by √2·1e-3 (Monte Carlo).
	a, b := syntheticPair(300, 3)
	exactD := make([]float64, len(a))
	mcD := make([]float64, len(a))
	for i := range a {
		exactD[i] = a[i] - b[i]
		mcD[i] = exactD[i] * (1 + math.Sqrt2*1e-9)
	}
	exact, err := SignFlip(exactD, 0, 0)
	require.NoError(t, err)
	require.Equal(t, SignFlipExact, exact.Method)
	mc, err := SignFlip(mcD, 0, 11)
	require.NoError(t, err)
	require.Equal(t, SignFlipMC, mc.Method)
	assert.Equal(t, DefaultPermutations, mc.Permutations)
	se = math.Sqrt(max(exact.P*(1-exact.P), 1e-4) / float64(DefaultPermutations))
	assert.InDelta(t, exact.P, mc.P, 5*se)
}

func TestSignFlipRejectsBadInput(t *testing.T) {
	_, err := SignFlip(nil, 0, 0)
	assert.Error(t, err)
	_, err = SignFlip([]float64{math.NaN()}, 0, 0)
	assert.Error(t, err)
	_, err = SignFlip([]float64{1}, -1, 0)
	assert.Error(t, err)
}

func TestHolmOverPrimaryCountsSamplersOnly(t *testing.T) {
	// Three samplers on the primary filter with p = 0.01, 0.04, 0.03, and the
	// same samplers on two secondary filters. Holm over the three primary rows:
	// sorted 0.01·3 = 0.03, 0.03·2 = 0.06, max(0.06, 0.04·1) = 0.06. Were the
	// nine rows one family, the first would be 0.01·9 = 0.09.
	var rows []ComparisonRow
	for _, f := range []string{"strict-match", "flexible-extract", "numeric"} {
		for i, s := range []string{"a", "b", "c"} {
			rows = append(rows, ComparisonRow{Sampler: s, Filter: f, Primary: f == "strict-match", P: []float64{0.01, 0.04, 0.03}[i], PHolm: Some(0.5)})
		}
	}
	require.NoError(t, HolmOverPrimary(rows))
	assert.InDelta(t, 0.03, rows[0].PHolm.V, 1e-15)
	assert.InDelta(t, 0.06, rows[1].PHolm.V, 1e-15)
	assert.InDelta(t, 0.06, rows[2].PHolm.V, 1e-15)
	for _, r := range rows[3:] {
		assert.False(t, r.PHolm.Valid, "secondary %s/%s has no Holm p", r.Sampler, r.Filter)
	}
}

func TestGroupScoresRejectsDuplicatesAndBadScores(t *testing.T) {
	s := Scored{Sampler: "x", Filter: "f", Seed: 1, Repeat: 0, Problem: 3, Score: 1}
	_, err := GroupScores([]Scored{s, s})
	assert.ErrorContains(t, err, "appears twice")
	s.Score = 1.5
	_, err = GroupScores([]Scored{s})
	assert.ErrorContains(t, err, "want [0, 1]")
}

// benchPair is GSM8K-sized: 1319 problems, k 0/1 samples a side.
func benchPair(k int) (a, b ProblemSamples) {
	rng := splitMix64{state: 9}
	for p := range 1319 {
		a.Problems, b.Problems = append(a.Problems, int32(p)), append(b.Problems, int32(p))
		sa, sb := make([]float64, k), make([]float64, k)
		easy := rng.intn(100) < 40
		for i := range k {
			if easy || rng.intn(100) < 12 {
				sa[i] = 1
			}
			if easy || rng.intn(100) < 8 {
				sb[i] = 1
			}
		}
		a.Scores, b.Scores = append(a.Scores, sa), append(b.Scores, sb)
	}
	return a, b
}

// BenchmarkComparePaired: one comparisons.arrow row (10,000 bootstrap
// resamples and the sign-flip test: exact for k = 1 and 3, Monte Carlo with
// 200,000 flips when k = 30 makes the lattice too fine).
func BenchmarkComparePaired(b *testing.B) {
	for _, k := range []int{1, 3, 30} {
		a, base := benchPair(k)
		b.Run(fmt.Sprintf("k=%d", k), func(b *testing.B) {
			for range b.N {
				if _, err := ComparePaired(a, base, PairedOptions{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// FuzzSignFlip: for any differences, p is in (0, 1], the same for −d, at
// least 2/2^m with m non-zero differences (the two all-same-sign patterns),
// and 1 when the differences sum to zero.
func FuzzSignFlip(f *testing.F) {
	f.Add([]byte{1, 2, 3, 200}, uint8(3))
	f.Add([]byte{0, 0, 0}, uint8(1))
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
			d[i], neg[i] = float64(v)/scale, -float64(v)/scale
			if v != 0 {
				m++
			}
			sum += v
		}
		got, err := SignFlip(d, 2000, 1)
		require.NoError(t, err)
		assert.True(t, got.P > 0 && got.P <= 1, "p = %v", got.P)
		back, err := SignFlip(neg, 2000, 1)
		require.NoError(t, err)
		assert.InDelta(t, got.P, back.P, 1e-12, "p(d) = p(−d)")
		if got.Method == SignFlipExact && m > 0 {
			assert.GreaterOrEqual(t, got.P, 2/math.Pow(2, float64(m))*(1-1e-12))
		}
		if sum == 0 {
			assert.Equal(t, 1.0, got.P)
		}
	})
}
