package safepath

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestName(t *testing.T) {
	for _, tc := range []struct {
		name, why string
	}{
		{"gsm8k_cot", ""},
		{"bbh_cot_fewshot_date_understanding", ""},
		{"mmlu-pro.v2", ""},
		{"..x", ""},
		{"", "empty"},
		{".", "names a folder"},
		{"..", "names a folder"},
		{"/../../../../../../../../../../X/PWNED", "path separator"},
		{"a/b", "path separator"},
		{`a\b`, "path separator"},
		{"a\x00b", "control character"},
		{"a\nb", "control character"},
		{strings.Repeat("a", 256), "256 bytes long"},
	} {
		err := Name("task", tc.name)
		if tc.why == "" {
			assert.NoError(t, err, tc.name)
			continue
		}
		require.ErrorIs(t, err, ErrUnsafe, tc.name)
		assert.ErrorContains(t, err, tc.why)
	}
}

func TestJoin(t *testing.T) {
	root := filepath.FromSlash("/runs/out")
	for _, tc := range []struct {
		elems []string
		want  string // "" when refused
	}{
		{[]string{"gsm8k"}, "/runs/out/gsm8k"},
		{[]string{"a", "..", "b"}, "/runs/out/b"},
		{[]string{"..x"}, "/runs/out/..x"},
		{[]string{".."}, ""},
		{[]string{"a", "../.."}, ""},
		{[]string{"samples_/../../../../../../../../../../X/PWNED_2026.jsonl"}, ""},
		{[]string{"../../X/PWNED_2026.jsonl"}, ""},
	} {
		got, err := Join(root, tc.elems...)
		if tc.want == "" {
			assert.ErrorIs(t, err, ErrUnsafe, "%q", tc.elems)
			continue
		}
		require.NoError(t, err)
		assert.Equal(t, filepath.FromSlash(tc.want), got)
	}
	got, err := Join("rel", "x")
	require.NoError(t, err)
	assert.Equal(t, filepath.Join("rel", "x"), got)
	_, err = Join("rel", "../x")
	assert.ErrorIs(t, err, ErrUnsafe)
}
