package cuda

import "math"

// The attention kernels of the emulator. attention_cached's warp-split online softmax
// and the merge of its splits are checked separately (mirrorAttention); here each
// split is a plain softmax, so these test what the kernels are handed and where their
// partial results go, not how they reduce.

func (e *emulator) qkvRopeCache(grid int, k *kargs) {
	qkv, bias, rope, pos, slot, q, kc, vc := k.ptr(), k.ptr(), k.ptr(), k.ptr(), k.ptr(), k.ptr(), k.ptr(), k.ptr()
	heads, kvHeads, headDim, maxSeq := k.int(), k.int(), k.int(), k.int()
	k.done("qkv_rope_cache")
	width, half := (heads+2*kvHeads)*headDim, headDim/2
	posv, slotv := e.i32(pos, grid), e.i32(slot, grid)
	for t := 0; t < grid; t++ {
		p, s := int(posv[t]), int(slotv[t])
		row := append([]float32(nil), e.f32(qkv+dptr(4*t*width), width)...)
		if bias != 0 {
			for i, b := range e.f32(bias, width) {
				row[i] += b
			}
		}
		cs := e.f32(rope+dptr(8*p*half), 2*half)
		for h := 0; h < heads+kvHeads; h++ {
			for j := 0; j < half; j++ {
				a, b := row[h*headDim+j], row[h*headDim+j+half]
				c, sn := cs[2*j], cs[2*j+1]
				ra, rb := a*c-b*sn, b*c+a*sn
				if h < heads {
					qo := e.f32(q+dptr(4*(t*heads+h)*headDim), headDim)
					qo[j], qo[j+half] = ra, rb
				} else {
					base := ((s*kvHeads+(h-heads))*maxSeq + p) * headDim
					e.setBF16(kc, base+j, ra)
					e.setBF16(kc, base+j+half, rb)
				}
			}
		}
		for g := 0; g < kvHeads; g++ {
			for d := 0; d < headDim; d++ {
				e.setBF16(vc, ((s*kvHeads+g)*maxSeq+p)*headDim+d, row[(heads+kvHeads+g)*headDim+d])
			}
		}
	}
}

// scores returns q_h · k_j · scale for keys 0..nKeys-1 of slot s (float32, as the kernels).
func (e *emulator) scores(q []float32, kc dptr, s, g, kvHeads, maxSeq, headDim, nKeys int, scale float32) []float32 {
	out := make([]float32, nKeys)
	for j := range out {
		base := ((s*kvHeads+g)*maxSeq + j) * headDim
		var dot float32
		for d := 0; d < headDim; d++ {
			dot += (q[d] * scale) * e.bf16(kc, base+d)
		}
		out[j] = dot
	}
	return out
}

func (e *emulator) attention(grid, gridY int, k *kargs) {
	q, kc, vc, pos, slot, out, part := k.ptr(), k.ptr(), k.ptr(), k.ptr(), k.ptr(), k.ptr(), k.ptr()
	heads, kvHeads, headDim, maxSeq, hb, splits, span, scale := k.int(), k.int(), k.int(), k.int(), k.int(), k.int(), k.int(), k.float()
	k.done("attention_cached")
	if gridY*hb != heads*splits || (heads/kvHeads)%hb != 0 {
		panicf("attention_cached: grid.y %d × hb %d for %d heads / %d kv heads in %d splits", gridY, hb, heads, kvHeads, splits)
	}
	posv, slotv := e.i32(pos, grid), e.i32(slot, grid)
	for t := 0; t < grid; t++ {
		nKeys, s := int(posv[t])+1, int(slotv[t])
		if splits > 1 && nKeys > splits*span {
			panicf("attention_cached: %d keys in %d splits of %d", nKeys, splits, span)
		}
		for h := 0; h < heads; h++ {
			g := h / (heads / kvHeads)
			qh := e.f32(q+dptr(4*(t*heads+h)*headDim), headDim)
			sc := e.scores(qh, kc, s, g, kvHeads, maxSeq, headDim, nKeys, scale)
			v := func(j, d int) float64 { return float64(e.bf16(vc, ((s*kvHeads+g)*maxSeq+j)*headDim+d)) }
			if splits == 1 {
				_, z, o := softmaxPart(sc, 0, nKeys, headDim, v)
				for d := range o {
					e.setBF16(out, (t*heads+h)*headDim+d, float32(o[d]/z))
				}
				continue
			}
			for sp := 0; sp*span < nKeys; sp++ {
				m, z, o := softmaxPart(sc, sp*span, min(nKeys, (sp+1)*span), headDim, v)
				pr := e.f32(part+dptr(4*((t*heads+h)*splits+sp)*(headDim+2)), headDim+2)
				pr[0], pr[1] = float32(m), float32(z)
				for d := range o {
					pr[2+d] = float32(o[d])
				}
			}
		}
	}
}

// softmaxPart is keys [lo, hi) of one head's scores: their max m, z = Σ e^(s−m) and
// the unnormalised output Σ e^(s−m)·v.
func softmaxPart(sc []float32, lo, hi, headDim int, v func(j, d int) float64) (m, z float64, o []float64) {
	m = math.Inf(-1)
	for _, x := range sc[lo:hi] {
		m = math.Max(m, float64(x))
	}
	o = make([]float64, headDim)
	for j := lo; j < hi; j++ {
		p := math.Exp(float64(sc[j]) - m)
		z += p
		for d := range o {
			o[d] += p * v(j, d)
		}
	}
	return m, z, o
}

// attentionCombine emulates attention_combine: grid (tokens, heads).
func (e *emulator) attentionCombine(grid, gridY int, k *kargs) {
	part, pos, out := k.ptr(), k.ptr(), k.ptr()
	heads, headDim, splits, span := k.int(), k.int(), k.int(), k.int()
	k.done("attention_combine")
	if gridY != heads {
		panicf("attention_combine: grid.y %d for %d heads", gridY, heads)
	}
	posv := e.i32(pos, grid)
	for t := 0; t < grid; t++ {
		n := min(splits, ceilDiv(int(posv[t])+1, span))
		for h := 0; h < heads; h++ {
			pr := e.f32(part+dptr(4*(t*heads+h)*splits*(headDim+2)), splits*(headDim+2))
			mx := math.Inf(-1)
			for sp := 0; sp < n; sp++ {
				mx = math.Max(mx, float64(pr[sp*(headDim+2)]))
			}
			for d := 0; d < headDim; d++ {
				var l, o float64
				for sp := 0; sp < n; sp++ {
					f := math.Exp(float64(pr[sp*(headDim+2)]) - mx)
					l += float64(pr[sp*(headDim+2)+1]) * f
					o += float64(pr[sp*(headDim+2)+2+d]) * f
				}
				e.setBF16(out, (t*heads+h)*headDim+d, float32(o/l))
			}
		}
	}
}

// attnHeadStats emulates attn_head_stats: grid (rows, heads).
func (e *emulator) attnHeadStats(grid, gridY int, k *kargs) {
	q, rows, pos, slot, kc, out, hs := k.ptr(), k.ptr(), k.ptr(), k.ptr(), k.ptr(), k.ptr(), k.ptr()
	heads, kvHeads, headDim, maxSeq, padded, padLen, scale := k.int(), k.int(), k.int(), k.int(), k.int(), k.int(), k.float()
	k.done("attn_head_stats")
	if gridY != heads {
		panicf("attn_head_stats: grid.y %d for %d heads", gridY, heads)
	}
	rowv := e.i32(rows, grid)
	for b := 0; b < grid; b++ {
		t := int(rowv[b])
		nKeys, s := int(e.i32(pos, t+1)[t])+1, int(e.i32(slot, t+1)[t])
		o, hv := e.f64(out+dptr(8*b*(heads+2)), heads), e.f64(hs+dptr(8*3*b*heads), 3*heads)
		for h := 0; h < heads; h++ {
			qh := e.f32(q+dptr(4*(t*heads+h)*headDim), headDim)
			sc := e.scores(qh, kc, s, h/(heads/kvHeads), kvHeads, maxSeq, headDim, nKeys, scale)
			o[h], hv[3*h], hv[3*h+1], hv[3*h+2] = mirrorHeadStats(sc, padded == 1, padLen)
		}
	}
}

// attnAgreement emulates attn_agreement: grid (rows, chunks), after attnHeadStats.
func (e *emulator) attnAgreement(grid, gridY int, k *kargs) {
	q, rows, pos, slot, kc, hs, part := k.ptr(), k.ptr(), k.ptr(), k.ptr(), k.ptr(), k.ptr(), k.ptr()
	heads, kvHeads, headDim, maxSeq, scale, tile := k.int(), k.int(), k.int(), k.int(), k.float(), k.int()
	k.done("attn_agreement")
	if tile <= 0 {
		panicf("attn_agreement: tile %d", tile)
	}
	rowv := e.i32(rows, grid)
	parts := e.f64(part, grid*gridY)
	for b := 0; b < grid; b++ {
		t := int(rowv[b])
		nKeys, s := int(e.i32(pos, t+1)[t])+1, int(e.i32(slot, t+1)[t])
		all := make([]float32, 0, heads*nKeys)
		for h := 0; h < heads; h++ {
			qh := e.f32(q+dptr(4*(t*heads+h)*headDim), headDim)
			all = append(all, e.scores(qh, kc, s, h/(heads/kvHeads), kvHeads, maxSeq, headDim, nKeys, scale)...)
		}
		hv := e.f64(hs+dptr(8*3*b*heads), 3*heads)
		for c := 0; c < gridY; c++ {
			parts[b*gridY+c] = mirrorAgreementPart(all, heads, nKeys, hv, func(j int) bool { return j/tile%gridY == c })
		}
	}
}

// attnAgreementFinish emulates attn_agreement_finish: grid rows.
func (e *emulator) attnAgreementFinish(grid int, k *kargs) {
	rows, pos, hs, part, out := k.ptr(), k.ptr(), k.ptr(), k.ptr(), k.ptr()
	heads, chunks, padded, padLen := k.int(), k.int(), k.int(), k.int()
	k.done("attn_agreement_finish")
	rowv := e.i32(rows, grid)
	for b := 0; b < grid; b++ {
		t := int(rowv[b])
		nKeys := int(e.i32(pos, t+1)[t]) + 1
		o := e.f64(out+dptr(8*b*(heads+2)), heads+2)
		o[heads], o[heads+1] = mirrorAgreementFinish(e.f64(part+dptr(8*b*chunks), chunks), e.f64(hs+dptr(8*3*b*heads), 3*heads),
			heads, nKeys, padded == 1, padLen)
	}
}
