package runreport

import (
	"math"
	"path/filepath"
	"testing"

	"github.com/entropix-eval/entropix-eval/reports"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Hand-computed: greedy 5/10, x 8/10 on the same problems; x right where
// greedy is wrong on three problems and never the reverse.
func TestComputeHandCase(t *testing.T) {
	dir := writeRun(t, taskManifest("gsm8k", "x", "greedy"), concat(
		scored("greedy", 0, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0),
		scored("x", 0, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0),
	), nil)
	rep, err := Compute(dir, Options{})
	require.NoError(t, err)
	assert.Equal(t, "greedy", rep.Baseline, "greedy is the default baseline")
	require.Len(t, rep.Samplers, 2)
	assert.Equal(t, "x", rep.Samplers[0].Label, "manifest order")

	g := rep.Samplers[1].Filters[0]
	assert.Equal(t, reports.ScoreKey("exact_match,strict-match"), g.Filter)
	assert.InDelta(t, 0.5, g.Accuracy, 1e-12)
	assert.InDelta(t, math.Sqrt(0.25/9), g.SE, 1e-12, "lm-eval SE sqrt(p(1-p)/(n-1))")
	assert.InDelta(t, 0.2366, g.CILow, 1e-4, "Wilson 5/10")
	assert.InDelta(t, 0.7634, g.CIHigh, 1e-4)
	assert.True(t, math.IsNaN(g.SeedSD), "one seed: no SD")

	require.Len(t, rep.Comparisons, 3)
	strict, flexible := rep.Comparisons[0], rep.Comparisons[1]
	assert.Equal(t, "x", strict.SamplerA)
	assert.Equal(t, "greedy", strict.SamplerB)
	assert.InDelta(t, 0.3, strict.Difference, 1e-12)
	assert.Equal(t, int32(3), strict.McNemarB)
	assert.Equal(t, int32(0), strict.McNemarC)
	assert.Equal(t, reports.McNemarExact, strict.Method)
	assert.InDelta(t, 0.25, strict.PValue, 1e-12, "2·C(3,0)/2³")
	assert.InDelta(t, 1, flexible.PValue, 1e-12, "no discordant pairs")
	// Holm over [0.25, 1, 0.25]: 3·0.25, max(0.75, 2·0.25), max(0.75, 1·1).
	assert.InDelta(t, 0.75, strict.PHolm, 1e-12)
	assert.InDelta(t, 1, flexible.PHolm, 1e-12)
	assert.InDelta(t, 0.75, rep.Comparisons[2].PHolm, 1e-12)
	assert.LessOrEqual(t, strict.CILow, 0.3)
	assert.GreaterOrEqual(t, strict.CIHigh, 0.3)
	assert.GreaterOrEqual(t, strict.CILow, 0.0, "a difference that is never negative has a non-negative interval")
}

// Hand-computed: two seeds of one sampler over four problems.
func TestComputePoolsSeeds(t *testing.T) {
	dir := writeRun(t, nil, concat(
		scored("s", 1, 1, 1, 0, 0),
		scored("s", 2, 1, 0, 0, 0),
		scored("greedy", 1, 1, 1, 1, 0),
		scored("greedy", 2, 1, 1, 1, 0),
	), nil)
	rep, err := Compute(dir, Options{})
	require.NoError(t, err)
	require.Len(t, rep.Samplers, 2)
	s := rep.Samplers[1]
	require.Equal(t, "s", s.Label, "without a manifest, samplers are sorted")
	assert.Equal(t, []int64{1, 2}, s.Seeds)
	f := s.Filters[0]
	// Problem scores [1, .5, 0, 0]: mean .375, sample variance .6875/3.
	assert.Equal(t, 4, f.N)
	assert.InDelta(t, 0.375, f.Accuracy, 1e-12)
	assert.InDelta(t, math.Sqrt(0.6875/3/4), f.SE, 1e-12)
	assert.InDelta(t, 0.375, f.SeedMean, 1e-12, "mean of 0.5 and 0.25")
	assert.InDelta(t, math.Sqrt(2*0.125*0.125), f.SeedSD, 1e-12)

	// summary.arrow: sampler × seed × filter.
	assert.Len(t, rep.Summary, 2*2*3)
	require.NoError(t, Write(dir, rep))
	back, err := reports.ReadSummary(filepath.Join(dir, SummaryFile))
	require.NoError(t, err)
	assert.Equal(t, len(rep.Summary), len(back))
	assert.Equal(t, rep.Summary[0].Accuracy, back[0].Accuracy)
	cmp, err := reports.ReadComparisons(filepath.Join(dir, ComparisonsFile))
	require.NoError(t, err)
	require.Len(t, cmp, 3)
	// McNemar pairs seed i of s with seed i of greedy: seed 1 differs on
	// problem 2, seed 2 on problems 1 and 2: c = 3, b = 0.
	assert.Equal(t, int32(0), cmp[0].McNemarB)
	assert.Equal(t, int32(3), cmp[0].McNemarC)
	assert.InDelta(t, 0.375-0.75, cmp[0].Difference, 1e-12)
}

func TestChooseBaseline(t *testing.T) {
	rows := concat(scored("a", 0, 1, 0), scored("b", 0, 0, 1))
	for _, tc := range []struct {
		name, want, got, err string
	}{
		{"first sampler without greedy", "", "a", ""},
		{"explicit", "b", "b", ""},
		{"unknown", "greedy", "", `baseline "greedy" is not a sampler`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := writeRun(t, nil, rows, nil)
			rep, err := Compute(dir, Options{Baseline: tc.want})
			if tc.err != "" {
				require.ErrorContains(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.got, rep.Baseline)
		})
	}
}

func TestComputeBadInput(t *testing.T) {
	for _, tc := range []struct {
		name  string
		setup func(t *testing.T) string
		err   string
	}{
		{"no results", func(t *testing.T) string { return t.TempDir() }, "results"},
		{"bad manifest", func(t *testing.T) string {
			dir := writeRun(t, nil, scored("a", 0, 1), nil)
			require.NoError(t, writeFile(filepath.Join(dir, ManifestFile), "{not json"))
			return dir
		}, "manifest.json"},
		{"bad problems", func(t *testing.T) string {
			dir := writeRun(t, nil, scored("a", 0, 1), nil)
			require.NoError(t, writeFile(filepath.Join(dir, ProblemsFile), `{"index": 0}`+"\n[\n"))
			return dir
		}, "problems.jsonl line 2"},
		{"corrupt traces", func(t *testing.T) string {
			dir := writeRun(t, nil, scored("a", 0, 1), nil)
			require.NoError(t, writeFile(filepath.Join(dir, TracesFile), "ARROW1 but not really"))
			return dir
		}, "traces"},
		{"duplicate response", func(t *testing.T) string {
			return writeRun(t, nil, concat(scored("a", 0, 1), scored("a", 0, 1)), nil)
		}, "appears twice"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Compute(tc.setup(t), Options{})
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.err)
		})
	}
}

func TestComputeWithoutTraces(t *testing.T) {
	dir := writeRun(t, nil, concat(scored("a", 0, 1, 0), scored("b", 0, 1, 1)), nil)
	rep, err := Compute(dir, Options{})
	require.NoError(t, err)
	assert.False(t, rep.HasTraces)
	assert.Empty(t, rep.Density)
	assert.Contains(t, rep.TokenNote, "no traces.arrow")
	assert.Len(t, rep.Problems, 2)
	require.NoError(t, Write(dir, rep))
	assert.FileExists(t, filepath.Join(dir, HTMLFile))
}

func TestComputeSkipsSamplerWithoutCommonProblems(t *testing.T) {
	other := scored("late", 0, 1, 1)
	for i := range other {
		other[i].ProblemID += 100
	}
	dir := writeRun(t, nil, concat(scored("greedy", 0, 1, 0), scored("x", 0, 0, 1), other), nil)
	rep, err := Compute(dir, Options{})
	require.NoError(t, err)
	assert.Len(t, rep.Comparisons, 3, "x only")
	assert.Contains(t, rep.Notes, "late answered none of the problems greedy answered: not compared.")
}

func TestBuildSingleSampler(t *testing.T) {
	dir := writeRun(t, nil, scored("greedy", 0, 1, 0, 1), nil)
	rep, err := Build(dir, Options{})
	require.NoError(t, err)
	assert.Empty(t, rep.Comparisons)
	cmp, err := reports.ReadComparisons(filepath.Join(dir, ComparisonsFile))
	require.NoError(t, err)
	assert.Empty(t, cmp, "an empty comparisons.arrow, not a missing one")
	assert.FileExists(t, filepath.Join(dir, TablesDir, "paired.tex"))
}

func TestManifestView(t *testing.T) {
	m := taskManifest("gsm8k", "greedy")
	m["config"] = map[string]any{"model": "models/llama", "seeds": []uint64{18446744073709551615, 1}, "max_new_tokens": 256}
	m["stats"] = map[string]any{"wall_seconds": 10.0, "generated_tokens": 2500}
	dir := writeRun(t, m, scored("greedy", 0, 1, 0), nil)
	rep, err := Compute(dir, Options{})
	require.NoError(t, err)
	kv := map[string]string{}
	for _, h := range rep.Manifest.Highlights {
		kv[h.Key] = h.Value
	}
	assert.Equal(t, "18446744073709551615, 1", kv["seeds"], "uint64 seeds")
	assert.Equal(t, "256", kv["max new tokens"])
	assert.Equal(t, "gsm8k", kv["task"])
	assert.Contains(t, kv["throughput"], "250.0 generated tokens/s")
	assert.Contains(t, rep.Manifest.Pretty, `"model": "models/llama"`)
}
