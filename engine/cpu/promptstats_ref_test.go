package cpu

import (
	"fmt"
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/entropix-eval/entropix-eval/engine"
)

// refPrompt is an independent float64 forward pass (HF LlamaForCausalLM /
// Qwen2ForCausalLM, eager attention, as ../shared/golden/models/README.md spells
// it) that keeps what the SmolLM port's calculate_metrics reads from a prefill:
// every position's logits and the metric layer's rotated queries and keys.
type refPrompt struct {
	logits [][]float64 // [position][vocab]
	q, k   [][]float64 // metric layer: [position][heads·head_dim], [position][kv_heads·head_dim]
}

func refWeights(t *testing.T, m *engine.Model, name string) []float64 {
	t.Helper()
	tn, err := m.Tensor(name)
	require.NoError(t, err, name)
	f := tn.Float32s()
	out := make([]float64, len(f))
	for i, v := range f {
		out[i] = float64(v)
	}
	return out
}

// refMatVec returns W·x (+ b) for W [rows, len(x)].
func refMatVec(w, x, b []float64) []float64 {
	cols := len(x)
	out := make([]float64, len(w)/cols)
	for r := range out {
		var s float64
		for j, v := range x {
			s += w[r*cols+j] * v
		}
		if b != nil {
			s += b[r]
		}
		out[r] = s
	}
	return out
}

func refRMSNorm(x, w []float64, eps float64) []float64 {
	var ss float64
	for _, v := range x {
		ss += v * v
	}
	inv := 1 / math.Sqrt(ss/float64(len(x))+eps)
	out := make([]float64, len(x))
	for i, v := range x {
		out[i] = w[i] * v * inv
	}
	return out
}

// refRope rotates each head of v in place: HF rotate_half over (i, i + d/2).
func refRope(v []float64, heads, hd, pos int, invFreq []gf) {
	for h := 0; h < heads; h++ {
		x := v[h*hd : (h+1)*hd]
		for i := 0; i < hd/2; i++ {
			a := float64(pos) * float64(invFreq[i])
			c, s := math.Cos(a), math.Sin(a)
			x0, x1 := x[i], x[i+hd/2]
			x[i], x[i+hd/2] = x0*c-x1*s, x1*c+x0*s
		}
	}
}

func refForward(t *testing.T, m *engine.Model, ids []int32, invFreq []gf, metricLayer int) refPrompt {
	t.Helper()
	c := &m.Config
	hid, hd, heads, kvh := c.HiddenSize, c.HeadDim, c.Heads, c.KVHeads
	eps := c.RMSNormEps
	n := len(ids)
	embed := refWeights(t, m, "model.embed_tokens.weight")
	x := make([][]float64, n)
	for i, id := range ids {
		x[i] = append([]float64(nil), embed[int(id)*hid:(int(id)+1)*hid]...)
	}
	var ref refPrompt
	bias := func(name string) []float64 {
		if !c.QKVBias {
			return nil
		}
		return refWeights(t, m, name)
	}
	for l := 0; l < c.Layers; l++ {
		p := fmt.Sprintf("model.layers.%d.", l)
		wq, wk, wv := refWeights(t, m, p+"self_attn.q_proj.weight"), refWeights(t, m, p+"self_attn.k_proj.weight"), refWeights(t, m, p+"self_attn.v_proj.weight")
		bq, bk, bv := bias(p+"self_attn.q_proj.bias"), bias(p+"self_attn.k_proj.bias"), bias(p+"self_attn.v_proj.bias")
		wo := refWeights(t, m, p+"self_attn.o_proj.weight")
		an, mn := refWeights(t, m, p+"input_layernorm.weight"), refWeights(t, m, p+"post_attention_layernorm.weight")
		wg, wu, wd := refWeights(t, m, p+"mlp.gate_proj.weight"), refWeights(t, m, p+"mlp.up_proj.weight"), refWeights(t, m, p+"mlp.down_proj.weight")
		q, k, v := make([][]float64, n), make([][]float64, n), make([][]float64, n)
		for i := range x {
			xn := refRMSNorm(x[i], an, eps)
			q[i], k[i], v[i] = refMatVec(wq, xn, bq), refMatVec(wk, xn, bk), refMatVec(wv, xn, bv)
			refRope(q[i], heads, hd, i, invFreq)
			refRope(k[i], kvh, hd, i, invFreq)
		}
		if l == metricLayer {
			ref.q, ref.k = q, k
		}
		for i := range x {
			att := make([]float64, heads*hd)
			for h := 0; h < heads; h++ {
				g := h / (heads / kvh)
				s := make([]float64, i+1)
				maxv := math.Inf(-1)
				for j := 0; j <= i; j++ {
					for d := 0; d < hd; d++ {
						s[j] += q[i][h*hd+d] * k[j][g*hd+d]
					}
					s[j] /= math.Sqrt(float64(hd))
					maxv = math.Max(maxv, s[j])
				}
				var z float64
				for j := range s {
					s[j] = math.Exp(s[j] - maxv)
					z += s[j]
				}
				for j := range s {
					for d := 0; d < hd; d++ {
						att[h*hd+d] += s[j] / z * v[j][g*hd+d]
					}
				}
			}
			o := refMatVec(wo, att, nil)
			for d := range x[i] {
				x[i][d] += o[d]
			}
		}
		for i := range x {
			xn := refRMSNorm(x[i], mn, eps)
			gate, up := refMatVec(wg, xn, nil), refMatVec(wu, xn, nil)
			for j, gv := range gate {
				gate[j] = gv / (1 + math.Exp(-gv)) * up[j]
			}
			o := refMatVec(wd, gate, nil)
			for d := range x[i] {
				x[i][d] += o[d]
			}
		}
	}
	norm := refWeights(t, m, "model.norm.weight")
	headName := "lm_head.weight"
	if c.TiedEmbedding {
		headName = "model.embed_tokens.weight"
	}
	head := refWeights(t, m, headName)
	for i := range x {
		ref.logits = append(ref.logits, refMatVec(head, refRMSNorm(x[i], norm, eps), nil))
	}
	return ref
}

// refScores are the metric layer's pre-softmax scores of query i over every key,
// future ones included: [head][key].
func (r *refPrompt) refScores(i, heads, kvHeads, hd int) [][]float64 {
	out := make([][]float64, heads)
	for h := range out {
		g := h / (heads / kvHeads)
		out[h] = make([]float64, len(r.k))
		for j := range r.k {
			var s float64
			for d := 0; d < hd; d++ {
				s += r.q[i][h*hd+d] * r.k[j][g*hd+d]
			}
			out[h][j] = s / math.Sqrt(float64(hd))
		}
	}
	return out
}

// refPromptStats transliterates the port's calculate_metrics(logits, scores) over a
// whole prefill into float64: logits (1, T, V), scores (1, H, T, T) unmasked.
func refPromptStats(r *refPrompt, heads, kvHeads, hd int) engine.PromptStats {
	n := len(r.logits)
	var ent, vent float64
	for _, l := range r.logits {
		maxv := math.Inf(-1)
		for _, v := range l {
			maxv = math.Max(maxv, v)
		}
		var z float64
		for _, v := range l {
			z += math.Exp(v - maxv)
		}
		logp := make([]float64, len(l))
		var h float64
		for i, v := range l {
			logp[i] = v - maxv - math.Log(z)
			h -= math.Exp(logp[i]) * logp[i] / math.Ln2
		}
		var vr float64
		for _, lp := range logp {
			d := lp/math.Ln2 + h
			vr += math.Exp(lp) * d * d
		}
		ent += h
		vent += vr
	}
	var attnEnt, attnVar0, attnVar1, agree, inter float64
	for i := 0; i < n; i++ {
		s := r.refScores(i, heads, kvHeads, hd)
		probs := make([][]float64, heads)
		he := make([]float64, heads)
		for h := range s {
			maxv := math.Inf(-1)
			for _, v := range s[h] {
				maxv = math.Max(maxv, v)
				inter += math.Abs(v)
			}
			var z float64
			probs[h] = make([]float64, n)
			for j, v := range s[h] {
				probs[h][j] = math.Exp(v - maxv)
				z += probs[h][j]
			}
			for j := range probs[h] {
				probs[h][j] /= z
				he[h] -= probs[h][j] * math.Log2(math.Min(math.Max(probs[h][j], 1e-10), 1))
			}
		}
		var mean float64
		for _, e := range he {
			mean += e
		}
		mean /= float64(heads)
		var ss float64
		for _, e := range he {
			ss += (e - mean) * (e - mean)
		}
		attnEnt += mean
		attnVar0 += ss / float64(heads)
		if heads > 1 { // torch.var of one head is NaN, mapped to 0
			attnVar1 += ss / float64(heads-1)
		}
		for j := 0; j < n; j++ {
			var m float64
			for h := range probs {
				m += probs[h][j]
			}
			m /= float64(heads)
			for h := range probs {
				agree += math.Abs(probs[h][j] - m)
			}
		}
	}
	f := float64(n)
	cells := float64(heads * n * n)
	return engine.PromptStats{
		Positions: n, LogitsEntropy: ent / f, LogitsVarentropy: vent / f,
		AttnEntropy: attnEnt / f, AttnVarentropy: attnVar0 / f, AttnVarentropyDDOF1: attnVar1 / f,
		Agreement: agree / cells, InteractionStrength: inter / cells,
	}
}
