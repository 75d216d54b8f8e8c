package cpu

import "math"

// attention computes, for every token row and query head, softmax(q·Kᵀ/√d)·V over
// the slot's cached positions 0..pos (causal: a row never sees later positions, even
// those written by the same chunk). Query head h reads kv head h / (heads/kv_heads),
// HF's repeat_kv. Rows that end an input on the metric layer also copy their
// pre-softmax scores out for AttnStats.
func (e *Engine) attention(layer int, rows []tokenRow, q, out []float32, capture bool) {
	c := &e.cfg
	hd, qDim := c.HeadDim, c.Heads*c.HeadDim
	group := c.Heads / c.KVHeads
	scale := float32(1 / math.Sqrt(float64(hd)))
	keys, vals := e.cache.k[layer], e.cache.v[layer]
	// One task per (row, kv head) runs that kv head's query heads together, so the
	// slot's keys and values come from cache once per group, not once per head.
	// Where a row's positions are read from: its slot, or for a prompt prefix
	// that other slots of the batch share, the one slot kvShare picked for all of
	// them (the same bits), so that a decode step reads a shared prefix once
	// instead of once per sequence; that needs the kernels that continue a
	// weighted sum across stretches.
	//
	// Tasks run kv head by kv head (each thread takes a contiguous run of them),
	// so the rows that follow each other on a thread read the same head's keys
	// and values: a shared prefix's (~370 KB per head for SmolLM2's 8-shot
	// prompts) stays in that core's L2 across the batch, where row by row it
	// cycled through every head's and came from L3. The order changes no value.
	e.pool.forEach(e.threads, len(rows)*c.KVHeads, func(worker, task int) {
		r, kvh := task%len(rows), task/len(rows)
		row := rows[r]
		n := row.pos + 1
		h0 := kvh * group
		ws := &e.scratch[worker]
		s := ws.scores[:group*n] // head h0+g's row at g·n
		qg, o := q[r*qDim+h0*hd:r*qDim+(h0+group)*hd], out[r*qDim+h0*hd:r*qDim+(h0+group)*hd]
		rs := append(ws.ranges[:0], kvRange{row.slot, 0, n})
		if e.share != nil && canAddWeightedValues(hd) {
			rs = e.share.ranges(row.slot, n, rs)
		}
		ws.ranges = rs
		for _, rg := range rs {
			at := e.cache.at(rg.slot, kvh, rg.from)
			groupScores(s[rg.from:], n, rg.to-rg.from, qg, group, hd, keys[at:], hd, scale)
		}
		for g := range group {
			if capture && row.output >= 0 {
				h := h0 + g
				copy(e.attnScores[row.output][h*n:(h+1)*n], s[g*n:(g+1)*n])
			}
		}
		softmaxRows(s, n, group)
		if len(rs) == 1 && rs[0].slot == row.slot {
			weightedSums(o, s, n, group, hd, vals[e.cache.at(row.slot, kvh, 0):], hd)
			return
		}
		clear(o)
		for _, rg := range rs {
			at := e.cache.at(rg.slot, kvh, rg.from)
			addWeightedValues(o, s[rg.from:], n, group, hd, vals[at:], hd, rg.to-rg.from)
		}
	})
}

// groupScores sets s[g·sstride+j] = dot(q_g, k_j)·scale (the product rounded
// once) for the heads query heads g, back to back in q (hd floats each), and
// the n keys k_j = k[j·kstride : j·kstride+hd]. Blocks of keys go through a
// kernel that scores a block against each head in turn (same bits, each key
// load serving the group's heads): with AVX-512 16 keys for head dim 64 or
// 128 (groupScores64AVX512, groupScores128AVX512), with AVX2 alone 8 keys
// (groupScores64AVX2, groupScores128AVX2), with NEON 4 keys
// (groupScores64NEON, groupScores128NEON); dot4 and dot do the rest, as they
// do everything elsewhere.
func groupScores(s []float32, sstride, n int, q []float32, heads, hd int, k []float32, kstride int, scale float32) {
	type scoresKernel = func(q *float32, heads int, k *float32, kstride int, blocks int, scale float32, out *float32, ostride int)
	block, k64, k128 := 0, scoresKernel(nil), scoresKernel(nil)
	switch {
	case useAVX512:
		block, k64, k128 = 16, groupScores64AVX512, groupScores128AVX512
	case useSIMD:
		block, k64, k128 = 8, groupScores64AVX2, groupScores128AVX2
	case useNEON:
		block, k64, k128 = 4, groupScores64NEON, groupScores128NEON
	}
	done := 0
	if block > 0 && (hd == 64 || hd == 128) && n >= block {
		blocks := n / block
		done = block * blocks
		_, _, _ = q[heads*hd-1], k[(done-1)*kstride+hd-1], s[(heads-1)*sstride+done-1]
		kernel := k64
		if hd == 128 {
			kernel = k128
		}
		kernel(&q[0], heads, &k[0], kstride, blocks, scale, &s[0], sstride)
	}
	for g := range heads {
		qg, sg := q[g*hd:(g+1)*hd], s[g*sstride:g*sstride+n]
		j := done
		if useAVX512 { // four keys per call, the same bits as dot
			var s4 [4]float32
			for ; j+4 <= n; j += 4 {
				dot4(qg, k[j*kstride:(j+3)*kstride+hd], kstride, &s4)
				for i, v := range s4 {
					sg[j+i] = v * scale
				}
			}
		}
		for ; j < n; j++ {
			sg[j] = dot(qg, k[j*kstride:j*kstride+hd]) * scale
		}
	}
}

// weightedSums sets out[g·hd+i] = Σ_j p[g·n+j]·v[j·stride+i] for the heads rows
// of p, each element weightedSum's chain (0, then + float32(p·v) for j in
// order). Where canAddWeightedValues(hd), one kernel runs the group
// (addWeightedValues), each value row loaded once for several heads.
func weightedSums(out, p []float32, n, heads, hd int, v []float32, stride int) {
	if canAddWeightedValues(hd) {
		clear(out[:heads*hd])
		addWeightedValues(out, p, n, heads, hd, v, stride, n)
		return
	}
	for g := range heads {
		weightedSum(out[g*hd:(g+1)*hd], p[g*n:(g+1)*n], v, stride)
	}
}

// canAddWeightedValues reports whether addWeightedValues runs for head dim hd:
// weightedSums' group kernel, and the stretches that reading a shared prefix
// from other slots splits a row's positions into, both need it.
func canAddWeightedValues(hd int) bool {
	return useAVX512 && hd%64 == 0 || (useSIMD || useNEON) && hd%32 == 0
}

// addWeightedValues continues weightedSums' chains over n more positions:
// out[g·hd+i] += p[g·pstride+j]·v[j·stride+i] for j < n in order, where
// canAddWeightedValues(hd) (the elements' chains are independent, so the
// kernels split them freely): with AVX-512 a call runs up to four heads over
// 64 elements, with AVX2 alone one head (weightedSumAVX2, 64 elements at a
// time), with NEON up to two heads over 32.
func addWeightedValues(out, p []float32, pstride, heads, hd int, v []float32, stride, n int) {
	_, _, _ = out[heads*hd-1], p[(heads-1)*pstride+n-1], v[(n-1)*stride+hd-1]
	if useAVX512 && hd%64 == 0 {
		for g := 0; g < heads; g += 4 { // the kernel holds four heads' sums
			k := min(4, heads-g)
			for i := 0; i < hd; i += 64 {
				weightedSumGroup64AVX512(&out[g*hd+i], hd, &p[g*pstride], pstride, k, &v[i], stride, n)
			}
		}
		return
	}
	if useSIMD {
		// The heads take turns over a stretch of 16 KB of value rows, so the
		// rows come from memory once for the group and from L1 for the rest
		// (one pass per head over all n positions read them per head, from
		// DRAM where they are a sequence's own recent positions).
		stretch := max(1, 4096/hd)
		for j := 0; j < n; j += stretch {
			m := min(stretch, n-j)
			for g := range heads {
				weightedSumAVX2(&out[g*hd], &p[g*pstride+j], &v[j*stride], stride, m, hd)
			}
		}
		return
	}
	for g := 0; g < heads; g += 2 { // the kernel holds two heads' sums
		k := min(2, heads-g)
		for i := 0; i < hd; i += 32 {
			weightedSumGroup32NEON(&out[g*hd+i], hd, &p[g*pstride], pstride, k, &v[i], stride, n)
		}
	}
}

// softmax normalises s in place; sums run in float64 in a fixed order. It is the
// definition softmaxRows follows.
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

// softmaxRows runs softmax on each of the rows s[g·n:(g+1)·n], g < rows, with
// the same bits. With AVX2 or NEON its passes are vector kernels, and the
// float64 sums, serial chains that SIMD cannot split without changing their
// bits, run four rows side by side.
func softmaxRows(s []float32, n, rows int) {
	maxKernel, scaleKernel := maxAVX2, scaleF64AVX2
	if useNEON {
		maxKernel, scaleKernel = maxNEON, scaleF64NEON
	}
	if !useSIMD && !useNEON || n < 8 {
		for g := range rows {
			softmax(s[g*n : (g+1)*n])
		}
		return
	}
	for g0 := 0; g0 < rows; g0 += 4 {
		var row [4][]float32
		var z [4]float64
		var done [4]bool
		k := min(4, rows-g0)
		for g := range row {
			row[g] = s[(g0+min(g, k-1))*n:][:n] // a short group repeats its last row
		}
		for g := range k {
			m, ordered := maxKernel(&row[g][0], n&^7)
			for _, v := range row[g][n&^7:] {
				m = max(m, v)
			}
			if !ordered || m != m { // NaN: Go's max decides which, and the row is NaN
				softmax(row[g])
				done[g] = true
				continue
			}
			expSub(row[g], m)
		}
		sumsF64(&row[0][0], &row[1][0], &row[2][0], &row[3][0], n, &z)
		for g := range k {
			if done[g] {
				continue
			}
			inv := 1 / z[g]
			scaleKernel(&row[g][0], inv, n&^7)
			for j, v := range row[g][n&^7:] {
				row[g][n&^7+j] = float32(float64(v) * inv)
			}
		}
	}
}
