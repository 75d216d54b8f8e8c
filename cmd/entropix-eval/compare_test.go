package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"testing"

	"github.com/entropix-eval/entropix-eval/reports/fixture"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func nightlyRun(t *testing.T, entropixSkill float64) string {
	dir := t.TempDir()
	writeNightly(t, dir, entropixSkill)
	return dir
}

func writeNightly(t *testing.T, dir string, entropixSkill float64) {
	require.NoError(t, fixture.Write(dir, fixture.Spec{
		Task: "gsm8k_cot", Problems: 200, Samplers: []string{"greedy", "entropix"}, Seeds: []int64{0}, Repeats: 1,
		MinTokens: 2, MaxTokens: 4, Skill: []float64{0, entropixSkill}, NoTraces: true, Seed: 3,
	}))
}

// TestCompareSweepsFormOneFamily: two sweep directories of two tasks each;
// with --holm-family sweep the two entropix rows (greedy's identity rows
// cannot be rejected and stay out) are one family of 2 across the tasks.
func TestCompareSweepsFormOneFamily(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	for _, task := range []string{"arith", "words"} {
		writeNightly(t, filepath.Join(a, task), 0.1)
		writeNightly(t, filepath.Join(b, task), -0.5)
	}
	var out bytes.Buffer
	err := runCompare(context.Background(), []string{"--resamples", "200", "--json", "--holm-family", "sweep", a, b}, &out, &out)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "arith: accuracy dropped significantly")
	assert.Contains(t, err.Error(), "words: accuracy dropped significantly")
	var byTask map[string][]map[string]any
	require.NoError(t, json.Unmarshal(out.Bytes(), &byTask), out.String())
	require.Len(t, byTask, 2, "keyed by task directory")
	family := "sweep:" + filepath.Base(b)
	members := 0
	for _, rows := range byTask {
		for _, r := range rows {
			if r["holm_family"] == family {
				members++
				assert.Equal(t, 2.0, r["holm_m"])
			}
		}
	}
	assert.Equal(t, 2, members)
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
			says: `"sampler": "entropix", "baseline": "entropix", "filter": "exact_match,strict-match", "primary": true, "alternative": "two-sided", "n_problems": 200`},
		// Greedy against greedy: no problem differs, so it is left out of the
		// Holm family rather than inflating it.
		{name: "identity row outside the family", args: []string{"--json", lastNight, tonight}, err: "entropix exact_match,strict-match", code: 1,
			says: `"sampler": "greedy", "baseline": "greedy", "filter": "exact_match,strict-match", "primary": true, "alternative": "two-sided", "n_problems": 200, "n_differing": 0`},
		{name: "one-sided gate", args: []string{"--alternative", "less", lastNight, tonight}, err: "entropix exact_match,strict-match", says: "one-sided test for a drop", code: 1},
		{name: "two-sided gate says so", args: []string{lastNight, lastNight}, says: "--alternative less tests drops one-sided"},
		{name: "run family", args: []string{"--holm-family", "run", lastNight, tonight}, err: "entropix", says: "run:", code: 1},
		{name: "bad alternative", args: []string{"--alternative", "lower", lastNight, tonight}, err: `alternative "lower"`, usage: true, code: 2},
		{name: "greater is no gate", args: []string{"--alternative", "greater", lastNight, tonight}, err: "compare gates drops", usage: true, code: 2},
		{name: "bad family", args: []string{"--holm-family", "paper", lastNight, tonight}, err: `holm family "paper"`, usage: true, code: 2},
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

// A sampler renamed (and so respecified) between two nights is left out
// unless --pair names it; paired by hand, its drop fails the gate and the
// table says how it paired.
func TestComparePairByHand(t *testing.T) {
	night := func(label string, skill float64) string {
		dir := t.TempDir()
		require.NoError(t, fixture.Write(dir, fixture.Spec{
			Task: "gsm8k_cot", Problems: 200, Samplers: []string{"greedy", label}, Seeds: []int64{0}, Repeats: 1,
			MinTokens: 2, MaxTokens: 4, Skill: []float64{0, skill}, NoTraces: true, Seed: 3,
		}))
		return dir
	}
	lastNight, tonight := night("min_p", 0.1), night("min_p-v2", -0.5)
	var out bytes.Buffer
	require.NoError(t, runCompare(context.Background(), []string{"--resamples", "200", lastNight, tonight}, &out, &out))
	assert.Contains(t, out.String(), "only in A (not compared): min_p")
	assert.Contains(t, out.String(), "only in B (not compared): min_p-v2")

	out.Reset()
	err := runCompare(context.Background(), []string{"--resamples", "200", "--pair", "min_p=min_p-v2", lastNight, tonight}, &out, &out)
	var ee *exitError
	require.True(t, errors.As(err, &ee), "%v", err)
	assert.Equal(t, 1, ee.ExitCode())
	assert.Contains(t, err.Error(), "min_p-v2")
	assert.Contains(t, out.String(), "paired by hand: min_p-v2 with min_p")
	assert.NotContains(t, out.String(), "not compared")
}
