package eval

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/entropix-eval/entropix-eval/sampler"
)

func TestSamplerFromGenKwargs(t *testing.T) {
	for _, tc := range []struct {
		kw     map[string]any
		want   sampler.Spec
		maxNew int
		err    string
	}{
		{map[string]any{"temperature": 0}, sampler.Spec{Name: "greedy"}, 0, ""},
		{map[string]any{"temperature": 0.0, "do_sample": true}, sampler.Spec{Name: "greedy"}, 0, ""},
		{map[string]any{"do_sample": false, "temperature": 0.7, "top_p": 0.9}, sampler.Spec{Name: "greedy"}, 0, ""},
		{map[string]any{"do_sample": true}, sampler.Spec{Name: "temperature"}, 0, ""},
		{map[string]any{"do_sample": true, "temperature": 0.6, "top_k": 20, "max_gen_toks": 512},
			sampler.Spec{Name: "combined", Params: map[string]any{"temperature": 0.6, "top_k": 20.0}}, 512, ""},
		{map[string]any{"top_k": 2.5}, sampler.Spec{}, 0, "top_k=2.5: want an integer"},
		{map[string]any{"do_sample": "yes"}, sampler.Spec{}, 0, "do_sample=yes: want true or false"},
		{map[string]any{"repetition_penalty": 1.1}, sampler.Spec{}, 0, "key repetition_penalty is not supported"},
	} {
		got, maxNew, err := SamplerFromGenKwargs(tc.kw)
		if tc.err != "" {
			assert.ErrorContains(t, err, tc.err, "%v", tc.kw)
			continue
		}
		require.NoError(t, err, "%v", tc.kw)
		assert.Equal(t, tc.want, got, "%v", tc.kw)
		assert.Equal(t, tc.maxNew, maxNew, "%v", tc.kw)
	}
}

// A run without samplers decodes each task as its generation_kwargs say, as
// lm-eval does without --gen_kwargs; a group whose tasks disagree, or a task
// that leaves decoding to the model's generation_config, asks for --sampler.
func TestTaskDefaultSampler(t *testing.T) {
	dir := t.TempDir()
	write := func(name, gen string) {
		yml := fmt.Sprintf("task: %s\ntag: suite_%s\ndataset_path: json\ntest_split: test\ndoc_to_text: \"{{q}}\"\ndoc_to_target: \"{{a}}\"\ngeneration_kwargs:\n  until: [\"Q:\"]\n%s", name, name, gen)
		require.NoError(t, os.WriteFile(filepath.Join(dir, name+".yaml"), []byte(yml), 0o644))
	}
	write("hot", "  do_sample: true\n  temperature: 0.7\n  top_p: 0.95\n")
	write("unsaid", "  max_gen_toks: 64\n")
	cfg := Config{IncludePaths: []string{dir}}
	for _, tc := range []struct {
		tasks []string
		want  string
		err   string
	}{
		{[]string{"gsm8k_cot"}, "greedy", ""},
		{[]string{"gsm8k"}, "greedy", ""},
		{[]string{"hot"}, "combined(temperature=0.7,top_p=0.95)", ""},
		{[]string{"gsm8k_cot", "hot"}, "", "tasks gsm8k_cot and hot decode differently (greedy, combined(temperature=0.7,top_p=0.95))"},
		{[]string{"unsaid"}, "", "task unsaid's generation_kwargs set neither do_sample nor temperature"},
	} {
		spec, why, err := TaskDefaultSampler(cfg, tc.tasks)
		if tc.err != "" {
			assert.ErrorContains(t, err, tc.err, "%v", tc.tasks)
			continue
		}
		require.NoError(t, err, "%v", tc.tasks)
		assert.Equal(t, tc.want, spec.DisplayLabel(), "%v", tc.tasks)
		assert.Contains(t, why, tc.tasks[0]+": generation_kwargs {")
	}
}
