// Package metrics holds the per-step numbers that both engine backends produce and
// every sampler consumes: the logits distribution summary (Dist) and the metric
// layer's attention statistics (AttnStats).
//
// It is a leaf package on purpose: the CPU engine, the CUDA backend (checked against
// it) and the sampler all share exactly this math, so "the same numbers" means the
// same code. Units follow docs/ENTROPIX.md: entropies in bits, varentropies in bits².
package metrics

import (
	"cmp"
	"math"
	"slices"
	"sync"
)

// Candidate is one token with its raw (temperature 1) logit.
type Candidate struct {
	ID    int32
	Logit float32
}

// Dist is what a sampler may know about one step's logits: the top-K candidates and
// full-vocabulary statistics at temperature 1. Samplers never see the whole vector,
// so the CPU and CUDA backends can feed one sampler implementation.
type Dist struct {
	// Candidates are sorted by logit descending, ties by lower id.
	Candidates []Candidate
	// VocabSize is the length of the full logits vector.
	VocabSize int
	// LogPartition is ln Σ exp(logit) over the full vocabulary (natural log).
	LogPartition float64
	// Entropy is −Σ p·log2 p over the full vocabulary, in bits.
	Entropy float64
	// Varentropy is Σ p·(log2 p + H)², in bits².
	Varentropy float64
	// TailMass is the probability mass (temperature 1) outside the candidates.
	TailMass float64

	// FillDistNeed sorts only the candidates a sampler declared it reads; the rest
	// (pending of them, all ranking below the last of Candidates) are found in
	// vocab, a copy of the step's logits, and sorted in by Sorted on demand. A Dist
	// whose candidates are all in place has pending 0.
	vocab   []float32
	pending int
}

// expScratch holds FillDist's exp(logit − max) buffers; a pool rather than a
// field keeps Dist a plain value that compares and copies as its numbers.
var expScratch = sync.Pool{New: func() any { return new([]float64) }}

// LogProb returns the natural-log probability of a candidate's logit at temperature 1.
func (d *Dist) LogProb(logit float32) float64 { return float64(logit) - d.LogPartition }

// Len is the number of candidates the Dist holds: those in Candidates and those
// still to be sorted in (see Sorted).
func (d *Dist) Len() int { return len(d.Candidates) + d.pending }

// Truncated reports whether the candidate list is shorter than the vocabulary.
func (d *Dist) Truncated() bool { return d.Len() < d.VocabSize }

// LogitStats returns ln Σ exp(x), the entropy (bits) and the varentropy (bits²) of
// softmax(logits). Entries at −inf have probability 0 and contribute nothing (the
// limit 0·log 0 = 0), where the upstream Python returns NaN. The sums run in float64
// so a float32 logits vector of 128k entries keeps ~1e-12 relative accuracy.
// If no logit is finite the result is NaN, which callers must treat as an error.
func LogitStats(logits []float32) (logZ, entropyBits, varentropyBits2 float64) {
	logZ, entropyBits, varentropyBits2, _ = logitStats(logits, nil)
	return logZ, entropyBits, varentropyBits2
}

// logitStats is LogitStats; with a scratch buffer as long as logits it computes
// every exp(x − max) once up front (expShifted, vectorised where the CPU allows) and
// reads them in both passes, without changing a bit of the result. It also returns
// the largest logit (−inf when there is none above −inf).
func logitStats(logits []float32, exps []float64) (logZ, entropyBits, varentropyBits2, maxLogit float64) {
	keep := len(exps) == len(logits)
	maxv := math.Inf(-1)
	for _, v := range logits {
		if f := float64(v); f > maxv {
			maxv = f
		}
	}
	if math.IsInf(maxv, 0) || math.IsNaN(maxv) {
		return math.NaN(), math.NaN(), math.NaN(), maxv
	}
	// One pass for Z and the first two moments of (x − max): with s = x − max,
	// ln p = s − ln Z', H_nats = ln Z' − E[s], Var_nats = E[s²] − E[s]².
	// Var is computed two-pass below for accuracy, since E[s²] − E[s]² cancels badly
	// when the distribution is nearly flat.
	if keep {
		ExpShifted(exps, logits, maxv)
	}
	var z, es float64
	for i, v := range logits {
		s := float64(v) - maxv
		if math.IsInf(s, -1) {
			continue // exps[i] is math.Exp(−Inf) = 0
		}
		var e float64
		if keep {
			e = exps[i]
		} else {
			e = math.Exp(s)
		}
		z += e
		es += e * s
	}
	lnZ := math.Log(z)
	es /= z
	hNats := lnZ - es
	var vNats float64
	for i, v := range logits {
		s := float64(v) - maxv
		if math.IsInf(s, -1) {
			continue
		}
		d := s - es // = ln p + H_nats
		var e float64
		if keep {
			e = exps[i]
		} else {
			e = math.Exp(s)
		}
		vNats += e * d * d
	}
	vNats /= z
	return lnZ + maxv, hNats / math.Ln2, vNats / (math.Ln2 * math.Ln2), maxv
}

// Argmax returns the lowest index of the largest logit (greedy's tie rule).
func Argmax(logits []float32) int {
	best := 0
	for i, v := range logits {
		if v > logits[best] {
			best = i
		}
	}
	return best
}

// FillDist summarises a full logits vector into d, keeping the top k candidates
// (k <= 0 or k >= len(logits) keeps the whole vocabulary), all sorted. It reuses
// d's candidate buffer so a decode loop does not allocate per token.
func FillDist(d *Dist, logits []float32, k int) { FillDistNeed(d, logits, k, nil) }

// SetStats sets the full-vocabulary statistics computed elsewhere (the GPU) for a
// Dist whose Candidates are already filled, and derives the tail mass from them.
func (d *Dist) SetStats(vocab int, logZ, entropyBits, varentropyBits2 float64) {
	d.VocabSize = vocab
	d.LogPartition, d.Entropy, d.Varentropy = logZ, entropyBits, varentropyBits2
	if d.Len() >= vocab {
		d.TailMass = 0
		return
	}
	var kept float64
	for _, c := range d.Candidates {
		kept += math.Exp(float64(c.Logit) - logZ)
	}
	d.TailMass = math.Max(0, 1-kept)
}

// TopK appends to dst the k largest logits sorted descending, ties by lower id
// (−0 and +0 tie; NaNs never rank). A small k keeps a min-heap, O(n log k), which
// matters for a 128k vocabulary at every decode step; a k that is a large share
// of the vocabulary sorts every logit by one integer key instead (topk_sort.go).
func TopK(dst []Candidate, logits []float32, k int) []Candidate {
	if k <= 0 {
		return dst
	}
	if k > len(logits) {
		k = len(logits)
	}
	if k > len(logits)/16 {
		return topKBySort(dst, logits, k)
	}
	return topKByHeap(dst, logits, k)
}

// topKByHeap is TopK through a min-heap of the best k seen so far.
func topKByHeap(dst []Candidate, logits []float32, k int) []Candidate {
	h := dst[len(dst):len(dst)]
	if cap(h) < k {
		h = make([]Candidate, 0, k)
	}
	// worse reports whether a ranks below b: lower logit, or equal logit and higher id.
	worse := func(a, b Candidate) bool {
		return a.Logit < b.Logit || (a.Logit == b.Logit && a.ID > b.ID)
	}
	down := func(i int) {
		for {
			l := 2*i + 1
			if l >= len(h) {
				return
			}
			m := l
			if r := l + 1; r < len(h) && worse(h[r], h[l]) {
				m = r
			}
			if !worse(h[m], h[i]) {
				return
			}
			h[i], h[m] = h[m], h[i]
			i = m
		}
	}
	for i, v := range logits {
		c := Candidate{ID: int32(i), Logit: v}
		if v != v { // NaN never ranks
			continue
		}
		if len(h) < k {
			h = append(h, c)
			for j := len(h) - 1; j > 0; {
				p := (j - 1) / 2
				if !worse(h[j], h[p]) {
					break
				}
				h[j], h[p] = h[p], h[j]
				j = p
			}
			continue
		}
		if worse(h[0], c) {
			h[0] = c
			down(0)
		}
	}
	slices.SortFunc(h, func(a, b Candidate) int {
		if c := cmp.Compare(b.Logit, a.Logit); c != 0 {
			return c
		}
		return cmp.Compare(a.ID, b.ID)
	})
	return append(dst, h...)
}
