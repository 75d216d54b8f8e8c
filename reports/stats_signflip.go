package reports

import (
	"errors"
	"fmt"
	"math"
)

// Sign-flip test names, as recorded in comparisons.arrow's p_test.
const (
	SignFlipExact = "sign_flip_exact"
	SignFlipMC    = "sign_flip_mc"
)

// DefaultPermutations is the number of Monte-Carlo sign flips when the exact
// distribution is too costly: the p-value's Monte-Carlo SE is at most
// √(0.05·0.95/200000) ≈ 0.0005 near p = 0.05.
const DefaultPermutations = 200_000

// exactCellBudget bounds the work of the exact test (problems × sum range).
const exactCellBudget = 60_000_000

// SignFlipTest is a paired permutation test of mean(d) = 0.
type SignFlipTest struct {
	Method       string  // SignFlipExact or SignFlipMC
	P            float64 // two-sided
	Permutations int     // Monte-Carlo draws; 0 for the exact test
}

// SignFlip tests whether per-problem differences d are centred on zero. Under
// the null hypothesis that the two samplers are exchangeable on every problem,
// each d[i] is as likely to be −d[i]; the p-value is the probability, over the
// 2^n sign patterns, of a |Σ ±d[i]| at least as large as the observed |Σ d[i]|.
// It needs no normal approximation and holds for any number of seeds and
// repeats, since each problem contributes one difference of means.
//
// When every d[i] is a multiple of 1/L for a small L (0/1 scores averaged over
// k samples: L = k_a·k_b), the null distribution is computed exactly by
// convolution over the integers d[i]·L. Otherwise permutations random sign
// patterns are drawn from a fixed seed and p = (1 + #{|T*| ≥ |T|})/(1 +
// permutations), which is a valid p-value (Phipson & Smyth 2010). With one 0/1
// sample per side the exact test is McNemar's exact test.
func SignFlip(d []float64, permutations int, seed uint64) (SignFlipTest, error) {
	if len(d) == 0 {
		return SignFlipTest{}, errors.New("sign-flip test of no problems")
	}
	for i, v := range d {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return SignFlipTest{}, fmt.Errorf("sign-flip test: difference %d is %v", i, v)
		}
	}
	if permutations == 0 {
		permutations = DefaultPermutations
	}
	if permutations < 1 {
		return SignFlipTest{}, fmt.Errorf("sign-flip test: %d permutations", permutations)
	}
	if m, ok := latticeOf(d); ok {
		return SignFlipTest{Method: SignFlipExact, P: signFlipExact(m)}, nil
	}
	return SignFlipTest{Method: SignFlipMC, P: signFlipMC(d, permutations, seed), Permutations: permutations}, nil
}

// latticeOf returns the non-zero d[i]·L as integers when some L ≤ 3600 makes
// every value an integer (to 1e-9) and the exact convolution fits
// exactCellBudget. Zero differences are dropped: flipping them changes nothing.
func latticeOf(d []float64) ([]int64, bool) {
next:
	for L := 1.0; L <= 3600; L++ {
		m := make([]int64, 0, len(d))
		var total int64
		for _, v := range d {
			x := v * L
			r := math.Round(x)
			if math.Abs(x-r) > 1e-9*max(1, math.Abs(x)) {
				continue next
			}
			if r != 0 {
				m = append(m, int64(r))
				total += abs64(int64(r))
			}
		}
		return m, int64(len(m))*(2*total+1) <= exactCellBudget
	}
	return nil, false
}

// signFlipExact returns P(|Σ ε_i m_i| ≥ |Σ m_i|) over uniform signs ε, by
// convolving one ±m_i at a time over the range of reachable sums.
func signFlipExact(m []int64) float64 {
	var obs, total int64
	for _, v := range m {
		obs += v
		total += abs64(v)
	}
	obs = abs64(obs)
	if obs == 0 {
		return 1
	}
	// prob[s+total] is P(sum = s).
	prob := make([]float64, 2*total+1)
	next := make([]float64, 2*total+1)
	prob[total] = 1
	var reach int64
	for _, v := range m {
		a := abs64(v)
		lo, hi := total-reach-a, total+reach+a
		clear(next[lo : hi+1])
		for s := total - reach; s <= total+reach; s++ {
			if p := prob[s]; p != 0 {
				next[s-a] += p / 2
				next[s+a] += p / 2
			}
		}
		prob, next = next, prob
		reach += a
	}
	var p float64
	for s := int64(0); s <= 2*total; s++ {
		if abs64(s-total) >= obs {
			p += prob[s]
		}
	}
	return min(1, p)
}

func abs64(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}

// signFlipMC draws permutations random sign patterns from splitMix64(seed).
func signFlipMC(d []float64, permutations int, seed uint64) float64 {
	var nz []float64
	var obs float64
	for _, v := range d {
		if v != 0 {
			nz = append(nz, v)
			obs += v
		}
	}
	obs = math.Abs(obs)
	if obs == 0 {
		return 1
	}
	// A resampled sum equal to the observed one in real arithmetic may differ
	// in its last bits; count it as extreme.
	tol := 1e-9 * obs
	rng := splitMix64{state: seed}
	extreme := 0
	for range permutations {
		var sum float64
		var bits uint64
		for i, v := range nz {
			if i%64 == 0 {
				bits = rng.next()
			}
			if bits&1 == 1 {
				sum += v
			} else {
				sum -= v
			}
			bits >>= 1
		}
		if math.Abs(sum) >= obs-tol {
			extreme++
		}
	}
	return float64(1+extreme) / float64(1+permutations)
}
