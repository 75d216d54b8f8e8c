package engine

import (
	"encoding/binary"
	"fmt"
	"path/filepath"
)

// llama2cMagic opens the versioned llama2.c exports ("ak42"); only the legacy v0
// layout, which starts directly with the header, is read.
const llama2cMagic = 0x616b3432

// llama2cHeader is the 7-int32 header of a legacy llama2.c checkpoint.
type llama2cHeader struct {
	Dim, Hidden, Layers, Heads, KVHeads, Vocab, SeqLen int
	Shared                                             bool // a positive vocab_size means the classifier is the embedding
}

// loadLlama2c reads a legacy llama2.c .bin (Karpathy's run.c format) into Hugging
// Face names. wq and wk are permuted from Meta's interleaved-pair RoPE layout to
// the rotate_half layout, exactly as transformers' convert_llama_weights_to_hf does,
// so the one HF forward pass runs both formats; they are the only tensors copied,
// the rest are windows of the mapping.
func loadLlama2c(path string) (m *Model, err error) {
	data, release, err := mapFile(path)
	if err != nil {
		return nil, fmt.Errorf("llama2.c: %w", err)
	}
	m = &Model{Dir: filepath.Dir(path), Tensors: map[string]*Tensor{}}
	m.OnClose(release)
	defer closeOnError(m, &err)
	h, err := parseLlama2cHeader(data)
	if err != nil {
		return nil, fmt.Errorf("llama2.c %s: %w", path, err)
	}
	m.Config = h.config()
	if err := m.addLlama2cTensors(h, data[28:]); err != nil {
		return nil, fmt.Errorf("llama2.c %s: %w", path, err)
	}
	if tok := filepath.Join(m.Dir, TokenizerFile); fileExists(tok) {
		m.TokenizerPath = tok
	}
	return m, nil
}

func parseLlama2cHeader(data []byte) (llama2cHeader, error) {
	if len(data) < 28 {
		return llama2cHeader{}, fmt.Errorf("file is %d bytes, shorter than the 28-byte header: truncated or not a llama2.c checkpoint", len(data))
	}
	var v [7]int
	for i := range v {
		v[i] = int(int32(binary.LittleEndian.Uint32(data[4*i:])))
	}
	if uint32(v[0]) == llama2cMagic {
		return llama2cHeader{}, fmt.Errorf("versioned llama2.c export (version %d) is not supported; only the legacy v0 format is", v[1])
	}
	h := llama2cHeader{Dim: v[0], Hidden: v[1], Layers: v[2], Heads: v[3], KVHeads: v[4], Vocab: v[5], SeqLen: v[6], Shared: v[5] > 0}
	if h.Vocab < 0 {
		h.Vocab = -h.Vocab
	}
	names := []string{"dim", "hidden_dim", "n_layers", "n_heads", "n_kv_heads", "vocab_size", "seq_len"}
	for i, x := range []int{h.Dim, h.Hidden, h.Layers, h.Heads, h.KVHeads, h.Vocab, h.SeqLen} {
		if x < 1 || x > maxDim {
			return llama2cHeader{}, fmt.Errorf("header field %s = %d is not in [1, %d]: not a llama2.c checkpoint", names[i], v[i], maxDim)
		}
	}
	switch {
	case h.Dim%h.Heads != 0:
		return llama2cHeader{}, fmt.Errorf("header: dim %d is not a multiple of n_heads %d", h.Dim, h.Heads)
	case h.Heads%h.KVHeads != 0:
		return llama2cHeader{}, fmt.Errorf("header: n_heads %d is not a multiple of n_kv_heads %d", h.Heads, h.KVHeads)
	case (h.Dim/h.Heads)%2 != 0:
		return llama2cHeader{}, fmt.Errorf("header: head size %d is odd; RoPE rotates pairs", h.Dim/h.Heads)
	}
	// Sizes up to maxDim can overflow the exact count; the float estimate cannot, and
	// when it fits the file the exact count did not overflow either.
	if est := 28 + 4*h.floatsEstimate(); est > float64(len(data))+1 {
		return llama2cHeader{}, fmt.Errorf("file is %d bytes, the header implies about %.4g: truncated, or the header is wrong", len(data), est)
	}
	if want := 28 + 4*h.floats(); int64(len(data)) != want {
		return llama2cHeader{}, fmt.Errorf("file is %d bytes, the header implies %d: truncated, or the header is wrong", len(data), want)
	}
	return h, nil
}

// floats is the number of float32 values after the header, in run.c's order.
func (h llama2cHeader) floats() int64 {
	d, hid, L, kv := int64(h.Dim), int64(h.Hidden), int64(h.Layers), int64(h.Dim/h.Heads*h.KVHeads)
	n := int64(h.Vocab)*d + // token_embedding
		L*d + L*d*d + 2*L*d*kv + L*d*d + // rms_att, wq, wk, wv, wo
		L*d + 3*L*d*hid + // rms_ffn, w1, w2, w3
		d + // rms_final
		int64(h.SeqLen)*int64(h.Dim/h.Heads) // freq_cis_real and freq_cis_imag, seq_len × head_size/2 each
	if !h.Shared {
		n += int64(h.Vocab) * d
	}
	return n
}

func (h llama2cHeader) floatsEstimate() float64 {
	d, hid, L, kv := float64(h.Dim), float64(h.Hidden), float64(h.Layers), float64(h.Dim/h.Heads*h.KVHeads)
	classifiers := 1.0
	if !h.Shared {
		classifiers = 2
	}
	return classifiers*float64(h.Vocab)*d + L*d*(2+2*d+2*kv+3*hid) + d + float64(h.SeqLen)*float64(h.Dim/h.Heads)
}

func (h llama2cHeader) config() Config {
	return Config{
		Architecture: "LlamaForCausalLM", ModelType: "llama",
		HiddenSize: h.Dim, Intermediate: h.Hidden, Layers: h.Layers,
		Heads: h.Heads, KVHeads: h.KVHeads, HeadDim: h.Dim / h.Heads, VocabSize: h.Vocab,
		RMSNormEps: 1e-5, RopeTheta: 10000, TiedEmbedding: h.Shared,
		MaxPositions: h.SeqLen, BOS: []int32{1}, EOS: []int32{2}, DType: F32,
	}
}

// addLlama2cTensors walks the weights in run.c's order. Each per-layer array is
// stacked over layers, so layer l is the l-th equal slice.
func (m *Model) addLlama2cTensors(h llama2cHeader, w []byte) error {
	c := m.Config
	d, kv := c.HiddenSize, c.KVHeads*c.HeadDim
	take := func(n int) []byte {
		b := w[: 4*n : 4*n]
		w = w[4*n:]
		return b
	}
	put := func(name string, data []byte, shape ...int) {
		m.Tensors[name] = &Tensor{Name: name, DType: F32, Shape: shape, Data: data}
	}
	layerName := func(l int, s string) string { return fmt.Sprintf("model.layers.%d.%s", l, s) }
	perLayer := func(suffix string, shape ...int) {
		n := 1
		for _, s := range shape {
			n *= s
		}
		all := take(c.Layers * n)
		for l := 0; l < c.Layers; l++ {
			put(layerName(l, suffix), all[4*n*l:4*n*(l+1):4*n*(l+1)], shape...)
		}
	}
	put("model.embed_tokens.weight", take(c.VocabSize*d), c.VocabSize, d)
	perLayer("input_layernorm.weight", d)
	perLayer("self_attn.q_proj.weight", d, d)
	perLayer("self_attn.k_proj.weight", kv, d)
	perLayer("self_attn.v_proj.weight", kv, d)
	perLayer("self_attn.o_proj.weight", d, d)
	perLayer("post_attention_layernorm.weight", d)
	perLayer("mlp.gate_proj.weight", c.Intermediate, d) // w1
	perLayer("mlp.down_proj.weight", d, c.Intermediate) // w2
	perLayer("mlp.up_proj.weight", c.Intermediate, d)   // w3
	put("model.norm.weight", take(d), d)
	take(c.MaxPositions * c.HeadDim / 2) // freq_cis_real: recomputed by every backend
	take(c.MaxPositions * c.HeadDim / 2) // freq_cis_imag
	if !h.Shared {
		put("lm_head.weight", take(c.VocabSize*d), c.VocabSize, d)
	}
	for l := 0; l < c.Layers; l++ {
		for _, p := range []struct {
			name  string
			heads int
		}{{"self_attn.q_proj.weight", c.Heads}, {"self_attn.k_proj.weight", c.KVHeads}} {
			t := m.Tensors[layerName(l, p.name)]
			t.Data = interleavedToHalves(t.Data, p.heads, c.HeadDim, 4*d)
		}
	}
	if len(w) != 0 {
		return fmt.Errorf("%d bytes left after the weights", len(w)) // parseLlama2cHeader checked the size
	}
	return nil
}

// interleavedToHalves reorders the output rows of a q or k projection from Meta's
// RoPE layout, where each head rotates the pairs (2i, 2i+1), to Hugging Face's,
// where it rotates (i, i+headDim/2): HF row h·hd + j·hd/2 + i is Meta row
// h·hd + 2i + j. This is transformers' permute(w, n_heads, dim1, dim2).
func interleavedToHalves(src []byte, heads, headDim, rowBytes int) []byte {
	dst := make([]byte, len(src))
	half := headDim / 2
	for h := 0; h < heads; h++ {
		for i := 0; i < half; i++ {
			for j := 0; j < 2; j++ {
				to := (h*headDim + j*half + i) * rowBytes
				from := (h*headDim + 2*i + j) * rowBytes
				copy(dst[to:to+rowBytes], src[from:from+rowBytes])
			}
		}
	}
	return dst
}
