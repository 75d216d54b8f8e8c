package datasets

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/entropix-eval/entropix-eval/hooks"
	"github.com/entropix-eval/entropix-eval/internal/sharedtest"
)

type expectedPrompt struct {
	Task        string  `json:"task"`
	DocIndex    int     `json:"doc_index"`
	Prompt      *string `json:"prompt"`
	Target      *string `json:"target"`
	Data        string  `json:"data"`
	FewshotRows []int   `json:"fewshot_rows"`
	ExpectError string  `json:"expect_error"`
}

// sharedTaskSource indexes ../shared/tasks/lm-eval and reads its data from
// ../shared/tasks/data, with openai/gsm8k mapped onto ../shared/data/gsm8k
// through a link in a temporary mirror.
func sharedTaskSource(t *testing.T) (*Index, DataSource) {
	t.Helper()
	ix, err := NewIndex(sharedtest.Path(t, "tasks/lm-eval"))
	require.NoError(t, err)
	mirror := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(mirror, "openai"), 0o755))
	require.NoError(t, os.Symlink(sharedtest.Path(t, "data/gsm8k"), filepath.Join(mirror, "openai", "gsm8k")))
	return ix, DataSource{DataDirs: []string{sharedtest.Path(t, "tasks/data"), mirror}}
}

// TestSharedTasksPromptsByteEqual builds every expected prompt of
// ../shared/tasks/expected/prompts.json through the YAML path and compares
// prompt, target and the random shots' rows byte for byte.
func TestSharedTasksPromptsByteEqual(t *testing.T) {
	var want []expectedPrompt
	sharedtest.ReadJSON(t, "tasks/expected/prompts.json", &want)
	require.NotEmpty(t, want)
	ix, src := sharedTaskSource(t)
	for _, e := range want {
		t.Run(e.Task, func(t *testing.T) {
			task, err := ix.Task(e.Task)
			if e.ExpectError != "" {
				// prompts.json predates the ports: its GPQA entry has no
				// prompt; hooks.json holds GPQA's (TestHookTasksMatchLMEval).
				require.NoError(t, err)
				require.NotNil(t, task.ProcessDocs, "the ported process_docs")
				assert.Equal(t, "process_docs", task.ProcessDocs.Ref.Function)
				return
			}
			require.NoError(t, err)
			td, err := LoadTaskData(task, src, task.NumFewshot)
			require.NoError(t, err)
			assert.Equal(t, filepath.Base(e.Data), filepath.Base(td.Docs.Files[0].Path))
			p, err := NewPrompter(task, td.Shots, PromptOptions{FewshotFromTestSplit: td.ShotsFromEvalSplit})
			require.NoError(t, err)
			doc := td.Docs.Problems[e.DocIndex]
			got, err := p.Build(doc)
			require.NoError(t, err)
			assert.Equal(t, *e.Prompt, got.Text, "prompt")
			target, err := task.Target(doc.Doc)
			require.NoError(t, err)
			assert.Equal(t, *e.Target, target, "target")
			if e.FewshotRows != nil {
				assert.Equal(t, e.FewshotRows, got.Shots, "few-shot rows")
			}
		})
	}
}

func TestGroupsAndTagsExpand(t *testing.T) {
	ix, _ := sharedTaskSource(t)
	_, err := ix.Expand("bbh_cot_fewshot")
	require.Error(t, err, "25 of the 27 BBH subtasks are not in ../shared")
	assert.Contains(t, err.Error(), "25 member tasks are not indexed")
	assert.Contains(t, err.Error(), "bbh_cot_fewshot_causal_judgement")
	assert.NotContains(t, err.Error(), "bbh_cot_fewshot_boolean_expressions,")

	names, err := ix.Expand("mmlu_flan_cot_zeroshot_stem")
	require.NoError(t, err)
	assert.Equal(t, []string{"mmlu_flan_cot_zeroshot_anatomy"}, names, "a tag runs its tasks")
	_, err = ix.Expand("mmlu_flan_cot_zeroshot")
	require.Error(t, err, "the other three MMLU category tags have no task here")
	assert.Contains(t, err.Error(), "mmlu_flan_cot_zeroshot_other")

	names, err = ix.Expand("chain_of_thought")
	require.NoError(t, err)
	assert.Contains(t, names, "gsm8k_cot")
	assert.Contains(t, names, "gsm8k_cot_self_consistency")
}

// A utils.py whose bytes differ from the file a port was read from is
// refused, naming the file, the function and the hash: a changed upstream
// hook never runs under an old port.
func TestChangedHookFileIsRefused(t *testing.T) {
	dir := sharedtest.Path(t, "tasks/lm-eval/gpqa/cot_zeroshot")
	fsys := fstest.MapFS{}
	for _, f := range []string{"_gpqa_cot_zeroshot_yaml", "gpqa_main_cot_zeroshot.yaml", "utils.py"} {
		b, err := os.ReadFile(filepath.Join(dir, f))
		require.NoError(t, err)
		fsys["gpqa/cot_zeroshot/"+f] = &fstest.MapFile{Data: b}
	}
	_, err := buildFromFS(fsys, "gpqa/cot_zeroshot/gpqa_main_cot_zeroshot.yaml")
	require.NoError(t, err, "the pinned file has a port")
	fsys["gpqa/cot_zeroshot/utils.py"].Data = append(fsys["gpqa/cot_zeroshot/utils.py"].Data, []byte("\n# changed\n")...)
	_, err = buildFromFS(fsys, "gpqa/cot_zeroshot/gpqa_main_cot_zeroshot.yaml")
	require.Error(t, err)
	assert.True(t, errors.Is(err, ErrUnsupportedTask))
	assert.Regexp(t, `_gpqa_cot_zeroshot_yaml \(included by .*gpqa_main_cot_zeroshot\.yaml\): key process_docs: !function utils\.process_docs`, err.Error())
	assert.Regexp(t, `gpqa/cot_zeroshot/utils\.py, sha256 [0-9a-f]{64}\): no Go port for a file with this hash`, err.Error())
}

// A task's ports are stored by lm-eval folder, wherever the task tree lies,
// so a moved tree is the same task (fingerprints hash the ports).
func TestPortFolderIsCanonical(t *testing.T) {
	dir := sharedtest.Path(t, "tasks/lm-eval/gpqa/cot_zeroshot")
	var got [][]hooks.PortRef
	for _, root := range []string{"a", "x/y/lm_eval/tasks"} {
		fsys := fstest.MapFS{}
		for _, f := range []string{"_gpqa_cot_zeroshot_yaml", "gpqa_main_cot_zeroshot.yaml", "utils.py"} {
			b, err := os.ReadFile(filepath.Join(dir, f))
			require.NoError(t, err)
			fsys[root+"/gpqa/cot_zeroshot/"+f] = &fstest.MapFile{Data: b}
		}
		task, err := buildFromFS(fsys, root+"/gpqa/cot_zeroshot/gpqa_main_cot_zeroshot.yaml")
		require.NoError(t, err)
		got = append(got, task.Ports)
	}
	require.Len(t, got[0], 1)
	assert.Equal(t, "gpqa/cot_zeroshot", got[0][0].Folder)
	assert.Equal(t, got[0], got[1])
}
