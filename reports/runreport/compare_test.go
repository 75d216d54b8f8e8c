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
		primary    string
		drops      []string
		err, table string
	}{
		{name: "same run passes", a: lastNight, b: lastNight},
		{name: "x dropped", a: lastNight, b: tonight, drops: []string{"x"}, table: "DROP"},
		{name: "improvement is not a drop", a: tonight, b: lastNight},
		{name: "flexible gate unaffected", a: lastNight, b: tonight, primary: "exact_match,flexible-extract"},
		{name: "different tasks", a: lastNight, b: otherTask, err: `task "gsm8k" but`},
		{name: "nothing shared", a: lastNight, b: noShared, err: "share no sampler"},
		{name: "bad primary filter", a: lastNight, b: tonight, primary: "fuzzy", err: `primary filter "fuzzy"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := Compare(tc.a, tc.b, CompareOptions{PrimaryFilter: tc.primary})
			if tc.err != "" {
				require.ErrorContains(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			var got []string
			for _, r := range c.Regressions {
				got = append(got, r.Sampler)
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

// Hand-computed: x fell from 30/30 to 10/30 with one sample per problem; its
// 20 differences are all −1, so the exact sign-flip p is 2/2^20 (= McNemar's
// exact p); Holm over the two samplers on the primary filter (strict) doubles
// the smaller p; the secondary filters get none.
func TestCompareNumbers(t *testing.T) {
	a := writeRun(t, taskManifest("gsm8k", "greedy", "x"), concat(scored("greedy", 0, outcomes(30, 15)...), scored("x", 0, outcomes(30, 30)...)), nil)
	b := writeRun(t, taskManifest("gsm8k", "greedy", "x"), concat(scored("greedy", 0, outcomes(30, 16)...), scored("x", 0, outcomes(30, 10)...)), nil)
	c, err := Compare(a, b, CompareOptions{})
	require.NoError(t, err)
	require.Len(t, c.Rows, 6)
	x := c.Rows[3]
	require.Equal(t, "x", x.Sampler)
	assert.Equal(t, "exact_match,strict-match", x.Filter)
	assert.True(t, x.Primary)
	assert.InDelta(t, -20.0/30, x.Delta, 1e-12)
	assert.Equal(t, reports.Some[int32](0), x.McNemarB)
	assert.Equal(t, reports.Some[int32](20), x.McNemarC)
	assert.InDelta(t, 2/math.Pow(2, 20), x.P, 1e-15)
	assert.InDelta(t, 2*x.P, x.PHolm.V, 1e-15)
	assert.InDelta(t, 1.0, c.Rows[0].P, 1e-12, "greedy: one discordant problem, p = 1")
	assert.False(t, c.Rows[1].PHolm.Valid, "flexible is secondary")
}

// A sampler written out in full in one run's YAML and named on the command
// line in the other pairs by its canonical spec, not its label text.
func TestComparePairsByCanonicalSpec(t *testing.T) {
	manifest := func(label string, spec map[string]any) map[string]any {
		return map[string]any{"status": "complete", "task": map[string]any{"name": "gsm8k"}, "samplers": []map[string]any{
			{"label": label, "spec": spec, "description": map[string]any{"name": "min_p", "temperature": 1.0, "min_p": 0.1, "top_k": 0, "top_p": 1.0, "order": "hf"}},
		}}
	}
	a := writeRun(t, manifest("min_p", map[string]any{"name": "min_p"}), scored("min_p", 0, 1, 0, 1), nil)
	b := writeRun(t, manifest("min_p(T=1)", map[string]any{"name": "min_p", "temperature": 1, "min_p": 0.1}), scored("min_p(T=1)", 0, 1, 1, 1), nil)
	c, err := Compare(a, b, CompareOptions{})
	require.NoError(t, err)
	require.NotEmpty(t, c.Rows)
	assert.Equal(t, "min_p(T=1)", c.Rows[0].Sampler)
	assert.Equal(t, "min_p", c.Rows[0].Baseline)
	assert.Empty(t, c.OnlyA)
	assert.Empty(t, c.OnlyB)
}
