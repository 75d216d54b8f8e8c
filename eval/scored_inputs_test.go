package eval

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/entropix-eval/entropix-eval/datasets"
	"github.com/entropix-eval/entropix-eval/eval/loglik"
)

func buildTaskYAML(t *testing.T, yaml string) *datasets.Task {
	t.Helper()
	file := filepath.Join(t.TempDir(), "t.yaml")
	require.NoError(t, os.WriteFile(file, []byte(yaml), 0o644))
	task, err := ResolveTask(Config{Task: file})
	require.NoError(t, err)
	return task
}

// TestScoredDocRequests: construct_requests for each output type.
func TestScoredDocRequests(t *testing.T) {
	const base = "task: t\ndataset_path: x/y\ntest_split: test\n"
	doc := datasets.Problem{ID: "0", Doc: datasets.Doc{"q": "2+2?", "choices": []any{"3", "4"}, "label": int64(1), "text": "a b c"}}

	mc := buildTaskYAML(t, base+"output_type: multiple_choice\ndoc_to_text: \"{{q}}\"\ndoc_to_choice: choices\ndoc_to_target: label\n"+
		"metric_list:\n  - metric: acc\n  - metric: acc_mutual_info\n")
	d, target, err := scoredDoc(mc, doc, "Q: 2+2?", false)
	require.NoError(t, err)
	require.Equal(t, "1", target, "str(doc_to_target(doc)): the index")
	require.Equal(t, &loglik.Doc{OutputType: loglik.MultipleChoice, Choices: []string{"3", "4"}, Gold: 1, MutualInfo: true,
		Requests: []loglik.Request{req("Q: 2+2?", " 3"), req("Q: 2+2?", " 4"), req("", " 3"), req("", " 4")}}, d)
	// With a chat template the delimiter goes (no gen_prefix).
	d, _, err = scoredDoc(mc, doc, "<chat>", true)
	require.NoError(t, err)
	require.Equal(t, loglik.Request{Context: "<chat>", Continuation: "3"}, d.Requests[0])

	ll := buildTaskYAML(t, base+"output_type: loglikelihood\ndoc_to_text: \"{{text.split(' ')[:-1]|join(' ')}}\"\ndoc_to_target: \"{{' '+text.split(' ')[-1]}}\"\n")
	d, target, err = scoredDoc(ll, doc, "a b", false)
	require.NoError(t, err)
	require.Equal(t, " c", target)
	require.Equal(t, []loglik.Request{req("a b", " c")}, d.Requests)

	roll := buildTaskYAML(t, base+"output_type: loglikelihood_rolling\ndoc_to_text: \"\"\ndoc_to_target: text\n")
	d, _, err = scoredDoc(roll, doc, "", false)
	require.NoError(t, err)
	require.Equal(t, &loglik.Doc{OutputType: loglik.Rolling, Requests: []loglik.Request{req("", "a b c")}, Words: 3, Bytes: 5}, d)
	_, _, err = scoredDoc(roll, doc, "shots\n\n", false)
	require.ErrorContains(t, err, "the context must be empty")
}

func req(ctx, cont string) loglik.Request { return loglik.Request{Context: ctx, Continuation: cont} }

// TestBuildScoredSharesInputs: an MMLU-like doc's choices share one sequence;
// an empty continuation runs nothing and scores (0, True) as in lm-eval.
func TestBuildScoredSharesInputs(t *testing.T) {
	enc := loglik.Encoder{Prefix: 1,
		Encode: func(s string) ([]int32, error) {
			out := []int32{1}
			for _, r := range s {
				out = append(out, int32(r))
			}
			return out, nil
		}}
	enc.EncodePlain = func(s string) ([]int32, error) { ids, err := enc.Encode(s); return ids[1:], err }
	d := &loglik.Doc{OutputType: loglik.MultipleChoice, Choices: []string{"A", "B", ""}, Requests: []loglik.Request{req("Q:", " A"), req("Q:", " B"), req("Q:", "")}}
	p, err := buildScored(ProblemEntry{ID: "0", Scoring: d}, enc, 64)
	require.NoError(t, err)
	require.Len(t, p.seqs, 1, "' A' and ' B' share the input [BOS Q : ' ']; the empty continuation runs nothing")
	require.Equal(t, []int32{1, 'Q', ':', ' '}, p.seqs[0].input)
	require.Equal(t, [][]int32{{' ', 'A'}, {' ', 'B'}}, p.seqs[0].targets)
	require.Equal(t, []loglik.Result{{LogProb: 0, Greedy: true}}, p.results()[2:])
}
