package cpu

import (
	"fmt"

	"github.com/entropix-eval/entropix-eval/engine"
)

// layerWeights are one decoder layer's tensors. Matrices stay in their stored dtype;
// norms and biases are tiny and widened to float32 once.
type layerWeights struct {
	attnNorm, mlpNorm []float32
	wq, wk, wv, wo    *matrix
	bq, bk, bv, bo    []float32 // nil when the architecture has none
	wg, wu, wd        *matrix
}

type weights struct {
	embed  *matrix // [vocab, hidden]
	layers []layerWeights
	norm   []float32
	head   *matrix // [vocab, hidden]; the embedding itself when tied
}

// loadWeights binds the model's Hugging Face-named tensors, checking every shape
// against the config so a mismatched checkpoint fails here, naming the tensor.
func loadWeights(m *engine.Model) (*weights, error) {
	c := &m.Config
	hid, qDim, kvDim := c.HiddenSize, c.Heads*c.HeadDim, c.KVHeads*c.HeadDim
	b := binder{m: m}
	w := &weights{
		embed: b.matrix("model.embed_tokens.weight", c.VocabSize, hid),
		norm:  b.vector("model.norm.weight", hid),
	}
	if c.TiedEmbedding {
		w.head = w.embed
	} else {
		w.head = b.matrix("lm_head.weight", c.VocabSize, hid)
	}
	for l := 0; l < c.Layers; l++ {
		p := fmt.Sprintf("model.layers.%d.", l)
		L := layerWeights{
			attnNorm: b.vector(p+"input_layernorm.weight", hid),
			mlpNorm:  b.vector(p+"post_attention_layernorm.weight", hid),
			wq:       b.matrix(p+"self_attn.q_proj.weight", qDim, hid),
			wk:       b.matrix(p+"self_attn.k_proj.weight", kvDim, hid),
			wv:       b.matrix(p+"self_attn.v_proj.weight", kvDim, hid),
			wo:       b.matrix(p+"self_attn.o_proj.weight", hid, qDim),
			wg:       b.matrix(p+"mlp.gate_proj.weight", c.Intermediate, hid),
			wu:       b.matrix(p+"mlp.up_proj.weight", c.Intermediate, hid),
			wd:       b.matrix(p+"mlp.down_proj.weight", hid, c.Intermediate),
		}
		if c.QKVBias {
			L.bq = b.vector(p+"self_attn.q_proj.bias", qDim)
			L.bk = b.vector(p+"self_attn.k_proj.bias", kvDim)
			L.bv = b.vector(p+"self_attn.v_proj.bias", kvDim)
		}
		if c.OBias {
			L.bo = b.vector(p+"self_attn.o_proj.bias", hid)
		}
		w.layers = append(w.layers, L)
	}
	if b.err != nil {
		return nil, b.err
	}
	return w, nil
}

// binder collects the first error so loadWeights reads as a list of tensors.
type binder struct {
	m   *engine.Model
	err error
}

func (b *binder) matrix(name string, rows, cols int) *matrix {
	if b.err != nil {
		return nil
	}
	t, err := b.m.Tensor(name)
	if err == nil {
		var mx *matrix
		if cols < 0 { // a 1-D vector of rows elements
			mx, err = newVector(t, rows)
		} else {
			mx, err = newMatrix(t, rows, cols)
		}
		if err == nil {
			return mx
		}
	}
	b.err = err
	return nil
}

func (b *binder) vector(name string, n int) []float32 {
	if mx := b.matrix(name, n, -1); mx != nil {
		out := make([]float32, n)
		copy(out, mx.row(0, out))
		return out
	}
	return nil
}
