package engine

import (
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// llama2cFile builds a legacy llama2.c checkpoint whose every float is its own
// index, so a test can tell exactly which stored value lands where.
func llama2cFile(t *testing.T, dim, hidden, layers, heads, kvHeads, vocab, seqLen int) (string, []byte) {
	t.Helper()
	h := llama2cHeader{Dim: dim, Hidden: hidden, Layers: layers, Heads: heads, KVHeads: kvHeads, Vocab: vocab, SeqLen: seqLen, Shared: vocab > 0}
	if vocab < 0 {
		h.Vocab = -vocab
	}
	b := make([]byte, 0, 28+4*h.floats())
	for _, v := range []int{dim, hidden, layers, heads, kvHeads, vocab, seqLen} {
		b = binary.LittleEndian.AppendUint32(b, uint32(int32(v)))
	}
	for i := int64(0); i < h.floats(); i++ {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(float32(i)))
	}
	path := filepath.Join(t.TempDir(), "model.bin")
	require.NoError(t, os.WriteFile(path, b, 0o644))
	return path, b
}

func TestLlama2cLayoutAndRopePermutation(t *testing.T) {
	// dim 8, 2 heads of 4, 1 kv head, hidden 6, 2 layers, vocab 5 (untied), seq 3.
	const dim, hidden, layers, vocab, seq = 8, 6, 2, 5, 3
	path, _ := llama2cFile(t, dim, hidden, layers, 2, 1, -vocab, seq)
	m, err := Load(path)
	require.NoError(t, err)
	defer m.Close()
	c := m.Config
	assert.Equal(t, 4, c.HeadDim)
	assert.False(t, c.TiedEmbedding, "negative vocab_size means an untied classifier")
	assert.Equal(t, vocab, c.VocabSize)
	assert.Equal(t, seq, c.MaxPositions)

	// Offsets in floats, in run.c order.
	kv := 4
	emb := 0
	rmsAtt := emb + vocab*dim
	wq := rmsAtt + layers*dim
	wk := wq + layers*dim*dim
	wv := wk + layers*kv*dim
	wo := wv + layers*kv*dim
	rmsFFN := wo + layers*dim*dim
	w1 := rmsFFN + layers*dim
	w2 := w1 + layers*hidden*dim
	w3 := w2 + layers*dim*hidden
	rmsFinal := w3 + layers*hidden*dim
	wcls := rmsFinal + dim + 2*seq*2

	first := func(name string) float32 { return m.Tensors[name].At(0) }
	assert.Equal(t, float32(emb), first(embedName))
	assert.Equal(t, float32(rmsAtt+dim), first("model.layers.1.input_layernorm.weight"))
	assert.Equal(t, float32(wv+kv*dim), first("model.layers.1.self_attn.v_proj.weight"))
	assert.Equal(t, float32(wo), first("model.layers.0.self_attn.o_proj.weight"))
	assert.Equal(t, float32(rmsFFN+dim), first("model.layers.1.post_attention_layernorm.weight"))
	assert.Equal(t, float32(w1), first("model.layers.0.mlp.gate_proj.weight"))
	assert.Equal(t, float32(w2+dim*hidden), first("model.layers.1.mlp.down_proj.weight"))
	assert.Equal(t, float32(w3), first("model.layers.0.mlp.up_proj.weight"))
	assert.Equal(t, float32(rmsFinal), first(normName))
	assert.Equal(t, float32(wcls), first("lm_head.weight"))
	assert.Equal(t, []int{hidden, dim}, m.Tensors["model.layers.0.mlp.gate_proj.weight"].Shape)
	assert.Equal(t, []int{dim, hidden}, m.Tensors["model.layers.0.mlp.down_proj.weight"].Shape)

	// With head_dim 4, Meta rows (0,1,2,3) of a head hold pairs (0,1),(2,3); HF's
	// rotate_half pairs (0,2),(1,3), so HF rows are Meta rows 0,2,1,3 per head.
	rowStart := func(name string, row int) float32 { return m.Tensors[name].At(row * dim) }
	for hfRow, metaRow := range []int{0, 2, 1, 3, 4, 6, 5, 7} {
		assert.Equal(t, float32(wq+dim*dim+metaRow*dim), rowStart("model.layers.1.self_attn.q_proj.weight", hfRow), "q row %d", hfRow)
	}
	for hfRow, metaRow := range []int{0, 2, 1, 3} {
		assert.Equal(t, float32(wk+metaRow*dim), rowStart("model.layers.0.self_attn.k_proj.weight", hfRow), "k row %d", hfRow)
	}
	assert.Equal(t, float32(wq+1), m.Tensors["model.layers.0.self_attn.q_proj.weight"].At(1), "columns stay in place")
}

func TestLlama2cErrors(t *testing.T) {
	cases := []struct {
		name   string
		header []int
		edit   func(b []byte) []byte
		want   []string
	}{
		{"truncated", nil, func(b []byte) []byte { return b[:len(b)-4] }, []string{"header implies", "truncated"}},
		{"extra bytes", nil, func(b []byte) []byte { return append(b, 1, 2, 3, 4) }, []string{"header implies"}},
		{"shorter than the header", nil, func(b []byte) []byte { return b[:20] }, []string{"28-byte header"}},
		{"zero layers", []int{8, 6, 0, 2, 1, 5, 3}, nil, []string{"n_layers = 0"}},
		{"negative dim", []int{-8, 6, 1, 2, 1, 5, 3}, nil, []string{"dim = -8"}},
		{"heads not dividing dim", []int{8, 6, 1, 3, 1, 5, 3}, nil, []string{"not a multiple of n_heads"}},
		{"kv heads not dividing heads", []int{8, 6, 1, 4, 3, 5, 3}, nil, []string{"n_kv_heads"}},
		{"odd head size", []int{6, 6, 1, 2, 1, 5, 3}, nil, []string{"odd"}},
		{"versioned export", []int{llama2cMagic, 1, 1, 2, 1, 5, 3}, nil, []string{"version 1", "legacy"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			path, b := llama2cFile(t, 8, 6, 1, 2, 1, 5, 3)
			for i, v := range tc.header {
				binary.LittleEndian.PutUint32(b[4*i:], uint32(int32(v)))
			}
			if tc.edit != nil {
				b = tc.edit(b)
			}
			require.NoError(t, os.WriteFile(path, b, 0o644))
			m, err := Load(path)
			require.Error(t, err)
			assert.Nil(t, m)
			assert.ErrorContains(t, err, path)
			for _, w := range tc.want {
				assert.ErrorContains(t, err, w)
			}
		})
	}
}

func TestLlama2cHugeHeaderDoesNotOverflow(t *testing.T) {
	path, b := llama2cFile(t, 8, 6, 1, 2, 1, 5, 3)
	for i, v := range []int{1 << 24, 1 << 24, 1 << 24, 1 << 4, 1 << 4, 1 << 24, 1 << 24} {
		binary.LittleEndian.PutUint32(b[4*i:], uint32(v))
	}
	require.NoError(t, os.WriteFile(path, b, 0o644))
	_, err := Load(path)
	assert.ErrorContains(t, err, "the header implies")
}
