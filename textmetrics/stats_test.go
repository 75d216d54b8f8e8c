package textmetrics

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The summed segment statistics give lm-eval's corpus score exactly, on
// sacrebleu's README corpus (one reference stream, then both), an empty
// response, and the CHRF/TER corner cases.
func TestStatisticSumIsCorpusScore(t *testing.T) {
	one := make([]Item, len(readmeHyps))
	two := make([]Item, len(readmeHyps))
	for i, h := range readmeHyps {
		one[i] = Item{Refs: []string{readmeRefs[0][i]}, Pred: h}
		two[i] = Item{Refs: []string{readmeRefs[0][i], readmeRefs[1][i]}, Pred: h}
	}
	corpora := map[string][]Item{
		"one reference":  one,
		"two references": two,
		"empty response": {{Refs: []string{"a b c"}, Pred: ""}, {Refs: []string{"x y"}, Pred: "x y"}},
		"short":          {{Refs: []string{"ac"}, Pred: "ab"}},
	}
	folds := map[string]func([]Item) (float64, error){"bleu": LMEvalBLEU, "chrf": LMEvalCHRF, "ter": LMEvalTER}
	for name, fold := range folds {
		st, ok := LMEvalStatistic(name)
		require.True(t, ok)
		for cname, items := range corpora {
			want, err := fold(items)
			require.NoError(t, err)
			segs, err := st.Segments(items)
			require.NoError(t, err)
			require.Len(t, segs, len(items))
			sum := make([]float64, len(segs[0]))
			for _, s := range segs {
				for j, x := range s {
					sum[j] += x
				}
			}
			assert.Equal(t, want, st.Score(sum), "%s on %s", name, cname)
		}
	}
	_, ok := LMEvalStatistic("rouge")
	assert.False(t, ok)
}
