package tokenizer

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// An older Mistral/TinyLlama-style pipeline: NFC normalizer, Metaspace
// pre-tokenizer and decoder. Expected ids are derived by hand: spaces become
// "▁", "▁" is prepended (only to the text's start for scheme "first"), and the
// text is split before each "▁".
func metaspaceJSON(scheme string, split bool) string {
	s := "false"
	if split {
		s = "true"
	}
	return `{
  "added_tokens": [{"id": 9, "content": "<s>", "special": true}],
  "normalizer": {"type": "NFC"},
  "pre_tokenizer": {"type": "Metaspace", "replacement": "▁", "prepend_scheme": "` + scheme + `", "split": ` + s + `},
  "post_processor": {"type": "TemplateProcessing", "single": [{"SpecialToken": {"id": "<s>", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}}],
                     "special_tokens": {"<s>": {"id": "<s>", "ids": [9], "tokens": ["<s>"]}}},
  "decoder": {"type": "Metaspace", "replacement": "▁", "prepend_scheme": "` + scheme + `", "split": ` + s + `},
  "model": {"type": "BPE", "vocab": {"▁": 0, "a": 1, "b": 2, "é": 3, "▁a": 4, "▁b": 5, "▁é": 6, "▁▁": 7}, "merges": ["▁ a", "▁ b", "▁ é", "▁ ▁"]}
}`
}

func TestMetaspacePipeline(t *testing.T) {
	cases := []struct {
		scheme  string
		split   bool
		text    string
		special bool
		want    []int32
		decoded string
	}{
		{"always", true, "a b", false, []int32{4, 5}, "a b"},
		{"always", true, "a b", true, []int32{9, 4, 5}, "<s> a b"}, // only the first token loses its "▁"
		{"always", true, "e\u0301", false, []int32{6}, "é"},        // NFC composes e + U+0301
		{"always", true, "a<s>b", false, []int32{4, 9, 5}, "a<s> b"},
		{"first", true, "a<s>b", false, []int32{4, 9, 2}, "a<s>b"},
		{"never", true, "a b", false, []int32{1, 5}, "a b"},
		{"always", false, "a  b", false, []int32{4, 0, 5}, "a  b"}, // "▁ a" and "▁ b" outrank "▁ ▁"
		{"always", true, "  a", false, []int32{0, 4}, " a"},        // split before each "▁"; the first token decodes to ""
	}
	for _, c := range cases {
		tok, err := Parse([]byte(metaspaceJSON(c.scheme, c.split)))
		require.NoError(t, err)
		ids, err := tok.Encode(c.text, c.special)
		require.NoError(t, err)
		require.Equal(t, c.want, ids, "%s split=%v %q", c.scheme, c.split, c.text)
		text, err := tok.Decode(ids, false)
		require.NoError(t, err)
		require.Equal(t, c.decoded, text, "%s %q", c.scheme, c.text)
	}
}
