package runreport

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/entropix-eval/entropix-eval/reports"
)

// Result rows without any score are an error (a broken results.arrow),
// unless the run's scores are all computed over the corpus (results.json
// holds them: a translation task scored by bleu only).
func TestScoresOfRowsWithoutScores(t *testing.T) {
	rows := []reports.ResultRow{{Sampler: "greedy", ProblemID: 0}}
	_, err := scoresOf(&run{results: rows})
	assert.ErrorContains(t, err, "the result rows carry no scores")

	s, err := scoresOf(&run{results: rows, corpus: corpusScores{keys: []string{"bleu,none"}}})
	require.NoError(t, err)
	assert.Empty(t, s.filters)

	_, err = scoresOf(&run{}) // no rows (an empty shard): nothing to score, no error
	assert.NoError(t, err)
}
