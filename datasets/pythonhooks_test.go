package datasets

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/entropix-eval/entropix-eval/internal/sharedtest"
)

func buildPythonFromFS(fsys fstest.MapFS, file string) (*Task, error) {
	rc, err := loadRawConfig(fsys, file)
	if err != nil {
		return nil, err
	}
	return buildTask(rc, true)
}

// With --python-hooks every !function is kept as a hook with the file
// lm-eval would import it from (next to the YAML that sets the key, dots as
// folders), and the places the bridge cannot serve are refused by name.
func TestPythonHooksBuild(t *testing.T) {
	fsys := fstest.MapFS{
		"sub/_tpl_yaml": {Data: []byte("dataset_path: a/b\ntest_split: test\nprocess_docs: !function utils.process_docs\n" +
			"fewshot_config:\n  sampler: first_n\n  samples: !function utils.samples\n  doc_to_text: !function pkg.mod.shot_text\n")},
		"sub/t.yaml": {Data: []byte("include: _tpl_yaml\ntask: t\ndoc_to_text: !function utils.doc_to_text\ndoc_to_target: answer\n" +
			"process_results: !function utils.process_results\n" +
			"filter_list:\n  - name: f\n    filter:\n      - function: !function utils.MyFilter\n        k: 3\n      - function: take_first\n" +
			"  - name: c\n    filter:\n      - function: custom\n        filter_fn: !function utils.fn\n" +
			"metric_list:\n  - metric: acc\n  - metric: inst_acc\n    aggregation: !function utils.agg\n    average: weighted\n" +
			"  - metric: !function utils.my_metric\n")},
	}
	task, err := buildPythonFromFS(fsys, "sub/t.yaml")
	require.NoError(t, err)
	got := map[string]PythonHook{}
	for _, h := range task.PythonHooks {
		got[h.Key] = h
	}
	want := map[string][2]string{
		"process_docs":                       {"process_docs", "sub/utils.py"},
		"fewshot_config.samples":             {"fewshot_samples", "sub/utils.py"},
		"fewshot_config.doc_to_text":         {"doc_to_text", "sub/pkg/mod.py"},
		"doc_to_text":                        {"doc_to_text", "sub/utils.py"},
		"process_results":                    {"process_results", "sub/utils.py"},
		"filter_list[0].filter[0].function":  {"filter", "sub/utils.py"},
		"filter_list[1].filter[0].filter_fn": {"filter_fn", "sub/utils.py"},
		"metric_list[1].aggregation":         {"aggregation", "sub/utils.py"},
		"metric_list[2].metric":              {"metric", "sub/utils.py"},
	}
	assert.Len(t, got, len(want))
	for key, w := range want {
		assert.Equal(t, w[0], got[key].Kind, key)
		assert.Equal(t, filepath.FromSlash(w[1]), got[key].File, key)
	}
	assert.Equal(t, "shot_text", got["fewshot_config.doc_to_text"].Function)
	filterHook, fnHook, metricHook := got["filter_list[0].filter[0].function"], got["filter_list[1].filter[0].filter_fn"], got["metric_list[2].metric"]
	assert.Equal(t, FilterStep{Function: "!function utils.MyFilter", Params: map[string]any{"k": int64(3)}, Python: &filterHook}, task.Filters[0].Steps[0])
	assert.Equal(t, FilterStep{Function: "!function utils.fn", Params: map[string]any{}, Python: &fnHook}, task.Filters[1].Steps[0])
	assert.Equal(t, []MetricSpec{
		{Metric: "acc", Aggregation: "mean", HigherIsBetter: true},
		{Metric: "inst_acc", Aggregation: "!function utils.agg", HigherIsBetter: true, Args: map[string]any{"average": "weighted"}},
		{Metric: "!function utils.my_metric", Aggregation: "mean", HigherIsBetter: true, Python: &metricHook},
	}, task.Metrics)

	_, err = buildFromFS(fsys, "sub/t.yaml")
	assert.ErrorIs(t, err, ErrUnsupportedTask, "without --python-hooks the task is refused")
	assert.ErrorContains(t, err, "!function utils.process_results at process_results")
}

func TestPythonHooksMetricsAndRefusals(t *testing.T) {
	task, err := buildPythonFromFS(fstest.MapFS{"t.yaml": {Data: []byte(minimalTask +
		"metric_list:\n  - metric: bleu\n  - metric: chrf\n    aggregation: chrf\n  - metric: exact_match\n    aggregation: !function u.agg\n")}}, "t.yaml")
	require.NoError(t, err)
	assert.Equal(t, "bleu", task.Metrics[0].Aggregation)
	assert.Equal(t, "chrf", task.Metrics[1].Aggregation)
	assert.Equal(t, "!function u.agg", task.Metrics[2].Aggregation)

	for _, c := range []struct{ yaml, want string }{
		{"class: !function utils.MyTask\n", "a Python task class"},
		{"unsafe_code: true\nprocess_results: !function utils.pass_at_1\n", "executes generated code"},
		{"doc_to_image: !function utils.img\n", "multimodal input is not supported"},
		{"custom_dataset: !function utils.load\n", "a Python dataset loader"},
		{"metric_list:\n  - metric: wer\n", "metric wer is not supported (with --python-hooks"},
		{"filter_list:\n  - name: f\n    filter:\n      - function: regex\n        regex: x\n", "argument regex is not supported"},
		{"metric_list:\n  - metric: f1\n", "metric f1 is not supported"},
		{"metric_list:\n  - metric: bleu\n    aggregation: median\n", "aggregation median"},
		{"process_docs: !function process_docs\n", "want !function module.name"},
	} {
		_, err := buildPythonFromFS(fstest.MapFS{"t.yaml": {Data: []byte(minimalTask + c.yaml)}}, "t.yaml")
		assert.ErrorContains(t, err, c.want, c.yaml)
		assert.ErrorIs(t, err, ErrUnsupportedTask)
	}
}

func TestPythonHooksSharedIFEval(t *testing.T) {
	root := sharedtest.Path(t, "tasks/lm-eval")
	ix, err := NewIndex(root)
	require.NoError(t, err)
	_, err = ix.Task("ifeval")
	require.ErrorIs(t, err, ErrUnsupportedTask)

	ix.PythonHooks = true
	task, err := ix.Task("ifeval")
	require.NoError(t, err)
	file := filepath.Join(root, "ifeval", "utils.py")
	sum := sharedSum(t, "lm-eval/ifeval/utils.py")
	assert.Equal(t, []PythonHook{
		{Key: "metric_list[1].aggregation", Kind: "aggregation", File: file, Function: "agg_inst_level_acc", SHA256: sum},
		{Key: "metric_list[3].aggregation", Kind: "aggregation", File: file, Function: "agg_inst_level_acc", SHA256: sum},
		{Key: "process_results", Kind: "process_results", File: file, Function: "process_results", SHA256: sum},
	}, task.PythonHooks)
	assert.Contains(t, task.Describe()["python_hooks"], "process_results: utils.process_results sha256:"+sum)
	var names []string
	for _, m := range task.Metrics {
		names = append(names, m.Metric+"/"+m.Aggregation)
	}
	assert.Equal(t, []string{"prompt_level_strict_acc/mean", "inst_level_strict_acc/!function utils.agg_inst_level_acc",
		"prompt_level_loose_acc/mean", "inst_level_loose_acc/!function utils.agg_inst_level_acc"}, names)
}

// sharedSum is a file's SHA-256 as ../shared/tasks/SHA256SUMS lists it.
func sharedSum(t *testing.T, rel string) string {
	b, err := os.ReadFile(sharedtest.Path(t, "tasks/SHA256SUMS"))
	require.NoError(t, err)
	for _, line := range strings.Split(string(b), "\n") {
		if sum, name, ok := strings.Cut(line, "  "); ok && name == rel {
			return sum
		}
	}
	t.Fatalf("SHA256SUMS lists no %s", rel)
	return ""
}

// A hook file that changes changes the task's description, which run
// manifests and fingerprints hash: an edited hook never resumes an old run.
func TestPythonHookChangeChangesDescription(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "t.yaml"), []byte(minimalTask+"process_results: !function utils.process_results\n"), 0o600))
	describe := func(utils string) any {
		require.NoError(t, os.WriteFile(filepath.Join(dir, "utils.py"), []byte(utils), 0o600))
		ix, err := NewIndex(dir)
		require.NoError(t, err)
		ix.PythonHooks = true
		task, err := ix.Task("t")
		require.NoError(t, err)
		return task.Describe()["python_hooks"]
	}
	a := describe("def process_results(doc, results):\n    return {'acc': 1}\n")
	b := describe("def process_results(doc, results):\n    return {'acc': 0}\n")
	assert.NotEqual(t, a, b)
	// sha256 of the first file's bytes, by sha256sum.
	assert.Equal(t, []string{"process_results: utils.process_results sha256:1d3ff03607495934c6d1f07edf81d0818703ef7777a4bab2505877e3c8e1d983"}, a)
}

// A hook named by its package path (lm_eval.tasks.folder.utils.fn, as
// noreval's YAML does) is found under the include directory, which stands
// for lm_eval/tasks.
func TestPythonHookByPackagePath(t *testing.T) {
	root := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(root, "fam", "sub"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(root, "fam", "sub", "t.yaml"),
		[]byte(minimalTask+"process_docs: !function lm_eval.tasks.fam.utils.pick\n"), 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(root, "fam", "utils.py"), []byte("def pick(ds):\n    return ds\n"), 0o600))
	ix, err := NewIndex(root)
	require.NoError(t, err)
	ix.PythonHooks = true
	task, err := ix.Task("t")
	require.NoError(t, err)
	h, ok := task.Hook("process_docs")
	require.True(t, ok)
	assert.Equal(t, filepath.Join(root, "fam", "utils.py"), h.File)
	assert.Equal(t, "pick", h.Function)
}

// With --python-hooks a filter Go does not implement is lm-eval's, run by
// name from the interpreter's lm-eval; the check confirms lm-eval has it.
func TestPythonHooksRegistryFilter(t *testing.T) {
	task, err := buildPythonFromFS(fstest.MapFS{"t.yaml": {Data: []byte(minimalTask +
		"filter_list:\n  - name: f\n    filter:\n      - function: format_span\n        labels: [a]\n      - function: take_first\n")}}, "t.yaml")
	require.NoError(t, err)
	assert.Equal(t, []PythonHook{{Key: "filter_list[0].filter[0].function", Kind: "registry_filter", Function: "format_span"}}, task.PythonHooks)
	assert.Equal(t, FilterStep{Function: "format_span", Params: map[string]any{"labels": []any{"a"}}, Python: &task.PythonHooks[0]}, task.Filters[0].Steps[0])
	assert.Equal(t, []string{"filter_list[0].filter[0].function: lm-eval's filter format_span"}, task.Describe()["python_hooks"])
}
