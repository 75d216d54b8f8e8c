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
	// Plug-in variance 0.25 = 0.5·0.5, so n_eff = 4: Wilson(0.5, 4) =
	// [0.150039, 0.849961] (scipy binomtest(2, 4).proportion_ci('wilson')).
	g, err := ClusteredAccuracyOf(groups[SamplerFilter{"greedy", "strict-match"}])
	require.NoError(t, err)
	assert.Equal(t, 4, g.N)
	assert.Equal(t, 12, g.Samples)
	assert.InDelta(t, 0.5, g.Mean, 1e-15)
	assert.InDelta(t, 0.288675, g.SE, 1e-6)
	assert.InDelta(t, 0.15003898915214953, g.CILow, 1e-12)
	assert.InDelta(t, 0.8499610108478505, g.CIHigh, 1e-12)
	assert.InDelta(t, 0, g.WithinSD, 1e-15)

	// Sampled: means 1, 2/3, 2/3, 1/3 → mean 2/3; deviations 1/3, 0, 0, −1/3,
	// variance (2/9)/3 = 2/27, SE = √(2/27 / 4) = √(1/54) = 0.136083.
	// Within: (k−1) variances 0, 1/3, 1/3, 1/3 (e.g. {1,0,1}: (1/9+4/9+1/9)/2)
	// → mean 1/4, within SD 0.5.
	s, err := ClusteredAccuracyOf(groups[SamplerFilter{"entropix", "strict-match"}])
	require.NoError(t, err)
	assert.InDelta(t, 2.0/3, s.Mean, 1e-15)
	assert.InDelta(t, 0.136083, s.SE, 1e-6)
	// Plug-in variance (1/9 + 0 + 0 + 1/9)/4 = 1/18 against p(1−p) = 2/9:
	// n_eff = 4·(2/9)/(1/18) = 16, capped at the 12 samples: Wilson(2/3, 12)
	// = [0.390622, 0.861880] (the formula with z = 1.959964).
	assert.InDelta(t, 12, s.NEff, 1e-12)
	assert.InDelta(t, 0.39062208887279953, s.CILow, 1e-9)
	assert.InDelta(t, 0.8618799089087867, s.CIHigh, 1e-9)
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
	// normal CI 1/6 ± 1.959964·0.215166 = [−0.255050, 0.588384].
	assert.Equal(t, int32(4), row.NProblems)
	assert.Equal(t, int32(3), row.SamplesPerProblem)
	assert.Equal(t, int32(3), row.BaselineSamplesPerProblem)
	assert.InDelta(t, 2.0/3, row.SamplerAcc, 1e-15)
	assert.InDelta(t, 0.5, row.BaselineAcc, 1e-15)
	assert.InDelta(t, 1.0/6, row.Delta, 1e-15)
	assert.InDelta(t, 0.215166, row.DeltaSE, 1e-6)
	assert.InDelta(t, -0.255050, row.NormalCILow, 1e-6)
	assert.InDelta(t, 0.588384, row.NormalCIHigh, 1e-6)
	assert.True(t, math.IsNaN(row.MDE80), "the sensitivity waits for the Holm family")
	assert.True(t, row.BaselineDeterministic, "greedy's three seeds are copies")
	assert.False(t, row.SamplerDeterministic)

	// Sign flip, in thirds: non-zero d = 2, −1, 1, observed sum 2. The 8 sign
	// patterns of ±2 ± 1 ± 1 sum to 4, 2, 2, 0, 0, −2, −2, −4: six have |sum| ≥ 2,
	// p = 6/8 = 0.75 — one test over 4 problems, however many seeds.
	assert.Equal(t, SignFlipExact, row.PTest)
	assert.Equal(t, TwoSided, row.Alternative)
	assert.InDelta(t, 0.75, row.P, 1e-15)
	assert.Equal(t, int32(3), row.NDiffering)
	// The headline interval inverts that test. With four problems every
	// shift in [−1, 1] keeps p(δ) ≥ 2/16 > 0.05 (the all-same-sign patterns
	// alone are 2 of 16), so nothing is rejected: [−1, 1].
	assert.Equal(t, [2]float64{-1, 1}, [2]float64{row.CILow, row.CIHigh})

	// Bootstrap: a resample mean is (sum of 4 draws from {0, 2, −1, 1})/12. Its
	// CDF (256 equally likely draws) is 0.0195 at −3 and 0.0586 at −2, 0.9414 at 5
	// and 0.9805 at 6, so the 95% percentile interval is [−2/12, 6/12] (both
	// ends four Monte-Carlo SEs from a neighbouring value at 10000 resamples).
	assert.InDelta(t, -1.0/6, row.BootCILow, 1e-12)
	assert.InDelta(t, 0.5, row.BootCIHigh, 1e-12)
	assert.Equal(t, int32(DefaultResamples), row.BootResamples)
	// Resample means ≤ 0: sums ≤ 0 of 4 draws from {0, 2, −1, 1}; their share
	// is P(sum ≤ 0) over the 256 equally likely draws: 66/256 = 0.2578 (by
	// enumeration; within 4 Monte-Carlo SEs).
	assert.InDelta(t, 66.0/256, float64(row.BootBeyondZero)/float64(DefaultResamples), 4*math.Sqrt(66.0/256*190/256/DefaultResamples))

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
	assert.Equal(t, McNemarExact, row.McNemarTest)
	assert.InDelta(t, 0.21875, row.P, 1e-15)

	// A problem only one side has is left out.
	row, err = ComparePaired(a, ProblemSamples{Problems: b.Problems[:7], Scores: b.Scores[:7]}, PairedOptions{})
	require.NoError(t, err)
	assert.Equal(t, int32(7), row.NProblems)
	assert.Equal(t, Some[int32](4), row.McNemarB)

	_, err = ComparePaired(a, ProblemSamples{Problems: []int32{99}, Scores: [][]float64{{1}}}, PairedOptions{})
	assert.ErrorContains(t, err, "no problem scored by both")
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
