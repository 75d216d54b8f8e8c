package engine

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// fuzzSpec is a checkpoint small enough that the fuzzer can mutate all of it.
var fuzzSpec = TestModelSpec{Config: Config{HiddenSize: 8, Intermediate: 8, Layers: 1, Heads: 2, KVHeads: 1, VocabSize: 4}, Seed: 1}

// fuzzSeedFiles builds small valid checkpoints (every dtype, tied and untied, Qwen2)
// and returns their weights files and config.json files.
func fuzzSeedFiles(f *testing.F) (weights, configs [][]byte) {
	for i, edit := range []func(*TestModelSpec){
		func(s *TestModelSpec) {},
		func(s *TestModelSpec) { s.Config.DType = BF16; s.Config.TiedEmbedding = true },
		func(s *TestModelSpec) { s.Config.DType = F16; s.Config.Architecture = "Qwen2ForCausalLM" },
		func(s *TestModelSpec) {
			s.Config.HeadDim = 2
			s.Config.RopeScaling = &RopeScaling{Type: "llama3", Factor: 8, LowFreqFactor: 1, HighFreqFactor: 4, OriginalMaxPositionEmbs: 64}
			s.Config.EOS = []int32{2, 3}
		},
	} {
		spec := fuzzSpec
		edit(&spec)
		dir := filepath.Join(f.TempDir(), string(rune('a'+i)))
		if err := BuildTestModel(dir, spec); err != nil {
			f.Fatal(err)
		}
		for _, p := range []struct {
			name string
			to   *[][]byte
		}{{SafetensorsFile, &weights}, {ConfigFile, &configs}} {
			b, err := os.ReadFile(filepath.Join(dir, p.name))
			if err != nil {
				f.Fatal(err)
			}
			*p.to = append(*p.to, b)
		}
	}
	return weights, configs
}

func FuzzParseSafetensors(f *testing.F) {
	weights, _ := fuzzSeedFiles(f)
	for _, w := range weights {
		f.Add(w)
	}
	f.Add([]byte("\x02\x00\x00\x00\x00\x00\x00\x00{}"))
	f.Add([]byte("\x10\x00\x00\x00\x00\x00\x00\x00{\"a\":{}}        "))
	f.Fuzz(func(t *testing.T, data []byte) {
		h, err := parseSafetensors(data)
		if err != nil {
			return
		}
		if h.DataStart < 8 || h.DataStart > int64(len(data)) {
			t.Fatalf("data section starts at %d of %d bytes", h.DataStart, len(data))
		}
		for _, e := range h.Tensors {
			tensor := &Tensor{Name: e.Name, DType: e.DType, Shape: e.Shape, Data: data[h.DataStart+e.Begin : h.DataStart+e.End]}
			if int64(tensor.Len()*e.DType.Size()) != e.End-e.Begin {
				t.Fatalf("tensor %q: %d elements in %d bytes", e.Name, tensor.Len(), e.End-e.Begin)
			}
			tensor.Float32s() // must not read out of range
		}
	})
}

// FuzzLoad runs the whole directory loader (header, validation against the config,
// tensor windows) on a mutated weights file next to a fixed config.
func FuzzLoad(f *testing.F) {
	weights, configs := fuzzSeedFiles(f)
	f.Add(weights[0])
	dir := f.TempDir()
	if err := os.WriteFile(filepath.Join(dir, ConfigFile), configs[0], 0o644); err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if err := os.WriteFile(filepath.Join(dir, SafetensorsFile), data, 0o644); err != nil {
			t.Fatal(err)
		}
		m, err := Load(dir)
		if err != nil {
			return
		}
		for _, s := range m.Config.ExpectedTensors() {
			if tensor, err := m.Tensor(s.Name); err != nil || tensor.CheckShape(s.Shape...) != nil {
				t.Fatalf("loaded a model without a valid %q", s.Name)
			}
		}
		if err := m.Close(); err != nil {
			t.Fatal(err)
		}
	})
}

func FuzzParseConfig(f *testing.F) {
	_, configs := fuzzSeedFiles(f)
	for _, c := range configs {
		f.Add(c)
	}
	for _, edits := range []map[string]any{nil, {"head_dim": 16}, {"rope_theta": 100000, "is_llama_config": true}} {
		f.Add(configWith(f, baseLlamaConfig(), edits))
	}
	f.Add(configWith(f, baseQwen2Config(), nil))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := ParseConfig(data)
		if err != nil {
			return
		}
		if c.HiddenSize < 1 || c.Intermediate < 1 || c.Layers < 1 || c.VocabSize < 1 || c.HeadDim < 2 || c.HeadDim%2 != 0 ||
			c.KVHeads < 1 || c.Heads%c.KVHeads != 0 || !(c.RMSNormEps > 0) || !(c.RopeTheta > 0) {
			t.Fatalf("accepted an unusable config %+v", c)
		}
		c.ExpectedTensors()
		// What was accepted must survive being written back as config.json.
		if c.DType == "" || len(c.BOS) == 0 || len(c.EOS) == 0 {
			return
		}
		js, err := pyJSONFile(configJSON(c, true))
		if err != nil {
			t.Fatal(err)
		}
		back, err := ParseConfig(js)
		if err != nil {
			t.Fatalf("rewritten config rejected: %v\n%s", err, js)
		}
		if !reflect.DeepEqual(back, c) {
			t.Fatalf("config changed on the round trip:\n got %+v\nwant %+v", back, c)
		}
	})
}

func FuzzLlama2cHeader(f *testing.F) {
	b := make([]byte, 28)
	for i, v := range []uint32{8, 6, 1, 2, 1, 5, 3} {
		b[4*i] = byte(v)
	}
	f.Add(b)
	f.Fuzz(func(t *testing.T, data []byte) {
		h, err := parseLlama2cHeader(data)
		if err != nil {
			return
		}
		m := &Model{Config: h.config(), Tensors: map[string]*Tensor{}}
		if err := m.addLlama2cTensors(h, data[28:]); err != nil {
			t.Fatal(err)
		}
	})
}
