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
	// One task per (row, kv head) runs that kv head's query heads together, so the
	// slot's keys and values come from cache once per group, not once per head.
	e.pool.forEach(e.threads, len(rows)*c.KVHeads, func(worker, task int) {
		r, kvh := task/c.KVHeads, task%c.KVHeads
		row := rows[r]
		n := row.pos + 1
		base := e.cache.offset(row.slot, 0) + kvh*hd
		h0 := kvh * group
		s := e.scratch[worker].scores[:group*n] // head h0+g's row at g·n
		groupScores(s, n, q[r*qDim+h0*hd:r*qDim+(h0+group)*hd], group, hd, keys[base:], kvDim, scale)
		for g := range group {
			sg := s[g*n : (g+1)*n]
			h := h0 + g
			if capture && row.output >= 0 {
				copy(e.attnScores[row.output][h*n:(h+1)*n], sg)
			}
			softmax(sg)
			weightedSum(out[r*qDim+h*hd:r*qDim+(h+1)*hd], sg, vals[base:], kvDim)
		}
	})
}

// groupScores sets s[g·n+j] = dot(q_g, k_j)·scale (the product rounded once) for
// the heads query heads g, back to back in q (hd floats each), and the n keys
// k_j = k[j·stride : j·stride+hd]. With AVX-512 and head dim 64, blocks of 16
// keys go through groupScores64AVX512 (same bits, each key load serving the
// group's heads); dot4 and dot do the rest, as they do everything elsewhere.
func groupScores(s []float32, n int, q []float32, heads, hd int, k []float32, stride int, scale float32) {
	done := 0
	if blocks := n / 16; useAVX512 && hd == 64 && blocks > 0 {
		done = 16 * blocks
		_, _, _ = q[heads*hd-1], k[(done-1)*stride+hd-1], s[(heads-1)*n+done-1]
		groupScores64AVX512(&q[0], heads, &k[0], stride, blocks, scale, &s[0], n)
	}
	for g := range heads {
		qg, sg := q[g*hd:(g+1)*hd], s[g*n:(g+1)*n]
		j := done
		if useAVX512 { // four keys per call, the same bits as dot
			var s4 [4]float32
			for ; j+4 <= n; j += 4 {
				dot4(qg, k[j*stride:(j+3)*stride+hd], stride, &s4)
				for i, v := range s4 {
					sg[j+i] = v * scale
				}
			}
		}
		for ; j < n; j++ {
			sg[j] = dot(qg, k[j*stride:j*stride+hd]) * scale
		}
	}
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
