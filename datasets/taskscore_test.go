package datasets

import (
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/require"
)

// arcYAML and mmluYAML are lm-eval's arc_easy and mmlu default templates
// (the prompt fields as the pinned commit has them).
const arcYAML = `task: arc_like
dataset_path: allenai/ai2_arc
test_split: test
training_split: train
output_type: multiple_choice
doc_to_text: "Question: {{question}}\nAnswer:"
doc_to_target: "{{choices.label.index(answerKey)}}"
doc_to_choice: "{{choices.text}}"
metric_list:
  - metric: acc
    aggregation: mean
    higher_is_better: true
  - metric: acc_norm
`

const mmluYAML = `task: mmlu_like
dataset_path: cais/mmlu
test_split: test
fewshot_split: dev
fewshot_config:
  sampler: first_n
output_type: multiple_choice
doc_to_text: "{{question.strip()}}\nA. {{choices[0]}}\nB. {{choices[1]}}\nAnswer:"
doc_to_choice: ["A", "B"]
doc_to_target: answer
`

func TestMultipleChoiceTasks(t *testing.T) {
	arc, err := buildFromFS(fstest.MapFS{"t.yaml": {Data: []byte(arcYAML)}}, "t.yaml")
	require.NoError(t, err)
	require.Equal(t, OutputMultipleChoice, arc.OutputType)
	require.Equal(t, []MetricSpec{{Metric: "acc", Aggregation: "mean", HigherIsBetter: true}, {Metric: "acc_norm", Aggregation: "mean", HigherIsBetter: true}}, arc.Metrics)
	doc := Doc{"question": "Which is \"wet\"?", "answerKey": "B",
		"choices": map[string]any{"text": []any{"sand's grain", `a "drop" of water`, "rock"}, "label": []any{"A", "B", "C"}}}
	choices, err := arc.Choices(doc)
	require.NoError(t, err)
	require.Equal(t, []string{"sand's grain", `a "drop" of water`, "rock"}, choices, "quotes survive the list's evaluation")
	gold, err := arc.Gold(doc)
	require.NoError(t, err)
	require.Equal(t, 1, gold)
	text, err := arc.shotTarget(doc)
	require.NoError(t, err)
	require.Equal(t, `a "drop" of water`, text, "a shot shows its answer's choice text")
	doc["answerKey"] = "E"
	_, err = arc.Gold(doc)
	require.ErrorContains(t, err, "E is not in list")

	mmlu, err := buildFromFS(fstest.MapFS{"t.yaml": {Data: []byte(mmluYAML)}}, "t.yaml")
	require.NoError(t, err)
	require.Equal(t, []string{"A", "B"}, mmlu.ChoiceList)
	require.Equal(t, []string{"acc", "acc_norm"}, []string{mmlu.Metrics[0].Metric, mmlu.Metrics[1].Metric}, "lm-eval's default metrics")
	d := Doc{"question": " 2+2? ", "choices": []any{"3", "4"}, "answer": int64(1)}
	gold, err = mmlu.Gold(d)
	require.NoError(t, err)
	require.Equal(t, 1, gold)
	text, err = mmlu.shotTarget(d)
	require.NoError(t, err)
	require.Equal(t, "B", text)
	d["answer"] = int64(7)
	gold, err = mmlu.Gold(d)
	require.NoError(t, err)
	require.Equal(t, GoldNone, gold, "an index past the choices")
	d["answer"] = "B"
	gold, err = mmlu.Gold(d)
	require.NoError(t, err)
	require.Equal(t, 1, gold, "a string target is found among the choices")
}

func TestScoredOutputDefaults(t *testing.T) {
	for ot, want := range map[string][]string{
		OutputLoglikelihood: {"perplexity", "acc"},
		OutputRolling:       {"word_perplexity", "byte_perplexity", "bits_per_byte"},
	} {
		task, err := buildFromFS(fstest.MapFS{"t.yaml": {Data: []byte(minimalTask + "output_type: " + ot + "\n")}}, "t.yaml")
		require.NoError(t, err)
		var got []string
		for _, m := range task.Metrics {
			got = append(got, m.Metric)
			require.Equal(t, ScoreMetrics[m.Metric].HigherIsBetter, m.HigherIsBetter)
		}
		require.Equal(t, want, got, ot)
	}
}
