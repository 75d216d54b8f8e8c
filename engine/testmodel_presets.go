package engine

import (
	"fmt"
	"sort"
)

// testModelPresets are named shapes for BuildTestModel. The big ones have the real
// models' architecture (their config.json, random weights): loaders and benchmarks
// meet real sizes without downloading anything.
var testModelPresets = map[string]TestModelSpec{
	// tiny: a Llama with GQA, small enough for any unit test.
	"tiny": {Config: Config{
		HiddenSize: 32, Intermediate: 64, Layers: 2, Heads: 4, KVHeads: 2, VocabSize: 256,
		MaxPositions: 512, RopeTheta: 10000, RMSNormEps: 1e-5, TiedEmbedding: true, DType: F32,
	}},
	// tiny-qwen2: a Qwen2 (q/k/v biases, untied head) of the same size.
	"tiny-qwen2": {Config: Config{
		Architecture: "Qwen2ForCausalLM",
		HiddenSize:   32, Intermediate: 64, Layers: 2, Heads: 4, KVHeads: 2, VocabSize: 256,
		MaxPositions: 512, RopeTheta: 1e6, RMSNormEps: 1e-6, DType: F32, BOS: []int32{254}, EOS: []int32{255},
	}},
	// smollm2-135m: HuggingFaceTB/SmolLM2-135M.
	"smollm2-135m": {Config: Config{
		HiddenSize: 576, Intermediate: 1536, Layers: 30, Heads: 9, KVHeads: 3, VocabSize: 49152,
		MaxPositions: 8192, RopeTheta: 1e5, RMSNormEps: 1e-5, TiedEmbedding: true, DType: BF16,
		BOS: []int32{1}, EOS: []int32{2},
	}},
	// llama-3.2-1b: meta-llama/Llama-3.2-1B, llama3 RoPE scaling included.
	"llama-3.2-1b": {Config: Config{
		HiddenSize: 2048, Intermediate: 8192, Layers: 16, Heads: 32, KVHeads: 8, HeadDim: 64,
		VocabSize: 128256, MaxPositions: 131072, RopeTheta: 5e5, RMSNormEps: 1e-5,
		RopeScaling: &RopeScaling{Type: "llama3", Factor: 32, LowFreqFactor: 1, HighFreqFactor: 4,
			OriginalMaxPositionEmbs: 8192},
		TiedEmbedding: true, DType: BF16, BOS: []int32{128000}, EOS: []int32{128001, 128008, 128009},
	}},
}

// TestModelPreset returns a named spec ("tiny", "tiny-qwen2", "smollm2-135m",
// "llama-3.2-1b") with seed 0; callers adjust Seed, DType, Shards or ExtraFiles.
func TestModelPreset(name string) (TestModelSpec, error) {
	spec, ok := testModelPresets[name]
	if !ok {
		return TestModelSpec{}, fmt.Errorf("test model preset %q unknown (have %v)", name, TestModelPresetNames())
	}
	// Copy what the caller could mutate through the shared map value.
	if rs := spec.Config.RopeScaling; rs != nil {
		cp := *rs
		spec.Config.RopeScaling = &cp
	}
	spec.Config.BOS = append([]int32(nil), spec.Config.BOS...)
	spec.Config.EOS = append([]int32(nil), spec.Config.EOS...)
	if len(spec.Config.BOS) == 0 {
		spec.Config.BOS = nil
	}
	if len(spec.Config.EOS) == 0 {
		spec.Config.EOS = nil
	}
	return spec, nil
}

// TestModelPresetNames lists the presets, sorted.
func TestModelPresetNames() []string {
	names := make([]string, 0, len(testModelPresets))
	for n := range testModelPresets {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
