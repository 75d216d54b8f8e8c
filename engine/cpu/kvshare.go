package cpu

// kvShare lets attention read a slot's first positions from another live slot
// whose cache holds the same tokens there, so that a batch whose sequences share
// a prompt prefix reads it from one copy. Keys and values at a position depend
// only on the tokens up to it (the engine is batch- and chunk-invariant), so the
// other slot's rows are the same bits as the slot's own, which it still has (the
// prefix store copies them in): the sharing changes where attention reads, never
// a value. In a sweep every sequence's ~850-token few-shot prefix, and the 9 runs
// of a problem their whole prompt, are the same; a batch-32 decode step over
// such contexts streams the cache from DRAM, read once per slot without sharing.
//
// The record is kept under the engine's lock: tokens grow with every committed
// step, attach picks the source of an attached slot, free hands a freed slot's
// readers to another slot holding the same rows.
type kvShare struct {
	tokens [][]int32 // per slot: the tokens its cache holds, in position order, as far as known
	gen    []uint64  // per slot: bumped whenever its cache stops holding its tokens
	segs   [][]kvSeg // per slot: where its first positions are read, in order
}

// kvSeg says that positions from the previous segment's end up to end are read
// from slot, as long as that slot's generation is still gen.
type kvSeg struct {
	slot, end int
	gen       uint64
}

// kvRange is positions [from, to) of a row's keys and values, read from slot.
type kvRange struct{ slot, from, to int }

// minShare is the shortest common prefix read from another slot: a boundary
// costs each kernel a partial block of keys.
const minShare = 64

func newKVShare(slots int) *kvShare {
	return &kvShare{tokens: make([][]int32, slots), gen: make([]uint64, slots), segs: make([][]kvSeg, slots)}
}

// fed records tokens a committed step appended to slot at position start.
func (k *kvShare) fed(slot, start int, tokens []int32) {
	if k == nil {
		return
	}
	if have := len(k.tokens[slot]); have > start { // positions rewritten: no reader may keep them
		k.handOff(slot)
		k.tokens[slot] = k.tokens[slot][:start]
		k.truncate(slot, start)
	} else if have < start { // positions the record does not know: keep what it knows
		return
	}
	k.tokens[slot] = append(k.tokens[slot], tokens...)
}

// attach records that the empty slot now holds prompt[:n] (copied from the
// prefix store) and reads those positions from the live slot holding the longest
// common prefix of them, or from that slot's own sources, so that all readers of
// a prefix read the same copy.
func (k *kvShare) attach(slot int, prompt []int32, n int) {
	if k == nil {
		return
	}
	k.free(slot)
	k.tokens[slot] = append(k.tokens[slot], prompt[:n]...)
	best, common := -1, 0
	for s, toks := range k.tokens {
		if s == slot {
			continue
		}
		if p := commonPrefix(toks, prompt[:n]); p > common {
			best, common = s, p
		}
	}
	if common < minShare {
		return
	}
	for _, g := range k.segs[best] {
		if g.gen != k.gen[g.slot] {
			break // best's own rows serve from here
		}
		end := min(g.end, common)
		k.segs[slot] = append(k.segs[slot], kvSeg{g.slot, end, g.gen})
		if end == common {
			return
		}
	}
	k.segs[slot] = append(k.segs[slot], kvSeg{best, common, k.gen[best]})
}

// free forgets slot's tokens, handing its readers to another slot first. fed,
// attach and free do nothing on a nil kvShare (no sharing).
func (k *kvShare) free(slot int) {
	if k == nil {
		return
	}
	k.handOff(slot)
	k.tokens[slot] = k.tokens[slot][:0]
	k.segs[slot] = k.segs[slot][:0]
}

// handOff moves the segments other slots read from slot to the one of them
// reading the longest stretch of it (its own rows hold that stretch, and hold it
// for every other reader, whose stretches are no longer), and ends slot's
// generation.
func (k *kvShare) handOff(slot int) {
	heir, heirEnd := -1, 0
	for t := range k.segs {
		if t == slot {
			continue
		}
		for _, g := range k.segs[t] {
			if g.slot == slot && g.gen == k.gen[slot] && g.end > heirEnd {
				heir, heirEnd = t, g.end
			}
		}
	}
	k.gen[slot]++
	if heir < 0 {
		return
	}
	for t := range k.segs {
		if t == slot {
			continue
		}
		for i, g := range k.segs[t] {
			if g.slot == slot && g.gen == k.gen[slot]-1 {
				k.segs[t][i] = kvSeg{heir, g.end, k.gen[heir]}
			}
		}
	}
}

// truncate drops slot's segments past position end.
func (k *kvShare) truncate(slot, end int) {
	segs := k.segs[slot]
	for i, g := range segs {
		if g.end >= end {
			segs[i].end = end
			k.segs[slot] = segs[:i+1]
			return
		}
	}
}

// ranges splits positions [0, n) of slot into the stretches attention reads and
// where from (into buf's storage).
func (k *kvShare) ranges(slot, n int, buf []kvRange) []kvRange {
	out, from := buf[:0], 0
	for _, g := range k.segs[slot] {
		if from >= n {
			break
		}
		to, src := min(g.end, n), slot
		if g.gen == k.gen[g.slot] {
			src = g.slot
		}
		if to > from {
			out = append(out, kvRange{src, from, to})
			from = to
		}
	}
	if from < n {
		out = append(out, kvRange{slot, from, n})
	}
	return out
}

func commonPrefix(a, b []int32) int {
	n := min(len(a), len(b))
	for i := range n {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}
