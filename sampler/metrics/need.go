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

// FillDistNeed is FillDist over the whole vocabulary (k = 0) with only what need
// names sorted into Candidates; Sorted brings in the rest. A nil need sorts
// everything, as FillDist does.
func FillDistNeed(d *Dist, logits []float32, need *Need) {
	if need == nil {
		FillDist(d, logits, 0)
		return
	}
	n := len(logits)
	buf := expScratch.Get().(*[]float64)
	if cap(*buf) < n {
		*buf = make([]float64, n)
	}
	logZ, h, v, maxv := logitStats(logits, (*buf)[:n])
	expScratch.Put(buf)
	d.vocab = append(d.vocab[:0], logits...)
	d.Candidates, d.pending = d.Candidates[:0], 0
	valid := d.sortNeeded(need, maxv)
	d.pending = valid - len(d.Candidates)
	if valid < n && d.pending > 0 {
		// NaN logits: no sampler draws from this Dist (checkDist), but its tail
		// mass is FillDist's, summed over every valid candidate.
		d.sortPending()
	}
	d.SetStats(n, logZ, h, v)
}

// sortNeeded puts the candidates need names into Candidates, sorted, and returns
// how many logits are not NaN.
func (d *Dist) sortNeeded(need *Need, maxv float64) int {
	within := need.Within
	if !(within >= 0) {
		within = 0
	}
	thr := maxv - within // −inf when maxv is; every valid logit then qualifies
	s := radixScratch.Get().(*[2][]uint64)
	defer radixScratch.Put(s)
	keys := s[0][:0]
	valid, next := 0, -1
	var nextLogit float32
	for i, v := range d.vocab {
		switch {
		case v != v: // NaN never ranks
		case float64(v) >= thr || math.IsNaN(thr):
			valid++
			keys = append(keys, rankKey(i, v))
		default:
			valid++
			if next < 0 || v > nextLogit { // the first of equal logits has the lower id
				next, nextLogit = i, v
			}
		}
	}
	s[0] = keys[:0]
	if len(keys) < need.Top && next >= 0 {
		// Fewer within reach than the count asks: the best Top+1 overall hold them all.
		d.Candidates = topKByHeap(d.Candidates, d.vocab, min(need.Top+1, valid))
		return valid
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
		d.Candidates = append(d.Candidates, Candidate{ID: int32(next), Logit: nextLogit})
	}
	return valid
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
