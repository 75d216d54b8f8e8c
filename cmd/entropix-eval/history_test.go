package main

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/entropix-eval/entropix-eval/eval"
	"github.com/entropix-eval/entropix-eval/reports/fixture"
	"github.com/entropix-eval/entropix-eval/reports/history"
)

// history exits 0 without --gate whatever it finds, 1 with --gate when the
// latest night dropped, 2 on a usage error; a sweep's directory stands for
// its cells.
func TestHistoryCommand(t *testing.T) {
	dir := t.TempDir()
	night := func(name, start string, seed uint64, skill float64) string {
		// A night is a sweep matrix of one cell, as `run` writes it.
		sweep := filepath.Join(dir, name)
		s := fixture.Small()
		s.Problems, s.Seed, s.Started, s.NoTraces, s.Skill = 200, seed, start, true, []float64{0, skill, 0}
		require.NoError(t, eval.WriteSweepIndex(sweep, "nightly", []eval.Cell{{Model: "models/fixture-llama", Task: "gsm8k_cot", Dir: "fixture-llama/gsm8k_cot"}}))
		run := filepath.Join(sweep, "fixture-llama", "gsm8k_cot")
		require.NoError(t, os.MkdirAll(run, 0o755))
		require.NoError(t, fixture.Write(run, s))
		return sweep
	}
	a := night("a", "2026-11-24T01:00:00Z", 1, 0)
	b := night("b", "2026-11-25T01:00:00Z", 2, -0.45)
	out := filepath.Join(dir, "history")
	ctx := context.Background()

	require.NoError(t, runHistory(ctx, []string{"--out", out, a}, io.Discard, io.Discard))
	require.NoError(t, runHistory(ctx, []string{"--out", out, b}, io.Discard, io.Discard), "without --gate a drop is reported, not an exit 1")
	err := runHistory(ctx, []string{"--out", out, "--gate", b}, io.Discard, io.Discard)
	var ee *exitError
	require.True(t, errors.As(err, &ee), "%v", err)
	assert.Equal(t, 1, ee.ExitCode())
	assert.Contains(t, err.Error(), "min_p")
	assert.FileExists(t, filepath.Join(out, history.HTMLFile))

	err = runHistory(ctx, []string{"--out", out, t.TempDir()}, io.Discard, io.Discard)
	require.True(t, errors.As(err, &ee))
	assert.Equal(t, 2, ee.ExitCode())
}
