package eval

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A grid is the hand-written list it stands for: the same specs, labels and
// order (fields alphabetical, the last fastest, values as written).
func TestSamplerGridEqualsHandWrittenList(t *testing.T) {
	grid, err := ParseConfig([]byte(`samplers:
  - greedy
  - {name: min_p, temperature: [0.7, 1, 1.5], min_p: [0.1, 0.05]}
  - {name: top_p, label: nucleus, temperature: [1.0, 2], top_p: 0.9}
`))
	require.NoError(t, err)
	byHand, err := ParseConfig([]byte(`samplers:
  - greedy
  - {name: min_p, min_p: 0.1, temperature: 0.7}
  - {name: min_p, min_p: 0.1, temperature: 1.0}
  - {name: min_p, min_p: 0.1, temperature: 1.5}
  - {name: min_p, min_p: 0.05, temperature: 0.7}
  - {name: min_p, min_p: 0.05, temperature: 1}
  - {name: min_p, min_p: 0.05, temperature: 1.5}
  - {name: top_p, label: nucleus(temperature=1), temperature: 1, top_p: 0.9}
  - {name: top_p, label: nucleus(temperature=2), temperature: 2, top_p: 0.9}
`))
	require.NoError(t, err)
	assert.Equal(t, byHand.Samplers, grid.Samplers)
	labels := make([]string, len(grid.Samplers))
	for i, s := range grid.Samplers {
		labels[i] = s.DisplayLabel()
	}
	assert.Equal(t, []string{"greedy",
		"min_p(min_p=0.1,temperature=0.7)", "min_p(min_p=0.1,temperature=1)", "min_p(min_p=0.1,temperature=1.5)",
		"min_p(min_p=0.05,temperature=0.7)", "min_p(min_p=0.05,temperature=1)", "min_p(min_p=0.05,temperature=1.5)",
		"nucleus(temperature=1)", "nucleus(temperature=2)"}, labels)
}

func TestSamplerGridErrors(t *testing.T) {
	for _, tc := range []struct{ name, yaml, want string }{
		{"empty list", "samplers:\n  - {name: min_p, temperature: []}\n", "samplers[0]: temperature: an empty list"},
		{"nested list", "samplers:\n  - greedy\n  - {name: min_p, temperature: [[1, 2]]}\n", "samplers[1]: temperature[0]: a grid's values are numbers"},
		{"too large", "samplers:\n  - {name: min_p, a: [1,2,3,4,5,6,7,8,9,10], b: [1,2,3,4,5,6,7,8,9,10], c: [1,2,3,4,5,6,7,8,9,10], d: [1,2,3,4,5,6,7,8,9,10], e: [1,2]}\n",
			"makes more than 10000 samplers"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseConfig([]byte(tc.yaml))
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

// Each model × task cell is the sweep one would write by hand for it.
func TestExpandMatrix(t *testing.T) {
	cfg, err := ParseConfig([]byte(`name: nightly
models: [/models/SmolLM2-135M-Instruct, HuggingFaceTB/SmolLM2-360M-Instruct]
tasks: [gsm8k_cot, tasks/my_task.yaml]
samplers: [greedy]
seeds: [0, 1]
out: runs/n
`))
	require.NoError(t, err)
	require.True(t, cfg.IsMatrix())
	cells, err := ExpandMatrix(cfg)
	require.NoError(t, err)
	var dirs []string
	for _, c := range cells {
		dirs = append(dirs, c.Dir)
		assert.Equal(t, c.Model, c.Config.Model)
		assert.Equal(t, c.Task, c.Config.Task)
		assert.Equal(t, filepath.Join("runs/n", filepath.FromSlash(c.Dir)), c.Config.Out)
		assert.False(t, c.Config.IsMatrix())
	}
	assert.Equal(t, []string{"SmolLM2-135M-Instruct/gsm8k_cot", "SmolLM2-135M-Instruct/my_task",
		"SmolLM2-360M-Instruct/gsm8k_cot", "SmolLM2-360M-Instruct/my_task"}, dirs)

	byHand, err := ParseConfig([]byte(`name: nightly
model: HuggingFaceTB/SmolLM2-360M-Instruct
task: tasks/my_task.yaml
samplers: [greedy]
seeds: [0, 1]
out: runs/n/SmolLM2-360M-Instruct/my_task
`))
	require.NoError(t, err)
	assert.Equal(t, byHand, cells[3].Config)

	one, err := ExpandMatrix(Config{Model: "m", Tasks: []string{"a"}, Out: "o"})
	require.NoError(t, err)
	assert.Equal(t, "m/a", one[0].Dir)
}

func TestExpandMatrixErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  Config
		want []string
	}{
		{"both model keys", Config{Model: "a", Models: []string{"b"}, Task: "t", Out: "o"}, []string{"models: and model: both given"}},
		{"both task keys", Config{Models: []string{"b"}, Task: "t", Tasks: []string{"u"}, Out: "o"}, []string{"tasks: and task: both given"}},
		{"no out", Config{Models: []string{"b"}, Task: "t"}, []string{"out: required"}},
		{"same directory", Config{Models: []string{"/a/ckpt", "/b/ckpt/"}, Task: "t", Out: "o"},
			[]string{`models[0] "/a/ckpt" and models[1] "/b/ckpt/" would both run into the directory ckpt`}},
		{"no tasks", Config{Models: []string{"m"}, Out: "o"}, []string{"tasks: required (or task)"}},
		{"unsafe task", Config{Models: []string{"m"}, Tasks: []string{".."}, Out: "o"}, []string{"tasks[0]", "names a folder itself"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ExpandMatrix(tc.cfg)
			require.Error(t, err)
			for _, w := range tc.want {
				assert.Contains(t, err.Error(), w)
			}
		})
	}
}

func TestSweepIndexRoundTrip(t *testing.T) {
	dir := t.TempDir()
	cells := []Cell{{Model: "/m/a", Task: "gsm8k", Dir: "a/gsm8k"}}
	require.NoError(t, WriteSweepIndex(dir, "n", cells))
	ix, err := ReadSweepIndex(dir)
	require.NoError(t, err)
	assert.Equal(t, SweepIndex{Name: "n", Cells: cells}, ix)

	require.NoError(t, os.WriteFile(filepath.Join(dir, SweepIndexFile), []byte(`{"cells":[{"dir":"../x/y"}]}`), 0o644))
	_, err = ReadSweepIndex(dir)
	require.ErrorContains(t, err, "cells[0]")
	_, err = ReadSweepIndex(t.TempDir())
	require.ErrorIs(t, err, os.ErrNotExist)
}

// configs/nightly-matrix.yaml, the example docs/sweeps.md shows, expands to
// its 2 × 2 cells of 15 samplers each.
func TestNightlyMatrixExample(t *testing.T) {
	cfg, err := LoadConfig(filepath.Join("..", "configs", "nightly-matrix.yaml"))
	require.NoError(t, err)
	cells, err := ExpandMatrix(cfg)
	require.NoError(t, err)
	require.Len(t, cells, 4)
	assert.Equal(t, "Llama-3.2-1B-Instruct/gsm8k_cot_zeroshot", cells[3].Dir)
	c := cells[0].Config.WithDefaults()
	require.NoError(t, c.Validate())
	require.Len(t, c.Samplers, 1+10+3+1)
	assert.Equal(t, "min_p(min_p=0.05,temperature=0.7)", c.Samplers[1].DisplayLabel())
	assert.Equal(t, "top_p(temperature=1.5)", c.Samplers[13].DisplayLabel())
}

// Any sweep file parses or fails without a panic, and a parsed one holds no
// list left in a sampler: every grid expanded, within the bound.
func FuzzParseConfigGrids(f *testing.F) {
	f.Add("samplers:\n  - {name: min_p, temperature: [0.7, 1.0], min_p: [0.05, 0.1]}\n")
	f.Add("samplers:\n  - greedy\n  - {name: top_p, label: t, top_p: [0.9], temperature: [[1]]}\n")
	f.Add("models: [a, b/c]\ntasks: [t]\nout: o\nsamplers: [{name: x, y: []}]\n")
	f.Fuzz(func(t *testing.T, doc string) {
		cfg, err := ParseConfig([]byte(doc))
		if err != nil {
			return
		}
		for i, s := range cfg.Samplers {
			for k, v := range s.Params {
				if _, isList := v.([]any); isList {
					t.Fatalf("samplers[%d].%s is still a list: %v", i, k, v)
				}
			}
		}
		if cfg.IsMatrix() {
			_, _ = ExpandMatrix(cfg)
		}
	})
}
