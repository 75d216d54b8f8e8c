package main

import (
	"context"
	"fmt"
	"sync"

	"github.com/entropix-eval/entropix-eval/engine"
	"github.com/entropix-eval/entropix-eval/engine/tokenizer"
	"github.com/entropix-eval/entropix-eval/eval"
)

// checkVocab refuses ids the model cannot embed: a tokenizer whose added tokens
// reach past the model's vocabulary, and sampler token ids (Entropix's
// clarifying_token_id) beyond it.
func checkVocab(cfg eval.Config, model *engine.Model, tok *tokenizer.Tokenizer, samplers []eval.SamplerFactory) error {
	vocab := model.Config.VocabSize
	if n := tok.VocabSize(); n > vocab {
		return fmt.Errorf("%s: token ids reach %d (added tokens included), beyond the model's vocabulary of %d in %s",
			model.TokenizerPath, n-1, vocab, model.Dir)
	}
	return eval.CheckTokenIDs(cfg.Samplers, samplers, vocab)
}

// preflightEngine opens worker 0's engine now, so that its memory budget is
// checked and one token's forward is seen to give finite logits before the run
// directory exists. The engine is then handed to worker 0 instead of opening a
// second one; release closes it if no worker took it.
func preflightEngine(ctx context.Context, open eval.EngineOpener, device string, token int32) (eval.EngineOpener, func(), error) {
	eng, closeEng, err := open(ctx, 0, device)
	if err != nil {
		return nil, nil, fmt.Errorf("pre-flight: open engine on %s: %w", device, err)
	}
	closeQuiet := func() {
		if closeEng != nil {
			_ = closeEng()
		}
	}
	if err := eval.CheckForward(ctx, eng, token); err != nil {
		closeQuiet()
		return nil, nil, err
	}
	var (
		mu    sync.Mutex
		taken bool
	)
	wrapped := func(ctx context.Context, worker int, dev string) (eval.Engine, func() error, error) {
		mu.Lock()
		first := worker == 0 && !taken
		taken = taken || first
		mu.Unlock()
		if first {
			return eng, closeEng, nil
		}
		return open(ctx, worker, dev)
	}
	release := func() {
		mu.Lock()
		defer mu.Unlock()
		if !taken {
			taken = true
			closeQuiet()
		}
	}
	return wrapped, release, nil
}
