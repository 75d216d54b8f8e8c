package cuda

import (
	"fmt"

	"github.com/entropix-eval/entropix-eval/engine"
	"github.com/entropix-eval/entropix-eval/sampler/metrics"
)

// Token scoring (engine.Input.Score, lm-eval's loglikelihood requests). After a
// sub-batch's forward pass, only the token rows some target names go through the
// final norm and the LM head, up to Slots rows at a time in the output buffers; their
// logits come back to the host, which takes the log-partition and the argmax with the
// CPU backend's own functions (metrics.LogitStatsScratch, metrics.Argmax). So a score
// differs from the CPU backend's only by the GPU's logits, and — as there — each row's
// numbers come from that row alone, however the step was batched or chunked.
//
// A multiple-choice question scores one position per choice set, so the copy is a few
// rows a question; loglikelihood_rolling scores every position of a window and copies
// vocab × 4 bytes per token (0.5 MB for a 128k vocabulary), which PCIe moves in tens of
// microseconds.

// prepareScores sizes each output's Scores for its input's targets before the
// sub-batches fill them.
func prepareScores(in []engine.Input, o []engine.Output) {
	for i := range in {
		o[i].Scores = o[i].Scores[:0]
		if n := len(in[i].Score); n > 0 {
			o[i].Scores = grow(o[i].Scores, n)
		}
	}
}

// scoreRows scores b's ScoreHits from the last layer's residual stream (still in
// a.x after forward and collect) and writes them into o.
func (p *pipeline) scoreRows(b *subBatch, o []engine.Output) error {
	if len(b.ScoreRows) == 0 {
		return nil
	}
	c, hs, vocab := &p.cfg, &p.host, p.cfg.VocabSize
	eps := float32(c.RMSNormEps)
	hs.scoreExps = grow(hs.scoreExps, vocab)
	hit := 0
	for start := 0; start < len(b.ScoreRows); start += p.opts.Slots {
		rows := b.ScoreRows[start:min(start+p.opts.Slots, len(b.ScoreRows))]
		n := len(rows)
		if err := p.be.upload(p.out.rows, i32Bytes(rows)); err != nil {
			return fmt.Errorf("uploading the scored rows: %w", err)
		}
		if err := p.norm(p.act.x, p.out.rows, p.layout.Norm, p.out.last, n, eps); err != nil {
			return err
		}
		if err := p.gemm(p.layout.LMHead, p.out.last, p.out.logits, n, 0); err != nil {
			return fmt.Errorf("lm_head (scored rows): %w", err)
		}
		hs.logits = grow(hs.logits, n*vocab)
		if err := p.be.download(f32Bytes(hs.logits), p.out.logits); err != nil {
			return fmt.Errorf("downloading the scored rows' logits: %w", err)
		}
		if err := p.be.sync(); err != nil {
			return fmt.Errorf("scoring tokens: %w", err)
		}
		for k := range n {
			row := hs.logits[k*vocab : (k+1)*vocab]
			logZ, _, _ := metrics.LogitStatsScratch(row, hs.scoreExps)
			argmax := int32(metrics.Argmax(row))
			for ; hit < len(b.ScoreHits) && b.ScoreHits[hit].Row == start+k; hit++ {
				h := b.ScoreHits[hit]
				o[h.Input].Scores[h.Target] = engine.TokenScore{
					LogProb: float64(row[h.Token]) - logZ,
					Greedy:  argmax == h.Token,
				}
			}
		}
	}
	return nil
}
