package metrics

import (
	"math"
	"slices"
)

// A sampler reads a prefix of the sorted candidate list: greedy its first entry,
// a top-k draw k of them, min-p those above its threshold. Sorting the whole 49k
// vocabulary at every step for that was a twelfth of a sweep's CPU time. So a
// sampler declares what it reads (Need); the engine sorts that much and keeps the
// rest of the step's logits in the Dist, which sorts them in the moment a reader
// asks for more (Sorted). Every candidate, every statistic and every decision stays
// what a full sort gives: a Need too short costs time, never a number.

// Need is how much of a step's candidate list a sampler reads: the Top best
// candidates, every candidate whose logit is within Within (nats) of the best,
// and the one candidate after those (the one a threshold walk stops at).
type Need struct {
	Top    int
	Within float64
}

// FillDistNeed is FillDist that, when the candidates are the whole vocabulary
// (k <= 0 or k >= len(logits)), sorts only what need names into Candidates;
// Sorted brings in the rest. A nil need sorts everything; a top-k list ignores it.
func FillDistNeed(d *Dist, logits []float32, k int, need *Need) {
	n := len(logits)
	buf := expScratch.Get().(*[]float64)
	if cap(*buf) < n {
		*buf = make([]float64, n)
	}
	logZ, h, v, maxv := logitStats(logits, (*buf)[:n])
	expScratch.Put(buf)
	// logZ is NaN exactly when a logit is NaN or the largest is infinite.
	d.placeCandidates(logits, k, need, maxv, !math.IsNaN(logZ))
	d.SetStats(n, logZ, h, v)
}

// SetCandidatesNeed fills Candidates from a logits row as FillDistNeed does,
// leaving the statistics to SetStats (the CUDA backend computes them on the device).
func (d *Dist) SetCandidatesNeed(logits []float32, k int, need *Need) {
	maxv, rankable := math.Inf(-1), true
	if lazy(len(logits), k, need) {
		for _, v := range logits {
			if v != v {
				rankable = false
			}
			maxv = max(maxv, float64(v))
		}
	}
	d.placeCandidates(logits, k, need, maxv, rankable && !math.IsInf(maxv, 0))
}

// lazy tells whether need leaves candidates of an n-logit row to be sorted in
// later: only when the list is the whole vocabulary.
func lazy(n, k int, need *Need) bool { return need != nil && (k <= 0 || k >= n) }

// placeCandidates sorts what need names into Candidates and keeps the rest pending,
// or sorts the top k (the whole vocabulary for k <= 0): for a top-k list, a nil
// need, or logits with a NaN or an infinite maximum (!rankable: no sampler draws
// from those, and TopK is the one place they are ranked).
func (d *Dist) placeCandidates(logits []float32, k int, need *Need, maxv float64, rankable bool) {
	d.Candidates, d.pending = d.Candidates[:0], 0
	if !lazy(len(logits), k, need) || !rankable {
		if k <= 0 || k > len(logits) {
			k = len(logits)
		}
		d.Candidates = TopK(d.Candidates, logits, k)
		return
	}
	d.vocab = append(d.vocab[:0], logits...)
	d.sortNeeded(need, maxv)
	d.pending = len(logits) - len(d.Candidates)
}

// sortNeeded puts the candidates need names into Candidates, sorted, from NaN-free
// logits whose largest, maxv, is finite.
func (d *Dist) sortNeeded(need *Need, maxv float64) {
	within := need.Within
	if !(within >= 0) {
		within = 0
	}
	thr := min(maxv-within, countThreshold(d.vocab, need.Top)) // −inf takes every logit
	s := radixScratch.Get().(*[2][]uint64)
	defer radixScratch.Put(s)
	keys := s[0][:0]
	next, nextLogit := -1, math.Inf(-1)
	for i, v := range d.vocab {
		if f := float64(v); f >= thr {
			keys = append(keys, rankKey(i, v))
		} else if f > nextLogit || next < 0 { // the first of equal logits has the lower id
			next, nextLogit = i, f
		}
	}
	s[0] = keys[:0]
	if len(keys) < need.Top && next >= 0 {
		// The estimate fell short (rare): the best Top+1 overall hold the rest.
		d.Candidates = topKByHeap(d.Candidates, d.vocab, need.Top+1)
		return
	}
	if len(keys) > 256 {
		if cap(s[1]) < len(keys) {
			s[1] = make([]uint64, len(keys))
		}
		keys = radixSort(keys, s[1][:len(keys)])
	} else {
		slices.Sort(keys) // the id in the low bits breaks ties as radixSort's stability does
	}
	for _, key := range keys {
		id := int32(uint32(key))
		d.Candidates = append(d.Candidates, Candidate{ID: id, Logit: d.vocab[id]})
	}
	if next >= 0 {
		d.Candidates = append(d.Candidates, Candidate{ID: int32(next), Logit: d.vocab[next]})
	}
}

// countThreshold estimates, from a sample, a logit that about 2·top of logits
// reach (+inf when top ≤ 1: the best and the one after it need no threshold; −inf
// when the sample is too small to tell). It keeps the sample's 16 largest by
// insertion, one comparison per sampled logit: a heap of the top k over the whole
// vocabulary costs a closure call per logit, several times the collecting pass.
func countThreshold(logits []float32, top int) float64 {
	const rank = 16 // the sample's 16th largest: the count it gives wavers by about a quarter
	if top <= 1 {
		return math.Inf(1)
	}
	stride := max(1, top/8) // a sample of 8n/top logits, whose 16th largest about 2·top reach
	var best [rank]float32  // descending
	kept := 0
	for i := 0; i < len(logits); i += stride {
		v := logits[i]
		if kept == rank && !(v > best[rank-1]) {
			continue
		}
		j := min(kept, rank-1)
		for j > 0 && best[j-1] < v {
			best[j] = best[j-1]
			j--
		}
		best[j] = v
		kept = min(kept+1, rank)
	}
	if kept < rank {
		return math.Inf(-1)
	}
	return float64(best[rank-1])
}

// Sorted returns Candidates with at least its first n entries (all of them when n
// reaches Len) in place, sorting the pending candidates in when n reaches past
// those already sorted. Readers that index Candidates beyond what their sampler
// declared in its Need go through Sorted.
func (d *Dist) Sorted(n int) []Candidate {
	if n > len(d.Candidates) && d.pending > 0 {
		d.sortPending()
	}
	return d.Candidates
}

// sortPending sorts every pending candidate in after the sorted ones.
func (d *Dist) sortPending() {
	last := d.Candidates[len(d.Candidates)-1]
	cut := rankKey(int(last.ID), last.Logit)
	s := radixScratch.Get().(*[2][]uint64)
	defer radixScratch.Put(s)
	for i := range s {
		if cap(s[i]) < d.pending {
			s[i] = make([]uint64, d.pending)
		}
	}
	keys := s[0][:0]
	for i, v := range d.vocab {
		if v == v {
			if key := rankKey(i, v); key > cut {
				keys = append(keys, key)
			}
		}
	}
	keys = radixSort(keys, s[1][:len(keys)])
	for _, key := range keys {
		id := int32(uint32(key))
		d.Candidates = append(d.Candidates, Candidate{ID: id, Logit: d.vocab[id]})
	}
	d.pending = 0
}

// Find returns candidate id, sorted in yet or not, and whether id is a candidate.
func (d *Dist) Find(id int32) (Candidate, bool) {
	for _, c := range d.Candidates {
		if c.ID == id {
			return c, true
		}
	}
	if d.pending > 0 && id >= 0 && int(id) < len(d.vocab) {
		v, last := d.vocab[id], d.Candidates[len(d.Candidates)-1]
		if v == v && rankKey(int(id), v) > rankKey(int(last.ID), last.Logit) {
			return Candidate{ID: id, Logit: v}, true
		}
	}
	return Candidate{}, false
}
