package eval

import "github.com/entropix-eval/entropix-eval/engine/tokenizer"

// TokenizerAdapter runs prompts through a tokenizer.json tokenizer. AddSpecial adds
// the tokenizer's BOS (plain prompts, as lm-eval does); a chat-rendered prompt
// already carries its special tokens, so it is encoded without.
type TokenizerAdapter struct {
	T          *tokenizer.Tokenizer
	AddSpecial bool
}

func (a TokenizerAdapter) Encode(text string) ([]int32, error) { return a.T.Encode(text, a.AddSpecial) }

// NewStream keeps special tokens in the text so stop strings such as <|im_end|>
// match as they do in lm-eval.
func (a TokenizerAdapter) NewStream() TextStream { return a.T.NewStreamDecoder(false) }

// NewScoredStream decodes the response lm-eval scores: special tokens skipped, as
// its HF backend's tok_decode does.
func (a TokenizerAdapter) NewScoredStream() TextStream { return a.T.NewStreamDecoder(true) }

// EncodePlain encodes without special tokens (lm-eval's tok_encode with
// add_special_tokens=False).
func (a TokenizerAdapter) EncodePlain(text string) ([]int32, error) { return a.T.Encode(text, false) }

// PrefixToken is lm-eval's prefix_token_id: the BOS token, else the EOS.
func (a TokenizerAdapter) PrefixToken() (int32, bool) {
	if _, id, ok := a.T.BOS(); ok {
		return id, true
	}
	_, id, ok := a.T.EOS()
	return id, ok
}
