package cpu

import "math"

// attention computes, for every token row and query head, softmax(q·Kᵀ/√d)·V over
// the slot's cached positions 0..pos (causal: a row never sees later positions, even
// those written by the same chunk). Query head h reads kv head h / (heads/kv_heads),
// HF's repeat_kv. Rows that end an input on the metric layer also copy their
// pre-softmax scores out for AttnStats.
func (e *Engine) attention(layer int, rows []tokenRow, q, out []float32, capture bool) {
	c := &e.cfg
	hd, qDim, kvDim := c.HeadDim, c.Heads*c.HeadDim, c.KVHeads*c.HeadDim
	group := c.Heads / c.KVHeads
	scale := float32(1 / math.Sqrt(float64(hd)))
	keys, vals := e.cache.k[layer], e.cache.v[layer]
	// One task per (row, kv head) runs that kv head's query heads back to back, so
	// the slot's keys and values come from cache once per group, not once per head.
	e.pool.forEach(e.threads, len(rows)*c.KVHeads, func(worker, task int) {
		r, kvh := task/c.KVHeads, task%c.KVHeads
		row := rows[r]
		base := e.cache.offset(row.slot, 0) + kvh*hd
		s := e.scratch[worker].scores[:row.pos+1]
		for h := kvh * group; h < (kvh+1)*group; h++ {
			qh := q[r*qDim+h*hd : r*qDim+(h+1)*hd]
			j := 0
			if useAVX512 { // four keys per call, the same bits as dot
				var s4 [4]float32
				for ; j+4 <= len(s); j += 4 {
					dot4(qh, keys[base+j*kvDim:base+(j+3)*kvDim+hd], kvDim, &s4)
					for k, v := range s4 {
						s[j+k] = v * scale
					}
				}
			}
			for ; j < len(s); j++ {
				s[j] = dot(qh, keys[base+j*kvDim:base+j*kvDim+hd]) * scale
			}
			if capture && row.output >= 0 {
				copy(e.attnScores[row.output][h*len(s):(h+1)*len(s)], s)
			}
			softmax(s)
			weightedSum(out[r*qDim+h*hd:r*qDim+(h+1)*hd], s, vals[base:], kvDim)
		}
	})
}

// softmax normalises s in place; sums run in float64 in a fixed order.
func softmax(s []float32) {
	m := s[0]
	for _, v := range s {
		m = max(m, v)
	}
	expSub(s, m)
	var z float64
	for _, e := range s {
		z += float64(e)
	}
	inv := 1 / z
	for j, v := range s {
		s[j] = float32(float64(v) * inv)
	}
}
