package runreport

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/entropix-eval/entropix-eval/reports"
	"github.com/stretchr/testify/require"
)

// writeRun writes a run directory from explicit rows; traces may be nil (no
// traces.arrow) and manifest nil (no manifest.json).
func writeRun(t testing.TB, manifest map[string]any, results []reports.ResultRow, traces []reports.TraceRow) string {
	t.Helper()
	dir := t.TempDir()
	if manifest != nil {
		b, err := json.Marshal(manifest)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(dir, ManifestFile), b, 0o644))
	}
	require.NoError(t, reports.WriteResults(filepath.Join(dir, ResultsFile), results))
	if traces != nil {
		require.NoError(t, reports.WriteTraces(filepath.Join(dir, TracesFile), traces))
	}
	return dir
}

// scored makes one sampler × seed's result rows from strict outcomes; flexible
// is always right and numeric equals strict.
func scored(sampler string, seed int64, strict ...int) []reports.ResultRow {
	rows := make([]reports.ResultRow, len(strict))
	for i, s := range strict {
		rows[i] = reports.ResultRow{
			RunID: sampler + "/seed=" + itoa(seed), Sampler: sampler, Seed: seed, ProblemID: int32(i),
			PromptHash: "h" + itoa(int64(i)), Target: "7", Response: "The answer is 7.",
			Task:    "gsm8k_cot",
			Answers: []reports.Answer{{Filter: "strict-match", Answer: "7"}, {Filter: "flexible-extract", Answer: "7"}},
			Scores: []reports.Score{{Metric: "exact_match", Filter: "strict-match", Value: float64(s)},
				{Metric: "exact_match", Filter: "flexible-extract", Value: 1}, {Metric: "numeric_match", Filter: "strict-match", Value: float64(s)}},
			PromptTokens: 10, GenTokens: 4, FinishReason: reports.FinishStop, LatencyMS: 100,
		}
	}
	return rows
}

func itoa(i int64) string { b, _ := json.Marshal(i); return string(b) }

func concat(parts ...[]reports.ResultRow) []reports.ResultRow {
	var out []reports.ResultRow
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

func taskManifest(task string, samplers ...string) map[string]any {
	var ss []map[string]any
	for _, s := range samplers {
		ss = append(ss, map[string]any{"label": s, "spec": map[string]any{"name": s}, "description": map[string]any{"name": s}})
	}
	return map[string]any{"status": "complete", "task": map[string]any{"name": task}, "samplers": ss}
}

func writeFile(path, s string) error { return os.WriteFile(path, []byte(s), 0o644) }

func reportsBootstrap(n int) reports.BootstrapOptions { return reports.BootstrapOptions{Resamples: n} }
