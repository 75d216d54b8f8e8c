package reports

import (
	"encoding/json"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/entropix-eval/entropix-eval/sampler"
)

func TestTokenRecordJSON(t *testing.T) {
	in := TokenRecord{Text: "é\"", Entropy: math.NaN(), Varentropy: math.Inf(1), AttnEntropy: 0.5, AttnVarentropy: math.Inf(-1),
		Agreement: 0.1, InteractionStrength: 2, VocabTailMass: 1e-300,
		Decision: sampler.Decision{Token: 128000, Strategy: sampler.StrategyHEHV, Temperature: 1.0 / 3, TopK: 27, TopP: 0.9, MinP: 0.05,
			LogProb: -1.25, SampleLogProb: -0.75, Survivors: 12, NSamples: 3, Confidence: -0.5, TailMass: 0.125, TailCut: true, Faithful: true}}
	b, err := json.Marshal(in)
	require.NoError(t, err)
	// The journal's bytes, field by field in traces.arrow's column order from
	// token_id (as every journal since schema version 4 holds them).
	assert.Equal(t, `[128000,"é\"","hehv","NaN","+Inf",0.5,"-Inf",0.1,2,0.3333333333333333,27,0.9,0.05,-1.25,1e-300,-0.75,12,3,-0.5,0.125,true,true]`, string(b))
	var out TokenRecord
	require.NoError(t, json.Unmarshal(b, &out))
	assert.True(t, math.IsNaN(out.Entropy))
	out.Entropy, in.Entropy = 0, 0
	assert.Equal(t, in, out, "every field round-trips bit for bit")

	// A step from a journal written before schema version 3: 15 entries.
	old := `[5,"x","sample",1.5,2,"NaN","NaN","NaN","NaN",0.7,0,1,0.1,-2.5,0.25]`
	require.NoError(t, json.Unmarshal([]byte(old), &out))
	assert.Equal(t, int32(5), out.Token)
	assert.Equal(t, sampler.StrategySample, out.Strategy)
	assert.Equal(t, 0.1, out.MinP)
	assert.Equal(t, 0.25, out.VocabTailMass)
	assert.Zero(t, out.Survivors)
	assert.False(t, out.TailCut)

	assert.ErrorContains(t, json.Unmarshal([]byte(`[1,"x"]`), &out), "2 fields, want 22 (or from 15 in an older journal)")
}
