package sampler

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"
)

// Every --sampler spelling the README, docs/samplers.md and sampler/README.md show,
// and the forms the grammar allows, parsed to the Spec as written and resolved to the
// variant and fields the sampler is built with.
func TestParseSpecSpellings(t *testing.T) {
	for _, tc := range []struct {
		in     string
		spec   Spec
		config map[string]any // fields of Config.Describe()
	}{
		{"greedy", Spec{Name: "greedy"}, map[string]any{"name": "greedy", "temperature": 0.0}},
		{"min_p", Spec{Name: "min_p"}, map[string]any{"name": "min_p", "min_p": 0.1, "temperature": 1.0}},
		{"entropix", Spec{Name: "entropix"}, map[string]any{"variant": "original", "faithful": false}},
		{"entropix:frog", Spec{Name: "entropix:frog"}, map[string]any{"variant": "frog", "faithful": false}},
		// sampler/README.md's spelling: once ran plain entropix (the confirmed bug).
		{"entropix:frog,faithful=true", Spec{Name: "entropix:frog", Params: map[string]any{"faithful": true}},
			map[string]any{"variant": "frog", "faithful": true}},
		{"entropix:frog:faithful=true", Spec{Name: "entropix:frog", Params: map[string]any{"faithful": true}},
			map[string]any{"variant": "frog", "faithful": true}},
		{"entropix:smollm-360m,faithful=true", Spec{Name: "entropix:smollm-360m", Params: map[string]any{"faithful": true}},
			map[string]any{"variant": "smollm-360m", "faithful": true}},
		{"entropix:frog:attn_mode=padded", Spec{Name: "entropix:frog", Params: map[string]any{"attn_mode": "padded"}},
			map[string]any{"variant": "frog", "attn_mode": "padded"}},
		{"min_p:temperature=0.7,min_p=0.1", Spec{Name: "min_p", Params: map[string]any{"temperature": 0.7, "min_p": 0.1}},
			map[string]any{"name": "min_p", "temperature": 0.7, "min_p": 0.1}},
		{"min_p,min_p=0.05,temperature=1.5", Spec{Name: "min_p", Params: map[string]any{"min_p": 0.05, "temperature": 1.5}},
			map[string]any{"name": "min_p", "temperature": 1.5, "min_p": 0.05}},
		{"combined:vllm-v1,top_p=0.9", Spec{Name: "combined:vllm-v1", Params: map[string]any{"top_p": 0.9}},
			map[string]any{"name": "combined", "order": "vllm-v1", "top_p": 0.9}},
		{"top_k:top_k=3", Spec{Name: "top_k", Params: map[string]any{"top_k": 3.0}},
			map[string]any{"name": "top_k", "top_k": 3}},
	} {
		t.Run(tc.in, func(t *testing.T) {
			got, err := ParseSpec(tc.in)
			require.NoError(t, err)
			assert.Equal(t, tc.spec, got)
			c, err := got.Config()
			require.NoError(t, err)
			desc := c.Describe()
			for k, v := range tc.config {
				assert.Equal(t, v, desc[k], k)
			}
			// The flag, the comma list and YAML reduce to the same Spec.
			list, err := ParseSpecs(tc.in)
			if err == nil && len(list) == 1 {
				assert.Equal(t, got, list[0])
			}
			y, err := yaml.Marshal(map[string]any(mustJSONMap(t, got)))
			require.NoError(t, err)
			var viaYAML Spec
			require.NoError(t, yaml.Unmarshal(y, &viaYAML))
			assert.Equal(t, got, viaYAML)
			assert.Equal(t, got.DisplayLabel(), viaYAML.DisplayLabel())
		})
	}
}

func mustJSONMap(t *testing.T, s Spec) map[string]any {
	b, err := json.Marshal(s)
	require.NoError(t, err)
	var m map[string]any
	require.NoError(t, json.Unmarshal(b, &m))
	return m
}

// A spelling that is not one sampler, or a field that is unknown or given twice, is
// an error naming it; nothing is dropped or overridden silently.
func TestParseSpecErrors(t *testing.T) {
	for in, want := range map[string]string{
		"":                                   "want NAME",
		"min_p=0.1":                          "write NAME:FIELD=VALUE",
		"greedy,min_p":                       "want NAME[:VARIANT][:FIELD=VALUE,...]",
		"entropix:frog,faithful=true,greedy": "reads as 2 samplers",
		"min_p,min_p=0.1,min_p=0.2":          "field min_p given twice",
	} {
		_, err := ParseSpec(in)
		assert.ErrorContains(t, err, want, in)
	}
	for in, want := range map[string]string{
		"min_p:0.1":                      "only entropix:<variant> and combined:<order> take a ':' suffix",
		"entropix:frog,variant=original": "field variant given twice",
		"combined:vllm-v1,order=hf":      "field order given twice",
		"min_p,min_pp=0.1":               "field min_pp: unknown for sampler min_p",
		"entropix:frogg":                 `unknown Entropix variant "frogg"`,
		"entropix:frog,faithfull=true":   "field faithfull: unknown Entropix field",
		"top_p,min_p=0.1":                "field min_p: sampler top_p does not apply min_p",
		"greedy,temperature=0.7":         "field temperature: greedy has temperature 0",
	} {
		s, err := ParseSpec(in)
		require.NoError(t, err, in)
		_, err = s.Config()
		assert.ErrorContains(t, err, want, in)
	}
}

// Parsers take user input: no panic, and whatever they accept writes itself (JSON,
// as the manifest holds it) in a form they read back to the same Spec.
func FuzzParseSpecs(f *testing.F) {
	for _, s := range []string{"greedy", "min_p,min_p=0.05", "entropix:frog,faithful=true", "combined:vllm-v1,top_k=3",
		"greedy,min_p,entropix:frog", "x:y,=,a=b", "min_p:temperature=0.7,min_p=0.1", "a,label=x,b=[1,2]"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		specs, err := ParseSpecs(s)
		if err == nil {
			for _, sp := range specs {
				b, err := json.Marshal(sp)
				require.NoError(t, err)
				var back Spec
				require.NoError(t, json.Unmarshal(b, &back))
				assert.Equal(t, sp.DisplayLabel(), back.DisplayLabel())
				_, _ = sp.Config()
			}
		}
		if one, err := ParseSpec(s); err == nil {
			_, _ = one.Config()
		}
	})
}
