package reports

import (
	"math"
	"math/bits"
	"slices"
)

// The exact null distribution is computed when it costs at most
// exactWorkBudget cell updates and holds at most exactAtomBudget cells (each
// p(δ) of the interval's bisection, about 70 of them, visits every cell).
// Measured on a loaded Zen 3 core (BenchmarkSignFlip): GSM8K's 1319 problems
// with 1 sample a side 0.02 s, with 3 a side (5.5·10⁵ cells) 0.3 s CPU; past
// the budget, 80 problems × 61 and 67 samples (1.8·10⁶ cells, 0.9 s) and
// 1319 × 30 go to the Monte-Carlo path, 0.2 and 0.13 s.
const (
	exactWorkBudget = 100_000_000
	exactAtomBudget = 1_000_000
	// maxLattice is the largest lattice denominator tried: 0/1 scores averaged
	// over up to 61 and 67 samples (61·67 = 4087) and beyond.
	maxLattice = 1 << 14
)

// signFlipNull is the null distribution of the sign-flipped sums, as atoms:
// atom i stands for the sign patterns of the non-zero differences whose sum
// is s[i] and whose signs sum to c[i], with total probability w[i]. On the
// exact path the zero differences' signs are left to p, through their
// binomial count; on the Monte-Carlo path each atom is one drawn pattern of
// all n signs, plus the observed pattern itself.
type signFlipNull struct {
	exact bool
	// scale is the lattice denominator L (values are d·L), 1 off the lattice.
	scale   float64
	n       int
	total   float64 // Σ d·L, summed as the atoms are
	tol     float64 // sums this close count as equal
	s, c, w []float64
	zeros   int       // zero differences summed analytically (exact path)
	zeroCDF []float64 // P(J ≤ j), J ~ Binomial(zeros, ½)
	zeroSF  []float64 // P(J ≥ j)
}

// valueCount is one distinct non-zero difference (in lattice units) and how
// many problems have it.
type valueCount struct {
	v     float64
	count int
}

func newSignFlipNull(d []float64, permutations int, seed uint64) *signFlipNull {
	L, onLattice := latticeOf(d)
	counts := map[float64]int{}
	zeros := 0
	for _, x := range d {
		v := x
		if onLattice {
			v = math.Round(x * L)
		}
		if v == 0 {
			zeros++
			continue
		}
		counts[v]++
	}
	groups := make([]valueCount, 0, len(counts))
	for v, k := range counts {
		groups = append(groups, valueCount{v, k})
	}
	slices.SortFunc(groups, func(a, b valueCount) int { return cmpFloat(a.v, b.v) })
	nd := &signFlipNull{scale: L, n: len(d)}
	var spread float64
	for _, g := range groups {
		nd.total += g.v * float64(g.count)
		spread += math.Abs(g.v) * float64(g.count)
	}
	nd.tol = 1e-12 * (spread + float64(len(d))*L)
	if onLattice && exactFits(groups) {
		nd.exact = true
		nd.exactAtoms(groups)
		nd.setZeros(zeros)
	} else {
		nd.drawAtoms(groups, zeros, permutations, seed)
		nd.setZeros(0)
	}
	return nd
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// latticeOf returns the least L ≤ maxLattice that makes every d[i]·L an
// integer (to 1e-9), the least common multiple of each distinct value's
// denominator.
func latticeOf(d []float64) (float64, bool) {
	seen := map[float64]bool{}
	L := int64(1)
	for _, v := range d {
		if seen[v] {
			continue
		}
		seen[v] = true
		q := denominator(v)
		if q == 0 {
			return 1, false
		}
		L = L / gcd(L, q) * q
		if L > maxLattice {
			return 1, false
		}
	}
	return float64(L), true
}

// denominator is the least q ≤ maxLattice with v·q an integer to 1e-9, or 0.
func denominator(v float64) int64 {
	for q := int64(1); q <= maxLattice; q++ {
		x := v * float64(q)
		if math.Abs(x-math.Round(x)) <= 1e-9*max(1, math.Abs(x)) {
			return q
		}
	}
	return 0
}

func gcd(a, b int64) int64 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// band tracks, for each count P of plus signs among the non-zero
// differences seen so far, the range [lo[P], hi[P]] of their reachable sums.
type band struct{ lo, hi []int64 }

// grow returns the band after adding count signs of value v.
func (b band) grow(v int64, count int) band {
	n := len(b.lo) + count
	out := band{lo: make([]int64, n), hi: make([]int64, n)}
	for i := range out.lo {
		out.lo[i], out.hi[i] = math.MaxInt64, math.MinInt64
	}
	for p := range b.lo {
		if b.lo[p] > b.hi[p] {
			continue
		}
		for j := 0; j <= count; j++ {
			shift := v * int64(2*j-count)
			out.lo[p+j] = min(out.lo[p+j], b.lo[p]+shift)
			out.hi[p+j] = max(out.hi[p+j], b.hi[p]+shift)
		}
	}
	return out
}

func (b band) cells() int64 {
	var n int64
	for p := range b.lo {
		if b.lo[p] <= b.hi[p] {
			n += b.hi[p] - b.lo[p] + 1
		}
	}
	return n
}

// exactFits says whether the exact distribution fits the budgets, by walking
// the same bands exactAtoms fills.
func exactFits(groups []valueCount) bool {
	b := band{lo: []int64{0}, hi: []int64{0}}
	var work int64
	for _, g := range groups {
		work += b.cells() * int64(g.count+1)
		if work > exactWorkBudget {
			return false
		}
		b = b.grow(int64(g.v), g.count)
	}
	return b.cells() <= exactAtomBudget
}

// exactAtoms convolves the groups' sign counts: a group of count values v
// adds v·(2j − count) to the sum and 2j − count to the sign count with
// probability C(count, j)/2^count.
func (nd *signFlipNull) exactAtoms(groups []valueCount) {
	b := band{lo: []int64{0}, hi: []int64{0}}
	mass := [][]float64{{1}} // mass[P][s − lo[P]]
	for _, g := range groups {
		v := int64(g.v)
		next := b.grow(v, g.count)
		out := make([][]float64, len(next.lo))
		for p := range out {
			if next.lo[p] <= next.hi[p] {
				out[p] = make([]float64, next.hi[p]-next.lo[p]+1)
			}
		}
		pmf := binomialHalf(g.count)
		for p, row := range mass {
			for k, m := range row {
				if m == 0 {
					continue
				}
				s := b.lo[p] + int64(k)
				for j, q := range pmf {
					t := s + v*int64(2*j-g.count)
					out[p+j][t-next.lo[p+j]] += m * q
				}
			}
		}
		b, mass = next, out
	}
	nnz := len(mass) - 1
	for p, row := range mass {
		for k, m := range row {
			if m > 0 {
				nd.s = append(nd.s, float64(b.lo[p]+int64(k)))
				nd.c = append(nd.c, float64(2*p-nnz))
				nd.w = append(nd.w, m)
			}
		}
	}
}

// binomialHalf is the Binomial(n, ½) probability mass function.
func binomialHalf(n int) []float64 {
	pmf := make([]float64, n+1)
	lgN, _ := math.Lgamma(float64(n + 1))
	for j := range pmf {
		a, _ := math.Lgamma(float64(j + 1))
		b, _ := math.Lgamma(float64(n - j + 1))
		pmf[j] = math.Exp(lgN - a - b - float64(n)*math.Ln2)
	}
	return pmf
}

// setZeros prepares the binomial tails of the zero differences' plus count.
func (nd *signFlipNull) setZeros(zeros int) {
	nd.zeros = zeros
	pmf := binomialHalf(zeros)
	nd.zeroCDF = make([]float64, zeros+1)
	nd.zeroSF = make([]float64, zeros+1)
	var acc float64
	for j, q := range pmf {
		acc += q
		nd.zeroCDF[j] = min(1, acc)
	}
	acc = 0
	for j := zeros; j >= 0; j-- {
		acc += pmf[j]
		nd.zeroSF[j] = min(1, acc)
	}
}

// drawAtoms draws permutations sign patterns of all n differences from
// splitMix64(seed): within a group of equal values only the number of plus
// signs matters, so each group takes a popcount of count random bits.
func (nd *signFlipNull) drawAtoms(groups []valueCount, zeros, permutations int, seed uint64) {
	all := append(slices.Clone(groups), valueCount{0, zeros})
	k := permutations + 1
	nd.s, nd.c, nd.w = make([]float64, k), make([]float64, k), make([]float64, k)
	w := 1 / float64(k)
	// Atom 0 is the observed pattern: all signs plus.
	nd.s[0], nd.c[0], nd.w[0] = nd.total, float64(nd.n), w
	bitsrc := bitReader{rng: splitMix64{state: seed}}
	for a := 1; a < k; a++ {
		var s, c float64
		for _, g := range all {
			x := float64(2*bitsrc.ones(g.count) - g.count)
			s += g.v * x
			c += x
		}
		nd.s[a], nd.c[a], nd.w[a] = s, c, w
	}
}

// bitReader hands out random bits from a splitMix64 stream, 64 per draw.
type bitReader struct {
	rng  splitMix64
	buf  uint64
	left int
}

// ones returns how many of the next n random bits are set.
func (b *bitReader) ones(n int) int {
	total := 0
	for n > 0 {
		if b.left == 0 {
			b.buf, b.left = b.rng.next(), 64
		}
		take := min(n, b.left)
		var chunk uint64
		if take == 64 {
			chunk = b.buf
		} else {
			chunk = b.buf & (1<<take - 1)
		}
		total += bits.OnesCount64(chunk)
		b.buf >>= take % 64
		if take == 64 {
			b.buf = 0
		}
		b.left -= take
		n -= take
	}
	return total
}
