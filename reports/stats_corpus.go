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
// outputs on the same docs.
type CorpusTest struct {
	Method                     string // CorpusARExact or CorpusARMC
	SystemScore, BaselineScore float64
	Delta                      float64 // SystemScore − BaselineScore
	P                          float64 // two-sided
	Trials                     int     // swap patterns scored (2^docs when exact)
	Docs                       int
}

// PairedAR is the paired approximate randomization test of a corpus
// statistic (Riezler & Maxwell 2005, Clark et al. 2011; sacrebleu's
// paired-ar): under H0 a doc's two outputs are exchangeable, so each trial
// swaps every doc's statistics between the systems with probability 1/2,
// re-scores both corpora and compares |Δ| with the observed one. sys[i] and
// base[i] are doc i's sufficient statistics; score maps their sum to the
// metric. With 2^docs ≤ trials every swap pattern is scored once (exact);
// otherwise trials random patterns from seed give p = (r + 1)/(trials + 1),
// r counting |Δ*| ≥ |Δ|. (sacrebleu counts |Δ*| > |Δ|, which gives a
// system compared with itself p = 1/(trials + 1); with ≥ it gets 1.)
func PairedAR(sys, base [][]float64, score func([]float64) float64, trials int, seed uint64) (CorpusTest, error) {
	n := len(sys)
	if n == 0 || n != len(base) {
		return CorpusTest{}, fmt.Errorf("paired randomization: %d and %d docs; want the same docs, at least one", len(sys), len(base))
	}
	if trials <= 0 {
		return CorpusTest{}, errors.New("paired randomization: trials must be positive")
	}
	dims := len(sys[0])
	for i := range sys {
		if len(sys[i]) != dims || len(base[i]) != dims {
			return CorpusTest{}, fmt.Errorf("paired randomization: doc %d has %d and %d statistics, want %d", i, len(sys[i]), len(base[i]), dims)
		}
	}
	a, b := make([]float64, dims), make([]float64, dims)
	// swapped reports whether pattern bits swap doc i; diff re-scores.
	diff := func(swapped func(i int) bool) float64 {
		clear(a)
		clear(b)
		for i := range n {
			x, y := sys[i], base[i]
			if swapped(i) {
				x, y = y, x
			}
			for j := range dims {
				a[j] += x[j]
				b[j] += y[j]
			}
		}
		return score(a) - score(b)
	}
	t := CorpusTest{Docs: n}
	t.Delta = diff(func(int) bool { return false })
	t.SystemScore, t.BaselineScore = score(a), score(b)
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
