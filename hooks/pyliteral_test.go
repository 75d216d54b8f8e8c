package hooks

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The literal reader on the syntax lang_libs.py uses, its escapes and
// adjacent-literal joining, worked out by hand from Python's rules.
func TestPyDictOfStringLists(t *testing.T) {
	src := "X = 1\nLANG_LIBS = {\n    # comment\n    \"en\": [\n        \"Question:\",\n        'it\\'s \"q\"',  # trailing\n        \"a\\\\b\\nc\\u00e9\" 'd',\n    ],\n    'ja': [\"質問：\"],\n}\nOTHER = {}\n"
	got, err := pyDictOfStringLists(src, "LANG_LIBS")
	require.NoError(t, err)
	assert.Equal(t, map[string][]string{"en": {"Question:", `it's "q"`, "a\\b\ncéd"}, "ja": {"質問："}}, got)
	_, err = pyDictOfStringLists(src, "MISSING")
	assert.ErrorContains(t, err, "no assignment to MISSING")
	_, err = pyDictOfStringLists("LANG_LIBS = {\"en\": [\"x\\q\"]}", "LANG_LIBS")
	assert.ErrorContains(t, err, `escape \q`)
}

// The literal reader never panics or loops on arbitrary text, and what it
// reads from a dict it wrote itself comes back.
func FuzzPyDictOfStringLists(f *testing.F) {
	f.Add("LANG_LIBS = {\"en\": [\"Question:\", 'it\\'s']}", "x")
	f.Add("LANG_LIBS = {", "")
	f.Add("\nLANG_LIBS = {'a': ['\\u00e9' \"b\"],}", "y\\n")
	f.Fuzz(func(t *testing.T, src, s string) {
		_, _ = pyDictOfStringLists(src, "LANG_LIBS")
		if !utf8.ValidString(s) {
			return
		}
		lit := `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`, "\t", `\t`).Replace(s) + `"`
		got, err := pyDictOfStringLists("LANG_LIBS = {"+lit+": ["+lit+", "+lit+"]}", "LANG_LIBS")
		require.NoError(t, err)
		assert.Equal(t, map[string][]string{s: {s, s}}, got)
	})
}
