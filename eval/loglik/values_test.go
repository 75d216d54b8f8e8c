package loglik

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/entropix-eval/entropix-eval/datasets"
)

// mcDoc: choices of 2, 1 and 4 characters (5 bytes: é is two), gold 2.
var mcDoc = Doc{OutputType: MultipleChoice, Choices: []string{"ab", "c", "défg"}, Gold: 2,
	Requests: []Request{{"Q:", " ab"}, {"Q:", " c"}, {"Q:", " défg"}}}

var mcResults = []Result{{-2.0, false}, {-1.5, true}, {-3.2, false}}

// TestMultipleChoiceValues are process_results' values, worked by hand:
// acc: argmax(−2, −1.5, −3.2) = 1 ≠ 2; acc_norm: argmax(−1, −1.5, −0.8) = 2;
// acc_bytes: argmax(−1, −1.5, −0.64) = 2; exact_match: is_greedy[2] = false;
// brier_score: Σ(softmax − one_hot(2))² = 1.2335100583153267 (Python).
func TestMultipleChoiceValues(t *testing.T) {
	vals, err := mcDoc.Score([]string{"acc", "acc_norm", "acc_bytes", "exact_match", "brier_score"}, mcResults)
	require.NoError(t, err)
	want := []float64{0, 1, 1, 0, 1.2335100583153267}
	for i, v := range vals {
		require.InDelta(t, want[i], v.Value, 1e-15, v.Metric)
	}
	require.Equal(t, 1, mcDoc.Pred(mcResults))

	// acc_mutual_info: conditional − unconditional = (−1, −1.3, −0.2): choice 2.
	mi := mcDoc
	mi.MutualInfo = true
	mi.Requests = append(append([]Request{}, mcDoc.Requests...), Request{"", " ab"}, Request{"", " c"}, Request{"", " défg"})
	res := append(append([]Result{}, mcResults...), Result{-1.0, false}, Result{-0.2, true}, Result{-3.0, false})
	vals, err = mi.Score([]string{"acc", "acc_mutual_info"}, res)
	require.NoError(t, err)
	require.Equal(t, []Value{{"acc", 0, 1}, {"acc_mutual_info", 1, 1}}, vals)

	// A target naming no choice scores 0 (lm-eval warns), and brier_score refuses it.
	bad := mcDoc
	bad.Gold = NoGold
	vals, err = bad.Score([]string{"acc", "acc_norm"}, mcResults)
	require.NoError(t, err)
	require.Equal(t, []Value{{"acc", 0, 1}, {"acc_norm", 0, 1}}, vals)
	_, err = bad.Score([]string{"brier_score"}, mcResults)
	require.Error(t, err)

	_, err = mcDoc.Score([]string{"perplexity"}, mcResults)
	require.ErrorContains(t, err, "not computed for output_type multiple_choice")
	_, err = mcDoc.Score([]string{"acc"}, mcResults[:2])
	require.Error(t, err)
}

func TestLoglikelihoodAndRollingValues(t *testing.T) {
	d := Doc{OutputType: LogLikelihood, Requests: []Request{{"The cat sat on the", " mat"}}}
	vals, err := d.Score([]string{"perplexity", "acc"}, []Result{{-0.7, true}})
	require.NoError(t, err)
	require.Equal(t, []Value{{"perplexity", -0.7, 1}, {"acc", 1, 1}}, vals)

	r := NewRolling("one two  three\nfour é")
	require.Equal(t, 5, r.Words)
	require.Equal(t, 22, r.Bytes)
	vals, err = r.Score([]string{"word_perplexity", "byte_perplexity", "bits_per_byte"}, []Result{{-40, false}})
	require.NoError(t, err)
	require.Equal(t, []Value{{"word_perplexity", -40, 5}, {"byte_perplexity", -40, 22}, {"bits_per_byte", -40, 22}}, vals)
}

// TestAggregate checks each aggregation against values computed by hand or by
// CPython 3.11 running api/metrics.py's functions.
func TestAggregate(t *testing.T) {
	vals := func(xs []float64, ws ...float64) []Value {
		out := make([]Value, len(xs))
		for i, x := range xs {
			out[i] = Value{Value: x, Weight: 1}
			if ws != nil {
				out[i].Weight = ws[i]
			}
		}
		return out
	}
	// mean_stderr of (1, 0, 1, 1): sqrt(0.25/3)/2 ... = 0.25.
	v, se, err := Aggregate(datasets.AggMean, vals([]float64{1, 0, 1, 1}), 0)
	require.NoError(t, err)
	require.Equal(t, 0.75, v)
	require.InDelta(t, 0.25, se, 1e-15)

	// perplexity: exp(−mean); bootstrap over 3000 resamples (3 chunks seeded 0..2):
	// CPython 3.11 gives 5.4739473917272, 2.3119045258482.
	xs := []float64{-1.5, -2.25, -0.75, -3.0, -1.0}
	v, se, err = Aggregate(datasets.AggPerplexity, vals(xs), 3000)
	require.NoError(t, err)
	require.InEpsilon(t, 5.4739473917272, v, 1e-12)
	require.InEpsilon(t, 2.3119045258482, se, 1e-12)

	// weighted: lls (−10, −20) over words (5, 10): exp(30/15); bits_per_byte over
	// bytes (20, 40): 30/60/ln 2. No standard error.
	v, se, err = Aggregate(datasets.AggWeightedPerplexity, vals([]float64{-10, -20}, 5, 10), 100)
	require.NoError(t, err)
	require.InEpsilon(t, 7.38905609893065, v, 1e-15)
	require.True(t, math.IsNaN(se))
	v, _, err = Aggregate(datasets.AggBitsPerByte, vals([]float64{-10, -20}, 20, 40), 100)
	require.NoError(t, err)
	require.InEpsilon(t, 0.7213475204444817, v, 1e-15)

	v, se, err = Aggregate(datasets.AggBrierScore, vals([]float64{0.5, 0.25}), 100)
	require.NoError(t, err)
	require.Equal(t, 0.375, v)
	require.True(t, math.IsNaN(se))

	_, _, err = Aggregate("median", vals(xs), 0)
	require.Error(t, err)
}

func TestPySum(t *testing.T) {
	// CPython 3.12's compensated sum: these come out exact where a plain loop does not.
	require.Equal(t, 1.0, PySum([]float64{0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1}))
	require.Equal(t, 1.0, PySum([]float64{1e16, 1.0, -1e16}))
	require.Equal(t, 0.0, PySum(nil))
}
