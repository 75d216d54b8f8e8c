package engine

import (
	"errors"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
)

// TestModelSpec describes a random-weight checkpoint for BuildTestModel.
type TestModelSpec struct {
	// Config is the architecture. Zero values take defaults: Architecture
	// LlamaForCausalLM, HeadDim hidden/heads (and then no head_dim key is written, as
	// in Qwen2 and SmolLM2 configs), KVHeads = Heads, MaxPositions 2048, RMSNormEps
	// 1e-5, RopeTheta 10000, DType F32 (the stored dtype), BOS 1 and EOS 2. Qwen2
	// always gets q/k/v biases; a Llama gets q/k/v/o biases when QKVBias is set.
	// TiedEmbedding false writes a separate lm_head.weight.
	Config Config
	// Seed makes the weights: the same spec always writes the same bytes.
	Seed uint64
	// Shards > 1 splits the weights into model-0000i-of-0000N.safetensors files with a
	// model.safetensors.index.json, as save_pretrained does for big models.
	Shards int
	// ExtraFiles are written into the directory as given, e.g. a tokenizer.json.
	ExtraFiles map[string][]byte
}

// BuildTestModel writes a Hugging Face checkpoint directory (config.json,
// generation_config.json, safetensors weights, ExtraFiles) for spec into dir, which is
// created if needed. Weights are drawn like the tiny models in ../shared: matrices,
// embeddings and biases N(0, 0.02), RMSNorm weights 1+N(0, 0.1), drawn in float64,
// cast to float32, then rounded to nearest even into the stored dtype. Every tensor
// has its own random stream (seeded by Seed and its name), so sharding does not
// change any value. Weights are generated and written in chunks: a 1B-parameter
// preset needs a few megabytes of memory, not gigabytes.
func BuildTestModel(dir string, spec TestModelSpec) error {
	cfg, writeHeadDim, err := spec.resolve()
	if err != nil {
		return fmt.Errorf("build test model %s: %w", dir, err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("build test model: %w", err)
	}
	if err := writeJSONFile(filepath.Join(dir, ConfigFile), configJSON(cfg, writeHeadDim)); err != nil {
		return fmt.Errorf("build test model: %w", err)
	}
	if err := writeJSONFile(filepath.Join(dir, "generation_config.json"), generationConfigJSON(cfg)); err != nil {
		return fmt.Errorf("build test model: %w", err)
	}
	tensors := testModelTensors(cfg, spec.Seed)
	if err := writeShards(dir, tensors, spec.Shards); err != nil {
		return fmt.Errorf("build test model: %w", err)
	}
	for name, data := range spec.ExtraFiles {
		if name == "" || name != filepath.Base(name) || strings.ContainsAny(name, `/\`) || name == ".." {
			return fmt.Errorf("build test model: extra file %q must be a plain file name", name)
		}
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			return fmt.Errorf("build test model: %w", err)
		}
	}
	return nil
}

// resolve fills the spec's defaults and checks that the config it would write
// parses back to the same Config, so a builder model always loads.
func (spec TestModelSpec) resolve() (Config, bool, error) {
	c := spec.Config
	if c.Architecture == "" {
		c.Architecture = "LlamaForCausalLM"
	}
	switch c.Architecture {
	case "LlamaForCausalLM":
		c.ModelType = "llama"
		c.OBias = c.QKVBias
	case "Qwen2ForCausalLM":
		c.ModelType = "qwen2"
		c.QKVBias, c.OBias = true, false
	default:
		return Config{}, false, fmt.Errorf("architecture %q is not supported (want LlamaForCausalLM or Qwen2ForCausalLM)", c.Architecture)
	}
	if c.Heads <= 0 {
		return Config{}, false, errors.New("Config.Heads must be positive")
	}
	writeHeadDim := c.HeadDim != 0
	if !writeHeadDim {
		c.HeadDim = c.HiddenSize / c.Heads
	}
	if c.KVHeads == 0 {
		c.KVHeads = c.Heads
	}
	c.MaxPositions = cmpOr(c.MaxPositions, 2048)
	c.RMSNormEps = cmpOr(c.RMSNormEps, 1e-5)
	c.RopeTheta = cmpOr(c.RopeTheta, 10000)
	c.DType = cmpOr(c.DType, F32)
	if c.BOS == nil {
		c.BOS = []int32{1}
	}
	if c.EOS == nil {
		c.EOS = []int32{2}
	}
	if spec.Shards < 0 {
		return Config{}, false, fmt.Errorf("Shards %d is negative", spec.Shards)
	}
	js, err := pyJSONFile(configJSON(c, writeHeadDim))
	if err != nil {
		return Config{}, false, err
	}
	back, err := ParseConfig(js)
	if err != nil {
		return Config{}, false, fmt.Errorf("the spec makes an invalid config: %w", err)
	}
	if !reflect.DeepEqual(back, c) {
		return Config{}, false, fmt.Errorf("the spec's config does not survive config.json: wrote %+v, read back %+v", c, back)
	}
	return c, writeHeadDim, nil
}

func cmpOr[T comparable](v, def T) T {
	var zero T
	if v == zero {
		return def
	}
	return v
}

// testModelTensors lists the checkpoint's tensors with their value streams.
func testModelTensors(c Config, seed uint64) []tensorSource {
	specs := c.ExpectedTensors()
	out := make([]tensorSource, len(specs))
	for i, s := range specs {
		mean, std := 0.0, 0.02
		if strings.HasSuffix(s.Name, "norm.weight") {
			mean, std = 1, 0.1
		}
		rng := rand.New(rand.NewPCG(seed, nameHash(s.Name)))
		out[i] = tensorSource{Name: s.Name, DType: c.DType, Shape: s.Shape, Fill: func(dst []float32) {
			for j := range dst {
				dst[j] = float32(mean + std*rng.NormFloat64())
			}
		}}
	}
	return out
}

func nameHash(name string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(name))
	return h.Sum64()
}

func writeJSONFile(path string, v any) error {
	data, err := pyJSONFile(v)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return os.WriteFile(path, data, 0o644)
}
