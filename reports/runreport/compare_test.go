package runreport

import (
	"bytes"
	"math"
	"testing"

	"github.com/entropix-eval/entropix-eval/reports"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func outcomes(n, right int) []int {
	out := make([]int, n)
	for i := range right {
		out[i] = 1
	}
	return out
}

func TestCompareGate(t *testing.T) {
	lastNight := writeRun(t, taskManifest("gsm8k", "greedy", "x"), concat(
		scored("greedy", 0, outcomes(30, 15)...), scored("x", 0, outcomes(30, 30)...), scored("old", 0, 1)), nil)
	tonight := writeRun(t, taskManifest("gsm8k", "greedy", "x"), concat(
		scored("greedy", 0, outcomes(30, 16)...), scored("x", 0, outcomes(30, 10)...), scored("new", 0, 1)), nil)
	otherTask := writeRun(t, taskManifest("gsm8k_cot", "greedy"), scored("greedy", 0, 1), nil)
	noShared := writeRun(t, taskManifest("gsm8k", "z"), scored("z", 0, 1), nil)

	for _, tc := range []struct {
		name       string
		a, b       string
		gate       reports.ScoreKey
		drops      []string
		err, table string
	}{
		{name: "same run passes", a: lastNight, b: lastNight},
		{name: "x dropped", a: lastNight, b: tonight, drops: []string{"x"}, table: "DROP"},
		{name: "improvement is not a drop", a: tonight, b: lastNight},
		{name: "flexible gate unaffected", a: lastNight, b: tonight, gate: reports.ScoreKey("exact_match,flexible-extract")},
		{name: "different tasks", a: lastNight, b: otherTask, err: `task "gsm8k" but`},
		{name: "nothing shared", a: lastNight, b: noShared, err: "share no sampler"},
		{name: "bad gate", a: lastNight, b: tonight, gate: "fuzzy", err: `gate "fuzzy" is not a score`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := Compare(tc.a, tc.b, CompareOptions{Gate: tc.gate})
			if tc.err != "" {
				require.ErrorContains(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			var got []string
			for _, r := range c.Regressions {
				got = append(got, r.SamplerA)
			}
			assert.Equal(t, tc.drops, got)
			if tc.drops == nil {
				assert.NoError(t, c.Err())
			} else {
				assert.ErrorContains(t, c.Err(), "dropped significantly")
			}
			var out bytes.Buffer
			require.NoError(t, c.WriteTable(&out))
			assert.Contains(t, out.String(), tc.table)
		})
	}
}

// Hand-computed: x fell from 30/30 to 10/30; its 20 discordant pairs all favour
// the old run, so the exact McNemar p is 2/2^20; Holm over greedy and x
// doubles the smaller p.
func TestCompareNumbers(t *testing.T) {
	a := writeRun(t, taskManifest("gsm8k", "greedy", "x"), concat(scored("greedy", 0, outcomes(30, 15)...), scored("x", 0, outcomes(30, 30)...)), nil)
	b := writeRun(t, taskManifest("gsm8k", "greedy", "x"), concat(scored("greedy", 0, outcomes(30, 16)...), scored("x", 0, outcomes(30, 10)...)), nil)
	c, err := Compare(a, b, CompareOptions{})
	require.NoError(t, err)
	require.Len(t, c.Rows, 6)
	x := c.Rows[1]
	require.Equal(t, "x", x.SamplerA)
	assert.Equal(t, reports.ScoreKey("exact_match,strict-match"), x.Score)
	assert.InDelta(t, -20.0/30, x.Difference, 1e-12)
	assert.Equal(t, int32(0), x.McNemarB)
	assert.Equal(t, int32(20), x.McNemarC)
	assert.InDelta(t, 2/math.Pow(2, 20), x.PValue, 1e-15)
	assert.InDelta(t, 2*x.PValue, x.PHolm, 1e-15)
	assert.InDelta(t, 1.0, c.Rows[0].PValue, 1e-12, "greedy: one discordant pair, p = 1")
}
