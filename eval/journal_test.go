package eval

import (
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/entropix-eval/entropix-eval/reports"
	"github.com/entropix-eval/entropix-eval/sampler"
)

func TestJournalRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), JournalFile)
	j, recs, err := OpenJournal(path)
	require.NoError(t, err)
	require.Empty(t, recs)
	rec := Record{
		ItemKey:  ItemKey{Sampler: "min_p", Seed: 3, Repeat: 1, ProblemIndex: 7},
		Response: "bad utf8? no: \u00e9 <tags> & quotes\"", FinishReason: FinishStop, GenTokens: 1,
		Trace: []reports.TokenRecord{{Text: "\u00e9", Entropy: math.NaN(), Varentropy: math.Inf(1),
			Decision: sampler.Decision{Token: 5, Strategy: "sample", LogProb: math.Inf(-1), TopK: 27, TopP: 0.9, Temperature: 1.0 / 3,
				SampleLogProb: -0.5, Survivors: 27, NSamples: 1, Confidence: 0.25, TailMass: 0.125, TailCut: true}}},
	}
	require.NoError(t, j.Append(rec))
	require.NoError(t, j.Append(rec)) // a duplicate must not count twice
	require.NoError(t, j.Close())

	got, err := ReadJournal(path)
	require.NoError(t, err)
	require.Len(t, got, 1)
	g := got[0]
	assert.Equal(t, rec.ItemKey, g.ItemKey)
	assert.Equal(t, rec.Response, g.Response)
	require.Len(t, g.Trace, 1)
	assert.True(t, math.IsNaN(g.Trace[0].Entropy))
	assert.True(t, math.IsInf(g.Trace[0].Varentropy, 1))
	assert.True(t, math.IsInf(g.Trace[0].LogProb, -1))
	assert.Equal(t, 1.0/3, g.Trace[0].Temperature, "floats survive bit-exactly")
	assert.Equal(t, 27, g.Trace[0].TopK)
}

func TestJournalDropsPartialLastLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), JournalFile)
	j, _, err := OpenJournal(path)
	require.NoError(t, err)
	require.NoError(t, j.Append(Record{ItemKey: ItemKey{Sampler: "g", ProblemIndex: 1}}))
	require.NoError(t, j.Close())
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = f.WriteString(`{"sampler":"g","seed":0,"repeat":0,"problem_in`)
	require.NoError(t, err)
	require.NoError(t, f.Close())

	j, recs, err := OpenJournal(path)
	require.NoError(t, err)
	require.Len(t, recs, 1)
	require.NoError(t, j.Append(Record{ItemKey: ItemKey{Sampler: "g", ProblemIndex: 2}}))
	require.NoError(t, j.Close())
	recs, err = ReadJournal(path)
	require.NoError(t, err)
	assert.Len(t, recs, 2, "the torn line was cut before appending")
}
