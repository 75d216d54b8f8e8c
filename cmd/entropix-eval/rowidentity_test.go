package main

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/entropix-eval/entropix-eval/eval"
	"github.com/entropix-eval/entropix-eval/internal/sharedtest"
	"github.com/entropix-eval/entropix-eval/reports"
)

// Rows of many runs concatenate with what tells them apart: results and
// summary name the sampler's canonical spec, the model and the date; traces
// the attention view of each row (Entropix's padded 4096-slot view, greedy's
// the sweep's masked one); samples.jsonl the run key.
func TestRunRowsCarryTheirRun(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, runQuiet(t, context.Background(), []string{
		"--model", sharedtest.Path(t, "models/stories260K-hf"), "--task", "gsm8k_cot_zeroshot",
		"--dataset", sharedtest.Path(t, "data/gsm8k/sample/test-50.jsonl"),
		"--sampler", "greedy", "--sampler", "entropix,clarifying_token_id=13", "--seeds", "0", "--limit", "2", "--max-new-tokens", "6",
		"--progress", "none", "--out", dir}))
	m, err := eval.ReadManifest(dir)
	require.NoError(t, err)
	date := m.Started.UTC().Format("2006-01-02")

	res, err := reports.ReadResults(filepath.Join(dir, eval.ResultsArrow))
	require.NoError(t, err)
	require.NotEmpty(t, res)
	for _, r := range res {
		assert.Equal(t, "stories260K-hf", r.Model)
		assert.Equal(t, date, r.Date)
		switch r.Sampler {
		case "greedy":
			assert.Contains(t, r.SamplerSpec, `"greedy":true`)
			assert.Contains(t, r.SamplerSpec, `"name":"greedy"`)
		case "entropix(clarifying_token_id=13)":
			assert.Contains(t, r.SamplerSpec, `"name":"entropix"`)
			assert.Contains(t, r.SamplerSpec, `"attn_mode":"padded"`)
		default:
			t.Fatalf("sampler %q", r.Sampler)
		}
		assert.True(t, strings.HasPrefix(r.SamplerSpec, "spec:{"), r.SamplerSpec)
	}
	sum, err := reports.ReadSummary(filepath.Join(dir, "summary.arrow"))
	require.NoError(t, err)
	require.NotEmpty(t, sum)
	for _, s := range sum {
		assert.Equal(t, "stories260K-hf", s.Model)
		assert.Equal(t, date, s.Date)
		for _, r := range res {
			if r.Sampler == s.Sampler {
				assert.Equal(t, r.SamplerSpec, s.SamplerSpec)
			}
		}
	}

	tr, err := reports.ReadTraces(filepath.Join(dir, eval.TracesArrow))
	require.NoError(t, err)
	views := map[string]string{}
	for _, r := range tr {
		views[r.Sampler+" "+r.AttnMode] = r.AttnMode
		switch r.Sampler {
		case "greedy":
			assert.Equal(t, "masked", r.AttnMode)
			assert.Zero(t, r.PadLen)
		case "entropix(clarifying_token_id=13)":
			assert.Equal(t, "padded", r.AttnMode)
			assert.Equal(t, int32(4096), r.PadLen)
		}
	}
	assert.Len(t, views, 2)

	f, err := os.Open(filepath.Join(dir, eval.SamplesFile))
	require.NoError(t, err)
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	lines := 0
	for sc.Scan() {
		var line struct {
			RunKey string `json:"run_key"`
		}
		require.NoError(t, json.Unmarshal(sc.Bytes(), &line))
		assert.Equal(t, m.RunKey, line.RunKey)
		lines++
	}
	require.NoError(t, sc.Err())
	assert.Equal(t, len(res), lines)
}
