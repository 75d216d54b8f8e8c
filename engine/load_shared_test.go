package engine

import (
	"math"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/entropix-eval/entropix-eval/internal/sharedtest"
)

// goldenArchitecture is the "architecture" block of ../shared/golden/models/*.json:
// the config as the independent NumPy reference read it.
type goldenArchitecture struct {
	Arch              string  `json:"arch"`
	ModelType         string  `json:"model_type"`
	HiddenSize        int     `json:"hidden_size"`
	IntermediateSize  int     `json:"intermediate_size"`
	NumHiddenLayers   int     `json:"num_hidden_layers"`
	NumAttentionHeads int     `json:"num_attention_heads"`
	NumKeyValueHeads  int     `json:"num_key_value_heads"`
	HeadDim           int     `json:"head_dim"`
	VocabSize         int     `json:"vocab_size"`
	RMSNormEps        float64 `json:"rms_norm_eps"`
	RopeTheta         float64 `json:"rope_theta"`
	TieWordEmbeddings bool    `json:"tie_word_embeddings"`
	QKVBias           bool    `json:"qkv_bias"`
	OBias             bool    `json:"o_bias"`
	RopeScaling       *struct {
		Factor                        float64 `json:"factor"`
		HighFreqFactor                float64 `json:"high_freq_factor"`
		LowFreqFactor                 float64 `json:"low_freq_factor"`
		OriginalMaxPositionEmbeddings int     `json:"original_max_position_embeddings"`
		RopeType                      string  `json:"rope_type"`
	} `json:"rope_scaling"`
}

type goldenModel struct {
	Model        string             `json:"model"`
	ModelDir     string             `json:"model_dir"`
	WeightsDType string             `json:"weights_dtype"`
	Architecture goldenArchitecture `json:"architecture"`
}

var sharedHFModels = []string{"stories260K-hf", "tiny-llama3", "tiny-qwen2", "tiny-smollm2", "tiny-llama-untied"}

func TestLoadSharedModelsMatchGoldenArchitecture(t *testing.T) {
	for _, name := range sharedHFModels {
		t.Run(name, func(t *testing.T) {
			var g goldenModel
			sharedtest.ReadJSON(t, filepath.Join("golden/models", name+".json"), &g)
			m, err := Load(sharedtest.Path(t, g.ModelDir))
			require.NoError(t, err)
			defer m.Close()
			a, c := g.Architecture, m.Config
			assert.Equal(t, a.Arch, c.Architecture)
			assert.Equal(t, a.ModelType, c.ModelType)
			assert.Equal(t, a.HiddenSize, c.HiddenSize)
			assert.Equal(t, a.IntermediateSize, c.Intermediate)
			assert.Equal(t, a.NumHiddenLayers, c.Layers)
			assert.Equal(t, a.NumAttentionHeads, c.Heads)
			assert.Equal(t, a.NumKeyValueHeads, c.KVHeads)
			assert.Equal(t, a.HeadDim, c.HeadDim)
			assert.Equal(t, a.VocabSize, c.VocabSize)
			assert.Equal(t, a.RMSNormEps, c.RMSNormEps)
			assert.Equal(t, a.RopeTheta, c.RopeTheta)
			assert.Equal(t, a.TieWordEmbeddings, c.TiedEmbedding)
			assert.Equal(t, a.QKVBias, c.QKVBias)
			assert.Equal(t, a.OBias, c.OBias)
			assert.Equal(t, DType(g.WeightsDType), c.DType)
			if a.RopeScaling == nil {
				assert.Nil(t, c.RopeScaling)
			} else if assert.NotNil(t, c.RopeScaling) {
				assert.Equal(t, a.RopeScaling.RopeType, c.RopeScaling.Type)
				assert.Equal(t, a.RopeScaling.Factor, c.RopeScaling.Factor)
				assert.Equal(t, a.RopeScaling.LowFreqFactor, c.RopeScaling.LowFreqFactor)
				assert.Equal(t, a.RopeScaling.HighFreqFactor, c.RopeScaling.HighFreqFactor)
				assert.Equal(t, a.RopeScaling.OriginalMaxPositionEmbeddings, c.RopeScaling.OriginalMaxPositionEmbs)
			}
			specs := c.ExpectedTensors()
			assert.Len(t, m.Tensors, len(specs))
			for _, s := range specs {
				tensor, err := m.Tensor(s.Name)
				if assert.NoError(t, err) {
					assert.Equal(t, s.Shape, tensor.Shape, s.Name)
					assert.Len(t, tensor.Data, tensor.Len()*tensor.DType.Size(), s.Name)
				}
			}
			_, hasHead := m.Tensors["lm_head.weight"]
			assert.Equal(t, !a.TieWordEmbeddings, hasHead)
		})
	}
}

func TestLoadSharedTokenizerPath(t *testing.T) {
	m, err := Load(sharedtest.Path(t, "models/tiny-llama3"))
	require.NoError(t, err)
	defer m.Close()
	assert.Equal(t, sharedtest.Path(t, "models/tiny-llama3/tokenizer.json"), m.TokenizerPath)

	m2, err := Load(sharedtest.Path(t, "models/tiny-qwen2"))
	require.NoError(t, err)
	defer m2.Close()
	assert.Empty(t, m2.TokenizerPath, "tiny-qwen2 has no tokenizer.json and loads as ids-only")
}

// The llama2.c loader must produce exactly the tensors of the independent HF
// conversion, the q/k RoPE permutation included.
func TestLoadLlama2cEqualsHFConversion(t *testing.T) {
	bin, err := Load(sharedtest.Path(t, "models/stories260K/stories260K.bin"))
	require.NoError(t, err)
	defer bin.Close()
	hf, err := Load(sharedtest.Path(t, "models/stories260K-hf"))
	require.NoError(t, err)
	defer hf.Close()

	assert.Equal(t, hf.Config.Architecture, bin.Config.Architecture)
	assert.Equal(t, hf.Config.HiddenSize, bin.Config.HiddenSize)
	assert.Equal(t, hf.Config.Layers, bin.Config.Layers)
	assert.Equal(t, hf.Config.Heads, bin.Config.Heads)
	assert.Equal(t, hf.Config.KVHeads, bin.Config.KVHeads)
	assert.Equal(t, hf.Config.HeadDim, bin.Config.HeadDim)
	assert.Equal(t, hf.Config.Intermediate, bin.Config.Intermediate)
	assert.Equal(t, hf.Config.VocabSize, bin.Config.VocabSize)
	assert.Equal(t, hf.Config.RMSNormEps, bin.Config.RMSNormEps)
	assert.Equal(t, hf.Config.RopeTheta, bin.Config.RopeTheta)
	assert.Equal(t, hf.Config.TiedEmbedding, bin.Config.TiedEmbedding)
	assert.Equal(t, []int32{1}, bin.Config.BOS)
	assert.Equal(t, []int32{2}, bin.Config.EOS)
	assert.Equal(t, 512, bin.Config.MaxPositions)

	require.Len(t, bin.Tensors, len(hf.Tensors))
	for name, want := range hf.Tensors {
		got, ok := bin.Tensors[name]
		if !assert.True(t, ok, "tensor %q missing from the .bin load", name) {
			continue
		}
		assert.Equal(t, want.Shape, got.Shape, name)
		w, g := want.Float32s(), got.Float32s()
		diff := 0
		for i := range w {
			if math.Float32bits(w[i]) != math.Float32bits(g[i]) {
				diff++
			}
		}
		assert.Zero(t, diff, "tensor %q: %d of %d values differ", name, diff, len(w))
	}
}

// The models README counts 513 subnormal F16 weights in tiny-smollm2; a loader that
// flushes them to zero would make the goldens fail later, so catch it here.
func TestLoadKeepsF16Subnormals(t *testing.T) {
	m, err := Load(sharedtest.Path(t, "models/tiny-smollm2"))
	require.NoError(t, err)
	defer m.Close()
	subnormals := 0
	for _, tensor := range m.Tensors {
		require.Equal(t, F16, tensor.DType)
		for i, v := range tensor.Float32s() {
			bits := uint16(tensor.Data[2*i]) | uint16(tensor.Data[2*i+1])<<8
			if bits&0x7c00 == 0 && bits&0x03ff != 0 {
				subnormals++
				require.NotZero(t, v, "%s[%d] flushed to zero", tensor.Name, i)
				require.Less(t, math.Abs(float64(v)), math.Ldexp(1, -14))
			}
		}
	}
	assert.Equal(t, 513, subnormals)
}
