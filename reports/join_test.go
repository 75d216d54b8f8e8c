package reports

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/entropix-eval/entropix-eval/sampler"
)

// joinRun is one run's files: the same sweep twice gives two runs with the
// same samplers, seeds, problems and repeats, told apart only by run_key.
func joinRun(t *testing.T, dir, runKey string, genTokens map[int32]int) {
	t.Helper()
	var results []ResultRow
	var traces []TraceRow
	for p := int32(0); p < 2; p++ {
		n := genTokens[p]
		results = append(results, ResultRow{RunKey: runKey, RunID: "greedy/seed=7", Task: "gsm8k", Sampler: "greedy", Seed: 7,
			ProblemID: p, Target: "1", Response: fmt.Sprint(n), GenTokens: int32(n), FinishReason: FinishStop,
			Scores: []Score{{Metric: "exact_match", Filter: "strict-match", Value: float64(p)}}})
		for step := 0; step < n; step++ {
			traces = append(traces, TraceRow{RunKey: runKey, RunID: "greedy/seed=7", Task: "gsm8k", Sampler: "greedy", Seed: 7,
				ProblemID: p, Step: int32(step), TokenRecord: TokenRecord{Decision: sampler.Decision{Strategy: "greedy"}}})
		}
	}
	require.NoError(t, WriteResults(filepath.Join(dir, "results.arrow"), results, WithProvenance(Provenance{RunKey: runKey})))
	require.NoError(t, WriteTraces(filepath.Join(dir, "traces.arrow"), traces, WithProvenance(Provenance{RunKey: runKey})))
}

// A notebook concatenates the traces of two runs of one sweep and joins them
// to the results on (run_key, sampler, seed, problem_id, repeat): every token
// finds exactly its own response. Without run_key the same join is ambiguous.
func TestTracesJoinResultsAcrossRuns(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	// Run A: problem 0 has 2 tokens, problem 1 has 3; run B: 1 and 4.
	joinRun(t, a, "fp@2026-11-22T06:00:00Z", map[int32]int{0: 2, 1: 3})
	joinRun(t, b, "fp@2026-11-23T06:00:00Z", map[int32]int{0: 1, 1: 4})

	var traces []TraceRow
	var results []ResultRow
	for _, dir := range []string{a, b} {
		tr, err := ReadTraces(filepath.Join(dir, "traces.arrow"))
		require.NoError(t, err)
		traces = append(traces, tr...)
		rs, err := ReadResults(filepath.Join(dir, "results.arrow"))
		require.NoError(t, err)
		results = append(results, rs...)
		prov, err := ReadProvenance(filepath.Join(dir, "results.arrow"))
		require.NoError(t, err)
		assert.Equal(t, rs[0].RunKey, prov.RunKey, "the column and the metadata agree")
	}
	require.Len(t, traces, 2+3+1+4)

	type key struct {
		runKey, sampler string
		seed            int64
		problem, repeat int32
	}
	type loose struct {
		sampler         string
		seed            int64
		problem, repeat int32
	}
	byKey := map[key]int{}
	byLoose := map[loose]int{}
	for i, r := range results {
		byKey[key{r.RunKey, r.Sampler, r.Seed, r.ProblemID, r.Repeat}] = i
		byLoose[loose{r.Sampler, r.Seed, r.ProblemID, r.Repeat}]++
	}
	require.Len(t, byKey, 4, "run_key tells the two runs' results apart")
	tokens := map[int]int{}
	for _, tr := range traces {
		i, ok := byKey[key{tr.RunKey, tr.Sampler, tr.Seed, tr.ProblemID, tr.Repeat}]
		require.True(t, ok, "trace row %+v has no result row", tr)
		tokens[i]++
		assert.Equal(t, 2, byLoose[loose{tr.Sampler, tr.Seed, tr.ProblemID, tr.Repeat}], "without run_key two responses match")
	}
	// Each response got exactly its own tokens: A 2, 3; B 1, 4.
	assert.Equal(t, map[int]int{0: 2, 1: 3, 2: 1, 3: 4}, tokens)
	for i, r := range results {
		assert.EqualValues(t, r.GenTokens, tokens[i])
	}
}
