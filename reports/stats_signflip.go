package reports

import (
	"errors"
	"fmt"
	"math"
)

// Sign-flip test names, as recorded in comparisons.arrow's p_test. The interval
// in ci_low, ci_high is the inversion of the same test, so it is exact exactly
// when p is.
const (
	SignFlipExact = "sign_flip_exact"
	SignFlipMC    = "sign_flip_mc"
)

// Alternatives of the paired test and its interval, as recorded in
// comparisons.arrow's alternative column.
const (
	TwoSided = "two-sided"
	Less     = "less"    // H1: Δ < δ; the test a regression gate wants
	Greater  = "greater" // H1: Δ > δ
)

// CheckAlternative rejects a name that is none of TwoSided, Less and Greater.
func CheckAlternative(alt string) error {
	switch alt {
	case TwoSided, Less, Greater:
		return nil
	}
	return fmt.Errorf("alternative %q: want %s, %s or %s", alt, TwoSided, Less, Greater)
}

// DefaultPermutations is the number of Monte-Carlo sign patterns when the exact
// null distribution is over budget: the p-value's Monte-Carlo SE is at most
// √(0.05·0.95/200000) ≈ 0.0005 near p = 0.05.
const DefaultPermutations = 200_000

// SignFlipOptions configure SignFlip. Zero values take the defaults.
type SignFlipOptions struct {
	Alternative string  // default TwoSided
	Level       float64 // the interval's coverage, default 0.95; p < 1 − Level ⇔ the interval excludes 0
	// Permutations is the number of Monte-Carlo sign patterns when the exact
	// distribution is over budget (default DefaultPermutations).
	Permutations int
	Seed         uint64
}

// SignFlipTest is a paired permutation test of "the mean difference is δ" at
// δ = 0 (P) and its inversion over δ (the interval).
type SignFlipTest struct {
	Method      string // SignFlipExact or SignFlipMC
	Alternative string
	P           float64
	// CILow, CIHigh is {δ : p(δ) ≥ 1 − Level} within [−1, 1]: every shift the
	// test does not reject. One-sided intervals are open on one side, where
	// the bound is −1 (Less) or +1 (Greater).
	CILow, CIHigh float64
	Permutations  int // Monte-Carlo patterns; 0 for the exact test
	Differing     int // problems with d ≠ 0
}

// SignFlip tests whether per-problem differences d (each in [−1, 1]) are
// centred on zero, and inverts the test into an interval for the mean
// difference.
//
// Under H0(δ), "the two samplers differ by δ on every problem up to symmetric
// noise", each d[i] − δ is as likely to be −(d[i] − δ); the statistic is
// T(δ) = Σ (d[i] − δ) and p(δ) the share of the 2^n sign patterns ε with
// |Σ ε[i](d[i] − δ)| ≥ |T(δ)| (one-sided: Σ ε[i](d[i] − δ) ≤ T(δ) for Less,
// ≥ for Greater). P is p(0), the usual sign-flip test (with one 0/1 sample a
// side, McNemar's exact test); the interval is {δ : p(δ) ≥ α}, α = 1 − Level.
// For every sign pattern the set of δ where it counts as extreme is an
// interval containing the estimate mean(d) (it solves a concave quadratic), so
// p(δ) rises to 1 at mean(d) and falls on both sides, and the set is one
// interval. Its ends are found by bisection anchored at 0, so "the interval
// excludes 0" and "P < α" are the same statement, also in floating point
// (confidence sets by inverting a test: Lehmann & Romano 2005, §3.5;
// for randomization tests, Garthwaite 1996). Under H0(δ) for δ ≠ 0 the
// symmetry of d − δ is the location-shift model: the interval's coverage
// rests on it, while P at δ = 0 needs only exchangeability.
//
// When the differences lie on a lattice (0/1 scores averaged over a few
// samples: multiples of 1/(k_a·k_b)) and the joint distribution of
// (Σ ε[i]·d[i], Σ ε[i]) fits exactWorkBudget, p(δ) is computed exactly.
// Otherwise Permutations random sign patterns are drawn from Seed, and
// p(δ) = (1 + #{extreme patterns})/(1 + Permutations), a valid p-value for
// every δ (Phipson & Smyth 2010); the same patterns serve every δ.
func SignFlip(d []float64, opt SignFlipOptions) (SignFlipTest, error) {
	if len(d) == 0 {
		return SignFlipTest{}, errors.New("sign-flip test of no problems")
	}
	for i, v := range d {
		if !(v >= -1 && v <= 1) {
			return SignFlipTest{}, fmt.Errorf("sign-flip test: difference %d is %v, want [−1, 1]", i, v)
		}
	}
	if opt.Alternative == "" {
		opt.Alternative = TwoSided
	}
	if err := CheckAlternative(opt.Alternative); err != nil {
		return SignFlipTest{}, fmt.Errorf("sign-flip test: %w", err)
	}
	if opt.Level == 0 {
		opt.Level = 0.95
	}
	if !(opt.Level >= 0.5 && opt.Level < 1) {
		return SignFlipTest{}, fmt.Errorf("sign-flip test: level %v, want [0.5, 1)", opt.Level)
	}
	if opt.Permutations == 0 {
		opt.Permutations = DefaultPermutations
	}
	if opt.Permutations < 1 {
		return SignFlipTest{}, fmt.Errorf("sign-flip test: %d permutations", opt.Permutations)
	}
	null := newSignFlipNull(d, opt.Permutations, opt.Seed)
	t := SignFlipTest{Method: SignFlipExact, Alternative: opt.Alternative, Differing: len(d) - null.zerosIn(d)}
	if !null.exact {
		t.Method, t.Permutations = SignFlipMC, opt.Permutations
	}
	alpha := 1 - opt.Level
	t.P = null.p(0, opt.Alternative)
	lo, hi := null.interval(opt.Alternative, alpha, t.P)
	t.CILow, t.CIHigh = lo/null.scale, hi/null.scale
	return t, nil
}

// zerosIn counts the zero differences.
func (nd *signFlipNull) zerosIn(d []float64) int {
	z := 0
	for _, v := range d {
		if v == 0 {
			z++
		}
	}
	return z
}

// p is p(δ) for δ in lattice units (δ·scale), from the atoms: each atom is a
// set of sign patterns of the non-zero differences with their sum s, their
// sign count c and their probability w; the zero differences' signs, when
// not drawn into the atoms, are summed here through their binomial count.
func (nd *signFlipNull) p(delta float64, alt string) float64 {
	obs := nd.total - float64(nd.n)*delta
	tol := nd.tol
	if alt == TwoSided && math.Abs(obs) <= tol {
		return 1 // every pattern is as extreme; summing the masses could round below 1
	}
	var mass float64
	if delta == 0 || nd.zeros == 0 { // no zero differences left to sum over
		for i, s := range nd.s {
			if extreme(s-delta*nd.c[i], obs, tol, alt) {
				mass += nd.w[i]
			}
		}
		return min(1, mass)
	}
	// T* = s − δ(c + 2J − zeros) = s − 2δ(J − h) with h = (zeros − c)/2 and
	// J ~ Binomial(zeros, ½): T* ≥ x ⇔ J − h ≤ (s − x)/2δ when δ > 0.
	inv := 1 / (2 * delta)
	up := delta < 0 // dividing by a negative δ turns ≤ into ≥
	z := float64(nd.zeros)
	r := math.Abs(obs) - tol
	for i, s := range nd.s {
		h := (z - nd.c[i]) / 2
		var q float64
		switch alt {
		case TwoSided:
			if r <= 0 {
				q = 1
				break
			}
			// T* ≥ r and T* ≤ −r are disjoint.
			q = nd.jBeyond((s-r)*inv+h, up) + nd.jBeyond((s+r)*inv+h, !up)
		case Less: // T* ≤ obs + tol
			q = nd.jBeyond((s-obs-tol)*inv+h, !up)
		case Greater: // T* ≥ obs − tol
			q = nd.jBeyond((s-obs+tol)*inv+h, up)
		}
		mass += nd.w[i] * q
	}
	return min(1, mass)
}

// extreme says whether a pattern sum s is at least as extreme as obs.
func extreme(s, obs, tol float64, alt string) bool {
	switch alt {
	case Less:
		return s <= obs+tol
	case Greater:
		return s >= obs-tol
	}
	return math.Abs(s) >= math.Abs(obs)-tol
}

// jBeyond is P(J ≥ x) when up, else P(J ≤ x), for J ~ Binomial(zeros, ½).
func (nd *signFlipNull) jBeyond(x float64, up bool) float64 {
	z := nd.zeros
	if up {
		j := math.Ceil(x)
		switch {
		case j <= 0:
			return 1
		case j > float64(z):
			return 0
		}
		return nd.zeroSF[int(j)]
	}
	j := math.Floor(x)
	switch {
	case j < 0:
		return 0
	case j >= float64(z):
		return 1
	}
	return nd.zeroCDF[int(j)]
}

// interval returns the accepted shifts {δ : p(δ) ≥ alpha} in lattice units,
// clipped to [−scale, scale]; p0 is p(0).
func (nd *signFlipNull) interval(alt string, alpha, p0 float64) (lo, hi float64) {
	accept := func(delta float64) bool { return nd.p(delta, alt) >= alpha }
	centre := nd.total / float64(nd.n) // p = 1 there (two-sided), ≥ ½ one-sided
	lo, hi = -nd.scale, nd.scale
	if alt != Greater {
		hi = boundary(accept, centre, nd.scale, p0 >= alpha)
	}
	if alt != Less {
		lo = boundary(accept, centre, -nd.scale, p0 >= alpha)
	}
	return lo, hi
}

// boundary walks from the accepted centre towards outer and returns the last
// accepted point before the first rejected one (to bisection precision), or
// outer when it is accepted. zeroAccepted is the verdict at 0: when 0 lies
// between centre and outer it is a bracket end, so the returned bound is on
// the same side of 0 as the test's verdict says, whatever the rounding.
func boundary(accept func(float64) bool, centre, outer float64, zeroAccepted bool) float64 {
	if accept(outer) {
		return outer
	}
	in, out := centre, outer
	if (centre < 0) != (outer < 0) && centre != 0 {
		if zeroAccepted {
			in = 0
		} else {
			out = 0
		}
	} else if centre == 0 && !zeroAccepted {
		return 0 // cannot happen: p = 1 at the estimate
	}
	tol := 1e-10 * math.Abs(outer)
	for math.Abs(out-in) > tol {
		mid := in + (out-in)/2
		if mid == in || mid == out {
			break
		}
		if accept(mid) {
			in = mid
		} else {
			out = mid
		}
	}
	// Sums within the tie tolerance of each other count as equal, which can
	// carry acceptance a hair past an end that is exactly 0; snap it there,
	// on the accepted side only.
	if zeroAccepted && math.Abs(in) <= 1e-9*math.Abs(outer) {
		return 0
	}
	return in
}
