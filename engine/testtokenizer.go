package engine

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// The test tokenizer is a GPT-2-style byte-level BPE tokenizer.json made in code,
// so a random test model can run the whole text pipeline (prompts, stop strings,
// answer extraction) on a machine with no checkpoint and no network. Its layout is
// the one SmolLM2 and Qwen2 ship: ByteLevel pre-tokenizer, decoder and
// post-processor, and the special tokens both in the vocabulary and in
// added_tokens.

// Special tokens of the test tokenizer, after the byte and merge tokens.
const (
	TestTokenEndOfText = "<|endoftext|>"
	TestTokenIMStart   = "<|im_start|>"
	TestTokenIMEnd     = "<|im_end|>"
)

// testTokenizerMerges build " ..." (stored "Ġ...") as one token, Entropix's
// default clarifying token, so the demo's Entropix runs with its usual setting.
var testTokenizerMerges = [...][2]string{{".", "."}, {"Ġ", ".."}, {"Ġ..", "."}}

var testTokenizerSpecials = [...]string{TestTokenEndOfText, TestTokenIMStart, TestTokenIMEnd}

// TestTokenizerVocabSize is the test tokenizer's vocabulary: 256 byte tokens, one
// token per merge, then the special tokens.
const TestTokenizerVocabSize = 256 + len(testTokenizerMerges) + len(testTokenizerSpecials)

// testTokenizerEOS is the id of <|endoftext|>, which is also BOS (as in GPT-2).
const testTokenizerEOS = int32(256 + len(testTokenizerMerges))

// gpt2ByteAlphabet returns, in GPT-2's vocabulary order, each byte's printable
// rune (bytes_to_unicode): the printable Latin-1 bytes first as themselves, then
// the other 68 bytes as U+0100 onwards. ids 0..255 of the test vocabulary follow
// this order, as GPT-2's do.
func gpt2ByteAlphabet() []string {
	printable := func(b int) bool {
		return (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF)
	}
	out := make([]string, 0, 256)
	for b := 0; b < 256; b++ {
		if printable(b) {
			out = append(out, string(rune(b)))
		}
	}
	next := rune(256)
	for b := 0; b < 256; b++ {
		if !printable(b) {
			out = append(out, string(next))
			next++
		}
	}
	return out
}

// TestTokenizerFiles returns the test tokenizer's tokenizer.json and
// tokenizer_config.json (special-token strings; no chat template, so prompts
// stay plain text). The bytes are the same on every call.
func TestTokenizerFiles() (tokenizerJSON, configJSON []byte, err error) {
	vocab := make(map[string]int32, TestTokenizerVocabSize)
	for i, s := range gpt2ByteAlphabet() {
		vocab[s] = int32(i)
	}
	merges := make([]string, len(testTokenizerMerges))
	for i, m := range testTokenizerMerges {
		vocab[m[0]+m[1]] = int32(256 + i)
		merges[i] = m[0] + " " + m[1] // the string form every tokenizers version reads
	}
	added := make([]map[string]any, len(testTokenizerSpecials))
	for i, s := range testTokenizerSpecials {
		id := testTokenizerEOS + int32(i)
		vocab[s] = id
		added[i] = map[string]any{"id": id, "content": s, "single_word": false, "lstrip": false,
			"rstrip": false, "normalized": false, "special": true}
	}
	if len(vocab) != TestTokenizerVocabSize {
		return nil, nil, fmt.Errorf("test tokenizer: %d vocabulary entries, want %d", len(vocab), TestTokenizerVocabSize)
	}
	byteLevel := func(prefix bool) map[string]any {
		return map[string]any{"type": "ByteLevel", "add_prefix_space": prefix, "trim_offsets": true, "use_regex": true}
	}
	tj := map[string]any{
		"version": "1.0", "truncation": nil, "padding": nil,
		"added_tokens":   added,
		"normalizer":     nil,
		"pre_tokenizer":  byteLevel(false),
		"post_processor": byteLevel(true),
		"decoder":        byteLevel(true),
		"model": map[string]any{
			"type": "BPE", "dropout": nil, "unk_token": nil, "continuing_subword_prefix": nil,
			"end_of_word_suffix": nil, "fuse_unk": false, "byte_fallback": false, "ignore_merges": false,
			"vocab": vocab, "merges": merges,
		},
	}
	cj := map[string]any{
		"bos_token": TestTokenEndOfText, "eos_token": TestTokenEndOfText, "unk_token": TestTokenEndOfText,
		"add_prefix_space": false, "clean_up_tokenization_spaces": false, "model_max_length": 2048,
		"tokenizer_class": "GPT2Tokenizer",
	}
	if tokenizerJSON, err = marshalReadable(tj); err != nil {
		return nil, nil, fmt.Errorf("test tokenizer: %w", err)
	}
	if configJSON, err = marshalReadable(cj); err != nil {
		return nil, nil, fmt.Errorf("test tokenizer config: %w", err)
	}
	return tokenizerJSON, configJSON, nil
}

// marshalReadable writes JSON without escaping "<" and ">", so the special tokens
// read as they do in real files.
func marshalReadable(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// WithTestTokenizer returns spec with the test tokenizer's files added and its
// vocabulary, BOS and EOS (<|endoftext|>, as in GPT-2) in the config, so the
// model's ids and the tokenizer's agree.
func WithTestTokenizer(spec TestModelSpec) (TestModelSpec, error) {
	tj, cj, err := TestTokenizerFiles()
	if err != nil {
		return TestModelSpec{}, err
	}
	spec.Config.VocabSize = TestTokenizerVocabSize
	spec.Config.BOS = []int32{testTokenizerEOS}
	spec.Config.EOS = []int32{testTokenizerEOS}
	extra := make(map[string][]byte, len(spec.ExtraFiles)+2)
	for k, v := range spec.ExtraFiles {
		extra[k] = v
	}
	extra["tokenizer.json"] = tj
	extra["tokenizer_config.json"] = cj
	spec.ExtraFiles = extra
	return spec, nil
}
