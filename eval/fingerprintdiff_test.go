package eval

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/entropix-eval/entropix-eval/sampler"
)

// Refusing a changed run names what changed in full: the sampler field that
// changed (not both specs cut at the same prefix) and budgets as they were in
// effect (0 in the config is the task's budget).
func TestResumeRefusalShowsChangedFieldsInFull(t *testing.T) {
	dir := t.TempDir()
	first := fakeRun{}.runner(dir)
	first.Config.Samplers = []sampler.Spec{{Name: "greedy"}, {Name: "min_p", Label: "mp", Params: map[string]any{"temperature": 0.7, "min_p": 0.1}}}
	m, err := first.Run(context.Background())
	require.NoError(t, err)
	require.Zero(t, m.Config.MaxNewTokens, "the task's budget")

	changed := fakeRun{}.runner(dir)
	changed.Config.Samplers = []sampler.Spec{{Name: "greedy"}, {Name: "min_p", Label: "mp", Params: map[string]any{"temperature": 1.5, "min_p": 0.1}}}
	changed.Config.MaxNewTokens = m.Task.MaxNewTokens / 2
	_, err = changed.Run(context.Background())
	require.Error(t, err)
	msg := err.Error()
	assert.Contains(t, msg, "samplers[1] (mp).spec.temperature: 0.7 → 1.5")
	assert.Contains(t, msg, "max_new_tokens: "+strconv.Itoa(m.Task.MaxNewTokens)+" (the task's) → "+strconv.Itoa(m.Task.MaxNewTokens/2))
	assert.NotContains(t, msg, "…", "nothing is cut")
}

func TestValueDiffs(t *testing.T) {
	long := strings.Repeat("x", 400)
	for _, tc := range []struct {
		name     string
		old, cur string
		want     []string
	}{
		{"scalar", `1`, `2`, []string{"f: 1 → 2"}},
		{"added element", `[{"label":"a"}]`, `[{"label":"a"},{"label":"b","spec":{"x":1}}]`,
			[]string{`f[1] (b): (none) → {"label":"b","spec":{"x":1}}`}},
		{"nested field", `{"a":{"b":[1,2]}}`, `{"a":{"b":[1,3]}}`, []string{"f.a.b[1]: 2 → 3"}},
		{"long leaf named by size", `"` + long + `"`, `"y"`, []string{`f: "` + long[:299] + `… (402 bytes) → "y"`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, valueDiffs("f", []byte(tc.old), []byte(tc.cur)))
		})
	}
}
