package main

import (
	"bytes"
	"context"
	"errors"
	"testing"

	"github.com/entropix-eval/entropix-eval/reports/fixture"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func nightlyRun(t *testing.T, entropixSkill float64) string {
	dir := t.TempDir()
	require.NoError(t, fixture.Write(dir, fixture.Spec{
		Task: "gsm8k_cot", Problems: 200, Samplers: []string{"greedy", "entropix"}, Seeds: []int64{0}, Repeats: 1,
		MinTokens: 2, MaxTokens: 4, Skill: []float64{0, entropixSkill}, NoTraces: true, Seed: 3,
	}))
	return dir
}

func TestCompareCommand(t *testing.T) {
	lastNight, tonight := nightlyRun(t, 0.1), nightlyRun(t, -0.5)
	for _, tc := range []struct {
		name      string
		args      []string
		err, says string
		code      int
		usage     bool
	}{
		{name: "same runs pass", args: []string{lastNight, lastNight}, says: "0 significant drop(s)"},
		{name: "drop fails the gate", args: []string{lastNight, tonight}, err: "entropix exact_match,strict-match", says: "DROP", code: 1},
		{name: "improvement passes", args: []string{tonight, lastNight}, says: "0 significant drop(s)"},
		{name: "json rows", args: []string{"--json", lastNight, tonight}, err: "entropix exact_match,strict-match", code: 1,
			says: `"sampler": "entropix", "baseline": "entropix", "filter": "exact_match,strict-match", "primary": true, "n_problems": 200`},
		{name: "one directory", args: []string{lastNight}, err: "two run directories", usage: true, code: 2},
		{name: "bad alpha", args: []string{"--alpha", "2", lastNight, tonight}, err: "alpha", code: 2},
		{name: "missing run", args: []string{lastNight, "/nonexistent/run"}, err: "results", code: 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			err := runCompare(context.Background(), append([]string{"--resamples", "500"}, tc.args...), &out, &out)
			if tc.err == "" {
				require.NoError(t, err)
			} else {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tc.err)
				assert.Equal(t, tc.usage, errors.Is(err, errUsage))
				var coded interface{ ExitCode() int }
				require.ErrorAs(t, err, &coded)
				assert.Equal(t, tc.code, coded.ExitCode())
			}
			assert.Contains(t, out.String(), tc.says)
		})
	}
}
