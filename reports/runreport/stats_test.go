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
	assert.Equal(t, "exact_match,strict-match", g.Filter)
	assert.Equal(t, "exact_match,strict-match", rep.PrimaryFilter, "the task's first filter")
	assert.InDelta(t, 0.5, g.Mean, 1e-12)
	assert.InDelta(t, math.Sqrt(0.25/9), g.SE, 1e-12, "lm-eval SE sqrt(p(1-p)/(n-1))")
	// Wilson's interval for 5 of 10 (scipy binomtest(5, 10).proportion_ci):
	// [0.236593, 0.763407].
	assert.InDelta(t, 0.236593, g.CILow, 1e-6)
	assert.InDelta(t, 0.763407, g.CIHigh, 1e-6)
	assert.True(t, math.IsNaN(g.SeedSD), "one seed: no SD")
	assert.True(t, math.IsNaN(g.WithinSD), "one sample per problem: no within-problem spread")

	require.Len(t, rep.Comparisons, 3)
	strict, flexible := rep.Comparisons[0], rep.Comparisons[1]
	assert.Equal(t, "x", strict.Sampler)
	assert.Equal(t, "greedy", strict.Baseline)
	assert.InDelta(t, 0.3, strict.Delta, 1e-12)
	assert.Equal(t, reports.Some[int32](3), strict.McNemarB)
	assert.Equal(t, reports.Some[int32](0), strict.McNemarC)
	// Three differences of +1: sign flip p = 2/2³ = 0.25, McNemar's exact p too.
	assert.InDelta(t, 0.25, strict.P, 1e-12)
	assert.InDelta(t, 0.25, strict.McNemarP.V, 1e-12)
	assert.InDelta(t, 1, flexible.P, 1e-12, "no differences")
	// Holm over the samplers on the primary filter: one test, unchanged.
	assert.InDelta(t, 0.25, strict.PHolm.V, 1e-12)
	assert.False(t, flexible.PHolm.Valid)
	assert.False(t, rep.Comparisons[2].PHolm.Valid)
	// SE of d (seven 0s, three 1s): √(0.3·0.7·10/9/10) = 0.152753; normal
	// CI 0.3 ± 0.299390. The headline interval inverts the sign-flip test:
	// enumerating the 1024 sign patterns of d − δ gives [0, 2/3], holding 0
	// as p = 0.25 says it must. The sensitivity, one test in the family, is
	// at α = 0.05: (t₉(0.975) + t₉(0.8))·SE = (2.262157 + 0.883404)·0.152753
	// = 0.480492 (SE = 0.1527525 unrounded).
	assert.InDelta(t, 0.152753, strict.DeltaSE, 1e-6)
	assert.InDelta(t, 0.000610, strict.NormalCILow, 1e-6)
	assert.Equal(t, 0.0, strict.CILow)
	assert.InDelta(t, 2.0/3, strict.CIHigh, 1e-9)
	assert.InDelta(t, 0.480492, strict.MDE80, 1e-6)
	assert.Equal(t, "task:gsm8k", strict.HolmFamily)
	assert.GreaterOrEqual(t, strict.BootCILow, 0.0, "a difference that is never negative has a non-negative interval")
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
	assert.InDelta(t, 0.375, f.Mean, 1e-12)
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
	// Problem means: s 1, .5, 0, 0; greedy 1, 1, 1, 0 (identical seeds).
	// d = 0, −.5, −1, 0: Δ = −0.375. In halves the non-zero d are −1, −2, sum
	// −3; of ±1 ± 2 (3, 1, −1, −3) two reach |3|: p = 0.5. Two samples a side:
	// no McNemar.
	assert.InDelta(t, -0.375, cmp[0].Delta, 1e-12)
	assert.InDelta(t, 0.5, cmp[0].P, 1e-12)
	assert.Equal(t, int32(2), cmp[0].SamplesPerProblem)
	assert.False(t, cmp[0].McNemarP.Valid)
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
	assert.Contains(t, kv["throughput"], "250.0 generated tokens/s, wall clock")
	assert.InDelta(t, 250, rep.Throughput, 1e-12)
	assert.Contains(t, rep.Manifest.Pretty, `"model": "models/llama"`)
}

// The sweep's primary_filter moves the Holm family; --primary-filter
// (Options.PrimaryFilter) overrides it; an unknown filter is an error.
func TestPrimaryFilter(t *testing.T) {
	m := taskManifest("gsm8k", "greedy", "x", "y")
	m["config"] = map[string]any{"primary_filter": "numeric_match,strict-match"}
	dir := writeRun(t, m, concat(scored("greedy", 0, 1, 0, 0, 0), scored("x", 0, 1, 1, 1, 0), scored("y", 0, 0, 0, 0, 1)), nil)
	rep, err := Compute(dir, Options{Paired: reports.PairedOptions{Bootstrap: reportsBootstrap(100)}})
	require.NoError(t, err)
	assert.Equal(t, "numeric_match,strict-match", rep.PrimaryFilter)
	var family []string
	for _, c := range rep.Comparisons {
		assert.Equal(t, c.Filter == "numeric_match,strict-match", c.PHolm.Valid, "%s %s", c.Sampler, c.Filter)
		if c.Primary {
			family = append(family, c.Sampler)
		}
	}
	assert.Equal(t, []string{"x", "y"}, family)

	rep, err = Compute(dir, Options{PrimaryFilter: "exact_match,flexible-extract", Paired: reports.PairedOptions{Bootstrap: reportsBootstrap(100)}})
	require.NoError(t, err)
	assert.Equal(t, "exact_match,flexible-extract", rep.PrimaryFilter)

	_, err = Compute(dir, Options{PrimaryFilter: "fuzzy"})
	assert.ErrorContains(t, err, `primary filter "fuzzy" is not a filter of this task`)
}

// summary.arrow and comparisons.arrow carry on the provenance results.arrow
// has (eval derives it from the manifest once), and summary rows the run key,
// so a notebook can join many runs' files.
func TestReportFilesCarryProvenance(t *testing.T) {
	prov := reports.Provenance{RunKey: "f00d@2026-11-22T06:00:00Z", SweepFingerprint: "f00d",
		ModelSHA256: "m", DatasetSHA256: "d", CodeRevision: "abc123+modified"}
	rows := concat(scored("greedy", 0, 1, 0), scored("x", 0, 1, 1))
	for i := range rows {
		rows[i].RunKey = prov.RunKey
	}
	dir := writeRun(t, taskManifest("gsm8k", "greedy", "x"), nil, nil)
	require.NoError(t, reports.WriteResults(filepath.Join(dir, ResultsFile), rows, reports.WithProvenance(prov)))
	_, err := Build(dir, Options{Paired: reports.PairedOptions{Bootstrap: reportsBootstrap(100)}})
	require.NoError(t, err)
	for _, f := range []string{SummaryFile, ComparisonsFile} {
		got, err := reports.ReadProvenance(filepath.Join(dir, f))
		require.NoError(t, err)
		assert.Equal(t, prov, got, f)
	}
	summary, err := reports.ReadSummary(filepath.Join(dir, SummaryFile))
	require.NoError(t, err)
	require.NotEmpty(t, summary)
	for _, r := range summary {
		assert.Equal(t, prov.RunKey, r.RunKey)
	}
}
