package tokenizer

// symbol is one current token of a word during merging, in a doubly linked list
// over the slice so a merge is O(1); a merged-away symbol gets id -1.
type symbol struct {
	id         int32
	prev, next int32
}

// mergeCandidate is a queued adjacent pair: (rank, pos) orders the queue, newID
// detects stale entries whose pair has changed since they were queued.
type mergeCandidate struct {
	rank, pos, newID int32
}

func (a mergeCandidate) less(b mergeCandidate) bool {
	return a.rank < b.rank || (a.rank == b.rank && a.pos < b.pos)
}

// scratch holds per-call buffers so encoding reuses memory; Tokenizer keeps a
// sync.Pool of them.
type scratch struct {
	symbols   []symbol
	heap      []mergeCandidate
	text      []byte // prefix/suffix-decorated characters
	word      []byte // the byte-level mapping of the current word
	pieces    []piece
	stageBufs [][]piece
	spans     []span
	groups    []span
	// segments and subSegments hold the added-token splits of Encode.
	segments    []segment
	subSegments []segment
}

// mergeAll applies merges until none applies, in the Rust library's order:
// the lowest rank first and, among equal ranks, the leftmost pair.
func (m *bpeModel) mergeAll(syms []symbol, sc *scratch) []symbol {
	h := sc.heap[:0]
	for i := 0; i+1 < len(syms); i++ {
		if r, ok := m.merges[pairKey(syms[i].id, syms[i+1].id)]; ok {
			h = heapPush(h, mergeCandidate{rank: r.rank, pos: int32(i), newID: r.newID})
		}
	}
	for len(h) > 0 {
		var top mergeCandidate
		top, h = heapPop(h)
		cur := &syms[top.pos]
		if cur.id < 0 || cur.next < 0 {
			continue
		}
		right := syms[cur.next]
		if r, ok := m.merges[pairKey(cur.id, right.id)]; !ok || r.newID != top.newID {
			continue // stale: one side was merged since this pair was queued
		}
		cur.id = top.newID
		syms[cur.next].id = -1
		cur.next = right.next
		if right.next >= 0 {
			syms[right.next].prev = top.pos
		}
		if cur.prev >= 0 {
			if r, ok := m.merges[pairKey(syms[cur.prev].id, cur.id)]; ok {
				h = heapPush(h, mergeCandidate{rank: r.rank, pos: cur.prev, newID: r.newID})
			}
		}
		if cur.next >= 0 {
			if r, ok := m.merges[pairKey(cur.id, syms[cur.next].id)]; ok {
				h = heapPush(h, mergeCandidate{rank: r.rank, pos: top.pos, newID: r.newID})
			}
		}
	}
	sc.heap = h
	return syms
}

func heapPush(h []mergeCandidate, c mergeCandidate) []mergeCandidate {
	h = append(h, c)
	for i := len(h) - 1; i > 0; {
		parent := (i - 1) / 2
		if !h[i].less(h[parent]) {
			break
		}
		h[i], h[parent] = h[parent], h[i]
		i = parent
	}
	return h
}

func heapPop(h []mergeCandidate) (mergeCandidate, []mergeCandidate) {
	top := h[0]
	last := len(h) - 1
	h[0] = h[last]
	h = h[:last]
	for i := 0; ; {
		l, r, small := 2*i+1, 2*i+2, i
		if l < len(h) && h[l].less(h[small]) {
			small = l
		}
		if r < len(h) && h[r].less(h[small]) {
			small = r
		}
		if small == i {
			break
		}
		h[i], h[small] = h[small], h[i]
		i = small
	}
	return top, h
}
