package engine

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"strings"

	"github.com/entropix-eval/entropix-eval/internal/usage"
)

// maxDim bounds every size in a config so that products of sizes cannot overflow and
// a typo (an extra digit) is caught here rather than as an allocation failure.
const maxDim = 1 << 24

// LoadConfig reads and parses a config.json file; errors name the file.
func LoadConfig(path string) (Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Config{}, fmt.Errorf("config: %w", err)
	}
	cfg, err := ParseConfig(data)
	if err != nil {
		return Config{}, usage.Errorf("config %s: %w", path, err)
	}
	return cfg, nil
}

// ParseConfig resolves a Hugging Face config.json of a LlamaForCausalLM or
// Qwen2ForCausalLM into a Config, applying transformers' defaults for absent keys
// (LlamaConfig / Qwen2Config). Unknown keys are ignored, as transformers does; values
// that would change the math in a way this project does not implement (another
// rope_scaling type, a Qwen2 sliding window, an MLP bias) are errors, never silently
// dropped. Errors name the field.
func ParseConfig(data []byte) (Config, error) {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return Config{}, fmt.Errorf("invalid JSON: %w", err)
	}
	if raw == nil {
		return Config{}, errors.New("invalid JSON: want an object, got null")
	}
	p := configFields{raw: raw}
	var c Config
	p.architecture(&c)
	if p.err != nil {
		return Config{}, p.err
	}
	llama := c.ModelType == "llama"

	c.HiddenSize = p.size("hidden_size", 0, true)
	c.Intermediate = p.size("intermediate_size", 0, true)
	c.Layers = p.size("num_hidden_layers", 0, true)
	c.Heads = p.size("num_attention_heads", 0, true)
	c.VocabSize = p.size("vocab_size", 0, true)
	c.KVHeads = p.size("num_key_value_heads", c.Heads, false)
	defaultPositions := 2048
	if !llama {
		defaultPositions = 32768
	}
	c.MaxPositions = p.size("max_position_embeddings", defaultPositions, false)
	c.HeadDim = p.size("head_dim", 0, false)
	explicitHeadDim := c.HeadDim != 0
	c.RMSNormEps = p.float("rms_norm_eps", 1e-6)
	c.RopeTheta = p.float("rope_theta", 10000)
	c.RopeScaling = p.ropeScaling()
	c.TiedEmbedding = p.boolean("tie_word_embeddings", false) // LlamaConfig and Qwen2Config default
	if llama {
		c.QKVBias = p.boolean("attention_bias", false)
		c.OBias = c.QKVBias
		if p.boolean("mlp_bias", false) {
			p.fail("mlp_bias", errors.New("true is not supported (gate/up/down biases)"))
		}
		c.BOS = p.tokenIDs("bos_token_id", []int32{1})
		c.EOS = p.tokenIDs("eos_token_id", []int32{2})
	} else {
		c.QKVBias, c.OBias = true, false // Qwen2 attention: q/k/v bias always, o never
		if p.boolean("use_sliding_window", false) {
			p.fail("use_sliding_window", errors.New("true is not supported (sliding-window attention is not implemented)"))
		}
		c.BOS = p.tokenIDs("bos_token_id", nil)
		c.EOS = p.tokenIDs("eos_token_id", nil)
	}
	if act := p.str("hidden_act", "silu"); act != "silu" {
		p.fail("hidden_act", fmt.Errorf("%q is not supported (only silu)", act))
	}
	c.DType = p.dtype()
	if p.err != nil {
		return Config{}, p.err
	}
	if err := c.resolveHeadDim(explicitHeadDim); err != nil {
		return Config{}, err
	}
	return c, nil
}

// resolveHeadDim fills HeadDim and checks the attention geometry.
func (c *Config) resolveHeadDim(explicit bool) error {
	if c.Heads%c.KVHeads != 0 {
		return fmt.Errorf("field %q: num_attention_heads %d is not a multiple of num_key_value_heads %d", "num_key_value_heads", c.Heads, c.KVHeads)
	}
	if !explicit {
		if c.HiddenSize%c.Heads != 0 {
			return fmt.Errorf("field %q: hidden_size %d is not a multiple of num_attention_heads %d and there is no head_dim", "hidden_size", c.HiddenSize, c.Heads)
		}
		c.HeadDim = c.HiddenSize / c.Heads
	}
	if c.HeadDim%2 != 0 {
		return fmt.Errorf("field %q: head_dim %d is odd; RoPE rotates pairs", "head_dim", c.HeadDim)
	}
	if c.Heads*c.HeadDim > maxDim {
		return fmt.Errorf("field %q: num_attention_heads×head_dim = %d is implausibly large", "head_dim", c.Heads*c.HeadDim)
	}
	return nil
}

// configFields reads typed values out of the raw config, keeping the first error
// (with the field's name) so the parser reads as a list of fields.
type configFields struct {
	raw map[string]json.RawMessage
	err error
}

func (p *configFields) fail(field string, err error) {
	if p.err == nil {
		p.err = fmt.Errorf("field %q: %w", field, err)
	}
}

// get returns the field, or nil when it is absent or JSON null (transformers treats
// null as "use the default" for every field read here).
func (p *configFields) get(field string) json.RawMessage {
	v, ok := p.raw[field]
	if !ok || bytes.Equal(bytes.TrimSpace(v), []byte("null")) {
		return nil
	}
	return v
}

func (p *configFields) architecture(c *Config) {
	var archs []string
	if v := p.get("architectures"); v != nil {
		if err := json.Unmarshal(v, &archs); err != nil {
			p.fail("architectures", fmt.Errorf("want a list of strings: %w", err))
			return
		}
	}
	c.ModelType = p.str("model_type", "")
	if len(archs) > 0 {
		c.Architecture = archs[0]
	}
	want := map[string]string{"LlamaForCausalLM": "llama", "Qwen2ForCausalLM": "qwen2"}
	switch {
	case c.Architecture == "" && c.ModelType == "":
		p.fail("architectures", errors.New("absent, and model_type is absent too"))
	case c.Architecture == "":
		for a, mt := range want {
			if mt == c.ModelType {
				c.Architecture = a
			}
		}
		if c.Architecture == "" {
			p.fail("model_type", fmt.Errorf("%q is not supported (want llama or qwen2)", c.ModelType))
		}
	case want[c.Architecture] == "":
		p.fail("architectures", fmt.Errorf("%q is not supported (want LlamaForCausalLM or Qwen2ForCausalLM)", c.Architecture))
	case c.ModelType == "":
		c.ModelType = want[c.Architecture]
	case c.ModelType != want[c.Architecture]:
		p.fail("model_type", fmt.Errorf("%q contradicts architecture %s", c.ModelType, c.Architecture))
	}
}

// size reads a positive integer no larger than maxDim. JSON has one number type, so
// 64.0 is accepted as 64, but 64.5 is not.
func (p *configFields) size(field string, def int, required bool) int {
	v := p.get(field)
	if v == nil {
		if required {
			p.fail(field, errors.New("required"))
		}
		return def
	}
	var f float64
	if err := json.Unmarshal(v, &f); err != nil {
		p.fail(field, fmt.Errorf("want a positive integer: %w", err))
		return def
	}
	if f != math.Trunc(f) || f < 1 || f > maxDim {
		p.fail(field, fmt.Errorf("%s is not an integer in [1, %d]", strings.TrimSpace(string(v)), maxDim))
		return def
	}
	return int(f)
}

// float reads a positive finite number (rope_theta may be written as an integer).
func (p *configFields) float(field string, def float64) float64 {
	v := p.get(field)
	if v == nil {
		return def
	}
	var f float64
	if err := json.Unmarshal(v, &f); err != nil {
		p.fail(field, fmt.Errorf("want a number: %w", err))
		return def
	}
	if !(f > 0) || math.IsInf(f, 0) {
		p.fail(field, fmt.Errorf("%s must be positive", strings.TrimSpace(string(v))))
		return def
	}
	return f
}

func (p *configFields) boolean(field string, def bool) bool {
	v := p.get(field)
	if v == nil {
		return def
	}
	var b bool
	if err := json.Unmarshal(v, &b); err != nil {
		p.fail(field, fmt.Errorf("want true or false: %w", err))
		return def
	}
	return b
}

func (p *configFields) str(field, def string) string {
	v := p.get(field)
	if v == nil {
		return def
	}
	var s string
	if err := json.Unmarshal(v, &s); err != nil {
		p.fail(field, fmt.Errorf("want a string: %w", err))
		return def
	}
	return s
}

// tokenIDs reads an id or a list of ids (Llama 3.x lists several EOS ids).
func (p *configFields) tokenIDs(field string, def []int32) []int32 {
	v := p.get(field)
	if v == nil {
		return def
	}
	var one int32
	if err := json.Unmarshal(v, &one); err == nil {
		if one < 0 {
			p.fail(field, fmt.Errorf("negative token id %d", one))
		}
		return []int32{one}
	}
	var many []int32
	if err := json.Unmarshal(v, &many); err != nil {
		p.fail(field, fmt.Errorf("want a token id or a list of ids: %w", err))
		return def
	}
	for _, id := range many {
		if id < 0 {
			p.fail(field, fmt.Errorf("negative token id %d", id))
		}
	}
	return many
}

// dtype maps torch_dtype (newer transformers write "dtype") to the weight dtype the
// config announces; Load replaces it with the dtype actually stored.
func (p *configFields) dtype() DType {
	field := "torch_dtype"
	if p.get(field) == nil {
		field = "dtype"
	}
	switch s := p.str(field, ""); s {
	case "":
		return ""
	case "float32":
		return F32
	case "float16":
		return F16
	case "bfloat16":
		return BF16
	default:
		p.fail(field, fmt.Errorf("%q is not supported (want float32, float16 or bfloat16)", s))
		return ""
	}
}
