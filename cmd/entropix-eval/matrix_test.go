package main

import (
	"context"
	"encoding/json"
	"fmt"
	goio "io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/entropix-eval/entropix-eval/eval"
	"github.com/entropix-eval/entropix-eval/internal/sharedtest"
)

// matrixSweep writes a sweep over two models and two tasks with a min_p
// temperature grid. The second model is stories260K with its final norm
// scaled by 1.5: other weights, other answers, at the cost of the smallest
// real model.
func matrixSweep(t *testing.T, dir string) (path string, models []string) {
	t.Helper()
	sharp := filepath.Join(dir, "models", "stories260K-sharp")
	copyModelTo(t, "stories260K-hf", sharp)
	rewriteTensor(t, sharp, "model.norm.weight", func(x float32) float32 { return 1.5 * x })
	models = []string{sharedtest.Path(t, "models/stories260K-hf"), sharp}
	path = filepath.Join(dir, "matrix.yaml")
	yaml := fmt.Sprintf(`name: matrix
models: [%s, %s]
tasks: [gsm8k_cot_zeroshot, gsm8k_cot]
dataset: %s
max_seq_len: 512
limit: 3
max_new_tokens: 8
samplers:
  - greedy
  - {name: min_p, temperature: [0.7, 1.5], min_p: 0.1}
seeds: [0, 1]
out: %s
`, models[0], models[1], sharedtest.Path(t, "data/gsm8k/sample/test-50.jsonl"), filepath.Join(dir, "matrix"))
	require.NoError(t, os.WriteFile(path, []byte(yaml), 0o644))
	return path, models
}

// handSweep is the sweep of one model and task written out by hand.
func handSweep(t *testing.T, dir, model, task, out string) string {
	t.Helper()
	path := filepath.Join(dir, filepath.Base(model)+"-"+task+".yaml")
	yaml := fmt.Sprintf(`name: matrix
model: %s
task: %s
dataset: %s
max_seq_len: 512
limit: 3
max_new_tokens: 8
samplers:
  - greedy
  - {name: min_p, temperature: 0.7, min_p: 0.1}
  - {name: min_p, temperature: 1.5, min_p: 0.1}
seeds: [0, 1]
out: %s
`, model, task, sharedtest.Path(t, "data/gsm8k/sample/test-50.jsonl"), out)
	require.NoError(t, os.WriteFile(path, []byte(yaml), 0o644))
	return path
}

// assertSameSweepRun checks two run directories hold the same run: equal
// fingerprints and configs, and runOutputs' files equal.
func assertSameSweepRun(t *testing.T, want, got string) {
	t.Helper()
	mw, err := eval.ReadManifest(want)
	require.NoError(t, err)
	mg, err := eval.ReadManifest(got)
	require.NoError(t, err)
	assert.Equal(t, mw.Fingerprint, mg.Fingerprint, got)
	mw.Config.Out, mg.Config.Out, mw.Config.Shard, mg.Config.Shard = "", "", "", ""
	assert.Equal(t, mw.Config, mg.Config, got)
	assert.Equal(t, runOutputs(t, want), runOutputs(t, got), got)
}

// A matrix sweep runs exactly the runs its hand-written sweeps would, one
// directory per model × task; sharded and merged it is the same again.
func TestMatrixEqualsHandWrittenSweeps(t *testing.T) {
	dir := t.TempDir()
	sweep, models := matrixSweep(t, dir)
	ctx := context.Background()
	require.NoError(t, runQuiet(t, ctx, []string{sweep, "--progress", "none"}))
	matrix := filepath.Join(dir, "matrix")
	ix, err := eval.ReadSweepIndex(matrix)
	require.NoError(t, err)
	require.Len(t, ix.Cells, 4)

	tasks := []string{"gsm8k_cot_zeroshot", "gsm8k_cot"}
	for _, m := range models {
		for _, task := range tasks {
			t.Run(filepath.Base(m)+"/"+task, func(t *testing.T) {
				want := filepath.Join(dir, "hand", filepath.Base(m), task)
				require.NoError(t, runQuiet(t, ctx, []string{handSweep(t, dir, m, task, want), "--progress", "none"}))
				assertSameSweepRun(t, want, filepath.Join(matrix, filepath.Base(m), task))
			})
		}
	}

	t.Run("sharded_then_merged", func(t *testing.T) {
		sharded := filepath.Join(dir, "sharded")
		for i := range 2 {
			require.NoError(t, runQuiet(t, ctx, []string{sweep, "--progress", "none",
				"--shard", fmt.Sprintf("%d/2", i), "--out", filepath.Join(sharded, fmt.Sprintf("shard-%d", i))}))
		}
		merged := filepath.Join(sharded, "merged")
		require.NoError(t, runMerge(ctx, []string{"--out", merged, filepath.Join(sharded, "shard-0"), filepath.Join(sharded, "shard-1")}, goio.Discard, goio.Discard))
		for _, c := range ix.Cells {
			assertSameSweepRun(t, filepath.Join(matrix, c.Dir), filepath.Join(merged, c.Dir))
		}
		assert.FileExists(t, filepath.Join(merged, "tables", "sweep-gsm8k_cot.md"))
	})

	t.Run("resume_reads_finished_cells", func(t *testing.T) {
		before := runOutputs(t, filepath.Join(matrix, ix.Cells[0].Dir))
		require.NoError(t, runQuiet(t, ctx, []string{sweep, "--progress", "none"}))
		assert.Equal(t, before, runOutputs(t, filepath.Join(matrix, ix.Cells[0].Dir)))
	})

	t.Run("sweep_tables", func(t *testing.T) {
		// Each cell of the model × sampler table is the run's accuracy: with
		// every problem sampled once per seed, the mean of its per-seed
		// exact_match in results.json (lm-eval's layout, written apart).
		md, err := os.ReadFile(filepath.Join(matrix, "tables", "sweep-gsm8k_cot.md"))
		require.NoError(t, err)
		for j, m := range models {
			res := readResultsJSON(t, filepath.Join(matrix, filepath.Base(m), "gsm8k_cot"))
			for _, label := range []string{"greedy", "min_p(min_p=0.1,temperature=0.7)", "min_p(min_p=0.1,temperature=1.5)"} {
				mean := (res["gsm8k_cot|"+label+"/seed=0"] + res["gsm8k_cot|"+label+"/seed=1"]) / 2
				row := tableRow(t, string(md), label)
				assert.Equal(t, fmt.Sprintf("%.1f", 100*mean), strings.Fields(row[j+1])[0], "%s %s", m, label)
			}
		}
		tex, err := os.ReadFile(filepath.Join(matrix, "tables", "sweep-gsm8k_cot_zeroshot.tex"))
		require.NoError(t, err)
		assert.Contains(t, string(tex), `\label{tab:entropix-sweep-gsm8k_cot_zeroshot}`)
		for _, m := range models {
			for _, task := range tasks {
				assert.FileExists(t, filepath.Join(matrix, "figures", "sweep-"+filepath.Base(m)+"-"+task+".svg"))
				assert.FileExists(t, filepath.Join(matrix, "figures", "sweep-"+filepath.Base(m)+"-"+task+".pdf"))
			}
		}
	})
}

// readResultsJSON returns results.json's first score (exact_match under the
// task's first filter) per "task|sampler/seed=N".
func readResultsJSON(t *testing.T, dir string) map[string]float64 {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, eval.ResultsJSONFile))
	require.NoError(t, err)
	var doc struct {
		Results map[string]map[string]any `json:"results"`
	}
	require.NoError(t, json.Unmarshal(b, &doc))
	out := map[string]float64{}
	for key, r := range doc.Results {
		keys, _ := r["score_keys"].([]any)
		require.NotEmpty(t, keys, key)
		out[key] = r[keys[0].(string)].(float64)
	}
	return out
}

var mdCell = regexp.MustCompile(`\s*\|\s*`)

// tableRow returns the cells of the Markdown table row whose first cell is label.
func tableRow(t *testing.T, md, label string) []string {
	t.Helper()
	for _, line := range strings.Split(md, "\n") {
		cells := mdCell.Split(strings.Trim(line, "| "), -1)
		if len(cells) > 1 && cells[0] == label {
			return cells
		}
	}
	t.Fatalf("no row %q in\n%s", label, md)
	return nil
}
