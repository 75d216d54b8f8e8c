package cuda

import (
	"fmt"

	"github.com/entropix-eval/entropix-eval/engine"
)

// deviceAlign keeps every weight at a 256-byte boundary, which cuBLAS wants for its
// fastest (tensor-core) paths and which the kernels' vector loads need.
const deviceAlign = 256

// placement is one weight as it lives on the device: the Hugging Face tensors whose
// rows are stacked into it (q/k/v and gate/up are fused, so one GEMM does the work of
// two or three), its byte range in the single weight allocation, and its element type.
type placement struct {
	Sources []engine.TensorSpec // names and the shapes the config implies
	Rows    int                 // the device matrix (a vector is one row)
	Cols    int
	F32     bool  // vectors (norms, biases) stay float32; matrices are bf16
	Offset  int64 // bytes from the start of the weight allocation
	Bytes   int64
}

// layerPlacements are one decoder layer's weights.
type layerPlacements struct {
	InNorm, PostNorm placement
	QKV              placement // [(heads + 2 kvHeads) · headDim, hidden]
	QKVBias          placement // zero Bytes when the model has none
	O                placement // [hidden, heads · headDim]
	OBias            placement
	GateUp           placement // [2 · intermediate, hidden]: gate rows, then up rows
	Down             placement // [hidden, intermediate]
}

// weightLayout is the whole model on the device. LMHead equals Embed for tied models.
type weightLayout struct {
	Embed  placement
	Layers []layerPlacements
	Norm   placement
	LMHead placement
	Total  int64
}

// planWeights lays out every weight of c in one allocation, in forward-pass order.
func planWeights(c *engine.Config) weightLayout {
	var off int64
	// matrix stacks 2-D sources' rows; vector concatenates 1-D sources.
	place := func(f32 bool, srcs ...engine.TensorSpec) placement {
		p := placement{Sources: srcs, F32: f32, Offset: off}
		size := int64(2)
		if f32 {
			size = 4
			p.Rows = 1
			for _, s := range srcs {
				p.Cols += s.Shape[0]
			}
		} else {
			p.Cols = srcs[0].Shape[1]
			for _, s := range srcs {
				p.Rows += s.Shape[0]
			}
		}
		p.Bytes = int64(p.Rows) * int64(p.Cols) * size
		off += alignUp(p.Bytes, deviceAlign)
		return p
	}
	spec := func(name string, shape ...int) engine.TensorSpec { return engine.TensorSpec{Name: name, Shape: shape} }
	h, q, kv := c.HiddenSize, c.Heads*c.HeadDim, c.KVHeads*c.HeadDim
	var w weightLayout
	w.Embed = place(false, spec("model.embed_tokens.weight", c.VocabSize, h))
	for l := 0; l < c.Layers; l++ {
		n := func(s string) string { return fmt.Sprintf("model.layers.%d.%s", l, s) }
		var lp layerPlacements
		lp.InNorm = place(true, spec(n("input_layernorm.weight"), h))
		lp.QKV = place(false, spec(n("self_attn.q_proj.weight"), q, h),
			spec(n("self_attn.k_proj.weight"), kv, h), spec(n("self_attn.v_proj.weight"), kv, h))
		if c.QKVBias {
			lp.QKVBias = place(true, spec(n("self_attn.q_proj.bias"), q),
				spec(n("self_attn.k_proj.bias"), kv), spec(n("self_attn.v_proj.bias"), kv))
		}
		lp.O = place(false, spec(n("self_attn.o_proj.weight"), h, q))
		if c.OBias {
			lp.OBias = place(true, spec(n("self_attn.o_proj.bias"), h))
		}
		lp.PostNorm = place(true, spec(n("post_attention_layernorm.weight"), h))
		lp.GateUp = place(false, spec(n("mlp.gate_proj.weight"), c.Intermediate, h),
			spec(n("mlp.up_proj.weight"), c.Intermediate, h))
		lp.Down = place(false, spec(n("mlp.down_proj.weight"), h, c.Intermediate))
		w.Layers = append(w.Layers, lp)
	}
	w.Norm = place(true, spec("model.norm.weight", h))
	if c.TiedEmbedding {
		w.LMHead = w.Embed
	} else {
		w.LMHead = place(false, spec("lm_head.weight", c.VocabSize, h))
	}
	w.Total = off
	return w
}

// all lists every placement with bytes, in allocation order.
func (w *weightLayout) all() []placement {
	ps := []placement{w.Embed}
	for _, l := range w.Layers {
		for _, p := range []placement{l.InNorm, l.QKV, l.QKVBias, l.O, l.OBias, l.PostNorm, l.GateUp, l.Down} {
			if p.Bytes > 0 {
				ps = append(ps, p)
			}
		}
	}
	ps = append(ps, w.Norm)
	if w.LMHead.Offset != w.Embed.Offset {
		ps = append(ps, w.LMHead)
	}
	return ps
}

func alignUp(n, a int64) int64 { return (n + a - 1) / a * a }
