package tokenizer

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// tinyJSON is a hand-made byte-level tokenizer.json ("ab" merges; the
// symbols of "a", "b", " " and "!" exist) with components replaced by override.
func tinyJSON(override map[string]string) string {
	parts := map[string]string{
		"normalizer":     "null",
		"pre_tokenizer":  `{"type": "ByteLevel", "add_prefix_space": false, "use_regex": true}`,
		"post_processor": "null",
		"decoder":        `{"type": "ByteLevel"}`,
		"model":          `{"type": "BPE", "vocab": {"a": 0, "b": 1, "ab": 2, "Ġ": 3, "!": 4}, "merges": ["a b"]}`,
		"added_tokens":   `[{"id": 5, "content": "<eos>", "special": true}]`,
	}
	for k, v := range override {
		parts[k] = v
	}
	var b strings.Builder
	b.WriteString("{")
	first := true
	for _, k := range []string{"added_tokens", "normalizer", "pre_tokenizer", "post_processor", "decoder", "model"} {
		if !first {
			b.WriteString(", ")
		}
		first = false
		b.WriteString(`"` + k + `": ` + parts[k])
	}
	b.WriteString("}")
	return b.String()
}

func TestParseTinyTokenizer(t *testing.T) {
	tok, err := Parse([]byte(tinyJSON(nil)))
	require.NoError(t, err)
	ids, err := tok.Encode("ab a!<eos>", true)
	require.NoError(t, err)
	require.Equal(t, []int32{2, 3, 0, 4, 5}, ids)
	text, err := tok.Decode(ids, true)
	require.NoError(t, err)
	require.Equal(t, "ab a!", text)
	require.Equal(t, 6, tok.VocabSize())
	id, ok := tok.TokenID("<eos>")
	require.True(t, ok)
	require.Equal(t, int32(5), id)
	_, err = tok.Decode([]int32{99}, false)
	require.ErrorContains(t, err, "id 99")
}

func TestParseErrorsNameTheComponent(t *testing.T) {
	cases := []struct {
		name     string
		override map[string]string
		want     string
	}{
		{"unknown pre-tokenizer", map[string]string{"pre_tokenizer": `{"type": "Whitespace"}`},
			`tokenizer.json: pre_tokenizer type "Whitespace": unsupported`},
		{"unknown nested pre-tokenizer", map[string]string{"pre_tokenizer": `{"type": "Sequence", "pretokenizers": [{"type": "Punctuation"}]}`},
			`pre_tokenizer Sequence[0]: pre_tokenizer type "Punctuation": unsupported`},
		{"unknown model", map[string]string{"model": `{"type": "WordPiece", "vocab": {}}`},
			`tokenizer.json: model type "WordPiece": unsupported`},
		{"unknown normalizer", map[string]string{"normalizer": `{"type": "BertNormalizer"}`},
			`tokenizer.json: normalizer type "BertNormalizer": unsupported`},
		{"unknown decoder", map[string]string{"decoder": `{"type": "WordPiece"}`},
			`tokenizer.json: decoder type "WordPiece": unsupported`},
		{"unknown post-processor", map[string]string{"post_processor": `{"type": "Mystery"}`},
			`tokenizer.json: post_processor type "Mystery": unsupported`},
		{"bad split behavior", map[string]string{"pre_tokenizer": `{"type": "Split", "pattern": {"String": " "}, "behavior": "Sideways"}`},
			`behavior "Sideways": unsupported`},
		{"bad regex", map[string]string{"pre_tokenizer": `{"type": "Split", "pattern": {"Regex": "("}, "behavior": "Isolated"}`},
			`pre_tokenizer Split: regex "("`},
		{"merge of unknown token", map[string]string{"model": `{"type": "BPE", "vocab": {"a": 0}, "merges": ["a z"]}`},
			`merge 0 "a z": token not in vocab`},
		{"merge without result", map[string]string{"model": `{"type": "BPE", "vocab": {"a": 0, "b": 1}, "merges": [["a", "b"]]}`},
			`result "ab" not in vocab`},
		{"malformed merge", map[string]string{"model": `{"type": "BPE", "vocab": {"a": 0}, "merges": ["a"]}`},
			`want two tokens`},
		{"dropout", map[string]string{"model": `{"type": "BPE", "dropout": 0.1, "vocab": {"a": 0}, "merges": []}`},
			`dropout 0.1: unsupported`},
		{"template without sequence", map[string]string{"post_processor": `{"type": "TemplateProcessing", "single": [], "special_tokens": {}}`},
			`single template has no sequence`},
		{"not json", map[string]string{"model": `{`}, `tokenizer.json:`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse([]byte(tinyJSON(c.override)))
			require.Error(t, err)
			require.Contains(t, err.Error(), c.want)
		})
	}
}

func TestLoadMissingFile(t *testing.T) {
	_, err := Load(t.TempDir())
	require.ErrorContains(t, err, "tokenizer.json")
}

// FuzzParse feeds arbitrary bytes to the tokenizer.json parser: it must return
// an error or a tokenizer that encodes and decodes without panicking.
func FuzzParse(f *testing.F) {
	f.Add(tinyJSON(nil))
	f.Add(tinyJSON(map[string]string{
		"normalizer":     `{"type": "Sequence", "normalizers": [{"type": "Prepend", "prepend": "▁"}, {"type": "Replace", "pattern": {"String": " "}, "content": "▁"}]}`,
		"pre_tokenizer":  "null",
		"post_processor": `{"type": "TemplateProcessing", "single": [{"SpecialToken": {"id": "<eos>"}}, {"Sequence": {"id": "A"}}], "special_tokens": {"<eos>": {"ids": [5]}}}`,
		"decoder":        `{"type": "Sequence", "decoders": [{"type": "Replace", "pattern": {"String": "▁"}, "content": " "}, {"type": "ByteFallback"}, {"type": "Fuse"}, {"type": "Strip", "content": " ", "start": 1, "stop": 0}]}`,
		"model":          `{"type": "BPE", "byte_fallback": true, "unk_token": "<0x00>", "fuse_unk": true, "vocab": {"<0x00>": 0, "<0x61>": 1, "▁": 2, "a": 3, "▁a": 4}, "merges": [["▁", "a"]]}`,
	}))
	f.Add(tinyJSON(map[string]string{
		"pre_tokenizer": `{"type": "Sequence", "pretokenizers": [{"type": "Digits", "individual_digits": true}, {"type": "Metaspace", "prepend_scheme": "first"}, {"type": "Split", "pattern": {"Regex": "\\s+(?!\\S)"}, "behavior": "MergedWithNext", "invert": true}]}`,
		"normalizer":    `{"type": "Sequence", "normalizers": [{"type": "NFKC"}, {"type": "Lowercase"}, {"type": "Strip", "strip_left": true}]}`,
	}))
	f.Fuzz(func(t *testing.T, data string) {
		tok, err := Parse([]byte(data))
		if err != nil {
			return
		}
		for _, text := range []string{"", "ab a!<eos> 12 ▁x", "\xff\xfe bad utf-8"} {
			ids, err := tok.Encode(text, true)
			if err != nil {
				continue
			}
			valid := ids[:0:0]
			for _, id := range ids {
				if _, ok := tok.TokenText(id); ok {
					valid = append(valid, id)
				}
			}
			_, _ = tok.Decode(valid, false)
		}
	})
}
