package main

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/entropix-eval/entropix-eval/datasets"
	"github.com/entropix-eval/entropix-eval/internal/sharedtest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// run refuses the NULL answers `datasets inspect` refuses, naming the column
// and the problem, where it used to score the target "" as 0 and exit 0.
func TestRunRefusesNullAnswers(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	args := smokeArgs(t, dir, "--dataset", sharedtest.Path(t, "data/bad/null-answers.parquet"), "--limit", "5")
	err := runQuiet(t, context.Background(), args)
	require.ErrorIs(t, err, datasets.ErrNull)
	assert.ErrorContains(t, err, `problem 3: doc_to_target reads column "answer", which is NULL`)
	assert.NoDirExists(t, dir)
}
