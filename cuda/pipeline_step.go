package cuda

import (
	"context"
	"fmt"

	"github.com/entropix-eval/entropix-eval/engine"
	"github.com/entropix-eval/entropix-eval/sampler/metrics"
)

// step appends each input's tokens to its slot, runs the batched forward and fills
// one Output per input. A failed or cancelled step leaves every slot's length as it
// was (cache entries past a length are never read). The caller holds the device.
func (p *pipeline) step(ctx context.Context, in []engine.Input, out *[]engine.Output) error {
	if err := validateStep(in, p.lens, &p.opts, p.cfg.VocabSize, p.seen); err != nil {
		return err
	}
	o := *out
	if cap(o) < len(in) {
		o = append(o[:cap(o)], make([]engine.Output, len(in)-cap(o))...)
	}
	o = o[:len(in)]
	*out = o
	if len(in) == 0 {
		return nil
	}
	p.batches = splitStep(in, p.lens, p.plan.TokenCap, p.batches)
	prepareScores(in, o)
	for i := range p.batches {
		if err := ctx.Err(); err != nil {
			return err
		}
		b := &p.batches[i]
		p.groupViews(b, in)
		if err := p.forward(b); err != nil {
			return err
		}
		if err := p.collect(b, in, o); err != nil {
			return err
		}
		if err := p.scoreRows(b, o); err != nil {
			return err
		}
	}
	for _, inp := range in {
		start := p.lens[inp.Slot]
		p.lens[inp.Slot] += len(inp.Tokens)
		if err := p.storeBlocks(inp, start); err != nil {
			return err
		}
	}
	return nil
}

// forward enqueues one sub-batch: embedding, every layer, and for the sub-batch's
// outputs the final norm, LM head, logits statistics and top-K.
func (p *pipeline) forward(b *subBatch) error {
	c, a, be := &p.cfg, &p.act, p.be
	rows, nOut := b.Tokens(), len(b.OutRows)
	for _, u := range []struct {
		dst dptr
		src []int32
	}{{a.ids, b.IDs}, {a.pos, b.Pos}, {a.slot, b.Slot}, {p.out.rows, b.OutRows}} {
		if err := be.upload(u.dst, i32Bytes(u.src)); err != nil {
			return fmt.Errorf("uploading the batch: %w", err)
		}
	}
	h, heads, kvh, hd := c.HiddenSize, c.Heads, c.KVHeads, c.HeadDim
	eps := float32(c.RMSNormEps)
	args := &p.args
	if err := be.launch("embed_rows", rows, 1, rowBlock(h), 0,
		args.reset().ptr(p.weights+dptr(p.layout.Embed.Offset)).ptr(a.ids).ptr(a.x).i32(h)); err != nil {
		return err
	}
	ag := attnGeometry(heads, kvh, hd, b.maxKeys(), rows)
	layerKV := dptr(int64(p.opts.Slots) * int64(kvh) * int64(p.opts.MaxSeqLen) * int64(hd) * 2)
	if nOut > 0 && !p.skipStats {
		if err := be.upload(p.out.viewRows, i32Bytes(p.host.viewRows)); err != nil {
			return fmt.Errorf("uploading the batch: %w", err)
		}
	}
	for l, lw := range p.layout.Layers {
		kc, vc := p.kc+dptr(l)*layerKV, p.vc+dptr(l)*layerKV
		if err := p.norm(a.x, 0, lw.InNorm, a.norm, rows, eps); err != nil {
			return err
		}
		if err := p.gemm(lw.QKV, a.norm, a.qkv, rows, 0); err != nil {
			return fmt.Errorf("layer %d qkv: %w", l, err)
		}
		bias := dptr(0)
		if lw.QKVBias.Bytes > 0 {
			bias = p.wptr(lw.QKVBias)
		}
		if err := be.launch("qkv_rope_cache", rows, 1, ropeBlock, 0, args.reset().ptr(a.qkv).ptr(bias).ptr(p.rope).
			ptr(a.pos).ptr(a.slot).ptr(a.q).ptr(kc).ptr(vc).i32(heads).i32(kvh).i32(hd).i32(p.opts.MaxSeqLen)); err != nil {
			return err
		}
		if err := p.attention(kc, vc, rows, ag); err != nil {
			return err
		}
		if l == p.opts.MetricLayer && nOut > 0 && !p.skipStats {
			if err := p.attnStats(kc, b.maxKeys()); err != nil {
				return err
			}
		}
		// o_proj and down_proj accumulate into the residual stream (beta = 1).
		if err := p.gemm(lw.O, a.att, a.x, rows, 1); err != nil {
			return fmt.Errorf("layer %d o_proj: %w", l, err)
		}
		if lw.OBias.Bytes > 0 {
			if err := p.addBias(a.x, lw.OBias, rows*h, h); err != nil {
				return err
			}
		}
		if err := p.norm(a.x, 0, lw.PostNorm, a.norm, rows, eps); err != nil {
			return err
		}
		if err := p.gemm(lw.GateUp, a.norm, a.gateUp, rows, 0); err != nil {
			return fmt.Errorf("layer %d gate/up: %w", l, err)
		}
		total := rows * c.Intermediate
		if err := be.launch("silu_mul", gridStrideBlocks(total, elementwiseBlock), 1, elementwiseBlock, 0,
			args.reset().ptr(a.gateUp).ptr(a.mlp).i32(c.Intermediate).i64(total)); err != nil {
			return err
		}
		if err := p.gemm(lw.Down, a.mlp, a.x, rows, 1); err != nil {
			return fmt.Errorf("layer %d down_proj: %w", l, err)
		}
	}
	if nOut == 0 {
		return nil
	}
	if err := p.norm(a.x, p.out.rows, p.layout.Norm, p.out.last, nOut, eps); err != nil {
		return err
	}
	if err := p.gemm(p.layout.LMHead, p.out.last, p.out.logits, nOut, 0); err != nil {
		return fmt.Errorf("lm_head: %w", err)
	}
	if p.skipStats {
		return nil
	}
	if err := p.logitStats(nOut); err != nil {
		return err
	}
	return p.topK(nOut)
}

// logitStats runs logit_stats_part over logitStatsChunk-entry parts of every logits
// row, then logit_stats_finish, which combines each row's parts in a fixed order.
func (p *pipeline) logitStats(nOut int) error {
	vocab := p.cfg.VocabSize
	parts := logitStatsParts(vocab)
	if err := p.be.launch("logit_stats_part", parts, nOut, logitStatsBlock, 0,
		p.args.reset().ptr(p.out.logits).i32(vocab).i32(logitStatsChunk).ptr(p.out.logitParts)); err != nil {
		return err
	}
	return p.be.launch("logit_stats_finish", nOut, 1, 32, 0,
		p.args.reset().ptr(p.out.logitParts).i32(parts).ptr(p.out.logitStats))
}

// attention runs attention_cached over the step's rows and, when it splits them over
// blocks, attention_combine, which merges each (row, head)'s splits in order.
func (p *pipeline) attention(kc, vc dptr, rows int, g attnLaunch) error {
	c, a := &p.cfg, &p.act
	heads, hd := c.Heads, c.HeadDim
	if err := p.be.launch("attention_cached", rows, heads/g.hb*g.splits, g.warps*32, g.smem, p.args.reset().ptr(a.q).
		ptr(kc).ptr(vc).ptr(a.pos).ptr(a.slot).ptr(a.att).ptr(a.attnPart).i32(heads).i32(c.KVHeads).i32(hd).
		i32(p.opts.MaxSeqLen).i32(g.hb).i32(g.splits).i32(g.span).f32(p.attnScale())); err != nil {
		return err
	}
	if g.splits == 1 {
		return nil
	}
	return p.be.launch("attention_combine", rows, heads, attnCombineBlock, 0, p.args.reset().ptr(a.attnPart).
		ptr(a.pos).ptr(a.att).i32(heads).i32(hd).i32(g.splits).i32(g.span))
}

// topK runs the device top-K stages; the result is in topVals/topIDs[final].
func (p *pipeline) topK(nOut int) error {
	if p.gpuK == 0 {
		return nil
	}
	srcVals, srcIDs := p.out.logits, dptr(0)
	for i, st := range topkStages(p.cfg.VocabSize, p.gpuK) {
		dv, di := p.out.topVals[i%2], p.out.topIDs[i%2]
		if err := p.be.launch("topk_select", st.Chunks, nOut, topkBlock, topkSharedBytes(p.gpuK),
			p.args.reset().ptr(srcVals).ptr(srcIDs).i32(st.N).i32(p.gpuK).ptr(dv).ptr(di)); err != nil {
			return err
		}
		srcVals, srcIDs = dv, di
	}
	return nil
}

// collect copies the sub-batch's statistics and candidates back and fills outputs.
func (p *pipeline) collect(b *subBatch, in []engine.Input, o []engine.Output) error {
	nOut := len(b.OutRows)
	if nOut == 0 {
		return nil
	}
	if p.skipStats {
		return p.be.sync()
	}
	c, hs := &p.cfg, &p.host
	hs.logitStats = grow(hs.logitStats, 3*nOut)
	hs.attnStats = grow(hs.attnStats, (c.Heads+2)*nOut)
	be := p.be
	if err := be.download(f64Bytes(hs.logitStats), p.out.logitStats); err != nil {
		return fmt.Errorf("downloading logits statistics: %w", err)
	}
	if err := be.download(f64Bytes(hs.attnStats), p.out.attnStats); err != nil {
		return fmt.Errorf("downloading attention statistics: %w", err)
	}
	k := p.gpuK
	if k > 0 {
		final := (len(topkStages(c.VocabSize, k)) - 1) % 2
		hs.topVals = grow(hs.topVals, k*nOut)
		hs.topIDs = grow(hs.topIDs, k*nOut)
		if err := be.download(f32Bytes(hs.topVals), p.out.topVals[final]); err != nil {
			return fmt.Errorf("downloading candidates: %w", err)
		}
		if err := be.download(i32Bytes(hs.topIDs), p.out.topIDs[final]); err != nil {
			return fmt.Errorf("downloading candidates: %w", err)
		}
	} else {
		hs.logits = grow(hs.logits, c.VocabSize*nOut)
		if err := be.download(f32Bytes(hs.logits), p.out.logits); err != nil {
			return fmt.Errorf("downloading logits: %w", err)
		}
	}
	if err := be.sync(); err != nil {
		return fmt.Errorf("running the forward pass: %w", err)
	}
	stride := c.Heads + 2
	for r, i := range b.OutInputs {
		out := &o[i]
		out.Slot = in[i].Slot
		if k > 0 {
			setCandidates(&out.Dist, hs.topVals[r*k:(r+1)*k], hs.topIDs[r*k:(r+1)*k])
		} else { // the whole vocabulary sorted as far as the sampler reads, or a top-K past the device's
			out.Dist.SetCandidatesNeed(hs.logits[r*c.VocabSize:(r+1)*c.VocabSize], p.opts.TopK, in[i].Need)
		}
		finishDist(&out.Dist, c.VocabSize, hs.logitStats[3*r], hs.logitStats[3*r+1], hs.logitStats[3*r+2])
		kvLen := int(b.Pos[b.OutRows[r]]) + 1
		at := hs.statsAt[r]
		finishAttnStats(&out.Attn, hs.attnStats[at*stride:(at+1)*stride], c.Heads, kvLen, hs.views[r])
	}
	return nil
}

// groupViews resolves each output's attention view and orders the outputs so those
// sharing a view are contiguous (stable, first-seen view first): statsAt[r] is
// output r's row in that order and viewRows the token rows in it.
func (p *pipeline) groupViews(b *subBatch, in []engine.Input) {
	hs := &p.host
	n := len(b.OutRows)
	hs.views, hs.statsAt, hs.viewRows, hs.rowViews = hs.views[:0], hs.statsAt[:0], hs.viewRows[:0], hs.rowViews[:0]
	for _, i := range b.OutInputs {
		hs.views = append(hs.views, p.opts.AttnViewOf(in[i]))
	}
	for range n {
		hs.statsAt = append(hs.statsAt, -1)
	}
	for r := range n {
		if hs.statsAt[r] >= 0 {
			continue
		}
		for q := r; q < n; q++ {
			if hs.statsAt[q] < 0 && hs.views[q] == hs.views[r] {
				hs.statsAt[q] = len(hs.viewRows)
				hs.viewRows = append(hs.viewRows, b.OutRows[q])
				hs.rowViews = append(hs.rowViews, hs.views[q])
			}
		}
	}
}

// attnStats launches the statistics kernels (attn_head_stats, attn_agreement over up
// to attnAgreementChunks key chunks of the longest row, attn_agreement_finish) once per
// attention view among the outputs, each over its contiguous run of viewRows, writing
// the matching rows of attnStats.
func (p *pipeline) attnStats(kc dptr, maxKeys int) error {
	c, hs, a := &p.cfg, &p.host, &p.act
	stride := dptr(8 * (c.Heads + 2))
	tile := attnAgreementTile(c.Heads, c.HeadDim)
	chunks := min(attnAgreementChunks, ceilDiv(maxKeys, tile))
	for start := 0; start < len(hs.rowViews); {
		v := hs.rowViews[start]
		end := start + 1
		for end < len(hs.rowViews) && hs.rowViews[end] == v {
			end++
		}
		padded := 0
		if v.Mode == metrics.Padded {
			padded = 1
		}
		rows, out := p.out.viewRows+dptr(4*start), p.out.attnStats+dptr(start)*stride
		heads, parts := p.out.attnHeads+dptr(8*3*c.Heads*start), p.out.attnParts+dptr(8*chunks*start)
		if err := p.be.launch("attn_head_stats", end-start, c.Heads, attnStatsBlock, attnHeadStatsSharedBytes(c.HeadDim),
			p.args.reset().ptr(a.q).ptr(rows).ptr(a.pos).ptr(a.slot).ptr(kc).ptr(out).ptr(heads).
				i32(c.Heads).i32(c.KVHeads).i32(c.HeadDim).i32(p.opts.MaxSeqLen).i32(padded).i32(v.PadLen).
				f32(p.attnScale())); err != nil {
			return err
		}
		if err := p.be.launch("attn_agreement", end-start, chunks, attnStatsBlock, attnAgreementSharedBytes(c.Heads, c.HeadDim, tile),
			p.args.reset().ptr(a.q).ptr(rows).ptr(a.pos).ptr(a.slot).ptr(kc).ptr(heads).ptr(parts).
				i32(c.Heads).i32(c.KVHeads).i32(c.HeadDim).i32(p.opts.MaxSeqLen).f32(p.attnScale()).i32(tile)); err != nil {
			return err
		}
		if err := p.be.launch("attn_agreement_finish", end-start, 1, 32, 0,
			p.args.reset().ptr(rows).ptr(a.pos).ptr(heads).ptr(parts).ptr(out).
				i32(c.Heads).i32(chunks).i32(padded).i32(v.PadLen)); err != nil {
			return err
		}
		start = end
	}
	return nil
}

// gemm is y = x·Wᵀ (+ y when beta is 1) for the weight at w.
func (p *pipeline) gemm(w placement, x, y dptr, rows int, beta float32) error {
	return p.be.gemm(p.wptr(w), x, y, rows, w.Rows, w.Cols, beta)
}

// norm is RMSNorm of x's rows (gathered through rowIdx when non-zero) into bf16 dst.
func (p *pipeline) norm(x, rowIdx dptr, w placement, dst dptr, rows int, eps float32) error {
	h := p.cfg.HiddenSize
	return p.be.launch("rmsnorm_bf16", rows, 1, rowBlock(h), 0,
		p.args.reset().ptr(x).ptr(rowIdx).ptr(p.wptr(w)).ptr(dst).i32(h).f32(eps))
}

func (p *pipeline) addBias(x dptr, bias placement, total, n int) error {
	return p.be.launch("add_bias", gridStrideBlocks(total, elementwiseBlock), 1, elementwiseBlock, 0,
		p.args.reset().ptr(x).ptr(p.wptr(bias)).i32(n).i64(total))
}
