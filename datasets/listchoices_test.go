package datasets

import (
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// boolqSeq2seq is lm-eval's super_glue/boolq/seq2seq.yaml at the pinned
// commit (the keys that matter here): a generate_until task whose
// doc_to_choice is a YAML list and whose target is an index into it.
const boolqSeq2seq = `task: boolq-seq2seq
dataset_path: aps/super_glue
dataset_name: boolq
output_type: generate_until
training_split: train
validation_split: validation
doc_to_text: "{{passage}}\nQuestion: {{question}}?\nAnswer:"
doc_to_target: label
doc_to_choice: [' no', ' yes']
target_delimiter: ""
metric_list:
  - metric: exact_match
    aggregation: mean
    higher_is_better: true
    ignore_case: true
    ignore_punctuation: true
`

// A generate_until task scores against choices[target] (lm-eval's
// process_results for generate_until), shows that choice in its shots
// (build_qa_turn), and never reads a list-valued choice as multiple targets.
func TestGenerateUntilWithChoiceList(t *testing.T) {
	task, err := buildFromFS(fstest.MapFS{"t.yaml": {Data: []byte(boolqSeq2seq)}}, "t.yaml")
	require.NoError(t, err)
	require.Equal(t, []string{" no", " yes"}, task.ChoiceList)
	require.True(t, task.HasChoices())
	doc := Doc{"passage": "p", "question": "q", "label": int64(1)}
	target, err := task.Target(doc)
	require.NoError(t, err)
	assert.Equal(t, " yes", target)
	shot, err := task.shotTarget(doc)
	require.NoError(t, err)
	assert.Equal(t, " yes", shot)
	_, isList, err := task.TargetList(doc)
	require.NoError(t, err)
	assert.False(t, isList)
	doc["label"] = int64(2)
	_, err = task.Target(doc)
	assert.ErrorContains(t, err, "index 2 outside the 2 choices")
}

// A list target shows its first item in a shot, also beside doc_to_choice:
// build_qa_turn indexes the choices only with an int target.
func TestShotTargetListBeforeChoices(t *testing.T) {
	task, err := buildFromFS(fstest.MapFS{"t.yaml": {Data: []byte(boolqSeq2seq)}}, "t.yaml")
	require.NoError(t, err)
	shot, err := task.shotTarget(Doc{"label": []any{"yes", "y"}})
	require.NoError(t, err)
	assert.Equal(t, "yes", shot)
}
