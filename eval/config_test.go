package eval

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/entropix-eval/entropix-eval/sampler"
)

const validSweep = `
name: smoke
model: /models/smollm2
task: gsm8k_cot
dataset: data/test-*.parquet
samplers:
  - greedy
  - {name: min_p, temperature: 1.0, min_p: 0.1}
  - {name: entropix, label: ent-frog, preset: frog}
seeds: [0, 1]
out: runs/smoke
`

func TestParseConfig(t *testing.T) {
	cfg, err := ParseConfig([]byte(validSweep))
	require.NoError(t, err)
	cfg = cfg.WithDefaults()
	require.NoError(t, cfg.Validate())
	assert.Equal(t, []string{"cpu"}, cfg.Devices)
	assert.Equal(t, DefaultBatchSize, cfg.BatchSize)
	assert.Equal(t, 1, cfg.Repeats)
	require.Len(t, cfg.Samplers, 3)
	assert.Equal(t, "greedy", cfg.Samplers[0].DisplayLabel())
	assert.Equal(t, "min_p(min_p=0.1,temperature=1)", cfg.Samplers[1].DisplayLabel())
	assert.Equal(t, "ent-frog", cfg.Samplers[2].DisplayLabel())
	assert.Equal(t, map[string]any{"preset": "frog"}, cfg.Samplers[2].Params)

	// A spec survives the manifest's JSON round trip unchanged.
	b, err := json.Marshal(cfg.Samplers)
	require.NoError(t, err)
	var back []sampler.Spec
	require.NoError(t, json.Unmarshal(b, &back))
	assert.Equal(t, cfg.Samplers, back)
}

func TestConfigErrors(t *testing.T) {
	for _, tc := range []struct {
		name, yaml string
		want       []string
	}{
		{"unknown key", "model: m\nbatchsize: 4\n", []string{"line 2: unknown key batchsize (did you mean batch_size?)"}},
		{"empty", "", []string{"empty document"}},
		{"wrong type", "model: m\nbatch_size: many\n", []string{"line 2", "many"}},
		{"sampler without name", "samplers:\n  - {temperature: 1}\n", []string{"sampler has no name"}},
		{"missing fields", "backend: cpu\n", []string{"model: required", "task: required", "out: required", "samplers: at least one"}},
		{"old fewshot key", "model: m\ntask: gsm8k_cot\nout: o\nsamplers: [{name: greedy}]\nfewshot: /data/fewshot\n", []string{"fewshot: no longer used"}},
		{"bad values", `model: m
task: t
dataset: d
out: o
backend: tpu
devices: [cuda:0]
batch_size: -1
max_seq_len: 100
max_new_tokens: 200
attn_mode: fuzzy
repeats: -2
prefix_cache_mb: -5
seeds: [3, 3]
shard: 4/4
samplers: [greedy, greedy]
`, []string{`backend: "tpu"`, "devices[0]", "batch_size: -1", "max_new_tokens: 200 leaves no room", `attn_mode: "fuzzy"`,
			"repeats: -2", "prefix_cache_mb: -5 is negative", "seeds[1]: seed 3 is listed twice", `shard: shard "4/4"`, `samplers[1]: same label "greedy"`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg, err := ParseConfig([]byte(tc.yaml))
			if err == nil {
				err = cfg.WithDefaults().Validate()
			}
			require.Error(t, err)
			for _, w := range tc.want {
				assert.ErrorContains(t, err, w)
			}
		})
	}
}

func TestParseSamplerList(t *testing.T) {
	specs, err := sampler.ParseSpecs("greedy, min_p,entropix")
	require.NoError(t, err)
	assert.Equal(t, []sampler.Spec{{Name: "greedy"}, {Name: "min_p"}, {Name: "entropix"}}, specs)
	specs, err = sampler.ParseSpecs("greedy,min_p,min_p=0.05,temperature=1.5,entropix:frog,label=frog")
	require.NoError(t, err)
	assert.Equal(t, []sampler.Spec{
		{Name: "greedy"},
		{Name: "min_p", Params: map[string]any{"min_p": 0.05, "temperature": 1.5}},
		{Name: "entropix:frog", Label: "frog"},
	}, specs)
	for in, want := range map[string]string{
		"greedy,,min_p":         "empty entry",
		"temperature=1":         "before any sampler name",
		"min_p,min_p=1,min_p=2": "given twice",
	} {
		_, err = sampler.ParseSpecs(in)
		assert.ErrorContains(t, err, want, in)
	}
}

func TestStopMatcher(t *testing.T) {
	m := newStopMatcher([]string{"Q:", "</s>", "\n\n"})
	for _, tc := range []struct {
		text    string
		prevLen int
		want    int
	}{
		{"hello", 0, -1},
		{"hello Q:", 6, 6},  // the stop straddles the new piece
		{"hello Q:", 7, 6},  // the new piece is only ":"
		{"a\n\nb Q:", 0, 1}, // the earliest stop wins
		{"x</s", 0, -1},     // incomplete stop
		{"x</s>Q:", 4, 1},   // completed by the last byte
		{"Q: old", 5, -1},   // text before prevLen-longest+1 was already checked
	} {
		assert.Equal(t, tc.want, m.find(tc.text, tc.prevLen), "%q from %d", tc.text, tc.prevLen)
	}
	assert.Equal(t, -1, newStopMatcher(nil).find("Q:", 0))
}
