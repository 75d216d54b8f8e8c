package sampler

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"
)

func TestParseFlagDefaults(t *testing.T) {
	tests := []struct {
		flag  string
		name  string
		p     Params
		order Order
	}{
		{"greedy", "greedy", Params{Temperature: 0, TopP: 1}, OrderHF},
		{"temperature", "temperature", Params{Temperature: 1, TopP: 1}, OrderHF},
		{"top_k", "top_k", Params{Temperature: 1, TopK: 50, TopP: 1}, OrderHF},
		{"top_p", "top_p", Params{Temperature: 1, TopP: 0.9}, OrderHF},
		{"min_p", "min_p", Params{Temperature: 1, TopP: 1, MinP: 0.1}, OrderHF},
		{"min_p,min_p=0.05,temperature=1.5", "min_p", Params{Temperature: 1.5, TopP: 1, MinP: 0.05}, OrderHF},
		{"combined:vllm-v1,top_k=20,top_p=0.9,min_p=0.05,temperature=0.7", "combined", Params{0.7, 20, 0.9, 0.05}, OrderVLLMV1},
		{" top_p , top_p=0.95 ", "top_p", Params{Temperature: 1, TopP: 0.95}, OrderHF},
	}
	for _, tt := range tests {
		t.Run(tt.flag, func(t *testing.T) {
			s, err := ParseFlag(tt.flag)
			require.NoError(t, err)
			assert.Equal(t, tt.name, s.Name)
			assert.Equal(t, tt.p, s.Params)
			assert.Equal(t, tt.order, s.Order)
		})
	}
}

func TestParseEntropixFlag(t *testing.T) {
	s, err := ParseFlag("entropix")
	require.NoError(t, err)
	assert.Equal(t, "original", s.Entropix.Variant)
	assert.False(t, s.Entropix.Faithful)
	assert.Equal(t, "entropix:original", s.Label())

	s, err = ParseFlag("entropix:frog,faithful=true,high_logits_entropy=2.5")
	require.NoError(t, err)
	assert.Equal(t, "frog", s.Entropix.Variant)
	assert.True(t, s.Entropix.Faithful)
	assert.Equal(t, 2.5, s.Entropix.LogitsEntropy.High)
	assert.Equal(t, 0.7, s.Entropix.LogitsEntropy.Medium, "untouched preset value")

	s, err = ParseFlag("entropix:smollm-1.7b")
	require.NoError(t, err)
	assert.Equal(t, Levels{1.28, 3.75, 6.08}, s.Entropix.LogitsVarentropy)
	assert.Equal(t, 1, s.Entropix.AttnVarentropyDDOF)
}

func TestParseSpecYAML(t *testing.T) {
	doc := `
name: entropix
variant: original
faithful: false
high_ent_thresh: 4.5      # the original code's name
ada_score_int: 0.7
clarifying_token_id: 2564
`
	s, err := ParseConfigYAML([]byte(doc))
	require.NoError(t, err)
	assert.Equal(t, 4.5, s.Entropix.LogitsEntropy.High)
	assert.Equal(t, 0.7, s.Entropix.AdaScoreInt)
	smp, err := s.New(nil)
	require.NoError(t, err)
	assert.Equal(t, int32(2564), smp.(*Entropix).ClarifyingID())

	// A Spec embedded in a larger config.
	var sweep struct {
		Samplers []Config `yaml:"samplers"`
	}
	require.NoError(t, yaml.Unmarshal([]byte("samplers:\n  - {name: greedy}\n  - {name: min_p, temperature: 1.5, min_p: 0.1, order: vllm-v1}\n"), &sweep))
	require.Len(t, sweep.Samplers, 2)
	assert.Equal(t, Params{Temperature: 1.5, TopP: 1, MinP: 0.1}, sweep.Samplers[1].Params)
	assert.Equal(t, OrderVLLMV1, sweep.Samplers[1].Order)
}

func TestSpecErrorsNameTheField(t *testing.T) {
	tests := []struct {
		name string
		spec map[string]any
		want string
	}{
		{"missing name", map[string]any{"temperature": 1.0}, "field name is missing"},
		{"unknown name", map[string]any{"name": "beam"}, `unknown sampler "beam"`},
		{"unknown field", map[string]any{"name": "top_p", "top_a": 0.1}, "field top_a"},
		{"negative temperature", map[string]any{"name": "temperature", "temperature": -0.5}, "field temperature"},
		{"top_p zero", map[string]any{"name": "top_p", "top_p": 0.0}, "field top_p"},
		{"top_p above one", map[string]any{"name": "top_p", "top_p": 1.5}, "field top_p"},
		{"min_p above one", map[string]any{"name": "min_p", "min_p": 1.2}, "field min_p"},
		{"min_p negative", map[string]any{"name": "min_p", "min_p": -0.1}, "field min_p"},
		{"top_k negative", map[string]any{"name": "top_k", "top_k": -1}, "field top_k"},
		{"top_k fractional", map[string]any{"name": "top_k", "top_k": 2.5}, "field top_k"},
		{"string for number", map[string]any{"name": "min_p", "min_p": "0.1"}, "field min_p"},
		{"filter foreign to the name", map[string]any{"name": "min_p", "top_p": 0.9}, "field top_p: sampler min_p does not apply"},
		{"greedy with temperature", map[string]any{"name": "greedy", "temperature": 0.7}, "field temperature"},
		{"bad order", map[string]any{"name": "combined", "order": "vllm"}, "field order"},
		{"entropix unknown variant", map[string]any{"name": "entropix", "variant": "llama"}, "field variant"},
		{"entropix unknown field", map[string]any{"name": "entropix", "low_ent": 0.2}, "field low_ent"},
		{"entropix alias twice", map[string]any{"name": "entropix", "high_ent_thresh": 4.0, "high_logits_entropy": 4.0}, "given twice"},
		{"entropix bool field", map[string]any{"name": "entropix", "faithful": "yes"}, "field faithful"},
		{"entropix top_p", map[string]any{"name": "entropix", "top_p": 0.0}, "field top_p"},
		{"entropix ddof", map[string]any{"name": "entropix", "attn_varentropy_ddof": 2}, "field attn_varentropy_ddof"},
		{"entropix check", map[string]any{"name": "entropix", "clarifying_check": "all"}, "field clarifying_check"},
		{"entropix samples", map[string]any{"name": "entropix", "n_adaptive_samples": 0}, "field n_adaptive_samples"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseConfig(tt.spec)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}

func TestFlagErrors(t *testing.T) {
	for _, f := range []string{"", "min_p:0.1", "min_p,min_p", "min_p,min_p=0.1,min_p=0.2", "entropix:nope", "top_p,top_p=[1"} {
		_, err := ParseFlag(f)
		assert.Error(t, err, "flag %q", f)
	}
	_, err := ParseConfigYAML([]byte("- greedy\n"))
	assert.ErrorContains(t, err, "mapping")
	_, err = ParseConfigYAML([]byte("{name: min_p, min_p: 2}\n"))
	assert.ErrorContains(t, err, "line 1")
}

// Describe is the manifest record of a configuration; it must decode back to the
// same configuration so a run can be repeated from its manifest.
func TestDescribeRoundTrip(t *testing.T) {
	for _, f := range []string{"greedy", "temperature", "top_k", "top_p", "min_p", "combined:vllm-v1,top_p=0.8",
		"entropix", "entropix:frog,faithful=true", "entropix:smollm-135m", "entropix:smollm-360m", "entropix:smollm-1.7b,first_token_argmax=false"} {
		t.Run(f, func(t *testing.T) {
			s, err := ParseFlag(f)
			require.NoError(t, err)
			back, err := ParseConfig(s.Describe())
			require.NoError(t, err)
			assert.Equal(t, s.Describe(), back.Describe())
			out, err := yaml.Marshal(s)
			require.NoError(t, err)
			viaYAML, err := ParseConfigYAML(out)
			require.NoError(t, err)
			assert.Equal(t, s.Describe(), viaYAML.Describe())
		})
	}
}

func TestClarifyingTokenResolution(t *testing.T) {
	vocab := map[string]int32{" ...": 2564, " ?": 949}
	lookup := func(s string) (int32, bool) { id, ok := vocab[s]; return id, ok }

	s, err := ParseFlag("entropix")
	require.NoError(t, err)
	smp, err := s.New(lookup)
	require.NoError(t, err)
	assert.Equal(t, int32(2564), smp.(*Entropix).ClarifyingID())
	assert.Equal(t, 2564, smp.Describe()["clarifying_token_id"])

	s, err = ParseConfig(map[string]any{"name": "entropix", "clarifying_token": " ?"})
	require.NoError(t, err)
	smp, err = s.New(lookup)
	require.NoError(t, err)
	assert.Equal(t, int32(949), smp.(*Entropix).ClarifyingID())

	s, err = ParseConfig(map[string]any{"name": "entropix", "clarifying_token": " hmm"})
	require.NoError(t, err)
	_, err = s.New(lookup)
	assert.ErrorContains(t, err, `clarifying token " hmm" does not exist`)

	s, _ = ParseFlag("entropix")
	_, err = s.New(nil)
	assert.ErrorContains(t, err, "clarifying_token_id")
}

// Parsers take user input: they must return errors, never panic, and whatever they
// accept must describe itself in a form they accept again.
func FuzzParseFlag(f *testing.F) {
	for _, s := range []string{"greedy", "min_p,min_p=0.05", "entropix:frog,faithful=true", "combined:vllm-v1,top_k=3", "top_p,top_p=1e-9", "x:y,=,a=b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		spec, err := ParseFlag(s)
		if err != nil {
			return
		}
		if _, err := ParseConfig(spec.Describe()); err != nil {
			t.Fatalf("accepted %q but not its description: %v", s, err)
		}
	})
}

func FuzzParseSpecYAML(f *testing.F) {
	for _, s := range []string{"{name: greedy}", "name: entropix\nvariant: smollm-360m\nfaithful: true\n", "{name: top_k, top_k: 1e400}", "[1, 2]", "name: [x]"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		spec, err := ParseConfigYAML([]byte(s))
		if err != nil {
			return
		}
		if _, err := ParseConfig(spec.Describe()); err != nil {
			t.Fatalf("accepted %q but not its description: %v", s, err)
		}
	})
}
