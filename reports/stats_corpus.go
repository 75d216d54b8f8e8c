package reports

import (
	"errors"
	"fmt"
	"math"
)

// Paired test names of a corpus metric (bleu, chrf, ter), as the report
// prints them.
const (
	CorpusARExact = "approximate_randomization_exact"
	CorpusARMC    = "approximate_randomization_mc"
)

// DefaultARTrials is sacrebleu's --paired-ar default number of trials.
const DefaultARTrials = 10_000

// CorpusTest is a paired test of a corpus metric between two systems'
// outputs on the same docs (in each of Runs paired seeds).
type CorpusTest struct {
	Method                     string // CorpusARExact or CorpusARMC
	SystemScore, BaselineScore float64
	Delta                      float64 // SystemScore − BaselineScore
	P                          float64 // two-sided
	Trials                     int     // swap patterns scored (2^docs when exact)
	Docs                       int
	Runs                       int // seeds paired (the scores are their means)
}

// PairedAR is the paired approximate randomization test of a corpus
// statistic (Riezler & Maxwell 2005, Clark et al. 2011; sacrebleu's
// paired-ar): under H0 a doc's outputs are exchangeable between the two
// systems, so each trial swaps every doc's statistics between the systems
// with probability 1/2, re-scores both and compares |Δ| with the observed
// one. sys[r][i] and base[r][i] are doc i's sufficient statistics in run r
// (a seed; runs pair in order, and a doc swaps in every run at once, so the
// runs' shared docs stay one unit); score maps a run's summed statistics to
// the metric, and a system's score is the mean over its runs. With
// 2^docs ≤ trials every swap pattern is scored once (exact); otherwise
// trials random patterns from seed give p = (r + 1)/(trials + 1), r
// counting |Δ*| ≥ |Δ|. (sacrebleu counts |Δ*| > |Δ|, which gives a system
// compared with itself p = 1/(trials + 1); with ≥ it gets 1.)
func PairedAR(sys, base [][][]float64, score func([]float64) float64, trials int, seed uint64) (CorpusTest, error) {
	if len(sys) == 0 || len(sys) != len(base) {
		return CorpusTest{}, fmt.Errorf("paired randomization: %d and %d runs; want as many, at least one", len(sys), len(base))
	}
	n := len(sys[0])
	if n == 0 {
		return CorpusTest{}, errors.New("paired randomization: no docs")
	}
	if trials <= 0 {
		return CorpusTest{}, errors.New("paired randomization: trials must be positive")
	}
	dims := len(sys[0][0])
	for r := range sys {
		if len(sys[r]) != n || len(base[r]) != n {
			return CorpusTest{}, fmt.Errorf("paired randomization: run %d has %d and %d docs; want the same %d docs", r, len(sys[r]), len(base[r]), n)
		}
		for i := range sys[r] {
			if len(sys[r][i]) != dims || len(base[r][i]) != dims {
				return CorpusTest{}, fmt.Errorf("paired randomization: doc %d has %d and %d statistics, want %d", i, len(sys[r][i]), len(base[r][i]), dims)
			}
		}
	}
	a, b := make([]float64, dims), make([]float64, dims)
	// scores re-scores both systems with the docs swapped says; the means
	// over runs.
	scores := func(swapped func(i int) bool) (sa, sb float64) {
		for r := range sys {
			clear(a)
			clear(b)
			for i := range n {
				x, y := sys[r][i], base[r][i]
				if swapped(i) {
					x, y = y, x
				}
				for j := range dims {
					a[j] += x[j]
					b[j] += y[j]
				}
			}
			sa += score(a)
			sb += score(b)
		}
		k := float64(len(sys))
		return sa / k, sb / k
	}
	diff := func(swapped func(i int) bool) float64 {
		sa, sb := scores(swapped)
		return sa - sb
	}
	t := CorpusTest{Docs: n, Runs: len(sys)}
	t.SystemScore, t.BaselineScore = scores(func(int) bool { return false })
	t.Delta = t.SystemScore - t.BaselineScore
	observed := math.Abs(t.Delta)
	if n < 63 && uint64(1)<<n <= uint64(trials) {
		t.Method, t.Trials = CorpusARExact, 1<<n
		r := 0
		for mask := range uint64(1) << n {
			if math.Abs(diff(func(i int) bool { return mask>>i&1 == 1 })) >= observed {
				r++
			}
		}
		t.P = float64(r) / float64(t.Trials)
		return t, nil
	}
	t.Method, t.Trials = CorpusARMC, trials
	rng := &splitMix64{state: seed}
	bits := make([]uint64, (n+63)/64)
	r := 0
	for range trials {
		for k := range bits {
			bits[k] = rng.next()
		}
		if math.Abs(diff(func(i int) bool { return bits[i/64]>>(i%64)&1 == 1 })) >= observed {
			r++
		}
	}
	t.P = float64(r+1) / float64(trials+1)
	return t, nil
}
