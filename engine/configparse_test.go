package engine

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/entropix-eval/entropix-eval/internal/sharedtest"
)

// absent marks a key to delete in configWith.
type absentKey struct{}

var absent absentKey

// baseLlamaConfig is a small transformers-4.45 LlamaConfig.
func baseLlamaConfig() map[string]any {
	return map[string]any{
		"architectures": []string{"LlamaForCausalLM"}, "model_type": "llama",
		"hidden_size": 64, "intermediate_size": 128, "num_hidden_layers": 2,
		"num_attention_heads": 8, "num_key_value_heads": 2, "vocab_size": 1000,
		"max_position_embeddings": 4096, "rms_norm_eps": 1e-5, "rope_theta": 10000.0,
		"rope_scaling": nil, "tie_word_embeddings": true, "attention_bias": false,
		"mlp_bias": false, "hidden_act": "silu", "bos_token_id": 1, "eos_token_id": 2,
		"torch_dtype": "bfloat16",
	}
}

func baseQwen2Config() map[string]any {
	m := baseLlamaConfig()
	for _, k := range []string{"attention_bias", "mlp_bias"} {
		delete(m, k)
	}
	m["architectures"] = []string{"Qwen2ForCausalLM"}
	m["model_type"] = "qwen2"
	m["use_sliding_window"] = false
	m["sliding_window"] = 4096
	m["max_window_layers"] = 2
	return m
}

func configWith(t testing.TB, base map[string]any, edits map[string]any) []byte {
	t.Helper()
	for k, v := range edits {
		if v == absent {
			delete(base, k)
		} else {
			base[k] = v
		}
	}
	b, err := json.Marshal(base)
	require.NoError(t, err)
	return b
}

func TestParseConfigResolves(t *testing.T) {
	llama3 := map[string]any{"rope_type": "llama3", "factor": 32.0, "low_freq_factor": 1.0,
		"high_freq_factor": 4.0, "original_max_position_embeddings": 8192}
	cases := []struct {
		name  string
		base  map[string]any
		edits map[string]any
		check func(t *testing.T, c Config)
	}{
		{"head_dim derived from hidden/heads", baseLlamaConfig(), nil, func(t *testing.T, c Config) {
			assert.Equal(t, 8, c.HeadDim)
			assert.Equal(t, BF16, c.DType)
			assert.Equal(t, 4096, c.MaxPositions)
		}},
		{"explicit head_dim wins", baseLlamaConfig(), map[string]any{"head_dim": 16}, func(t *testing.T, c Config) {
			assert.Equal(t, 16, c.HeadDim)
		}},
		{"explicit head_dim allows hidden != heads*head_dim", baseLlamaConfig(), map[string]any{"hidden_size": 60, "head_dim": 16}, func(t *testing.T, c Config) {
			assert.Equal(t, 16, c.HeadDim)
			assert.Equal(t, 60, c.HiddenSize)
		}},
		{"null head_dim is derived", baseLlamaConfig(), map[string]any{"head_dim": nil}, func(t *testing.T, c Config) {
			assert.Equal(t, 8, c.HeadDim)
		}},
		{"kv heads default to heads (MHA)", baseLlamaConfig(), map[string]any{"num_key_value_heads": absent}, func(t *testing.T, c Config) {
			assert.Equal(t, 8, c.KVHeads)
		}},
		{"MQA", baseLlamaConfig(), map[string]any{"num_key_value_heads": 1}, func(t *testing.T, c Config) {
			assert.Equal(t, 1, c.KVHeads)
		}},
		{"rope_theta as a JSON integer", baseLlamaConfig(), map[string]any{"rope_theta": 100000}, func(t *testing.T, c Config) {
			assert.Equal(t, 1e5, c.RopeTheta)
		}},
		{"sizes written as floats", baseLlamaConfig(), map[string]any{"hidden_size": 64.0}, func(t *testing.T, c Config) {
			assert.Equal(t, 64, c.HiddenSize)
		}},
		{"transformers defaults for absent keys", baseLlamaConfig(), map[string]any{
			"rms_norm_eps": absent, "rope_theta": absent, "tie_word_embeddings": absent, "attention_bias": absent,
			"max_position_embeddings": absent, "bos_token_id": absent, "eos_token_id": absent, "torch_dtype": absent,
			"rope_scaling": absent, "hidden_act": absent, "mlp_bias": absent,
		}, func(t *testing.T, c Config) {
			assert.Equal(t, 1e-6, c.RMSNormEps)
			assert.Equal(t, 10000.0, c.RopeTheta)
			assert.False(t, c.TiedEmbedding, "LlamaConfig defaults tie_word_embeddings to False")
			assert.False(t, c.QKVBias)
			assert.Equal(t, 2048, c.MaxPositions)
			assert.Equal(t, []int32{1}, c.BOS)
			assert.Equal(t, []int32{2}, c.EOS)
			assert.Equal(t, DType(""), c.DType)
			assert.Nil(t, c.RopeScaling)
		}},
		{"llama attention_bias gives q/k/v/o biases", baseLlamaConfig(), map[string]any{"attention_bias": true}, func(t *testing.T, c Config) {
			assert.True(t, c.QKVBias)
			assert.True(t, c.OBias)
		}},
		{"qwen2 has q/k/v bias, never o", baseQwen2Config(), nil, func(t *testing.T, c Config) {
			assert.Equal(t, "Qwen2ForCausalLM", c.Architecture)
			assert.True(t, c.QKVBias)
			assert.False(t, c.OBias)
		}},
		{"qwen2 ignores attention_bias false", baseQwen2Config(), map[string]any{"attention_bias": false}, func(t *testing.T, c Config) {
			assert.True(t, c.QKVBias)
		}},
		{"qwen2 defaults", baseQwen2Config(), map[string]any{"max_position_embeddings": absent, "bos_token_id": absent, "eos_token_id": absent}, func(t *testing.T, c Config) {
			assert.Equal(t, 32768, c.MaxPositions)
			assert.Nil(t, c.BOS)
			assert.Nil(t, c.EOS)
		}},
		{"eos list", baseLlamaConfig(), map[string]any{"eos_token_id": []int{128001, 128008, 128009}}, func(t *testing.T, c Config) {
			assert.Equal(t, []int32{128001, 128008, 128009}, c.EOS)
		}},
		{"nanotron leftovers ignored", baseLlamaConfig(), map[string]any{"is_llama_config": true, "rope_interleaved": false, "pad_token_id": 2}, func(t *testing.T, c Config) {
			assert.Equal(t, "llama", c.ModelType)
		}},
		{"llama3 rope scaling", baseLlamaConfig(), map[string]any{"rope_scaling": llama3}, func(t *testing.T, c Config) {
			assert.Equal(t, &RopeScaling{Type: "llama3", Factor: 32, LowFreqFactor: 1, HighFreqFactor: 4, OriginalMaxPositionEmbs: 8192}, c.RopeScaling)
		}},
		{"pre-4.43 'type' key", baseLlamaConfig(), map[string]any{"rope_scaling": map[string]any{"type": "llama3", "factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0, "original_max_position_embeddings": 8192}}, func(t *testing.T, c Config) {
			require.NotNil(t, c.RopeScaling)
			assert.Equal(t, 8.0, c.RopeScaling.Factor)
		}},
		{"rope_type default is plain RoPE", baseLlamaConfig(), map[string]any{"rope_scaling": map[string]any{"rope_type": "default"}}, func(t *testing.T, c Config) {
			assert.Nil(t, c.RopeScaling)
		}},
		{"model_type alone", baseLlamaConfig(), map[string]any{"architectures": absent}, func(t *testing.T, c Config) {
			assert.Equal(t, "LlamaForCausalLM", c.Architecture)
		}},
		{"newer 'dtype' key", baseLlamaConfig(), map[string]any{"torch_dtype": absent, "dtype": "float16"}, func(t *testing.T, c Config) {
			assert.Equal(t, F16, c.DType)
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, err := ParseConfig(configWith(t, tc.base, tc.edits))
			require.NoError(t, err)
			tc.check(t, c)
		})
	}
}

func TestParseConfigErrors(t *testing.T) {
	cases := []struct {
		name  string
		base  map[string]any
		edits map[string]any
		want  []string // substrings of the error
	}{
		{"unsupported architecture", baseLlamaConfig(), map[string]any{"architectures": []string{"MistralForCausalLM"}}, []string{`"architectures"`, "MistralForCausalLM"}},
		{"unsupported model_type", baseLlamaConfig(), map[string]any{"architectures": absent, "model_type": "gemma"}, []string{`"model_type"`, "gemma"}},
		{"no architecture at all", baseLlamaConfig(), map[string]any{"architectures": absent, "model_type": absent}, []string{`"architectures"`}},
		{"model_type contradicts", baseLlamaConfig(), map[string]any{"model_type": "qwen2"}, []string{`"model_type"`, "contradicts"}},
		{"architectures not a list", baseLlamaConfig(), map[string]any{"architectures": "LlamaForCausalLM"}, []string{`"architectures"`}},
		{"missing hidden_size", baseLlamaConfig(), map[string]any{"hidden_size": absent}, []string{`"hidden_size"`, "required"}},
		{"zero layers", baseLlamaConfig(), map[string]any{"num_hidden_layers": 0}, []string{`"num_hidden_layers"`}},
		{"negative vocab", baseLlamaConfig(), map[string]any{"vocab_size": -5}, []string{`"vocab_size"`}},
		{"fractional size", baseLlamaConfig(), map[string]any{"intermediate_size": 127.5}, []string{`"intermediate_size"`, "127.5"}},
		{"absurd size", baseLlamaConfig(), map[string]any{"vocab_size": 1e12}, []string{`"vocab_size"`}},
		{"size as a string", baseLlamaConfig(), map[string]any{"hidden_size": "64"}, []string{`"hidden_size"`}},
		{"heads not a multiple of kv heads", baseLlamaConfig(), map[string]any{"num_key_value_heads": 3}, []string{`"num_key_value_heads"`, "multiple"}},
		{"hidden not a multiple of heads", baseLlamaConfig(), map[string]any{"hidden_size": 60}, []string{`"hidden_size"`, "head_dim"}},
		{"odd head_dim", baseLlamaConfig(), map[string]any{"head_dim": 7}, []string{`"head_dim"`, "odd"}},
		{"zero eps", baseLlamaConfig(), map[string]any{"rms_norm_eps": 0}, []string{`"rms_norm_eps"`}},
		{"negative rope_theta", baseLlamaConfig(), map[string]any{"rope_theta": -1}, []string{`"rope_theta"`}},
		{"yarn rope scaling", baseLlamaConfig(), map[string]any{"rope_scaling": map[string]any{"rope_type": "yarn", "factor": 4.0}}, []string{`"rope_scaling"`, `"yarn"`}},
		{"linear rope scaling (old key)", baseLlamaConfig(), map[string]any{"rope_scaling": map[string]any{"type": "linear", "factor": 2.0}}, []string{`"rope_scaling"`, `"linear"`}},
		{"dynamic rope scaling", baseLlamaConfig(), map[string]any{"rope_scaling": map[string]any{"type": "dynamic", "factor": 2.0}}, []string{`"dynamic"`}},
		{"rope scaling without a type", baseLlamaConfig(), map[string]any{"rope_scaling": map[string]any{"factor": 2.0}}, []string{`"rope_scaling"`, "rope_type"}},
		{"rope scaling not an object", baseLlamaConfig(), map[string]any{"rope_scaling": "llama3"}, []string{`"rope_scaling"`}},
		{"llama3 without factor", baseLlamaConfig(), map[string]any{"rope_scaling": map[string]any{"rope_type": "llama3", "low_freq_factor": 1.0, "high_freq_factor": 4.0, "original_max_position_embeddings": 8192}}, []string{`"rope_scaling"`, "factor"}},
		{"llama3 low >= high", baseLlamaConfig(), map[string]any{"rope_scaling": map[string]any{"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 4.0, "high_freq_factor": 4.0, "original_max_position_embeddings": 8192}}, []string{`"rope_scaling"`, "low_freq_factor"}},
		{"qwen2 sliding window", baseQwen2Config(), map[string]any{"use_sliding_window": true}, []string{`"use_sliding_window"`, "not supported"}},
		{"mlp bias", baseLlamaConfig(), map[string]any{"mlp_bias": true}, []string{`"mlp_bias"`}},
		{"gelu", baseLlamaConfig(), map[string]any{"hidden_act": "gelu"}, []string{`"hidden_act"`, "gelu"}},
		{"float8 weights", baseLlamaConfig(), map[string]any{"torch_dtype": "float8_e4m3fn"}, []string{`"torch_dtype"`, "float8"}},
		{"bos as a string", baseLlamaConfig(), map[string]any{"bos_token_id": "<s>"}, []string{`"bos_token_id"`}},
		{"negative eos", baseLlamaConfig(), map[string]any{"eos_token_id": []int{2, -1}}, []string{`"eos_token_id"`, "negative"}},
		{"tie flag as a string", baseLlamaConfig(), map[string]any{"tie_word_embeddings": "yes"}, []string{`"tie_word_embeddings"`}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseConfig(configWith(t, tc.base, tc.edits))
			require.Error(t, err)
			for _, w := range tc.want {
				assert.ErrorContains(t, err, w)
			}
		})
	}
	t.Run("not JSON", func(t *testing.T) {
		_, err := ParseConfig([]byte(`{"hidden_size": 64,`))
		assert.ErrorContains(t, err, "invalid JSON")
	})
	t.Run("JSON null", func(t *testing.T) {
		_, err := ParseConfig([]byte(`null`))
		assert.ErrorContains(t, err, "invalid JSON")
	})
	t.Run("LoadConfig names the file", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "config.json")
		require.NoError(t, os.WriteFile(path, configWith(t, baseLlamaConfig(), map[string]any{"vocab_size": 0}), 0o644))
		_, err := LoadConfig(path)
		assert.ErrorContains(t, err, "config "+path+`: field "vocab_size"`)
	})
}

// Each shared config must resolve to the architecture the golden reference used
// (TestLoadSharedModelsMatchGoldenArchitecture checks every field through Load; this
// checks the quirks the models README lists, straight from config.json).
func TestParseSharedConfigQuirks(t *testing.T) {
	parse := func(name string) Config {
		c, err := LoadConfig(sharedtest.Path(t, filepath.Join("models", name, "config.json")))
		require.NoError(t, err)
		return c
	}
	assert.Equal(t, []int32{128001, 128008, 128009}, parse("tiny-llama3").EOS)
	assert.Equal(t, 16, parse("tiny-qwen2").HeadDim, "derived from hidden/heads")
	assert.Equal(t, 1e5, parse("tiny-smollm2").RopeTheta, "written as a JSON integer")
	assert.Equal(t, []int32{1021}, parse("tiny-qwen2").BOS)
	assert.False(t, parse("tiny-llama-untied").TiedEmbedding)
}
