package main

import (
	"bytes"
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/entropix-eval/entropix-eval/reports"
	"github.com/entropix-eval/entropix-eval/reports/fixture"
	"github.com/entropix-eval/entropix-eval/reports/runreport"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestReportCommand(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, fixture.Write(dir, fixture.Small()))
	var out bytes.Buffer
	require.NoError(t, runReport(context.Background(), []string{"--baseline", "entropix", "--resamples", "500", dir}, &out, &out))
	assert.Contains(t, out.String(), "report: "+filepath.Join(dir, runreport.HTMLFile))
	for _, f := range []string{runreport.HTMLFile, runreport.SummaryFile, runreport.ComparisonsFile,
		"figures/accuracy.svg", "figures/accuracy.pdf", "figures/density-3-entropix.pdf", "tables/accuracy.tex", "tables/paired.tex"} {
		assert.FileExists(t, filepath.Join(dir, f))
	}
	cmp, err := reports.ReadComparisons(filepath.Join(dir, runreport.ComparisonsFile))
	require.NoError(t, err)
	require.NotEmpty(t, cmp)
	assert.Equal(t, "entropix", cmp[0].Baseline, "--baseline")
	assert.Equal(t, int32(500), cmp[0].BootResamples, "--resamples")
	assert.FileExists(t, filepath.Join(dir, "figures/forest.pdf"))
	assert.Regexp(t, `\|Tasks +\|Sampler +\|Filter +\|n-shot\|Metric +\|`, out.String(), "the lm-eval style table")
}

func TestReportCommandErrors(t *testing.T) {
	for _, tc := range []struct {
		name  string
		args  []string
		usage bool
		err   string
	}{
		{"no directory", nil, true, "one run directory"},
		{"two directories", []string{"a", "b"}, true, "one run directory"},
		{"missing directory", []string{"/nonexistent/run"}, false, "holds no run"},
		{"unknown baseline", []string{"--baseline", "nope", "FIXTURE"}, false, `baseline "nope"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			require.NoError(t, fixture.Write(dir, fixture.Spec{Task: "gsm8k", Problems: 3, Samplers: []string{"greedy"},
				Seeds: []int64{0}, Repeats: 1, MinTokens: 2, MaxTokens: 4, NoTraces: true}))
			args := append([]string(nil), tc.args...)
			for i := range args {
				if args[i] == "FIXTURE" {
					args[i] = dir
				}
			}
			var out bytes.Buffer
			err := runReport(context.Background(), args, &out, &out)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.err)
			assert.Equal(t, tc.usage, errors.Is(err, errUsage))
		})
	}
}

// The report of a real run directory written by 'run' (the stories260K smoke
// sweep over ../shared data).
func TestReportOfRealRun(t *testing.T) {
	out := filepath.Join(t.TempDir(), "run")
	require.NoError(t, runQuiet(t, context.Background(), smokeArgs(t, out)))
	var b bytes.Buffer
	require.NoError(t, runReport(context.Background(), []string{out}, &b, &b))
	rep, err := runreport.Compute(out, runreport.Options{})
	require.NoError(t, err)
	assert.Equal(t, "greedy", rep.Baseline)
	assert.Len(t, rep.Samplers, 2)
	assert.True(t, rep.HasTraces)
	assert.Len(t, rep.Problems, 3)
	assert.NotEmpty(t, rep.Problems[0].Question)
	assert.FileExists(t, filepath.Join(out, runreport.HTMLFile))
}
