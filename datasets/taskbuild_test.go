package datasets

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/entropix-eval/entropix-eval/internal/jinja"
	"github.com/entropix-eval/entropix-eval/internal/sharedtest"
)

const minimalTask = "task: t\ndataset_path: acme/x\ntest_split: test\ndoc_to_text: \"{{q}}\"\ndoc_to_target: a\n"

func TestTaskRefusals(t *testing.T) {
	tests := []struct {
		name, yaml string
		want       []string
	}{
		{"output type", minimalTask + "output_type: generate\n", []string{"t.yaml: key output_type", `"generate" is not one of`}},
		{"metric of another output type", minimalTask + "output_type: multiple_choice\nmetric_list:\n  - metric: perplexity\n", []string{`metric "perplexity" is not computed for output_type multiple_choice`}},
		{"scored aggregation", minimalTask + "output_type: loglikelihood\nmetric_list:\n  - metric: perplexity\n    aggregation: mean\n", []string{"only lm-eval's perplexity is supported"}},
		{"scored filters", minimalTask + "output_type: multiple_choice\nfilter_list:\n  - name: f\n    filter:\n      - function: take_first\n", []string{"filters on multiple_choice responses"}},
		{"python scoring", minimalTask + "process_results: !function utils.process_results\n", []string{"key process_results", "!function utils.process_results"}},
		{"function inside a filter", minimalTask + "filter_list:\n  - name: f\n    filter:\n      - function: !function utils.custom\n", []string{"key filter_list", "filter_list[0].filter[0].function"}},
		{"unknown key", minimalTask + "doc_to_decorate: x\n", []string{"key doc_to_decorate: unknown task key"}},
		{"unknown filter", minimalTask + "filter_list:\n  - name: f\n    filter:\n      - function: format_span\n", []string{`function "format_span" is not supported`}},
		{"unknown metric", minimalTask + "metric_list:\n  - metric: rouge\n", []string{"metric rouge is not supported"}},
		{"corpus metric with another aggregation", minimalTask + "metric_list:\n  - metric: bleu\n    aggregation: mean\n", []string{"bleu: aggregation mean is not supported (a corpus metric aggregates as bleu)"}},
		{"corpus metric with a per-response option", minimalTask + "metric_list:\n  - metric: chrf\n    ignore_case: true\n", []string{"chrf: option ignore_case is not supported"}},
		{"metric option", minimalTask + "metric_list:\n  - metric: exact_match\n    ignore_whitespace: true\n", []string{"option ignore_whitespace is not supported"}},
		{"aggregation", minimalTask + "metric_list:\n  - metric: exact_match\n    aggregation: median\n", []string{"aggregation median is not supported (supported: mean)"}},
		{"filter argument", minimalTask + "filter_list:\n  - name: f\n    filter:\n      - function: regex\n        regex: x\n", []string{"argument regex is not supported"}},
		{"sampler", minimalTask + "fewshot_config:\n  sampler: balanced\n", []string{`sampler "balanced"`}},
		{"dataset kwargs", minimalTask + "dataset_kwargs:\n  revision: main\n", []string{"revision is not supported"}},
		{"every blocker", minimalTask + "output_type: generate\nmetric_list:\n  - metric: rouge\nprocess_docs: !function utils.process_docs\n", []string{"3 blockers", `"generate" is not one of`, "metric rouge", "utils.py"}},
		{"bad jinja", "task: t\ndataset_path: a/b\ntest_split: test\ndoc_to_text: \"{{ q \"\n", []string{"doc_to_text: invalid Jinja"}},
		{"no split", "task: t\ndataset_path: a/b\ndoc_to_text: q\n", []string{"neither test_split nor validation_split"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := buildFromFS(fstest.MapFS{"t.yaml": {Data: []byte(tt.yaml)}}, "t.yaml")
			require.Error(t, err)
			if tt.name != "bad jinja" { // invalid, not unsupported
				assert.ErrorIs(t, err, ErrUnsupportedTask)
			}
			for _, w := range tt.want {
				assert.ErrorContains(t, err, w)
			}
		})
	}
}

// lm-eval's translation tasks (wmt_common_yaml: bleu, ter, chrf with no
// options) build without Python: each metric aggregates as itself over the
// corpus, higher_is_better as lm-eval registers it unless the task says.
func TestCorpusMetricsBuildNatively(t *testing.T) {
	task, err := buildFromFS(fstest.MapFS{"t.yaml": {Data: []byte(minimalTask +
		"metric_list:\n  - metric: bleu\n  - metric: ter\n    higher_is_better: false\n  - metric: chrf\n    aggregation: chrf\n")}}, "t.yaml")
	require.NoError(t, err)
	assert.Equal(t, []MetricSpec{
		{Metric: "bleu", Aggregation: "bleu", HigherIsBetter: true},
		{Metric: "ter", Aggregation: "ter", HigherIsBetter: false},
		{Metric: "chrf", Aggregation: "chrf", HigherIsBetter: true},
	}, task.Metrics)
	for _, m := range task.Metrics {
		cm, ok := m.Corpus()
		require.True(t, ok, m.Metric)
		assert.Equal(t, m.Metric, cm.Name)
	}
	_, ok := MetricSpec{Metric: "exact_match", Aggregation: "mean"}.Corpus()
	assert.False(t, ok)
}

// A ported process_results scores generated responses; the scored output
// types grade with their own metrics, so the port would be ignored there and
// is refused instead. (The same file as generate_until builds.)
func TestScoredTaskRefusesPortedProcessResults(t *testing.T) {
	utils, err := os.ReadFile(sharedtest.Path(t, "tasks/lm-eval/hendrycks_math/utils.py"))
	require.NoError(t, err)
	task := minimalTask + "process_results: !function utils.process_results\nmetric_list:\n  - metric: exact_match\n"
	fsys := fstest.MapFS{
		"hendrycks_math/gen.yaml":    {Data: []byte(task)},
		"hendrycks_math/scored.yaml": {Data: []byte(task + "output_type: loglikelihood\n")},
		"hendrycks_math/utils.py":    {Data: utils},
	}
	gen, err := buildFromFS(fsys, "hendrycks_math/gen.yaml")
	require.NoError(t, err)
	require.NotNil(t, gen.ProcessResults)
	_, err = buildFromFS(fsys, "hendrycks_math/scored.yaml")
	assert.ErrorIs(t, err, ErrUnsupportedTask)
	assert.ErrorContains(t, err, "a ported process_results is not supported for output_type loglikelihood")
}

func buildFromFS(fsys fstest.MapFS, file string) (*Task, error) {
	rc, err := loadRawConfig(fsys, file)
	if err != nil {
		return nil, err
	}
	rc.fsys, rc.fsOrigin = fsys, rc.Origin
	return buildTask(rc, false)
}

func TestIncludeMergesShallowAndDetectsCycles(t *testing.T) {
	fsys := fstest.MapFS{
		"base/_tpl_yaml": {Data: []byte("dataset_path: a/b\ntest_split: test\ndoc_to_text: \"{{q}}\"\ngeneration_kwargs:\n  until: [\"Q:\"]\n  max_gen_toks: 99\n")},
		"base/t.yaml":    {Data: []byte("include: _tpl_yaml\ntask: t\ngeneration_kwargs:\n  until: [\"\\n\\n\"]\n")},
		"a.yaml":         {Data: []byte("include: b.yaml\ntask: a\n")},
		"b.yaml":         {Data: []byte("include: a.yaml\ntask: b\n")},
	}
	task, err := buildFromFS(fsys, "base/t.yaml")
	require.NoError(t, err)
	assert.Equal(t, []string{"\n\n"}, task.Until)
	assert.Equal(t, DefaultMaxNewTokens, task.MaxNewTokens, "generation_kwargs is replaced whole, not merged")
	_, err = buildFromFS(fsys, "a.yaml")
	assert.ErrorContains(t, err, "include cycle")
}

func TestTaskDefaults(t *testing.T) {
	task, err := buildFromFS(fstest.MapFS{"t.yaml": {Data: []byte(minimalTask)}}, "t.yaml")
	require.NoError(t, err)
	assert.Equal(t, " ", task.TargetDelimiter)
	assert.Equal(t, "\n\n", task.FewshotDelimiter)
	assert.Equal(t, []string{"\n\n"}, task.Until, "until defaults to the few-shot delimiter")
	assert.Equal(t, 256, task.MaxNewTokens)
	assert.Equal(t, []FilterPipeline{{Name: "none", Steps: []FilterStep{{Function: "take_first"}}}}, task.Filters)
	assert.Equal(t, []MetricSpec{{Metric: "exact_match", Aggregation: "mean", HigherIsBetter: true}}, task.Metrics)
	assert.Equal(t, 1, task.Repeats)
	assert.Equal(t, SamplerRandom, task.Fewshot.Sampler)
}

func TestBuiltinTasksMatchLMEvalFiles(t *testing.T) {
	// The embedded files are lm-eval's, plus one numeric_match line; the
	// prompt-defining keys must equal the upstream copies in ../shared.
	ix, err := NewIndex(sharedtest.Path(t, "tasks/lm-eval"))
	require.NoError(t, err)
	for _, name := range TaskNames() {
		builtin, err := LookupTask(name)
		require.NoError(t, err)
		upstream, err := ix.Task(name)
		require.NoError(t, err)
		assert.Equal(t, upstream.Filters, builtin.Filters, name)
		assert.Equal(t, upstream.Until, builtin.Until, name)
		assert.Equal(t, upstream.Fewshot.Samples, builtin.Fewshot.Samples, name)
		assert.Equal(t, upstream.DocToText.Source, builtin.DocToText.Source, name)
		assert.Equal(t, upstream.Metrics[0], builtin.Metrics[0], name)
		assert.Equal(t, "numeric_match", builtin.Metrics[len(builtin.Metrics)-1].Metric, name)
	}
}

func FuzzTaskYAML(f *testing.F) {
	f.Add([]byte(minimalTask))
	f.Add([]byte("include: t.yaml\ntask: x\n"))
	f.Add([]byte("task: [a, b]\ngroup: g\n"))
	f.Add([]byte("task: t\nfilter_list: {}\nmetric_list: 3\nfewshot_config: {samples: [1]}\n"))
	f.Add([]byte("x: !function a.b\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		task, err := buildFromFS(fstest.MapFS{"t.yaml": {Data: b}}, "t.yaml")
		if err != nil {
			return
		}
		// A task that builds renders or fails cleanly on any doc.
		for _, d := range []Doc{{}, {"q": "x", "a": int64(1)}} {
			_, _ = task.Text(d)
			_, _ = task.Target(d)
		}
	})
}

// FuzzDocFiles feeds arbitrary bytes to the generic JSONL, CSV and Arrow readers:
// an error is fine, a panic or a hang is not.
func FuzzDocFiles(f *testing.F) {
	f.Add([]byte("{\"q\": \"a\", \"n\": [1, 2.5, {\"x\": null}]}\n"))
	f.Add([]byte("ARROW1\x00\x00"))
	f.Add([]byte("\xff\xff\xff\xff"))
	f.Fuzz(func(t *testing.T, b []byte) {
		_, _ = parseJSONLDocs("fuzz.jsonl", b, nil)
		_, _ = parseCSVDocs("fuzz.csv", b)
		p := filepath.Join(t.TempDir(), "f.arrow")
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		_, _ = readArrowDocs(p)
	})
}

// PyYAML reads "\/" in a double-quoted scalar as "/" (turkishmmlu's CoT
// files use it); elsewhere the two characters are literal.
func TestYAMLEscapedSlash(t *testing.T) {
	src := "task: t\ndataset_path: a/b\ntest_split: test\ndoc_to_text: \"1\\/5 and \\\\/ \\\n  \\ 3\\/8\"\ndescription: 'x \\/ y'\ndoc_to_target: a \\/ b\n"
	task, err := buildFromFS(fstest.MapFS{"t.yaml": {Data: []byte(src)}}, "t.yaml")
	require.NoError(t, err)
	assert.Equal(t, "1/5 and \\/  3/8", task.DocToText.Source)
	assert.Equal(t, `x \/ y`, task.Description.Source)
	assert.Equal(t, `a \/ b`, task.DocToTarget.Source)
}

// A template over a rendering limit stays findable with errors.Is through the
// refusal (run's exit class depends on it), and a template the shots inherit
// is one blocker, not two.
func TestTemplateBlockerKeepsItsError(t *testing.T) {
	src := "task: t\ndataset_path: a/b\ntest_split: test\ndoc_to_text: \"{{ " + strings.Repeat("(", 300) + "1" + strings.Repeat(")", 300) + " }}\"\n"
	_, err := buildFromFS(fstest.MapFS{"t.yaml": {Data: []byte(src)}}, "t.yaml")
	require.ErrorIs(t, err, jinja.ErrLimit)
	assert.ErrorIs(t, err, ErrUnsupportedTask)
	var re *RefusedTaskError
	require.ErrorAs(t, err, &re)
	assert.Len(t, re.Blockers, 1)
}
