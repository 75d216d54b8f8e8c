package hooks

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// multi_choice_regex follows MultiChoiceRegexFilter: the regex first; then
// the doc's choice texts (normalised) map to "(A)".."(D)"; then ": B"
// letters; else the fallback. Wants worked out by hand.
func TestMultiChoiceRegexFilter(t *testing.T) {
	doc := map[string]any{"choices": []any{"Left common carotid artery", "Brachiocephalic trunk", "Left subclavian artery", "Right coronary artery"}}
	params := map[string]any{"group_select": int64(-1), "ignore_case": true, "ignore_punctuation": true, "regex_pattern": `(\([A-Z]\))`}
	for _, tc := range []struct{ resp, want string }{
		{"It is (A), no wait, (B).", "(B)"},
		{"The first branch is the brachiocephalic trunk.", "(B)"},
		{"Left subclavian artery! That one.", "(C)"},
		{"The answer: D", "(D)"},
		{"I cannot tell.", "[invalid]"},
		{"Right coronary artery or left common carotid artery", "(A)"},
	} {
		got, err := runFilter(t, "multi_choice_regex", params, values(tc.resp), doc)
		require.NoError(t, err)
		assert.Equal(t, values(tc.want), got, tc.resp)
	}
	_, err := runFilter(t, "multi_choice_regex", params, values("x"), map[string]any{})
	assert.ErrorContains(t, err, `no list column "choices"`)
}

// BenchmarkMultiChoiceFallback is the slow path of multi_choice_regex: no
// letter in the response, so the choice texts are searched.
func BenchmarkMultiChoiceFallback(b *testing.B) {
	f, err := NewFilter("multi_choice_regex", map[string]any{"group_select": int64(-1), "ignore_case": true, "ignore_punctuation": true, "regex_pattern": `(\([A-Z]\))`})
	require.NoError(b, err)
	doc := map[string]any{"choices": []any{"Left common carotid artery", "Brachiocephalic trunk", "Left subclavian artery", "Right coronary artery"}}
	v := values(strings.Repeat("The aorta gives off branches; ", 20) + "the first is the brachiocephalic trunk.")
	for b.Loop() {
		if _, err := f(v, doc); err != nil {
			b.Fatal(err)
		}
	}
}
