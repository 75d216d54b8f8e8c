// Package loglik builds and scores lm-eval's loglikelihood requests: the
// multiple_choice, loglikelihood and loglikelihood_rolling output types. It
// turns a doc's (context, continuation) pairs into token sequences exactly as
// lm-eval's HF backend does (TemplateLM._encode_pair, loglikelihood,
// loglikelihood_rolling, utils.get_rolling_token_windows at the pinned commit),
// and a doc's log-likelihoods into lm-eval's per-doc metrics and their
// aggregations (api/task.py process_results, api/metrics.py).
package loglik

import (
	"errors"
	"fmt"
	"strings"
	"unicode"
)

// Encoder is the tokenizer as lm-eval's HF backend calls it.
type Encoder struct {
	// Encode is tok_encode(s): the special tokens the model's tokenizer adds
	// by default (Llama's BOS; none for byte-level BPE without a template), or
	// none for text that already carries them (a chat-rendered prompt).
	Encode func(string) ([]int32, error)
	// EncodePlain is tok_encode(s, add_special_tokens=False).
	EncodePlain func(string) ([]int32, error)
	// Prefix is prefix_token_id: the tokenizer's BOS, else its EOS; the
	// context of an empty-context request and of a rolling document's first
	// window.
	Prefix int32
}

// Request is one loglikelihood request: the log-probability of Continuation
// after Context.
type Request struct {
	Context, Continuation string
}

// Pair is a request's tokens: the context's, then the continuation's.
type Pair struct {
	Context, Continuation []int32
}

// EncodePair tokenizes a request as lm-eval's TemplateLM.loglikelihood does
// for a causal model. An empty context becomes [Prefix] (or, when the
// continuation itself starts with Prefix, that token). Otherwise trailing
// whitespace of the context moves to the continuation, and the continuation's
// tokens are those of context+continuation past the context's own tokens
// (_encode_pair), so a word split across the seam is tokenized as in running
// text.
func (e Encoder) EncodePair(r Request) (Pair, error) {
	if r.Context == "" {
		cont, err := e.EncodePlain(r.Continuation)
		if err != nil {
			return Pair{}, err
		}
		if len(cont) == 0 {
			return Pair{}, errors.New("empty context and an empty continuation: nothing to score")
		}
		if cont[0] == e.Prefix {
			return Pair{Context: cont[:1], Continuation: cont[1:]}, nil
		}
		return Pair{Context: []int32{e.Prefix}, Continuation: cont}, nil
	}
	ctx, cont := r.Context, r.Continuation
	if trimmed := strings.TrimRightFunc(ctx, pyIsSpace); len(trimmed) < len(ctx) {
		ctx, cont = trimmed, ctx[len(trimmed):]+cont
	}
	whole, err := e.Encode(ctx + cont)
	if err != nil {
		return Pair{}, err
	}
	ctxIDs, err := e.Encode(ctx)
	if err != nil {
		return Pair{}, err
	}
	if len(ctxIDs) > len(whole) {
		return Pair{}, fmt.Errorf("context encodes to %d tokens, more than context+continuation's %d", len(ctxIDs), len(whole))
	}
	return Pair{Context: ctxIDs, Continuation: whole[len(ctxIDs):]}, nil
}

// pyIsSpace is Python's str.isspace for one character (str.rstrip's set).
func pyIsSpace(r rune) bool { return unicode.IsSpace(r) || (r >= 0x1c && r <= 0x1f) }

// Sequence is what the engine runs for a request: Input, and the Targets its
// last len(Targets) positions predict (position len(Input)−len(Targets)+i
// predicts Targets[i]).
type Sequence struct {
	Input, Targets []int32
}

// Window is lm-eval's _loglikelihood_tokens truncation of a pair: the last
// maxLen+1 tokens of context+continuation, less the final one, are the
// input; the continuation's tokens are the targets (all of them: lm-eval
// keeps the whole continuation even when the context is cut away, and an
// input shorter than the continuation cannot occur once maxLen ≥ its length).
func (p Pair) Window(maxLen int) (Sequence, error) {
	if len(p.Continuation) == 0 {
		return Sequence{}, errors.New("the continuation has no tokens (lm-eval would score an empty slice as 0)")
	}
	if len(p.Continuation) > maxLen {
		return Sequence{}, fmt.Errorf("continuation of %d tokens exceeds max length %d", len(p.Continuation), maxLen)
	}
	whole := make([]int32, 0, len(p.Context)+len(p.Continuation))
	whole = append(append(whole, p.Context...), p.Continuation...)
	if len(whole) > maxLen+1 {
		whole = whole[len(whole)-(maxLen+1):]
	}
	return Sequence{Input: whole[:len(whole)-1], Targets: p.Continuation}, nil
}

// RollingWindows are loglikelihood_rolling's windows over a document's
// tokens (utils.get_rolling_token_windows with context_len 1, then
// make_disjoint_window): every token is predicted exactly once, the first
// after prefix, each later window with as much context as maxLen allows.
// Each window is returned as a Pair whose Window(maxLen) is the sequence the
// model runs.
func RollingWindows(tokens []int32, prefix int32, maxLen int) ([]Pair, error) {
	if maxLen < 1 {
		return nil, fmt.Errorf("max length %d: want at least 1", maxLen)
	}
	if len(tokens) == 0 {
		return nil, nil
	}
	var out []Pair
	first := min(maxLen, len(tokens))
	ctx := append([]int32{prefix}, tokens[:first-1]...)
	out = append(out, disjoint(ctx, tokens[:first]))
	predicted := first
	for predicted < len(tokens) {
		n := min(len(tokens)-predicted, maxLen) // pred_len = max_seq_len − context_len + 1
		end := predicted + n
		out = append(out, disjoint(tokens[end-maxLen-1:end-1], tokens[end-n:end]))
		predicted += n
	}
	return out, nil
}

// disjoint is make_disjoint_window: the context less its last len(pred)−1
// tokens, which the predicted tokens repeat.
func disjoint(ctx, pred []int32) Pair {
	return Pair{Context: ctx[:len(ctx)-(len(pred)-1)], Continuation: pred}
}
