package main

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/entropix-eval/entropix-eval/eval"
	"github.com/entropix-eval/entropix-eval/sampler"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const argsSweep = `
model: /models/m
task: gsm8k_cot
dataset: data/*.parquet
batch_size: 4
samplers: [greedy, {name: min_p, min_p: 0.1}]
seeds: [0, 1]
out: runs/a
`

func TestParseRunArgs(t *testing.T) {
	file := filepath.Join(t.TempDir(), "sweep.yaml")
	require.NoError(t, os.WriteFile(file, []byte(argsSweep), 0o644))
	for _, tc := range []struct {
		name  string
		args  []string
		check func(t *testing.T, c eval.Config)
	}{
		{"file only", []string{file}, func(t *testing.T, c eval.Config) {
			assert.Equal(t, 4, c.BatchSize)
			assert.Equal(t, []uint64{0, 1}, c.Seeds)
			assert.Len(t, c.Samplers, 2)
		}},
		{"flags override the file", []string{file, "--batch-size", "16", "--seeds", "7", "--out", "runs/b"}, func(t *testing.T, c eval.Config) {
			assert.Equal(t, 16, c.BatchSize)
			assert.Equal(t, []uint64{7}, c.Seeds)
			assert.Equal(t, "runs/b", c.Out)
			assert.Equal(t, "gsm8k_cot", c.Task, "fields without a flag keep the file's value")
		}},
		{"file after the flags", []string{"--limit", "40", file}, func(t *testing.T, c eval.Config) {
			assert.Equal(t, 40, c.Limit)
			assert.Equal(t, 4, c.BatchSize)
		}},
		{"no file", []string{"--model", "m", "--task", "gsm8k_cot", "--dataset", "d.jsonl", "--samplers", "greedy,min_p,entropix", "--seeds", "0", "--limit", "40", "--out", "o", "--devices", "cpu,cpu"},
			func(t *testing.T, c eval.Config) {
				assert.Equal(t, []sampler.Spec{{Name: "greedy"}, {Name: "min_p"}, {Name: "entropix"}}, c.Samplers)
				assert.Equal(t, []string{"cpu", "cpu"}, c.Devices)
				assert.Equal(t, eval.DefaultBatchSize, c.BatchSize)
				assert.False(t, c.NoPrefixCache)
			}},
		{"prefix cache flags", []string{file, "--no-prefix-cache", "--prefix-cache-mb", "64"}, func(t *testing.T, c eval.Config) {
			assert.True(t, c.NoPrefixCache)
			assert.Equal(t, 64, c.PrefixCacheMB)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg, _, err := parseRunArgs(tc.args, io.Discard)
			require.NoError(t, err)
			tc.check(t, cfg)
		})
	}
}

func TestParseRunArgsErrors(t *testing.T) {
	file := filepath.Join(t.TempDir(), "sweep.yaml")
	require.NoError(t, os.WriteFile(file, []byte(argsSweep+"bogus: 1\n"), 0o644))
	for _, tc := range []struct {
		name  string
		args  []string
		want  string
		usage bool
	}{
		{"unknown key in file", []string{file}, "line 9: unknown key bogus", true},
		{"missing file", []string{"/nonexistent.yaml"}, "read sweep config", true},
		{"missing fields", []string{"--model", "m"}, "task: required", true},
		{"bad seeds", []string{"--seeds", "x"}, `seed "x"`, true},
		{"bad shard", []string{"--model", "m", "--task", "t", "--dataset", "d", "--samplers", "greedy", "--out", "o", "--shard", "2/2"}, "shard", true},
		{"two files", []string{"a.yaml", "b.yaml"}, "unexpected arguments", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := parseRunArgs(tc.args, io.Discard)
			require.ErrorContains(t, err, tc.want)
			assert.Equal(t, tc.usage, errors.Is(err, errUsage))
		})
	}
}

// TestShippedConfigsAreValid keeps configs/*.yaml loadable: strict YAML, valid
// fields, and sampler specs package sampler accepts.
func TestShippedConfigsAreValid(t *testing.T) {
	files, err := filepath.Glob("../../configs/*.yaml")
	require.NoError(t, err)
	var sweeps int
	for _, f := range files {
		if k8s, _ := filepath.Match("k8s-*.yaml", filepath.Base(f)); k8s {
			continue // a Kubernetes manifest, not a sweep (TestKubernetesJobs)
		}
		sweeps++
		t.Run(filepath.Base(f), func(t *testing.T) {
			cfg, err := eval.LoadConfig(f)
			require.NoError(t, err)
			cells := []eval.Cell{{Config: cfg}}
			if cfg.IsMatrix() {
				cells, err = eval.ExpandMatrix(cfg)
				require.NoError(t, err)
			}
			for _, c := range cells {
				require.NoError(t, c.Config.WithDefaults().Validate(), c.Dir)
			}
			resolve := eval.NewSamplerResolver(func(string) (int32, bool) { return 1, true }, nil)
			for i, s := range cfg.Samplers {
				_, err := resolve(s)
				assert.NoError(t, err, "samplers[%d]", i)
			}
		})
	}
	assert.GreaterOrEqual(t, sweeps, 3)
}
