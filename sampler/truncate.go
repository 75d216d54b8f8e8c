package sampler

import (
	"fmt"
	"math"

	"github.com/entropix-eval/entropix-eval/sampler/metrics"
)

// Order is the sequence in which the truncation filters run.
type Order int

const (
	// OrderHF is Hugging Face's (and vLLM V0's): temperature → top-k → top-p → min-p,
	// min-p judging the renormalised top-k/top-p survivors.
	OrderHF Order = iota
	// OrderVLLMV1 is vLLM V1's: temperature → min-p on the full tempered distribution →
	// top-k → top-p. It is also the order the original Entropix _sample intended.
	OrderVLLMV1
)

func (o Order) String() string {
	if o == OrderVLLMV1 {
		return "vllm-v1"
	}
	return "hf"
}

// ParseOrder accepts "hf" (alias "vllm-v0") and "vllm-v1".
func ParseOrder(s string) (Order, error) {
	switch s {
	case "hf", "vllm-v0":
		return OrderHF, nil
	case "vllm-v1":
		return OrderVLLMV1, nil
	}
	return OrderHF, fmt.Errorf("order %q: want hf or vllm-v1", s)
}

// vllmGreedyBelow is vLLM V1's rule: any temperature below it samples greedily.
const vllmGreedyBelow = 1e-5

// Params are the knobs of one truncated draw. Off values: TopK 0, TopP 1, MinP 0.
// Temperature 0 means greedy.
type Params struct {
	Temperature float64
	TopK        int
	TopP        float64
	MinP        float64
}

// cut is the outcome of truncating a Dist's candidate list: the survivors are the
// candidates [start, end) (every filter keeps a prefix of the sorted list; only the
// original _sample's inverted top-p drops from the top, hence start).
type cut struct {
	start, end int
	greedy     bool
	// z is Σ w over the survivors, w[i] = exp((logit_i − logit_0)/T).
	z float64
	// tailMass bounds from above the tempered probability mass outside the candidate
	// list before truncation (exact at T = 1 and without a tail).
	tailMass float64
	// tailCut reports that the survivors could depend on tokens outside the
	// candidates: the draw then renormalises over candidates only and says so.
	tailCut bool
}

// truncator holds the weights scratch of one sampler so the hot path does not
// allocate. Weights are computed lazily along the sorted list and stop at the first
// zero (underflow or −inf): every later weight is zero too.
type truncator struct {
	w     []float64
	logit []float32 // candidates' logits, gathered for metrics.ExpShifted
	d     *metrics.Dist
	invT  float64
	done  int // weights known for [0, done)
	zeros int // index of the first zero weight, or -1 while none seen
}

func (t *truncator) reset(d *metrics.Dist, temperature float64) {
	t.d, t.invT, t.done, t.zeros = d, 1/temperature, 0, -1
	if cap(t.w) < d.Len() {
		t.w = make([]float64, d.Len())
	}
	t.w = t.w[:d.Len()]
}

// weight returns exp((l_i − l_0)/T), computing the prefix up to i on demand.
func (t *truncator) weight(i int) float64 {
	if i < t.done {
		return t.w[i]
	}
	if t.fill(i+1) <= i {
		return 0
	}
	return t.w[i]
}

// fill computes the weights of [0, n) in one tight loop and returns how many of
// them are nonzero (the rest are zero: the list is sorted). At temperature 1 the
// weight is math.Exp(l_i − l_0), which metrics.ExpShifted computes with
// math.Exp's bits several lanes at a time, so fill runs ahead of n by blocks
// (min-p asks one weight at a time and, on a flat distribution, for thousands).
func (t *truncator) fill(n int) int {
	if t.zeros >= 0 {
		return min(n, t.zeros)
	}
	c := t.d.Sorted(n)
	l0, invT := float64(c[0].Logit), t.invT
	w := t.w
	if invT == 1 && n > t.done {
		end := min(len(c), max(n, t.done+fillAhead))
		lg := t.logit[:0]
		for _, cand := range c[t.done:end] {
			lg = append(lg, cand.Logit)
		}
		t.logit = lg
		metrics.ExpShifted(w[t.done:end], lg, l0)
		for i := t.done; i < end; i++ {
			if w[i] == 0 {
				t.done, t.zeros = i, i
				return min(n, i)
			}
		}
		t.done = end
		return n
	}
	for i := t.done; i < n; i++ {
		x := math.Exp((float64(c[i].Logit) - l0) * invT)
		if x == 0 {
			t.done, t.zeros = i, i
			return i
		}
		w[i] = x
	}
	t.done = max(t.done, n)
	return n
}

// fillAhead is how many weights fill computes at least, at temperature 1.
const fillAhead = 64

// sum returns Σ w over [from, to).
func (t *truncator) sum(from, to int) float64 {
	var z float64
	for _, x := range t.w[from:max(from, t.fill(to))] {
		z += x
	}
	return z
}

// weights returns the survivors' weights as a slice (zeros filled in where the lazy
// computation stopped), ready for the exponential race.
func (t *truncator) weights(c cut) []float64 {
	if m := t.fill(c.end); m < c.end {
		clear(t.w[max(m, c.start):c.end]) // stale values from an earlier step
	}
	return t.w[c.start:c.end]
}

// truncate applies temperature, top-k, top-p and min-p in the given order. The Dist
// must have at least one candidate with a finite logit (checkDist).
func (t *truncator) truncate(d *metrics.Dist, p Params, order Order) cut {
	if p.Temperature <= 0 || (order == OrderVLLMV1 && p.Temperature < vllmGreedyBelow) {
		return cut{start: 0, end: 1, greedy: true, z: 1, tailMass: d.TailMass}
	}
	t.reset(d, p.Temperature)
	s := filterState{t: t, end: d.Len(), tailOpen: hasTail(d)}
	if order == OrderHF {
		s.topK(p.TopK)
		s.topP(p.TopP, p.Temperature)
		s.minP(p.MinP)
	} else {
		// vLLM V1 runs min-p on the full distribution, then top-k. Min-p compares
		// each probability with the maximum, which top-k always keeps, so the two
		// commute; running top-k first bounds min-p's walk by k instead of by every
		// token above the min-p threshold (tens of thousands at high temperature).
		s.topK(p.TopK)
		s.minP(p.MinP)
		s.topP(p.TopP, p.Temperature)
	}
	c := cut{start: 0, end: s.finiteEnd(), tailCut: s.tailOpen || s.ambiguous}
	c.z = t.sum(0, c.end)
	c.tailMass = t.temperedTail(c.tailCut)
	return c
}

// filterState tracks the surviving prefix [0, end) and whether tokens outside the
// candidate list (the tail) may still be among the survivors.
type filterState struct {
	t         *truncator
	end       int
	tailOpen  bool // tail tokens may survive so far
	filtered  bool // some filter has run (the tail is no longer known to be whole)
	ambiguous bool // the tail's unknown tempered mass could move a cut
}

// topK keeps every token whose logit is not below the k-th largest (ties kept).
func (s *filterState) topK(k int) {
	if k <= 0 {
		return
	}
	d := s.t.d
	s.filtered = true
	if k > s.end {
		return // keeps everything left, and the tail if it was open
	}
	kth := d.Sorted(k)[k-1].Logit
	n := k
	for n < s.end && d.Sorted(n + 1)[n].Logit == kth {
		n++
	}
	// The tail can only tie with the k-th value when the ties run to the list's end.
	s.tailOpen = s.tailOpen && n == d.Len() && d.Sorted(n)[n-1].Logit == kth
	s.end = n
}

// minP drops tokens with p < minP·p_max, i.e. weight ratio w_i < minP (w_0 = 1).
func (s *filterState) minP(minP float64) {
	if minP <= 0 {
		return
	}
	s.filtered = true
	n := 0
	for n < s.end && s.t.weight(n) >= minP {
		n++
	}
	// Tail tokens weigh at most what the last candidate weighs.
	s.tailOpen = s.tailOpen && n == s.t.d.Len()
	s.end = n
}

// topP keeps the smallest high-probability prefix whose mass reaches p: token i stays
// while the mass strictly before it is below p (the ascending "drop c ≤ 1 − p" rule
// restated from the top). At T = 1 with nothing filtered yet the normaliser is the
// Dist's exact full-vocabulary partition; otherwise an open tail enters through bounds.
func (s *filterState) topP(p, temperature float64) {
	if p >= 1 {
		return
	}
	t := s.t
	var zLo, zHi float64
	if temperature == 1 && !s.filtered {
		zLo = math.Exp(t.d.LogPartition - float64(t.d.Candidates[0].Logit))
		zHi = zLo
	} else {
		z := t.sum(0, s.end)
		zLo, zHi = z, z
		if s.tailOpen {
			lo, hi := t.tailBounds()
			if s.filtered {
				lo = 0
			}
			zLo, zHi = z+lo, z+hi
		}
	}
	s.filtered = true
	nLo, _ := s.nucleus(p * zLo)
	nHi, reached := s.nucleus(p * zHi)
	s.ambiguous = s.ambiguous || nLo != nHi
	s.tailOpen = s.tailOpen && !reached
	s.end = nHi
}

// nucleus returns how many leading survivors top-p keeps for the unnormalised target
// mass, and whether the target was reached inside the list.
func (s *filterState) nucleus(target float64) (int, bool) {
	var cum float64
	for i := 0; i < s.end; i++ {
		if cum >= target {
			return i, true
		}
		cum += s.t.weight(i)
	}
	return s.end, cum >= target
}

// finiteEnd drops trailing −inf candidates: they never survive (probability 0).
func (s *filterState) finiteEnd() int {
	n := s.end
	c := s.t.d.Sorted(n)
	for n > 1 && math.IsInf(float64(c[n-1].Logit), -1) {
		n--
	}
	return n
}
