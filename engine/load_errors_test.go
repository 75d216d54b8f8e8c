package engine

import (
	"encoding/binary"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const (
	embedName = "model.embed_tokens.weight"
	normName  = "model.norm.weight"
	qName     = "model.layers.0.self_attn.q_proj.weight"
)

// Every way a checkpoint can be broken must give an error naming the file and, where
// there is one, the tensor: never a panic, never a silent load.
func TestLoadRejectsBrokenSafetensors(t *testing.T) {
	st := func(dir string) string { return filepath.Join(dir, SafetensorsFile) }
	cases := []struct {
		name    string
		spec    func(*TestModelSpec)
		corrupt func(t *testing.T, dir string)
		want    []string
	}{
		{"tensor missing", nil, func(t *testing.T, dir string) {
			// model.norm.weight is last in data order: drop its entry and its bytes.
			editHeader(t, st(dir), func(h map[string]any) { delete(h, normName) })
			mutateFile(t, st(dir), func(b []byte) []byte { return b[:len(b)-32*4] })
		}, []string{`"model.norm.weight" missing`}},
		{"unexpected tensor", nil, func(t *testing.T, dir string) {
			h, data := splitSafetensors(t, st(dir))
			n := int64(len(data))
			h["model.layers.0.mlp.gate_proj.bias"] = map[string]any{"dtype": "F32", "shape": []int{64}, "data_offsets": []int64{n, n + 256}}
			joinSafetensors(t, st(dir), h, append(data, make([]byte, 256)...))
		}, []string{"unexpected tensor", `"model.layers.0.mlp.gate_proj.bias"`, SafetensorsFile}},
		{"config says more layers", nil, func(t *testing.T, dir string) {
			editConfig(t, dir, map[string]any{"num_hidden_layers": 3})
		}, []string{`"model.layers.2.input_layernorm.weight" missing`}},
		{"config says fewer layers", nil, func(t *testing.T, dir string) {
			editConfig(t, dir, map[string]any{"num_hidden_layers": 1})
		}, []string{"unexpected tensor", `"model.layers.1.`}},
		{"config asks for biases the file lacks", nil, func(t *testing.T, dir string) {
			editConfig(t, dir, map[string]any{"attention_bias": true})
		}, []string{`"model.layers.0.self_attn.q_proj.bias" missing`}},
		{"untied config, tied file", nil, func(t *testing.T, dir string) {
			editConfig(t, dir, map[string]any{"tie_word_embeddings": false})
		}, []string{`"lm_head.weight" missing`}},
		{"vocab disagrees", nil, func(t *testing.T, dir string) {
			editConfig(t, dir, map[string]any{"vocab_size": 300})
		}, []string{SafetensorsFile, `"model.embed_tokens.weight"`, "shape [256 32]", "[300 32]"}},
		{"kv heads disagree", nil, func(t *testing.T, dir string) {
			editConfig(t, dir, map[string]any{"num_key_value_heads": 4})
		}, []string{`"model.layers.0.self_attn.k_proj.weight"`, "shape [16 32]", "[32 32]"}},
		{"shape rank differs", nil, func(t *testing.T, dir string) {
			editHeader(t, st(dir), func(h map[string]any) { entry(h, normName)["shape"] = []int{1, 32} })
		}, []string{`"model.norm.weight"`, "[1 32]"}},
		{"dtype not supported", nil, func(t *testing.T, dir string) {
			editHeader(t, st(dir), func(h map[string]any) { entry(h, normName)["dtype"] = "I32" })
		}, []string{SafetensorsFile, `"model.norm.weight"`, `dtype "I32" unsupported`}},
		{"F64", nil, func(t *testing.T, dir string) {
			editHeader(t, st(dir), func(h map[string]any) { entry(h, normName)["dtype"] = "F64" })
		}, []string{`"model.norm.weight"`, `"F64"`}},
		{"span does not match shape×dtype", nil, func(t *testing.T, dir string) {
			editHeader(t, st(dir), func(h map[string]any) { entry(h, normName)["dtype"] = "BF16" })
		}, []string{`"model.norm.weight"`, "span 128 bytes", "needs 64"}},
		{"huge shape: the exact byte count", nil, func(t *testing.T, dir string) {
			editHeader(t, st(dir), func(h map[string]any) { entry(h, normName)["shape"] = []int64{1 << 40, 1 << 40} })
		}, []string{`"model.norm.weight"`, "span 128 bytes", "needs 4835703278458516698824704"}},
		{"offsets past the end", nil, func(t *testing.T, dir string) {
			editHeader(t, st(dir), func(h map[string]any) { entry(h, normName)["data_offsets"] = []int64{1 << 40, 1<<40 + 128} })
		}, []string{`"model.norm.weight"`, "run past"}},
		{"offsets reversed", nil, func(t *testing.T, dir string) {
			editHeader(t, st(dir), func(h map[string]any) { entry(h, normName)["data_offsets"] = []int64{128, 0} })
		}, []string{`"model.norm.weight"`, "not an interval"}},
		{"offsets overlap", nil, func(t *testing.T, dir string) {
			editHeader(t, st(dir), func(h map[string]any) {
				// norm's span moves onto the embedding's first bytes.
				entry(h, normName)["data_offsets"] = []int64{0, 128}
			})
		}, []string{"overlap"}},
		{"offsets leave a gap", nil, func(t *testing.T, dir string) {
			h, data := splitSafetensors(t, st(dir))
			n := int64(len(data))
			entry(h, normName)["data_offsets"] = []int64{n + 8, n + 8 + 128}
			joinSafetensors(t, st(dir), h, append(data, make([]byte, 136)...))
		}, []string{`"model.norm.weight"`, "gap"}},
		{"trailing bytes", nil, func(t *testing.T, dir string) {
			mutateFile(t, st(dir), func(b []byte) []byte { return append(b, 0, 0, 0, 0) })
		}, []string{SafetensorsFile, "trailing bytes"}},
		{"truncated data", nil, func(t *testing.T, dir string) {
			mutateFile(t, st(dir), func(b []byte) []byte { return b[:len(b)-1] })
		}, []string{SafetensorsFile, "truncated"}},
		{"truncated header", nil, func(t *testing.T, dir string) {
			mutateFile(t, st(dir), func(b []byte) []byte { return b[:100] })
		}, []string{SafetensorsFile, "runs past the end", "truncated"}},
		{"shorter than the length prefix", nil, func(t *testing.T, dir string) {
			mutateFile(t, st(dir), func(b []byte) []byte { return b[:5] })
		}, []string{SafetensorsFile, "truncated"}},
		{"empty file", nil, func(t *testing.T, dir string) {
			mutateFile(t, st(dir), func(b []byte) []byte { return nil })
		}, []string{SafetensorsFile, "truncated"}},
		{"header length larger than the file", nil, func(t *testing.T, dir string) {
			mutateFile(t, st(dir), func(b []byte) []byte {
				binary.LittleEndian.PutUint64(b, uint64(len(b)))
				return b
			})
		}, []string{"header length", "runs past the end"}},
		{"absurd header length", nil, func(t *testing.T, dir string) {
			mutateFile(t, st(dir), func(b []byte) []byte {
				binary.LittleEndian.PutUint64(b, 1<<62)
				return b
			})
		}, []string{"header length", "exceeds"}},
		{"header not JSON", nil, func(t *testing.T, dir string) {
			mutateFile(t, st(dir), func(b []byte) []byte {
				b[9] = '!'
				return b
			})
		}, []string{SafetensorsFile, "header JSON"}},
		{"header not an object", nil, func(t *testing.T, dir string) {
			mutateFile(t, st(dir), func(b []byte) []byte {
				b[8] = '['
				return b
			})
		}, []string{SafetensorsFile, "'{'"}},
		{"duplicate tensor key", nil, func(t *testing.T, dir string) {
			mutateFile(t, st(dir), func(b []byte) []byte {
				n := binary.LittleEndian.Uint64(b)
				hdr := string(b[8 : 8+n])
				dup := `"model.norm.weight":{"dtype":"F32","shape":[32],"data_offsets":[0,128]},`
				hdr = hdr[:1] + dup + hdr[1:]
				for len(hdr)%8 != 0 {
					hdr += " "
				}
				out := binary.LittleEndian.AppendUint64(nil, uint64(len(hdr)))
				return append(append(out, hdr...), b[8+n:]...)
			})
		}, []string{`"model.norm.weight" appears twice`}},
		{"metadata not strings", nil, func(t *testing.T, dir string) {
			editHeader(t, st(dir), func(h map[string]any) { h["__metadata__"] = map[string]any{"format": 1} })
		}, []string{"__metadata__"}},
		{"entry missing data_offsets", nil, func(t *testing.T, dir string) {
			editHeader(t, st(dir), func(h map[string]any) { delete(entry(h, normName), "data_offsets") })
		}, []string{`"model.norm.weight"`, "data_offsets"}},
		{"negative dimension", nil, func(t *testing.T, dir string) {
			editHeader(t, st(dir), func(h map[string]any) { entry(h, normName)["shape"] = []int{-32} })
		}, []string{`"model.norm.weight"`, "negative"}},
		{"no weights file", nil, func(t *testing.T, dir string) {
			require.NoError(t, os.Remove(st(dir)))
		}, []string{"neither", SafetensorsFile, IndexFile}},
		{"no config", nil, func(t *testing.T, dir string) {
			require.NoError(t, os.Remove(filepath.Join(dir, ConfigFile)))
		}, []string{ConfigFile}},
		{"bad config", nil, func(t *testing.T, dir string) {
			editConfig(t, dir, map[string]any{"rope_scaling": map[string]any{"rope_type": "yarn", "factor": 4.0}})
		}, []string{filepath.Join("model", ConfigFile), `"rope_scaling"`, "yarn"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := buildTiny(t, tc.spec)
			tc.corrupt(t, dir)
			m, err := Load(dir)
			require.Error(t, err)
			t.Log(err)
			assert.Nil(t, m)
			for _, w := range tc.want {
				assert.ErrorContains(t, err, w)
			}
		})
	}
}

// Some stored tensors are legitimately ignored, as transformers ignores them.
func TestLoadIgnoresWhatTransformersIgnores(t *testing.T) {
	appendTensor := func(t *testing.T, path, name string, shape []int) {
		h, data := splitSafetensors(t, path)
		n, size := int64(len(data)), int64(4)
		for _, d := range shape {
			size *= int64(d)
		}
		h[name] = map[string]any{"dtype": "F32", "shape": shape, "data_offsets": []int64{n, n + size}}
		joinSafetensors(t, path, h, append(data, make([]byte, size)...))
	}
	t.Run("rotary inv_freq buffers", func(t *testing.T) {
		dir := buildTiny(t, nil)
		appendTensor(t, filepath.Join(dir, SafetensorsFile), "model.layers.0.self_attn.rotary_emb.inv_freq", []int{4})
		m, err := Load(dir)
		require.NoError(t, err)
		defer m.Close()
		assert.NotContains(t, m.Tensors, "model.layers.0.self_attn.rotary_emb.inv_freq")
	})
	t.Run("a stored lm_head of a tied model", func(t *testing.T) {
		dir := buildTiny(t, nil)
		appendTensor(t, filepath.Join(dir, SafetensorsFile), "lm_head.weight", []int{256, 32})
		m, err := Load(dir)
		require.NoError(t, err)
		defer m.Close()
		assert.NotContains(t, m.Tensors, "lm_head.weight")
	})
}

func TestLoadRejectsBrokenShards(t *testing.T) {
	sharded := func(s *TestModelSpec) { s.Shards = 3 }
	shard := func(dir string, i int) string {
		return filepath.Join(dir, "model-0000"+string(rune('0'+i))+"-of-00003.safetensors")
	}
	editIndex := func(t *testing.T, dir string, edit func(wm map[string]any)) {
		path := filepath.Join(dir, IndexFile)
		b, err := os.ReadFile(path)
		require.NoError(t, err)
		var idx map[string]any
		require.NoError(t, json.Unmarshal(b, &idx))
		edit(idx["weight_map"].(map[string]any))
		b, err = json.Marshal(idx)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(path, b, 0o644))
	}
	cases := []struct {
		name    string
		corrupt func(t *testing.T, dir string)
		want    []string
	}{
		{"shard file missing", func(t *testing.T, dir string) {
			require.NoError(t, os.Remove(shard(dir, 2)))
		}, []string{IndexFile, "model-00002-of-00003.safetensors", "does not exist"}},
		{"tensor in the map is not in its shard", func(t *testing.T, dir string) {
			editIndex(t, dir, func(wm map[string]any) { wm["model.layers.9.mlp.up_proj.weight"] = "model-00001-of-00003.safetensors" })
		}, []string{IndexFile, `"model.layers.9.mlp.up_proj.weight"`, "does not hold it"}},
		{"tensor mapped to the wrong shard", func(t *testing.T, dir string) {
			editIndex(t, dir, func(wm map[string]any) { wm[embedName] = "model-00003-of-00003.safetensors" })
		}, []string{"model-00001-of-00003.safetensors", `"model.embed_tokens.weight"`, "mapped to model-00003-of-00003.safetensors"}},
		{"tensor in a shard but not in the map", func(t *testing.T, dir string) {
			editIndex(t, dir, func(wm map[string]any) { delete(wm, normName) })
		}, []string{`"model.norm.weight"`, "not in the index"}},
		{"tensor in two shards", func(t *testing.T, dir string) {
			// Copy the embedding into shard 3 as well.
			h1, d1 := splitSafetensors(t, shard(dir, 1))
			e := entry(h1, embedName)
			offs := e["data_offsets"].([]any)
			b0, _ := offs[0].(json.Number).Int64()
			b1, _ := offs[1].(json.Number).Int64()
			h3, d3 := splitSafetensors(t, shard(dir, 3))
			n := int64(len(d3))
			h3[embedName] = map[string]any{"dtype": "F32", "shape": e["shape"], "data_offsets": []int64{n, n + b1 - b0}}
			joinSafetensors(t, shard(dir, 3), h3, append(d3, d1[b0:b1]...))
		}, []string{`"model.embed_tokens.weight"`, "model-00003-of-00003.safetensors"}},
		{"shard path escapes the directory", func(t *testing.T, dir string) {
			editIndex(t, dir, func(wm map[string]any) { wm[normName] = "../model-00003-of-00003.safetensors" })
		}, []string{IndexFile, "not a file name"}},
		{"index without weight_map", func(t *testing.T, dir string) {
			require.NoError(t, os.WriteFile(filepath.Join(dir, IndexFile), []byte(`{"metadata":{}}`), 0o644))
		}, []string{IndexFile, `"weight_map" missing`}},
		{"index not JSON", func(t *testing.T, dir string) {
			require.NoError(t, os.WriteFile(filepath.Join(dir, IndexFile), []byte(`{"weight_map":`), 0o644))
		}, []string{IndexFile, "invalid JSON"}},
		{"weight_map value not a string", func(t *testing.T, dir string) {
			editIndex(t, dir, func(wm map[string]any) { wm[normName] = 3 })
		}, []string{IndexFile, `weight_map["model.norm.weight"]`}},
		{"broken shard", func(t *testing.T, dir string) {
			mutateFile(t, shard(dir, 2), func(b []byte) []byte { return b[:len(b)-4] })
		}, []string{"model-00002-of-00003.safetensors", "truncated"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := buildTiny(t, sharded)
			tc.corrupt(t, dir)
			m, err := Load(dir)
			require.Error(t, err)
			t.Log(err)
			assert.Nil(t, m)
			for _, w := range tc.want {
				assert.ErrorContains(t, err, w)
			}
		})
	}
}

func TestLoadPathForms(t *testing.T) {
	dir := buildTiny(t, nil)
	for _, p := range []string{dir, filepath.Join(dir, ConfigFile), filepath.Join(dir, SafetensorsFile)} {
		m, err := Load(p)
		require.NoError(t, err, p)
		assert.Equal(t, dir, m.Dir)
		assert.Empty(t, m.TokenizerPath)
		require.NoError(t, m.Close())
	}
	_, err := Load(filepath.Join(dir, "nope"))
	assert.ErrorContains(t, err, "nope")
	_, err = Load(t.TempDir())
	assert.ErrorContains(t, err, "no config.json")
}

// A checkpoint may store tensors in different dtypes (the safetensors library
// allows it); each keeps its own.
func TestLoadMixedDTypes(t *testing.T) {
	src, err := Load(buildTiny(t, nil))
	require.NoError(t, err)
	defer src.Close()
	dir := t.TempDir()
	dtypes := []DType{F32, F16, BF16}
	var sources []tensorSource
	i := 0
	for _, s := range src.Config.ExpectedTensors() {
		tensor := src.Tensors[s.Name]
		vals, next := tensor.Float32s(), 0
		sources = append(sources, tensorSource{Name: s.Name, DType: dtypes[i%3], Shape: s.Shape,
			Fill: func(dst []float32) { next += copy(dst, vals[next:]) }})
		i++
	}
	require.NoError(t, writeSafetensors(filepath.Join(dir, SafetensorsFile), sources, nil))
	cfg, err := os.ReadFile(filepath.Join(src.Dir, ConfigFile))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, ConfigFile), cfg, 0o644))

	m, err := Load(dir)
	require.NoError(t, err)
	defer m.Close()
	assert.Equal(t, F32, m.Config.DType, "the model's dtype is its embedding's")
	for i, s := range src.Config.ExpectedTensors() {
		assert.Equal(t, dtypes[i%3], m.Tensors[s.Name].DType, s.Name)
		assert.InDeltaSlice(t, src.Tensors[s.Name].Float32s(), m.Tensors[s.Name].Float32s(), 0.01, s.Name)
	}
}
