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
