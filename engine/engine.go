// Package engine defines what a transformer backend must do for the harness (the
// Engine contract), and owns the model description every backend shares: config.json
// parsing, weight loading (safetensors, sharded, llama2.c .bin) and the deterministic
// test-model builder. Backends live in engine/cpu and cuda.
package engine

import (
	"context"
	"fmt"

	"github.com/entropix-eval/entropix-eval/sampler/metrics"
)

// Dist and AttnStats are the per-step outputs; the math lives in sampler/metrics so the
// sampler, the CPU engine and the CUDA checks share one definition.
type (
	Dist      = metrics.Dist
	AttnStats = metrics.AttnStats
	AttnMode  = metrics.AttnMode
	AttnView  = metrics.AttnView
	// PromptStats are the metrics averaged over every prompt position (Input.PromptStats).
	PromptStats = metrics.PromptStats
	// Need is how much of a step's candidate list an input's sampler reads (Input.Need).
	Need = metrics.Need
)

// Options fixes what a backend computes besides the forward pass.
type Options struct {
	// Slots is the number of sequences that can be live at once (the batch size).
	Slots int
	// MaxSeqLen is the KV-cache length of one slot (prompt + generated tokens).
	MaxSeqLen int
	// TopK is the number of candidates returned in Dist; 0 returns the whole vocabulary.
	TopK int
	// AttnMode selects masked or padded attention statistics for inputs that name
	// no view of their own; PadLen is the padded cache size (the original Entropix
	// used 4096).
	AttnMode AttnMode
	PadLen   int
	// MetricLayer is the layer whose attention feeds AttnStats; -1 means the last layer.
	MetricLayer int
	// PrefillChunk caps the tokens of one slot processed in one Step; callers split
	// longer prompts. 0 means no cap.
	PrefillChunk int
	// Threads is the number of CPU threads (CPU backend); 0 means GOMAXPROCS.
	Threads int
	// PrefixCacheBytes bounds the memory that keeps computed prompt prefixes for
	// reuse (see PrefixSharer); 0 means DefaultPrefixCacheBytes, negative turns
	// prefix sharing off.
	PrefixCacheBytes int64
	// MatmulPrecision is how weight matmuls compute: MatmulFP32 (the default, "")
	// in float32 throughout, or MatmulBF16 with activations rounded to bfloat16
	// (see MatmulPrecision).
	MatmulPrecision MatmulPrecision
}

// Input appends Tokens to the sequence in Slot: a prefill chunk, or one decode token.
type Input struct {
	Slot   int
	Tokens []int32
	// Attn is the view this input's attention statistics are computed in (each
	// sampler of a sweep names its own, e.g. frog's 4096-slot padded cache); nil
	// means the engine's default (Options.AttnMode, Options.PadLen). A padded view
	// must hold the slot's keys after this step.
	Attn *AttnView
	// PromptStats asks for Output.Prompt: the metrics averaged over every position
	// of the slot's sequence so far, the SmolLM port's first-token metrics
	// (metrics.PromptStats). Set it on every chunk of a prompt, from position 0:
	// an engine refuses a flagged input whose slot holds tokens fed without it (a
	// prefix taken from a cache, say), and one that cannot compute it refuses the
	// input naming itself.
	PromptStats bool
	// Need, when set and Options.TopK is 0, says how much of the candidate list
	// this input's sampler reads: an engine may sort only that much up front and
	// leave the rest to Dist.Sorted. Nil sorts everything. It never changes a
	// number, only when the sorting happens.
	Need *Need
	// Score asks for the log-probabilities of given tokens (lm-eval's
	// loglikelihood requests): each entry names a position of Tokens and the
	// token whose probability of coming next is wanted. Output.Scores answers
	// them in order. Several entries may name one position (the choices of a
	// question that share their input). Only engines that are TokenScorers
	// fill them.
	Score []ScoreTarget
}

// ScoreTarget is one token to score: Token as the successor of Tokens[At].
type ScoreTarget struct {
	At    int
	Token int32
}

// TokenScore is the answer to a ScoreTarget.
type TokenScore struct {
	// LogProb is the natural-log probability of the token under the full
	// softmax (temperature 1) of the position's logits.
	LogProb float64
	// Greedy says the token is the argmax (ties go to the lowest id, as
	// torch.argmax picks them), lm-eval's is_greedy for one token.
	Greedy bool
}

// TokenScorer is an engine that fills Output.Scores for Input.Score; the
// harness refuses loglikelihood tasks on engines that are not.
type TokenScorer interface {
	ScoresTokens() bool
}

// AttnViewOf is the view an input's statistics are computed in.
func (o Options) AttnViewOf(in Input) AttnView {
	if in.Attn != nil {
		return *in.Attn
	}
	v := AttnView{Mode: o.AttnMode}
	if o.AttnMode == metrics.Padded {
		v.PadLen = o.PadLen
	}
	return v
}

// Output is the state after the last token of one Input: the distribution of the next
// token and the metric layer's attention statistics at that position.
type Output struct {
	Slot int
	Dist Dist
	Attn AttnStats
	// Prompt is filled for inputs that set PromptStats (Positions 0 otherwise).
	Prompt PromptStats
	// Scores answers Input.Score, one entry per target in its order (empty
	// when the input asked for none).
	Scores []TokenScore
}

// Engine runs a batched transformer over a fixed set of KV-cache slots.
//
// A slot holds one sequence. Step appends each input's tokens to its slot (different
// slots may get different numbers of tokens and sit at different lengths) and returns
// one Output per input, in order. Free empties a slot so a new sequence can start in
// it at once (continuous batching). On the CPU backend a sequence's numbers are
// bit-identical whatever else shares the batch and however its prompt was chunked.
type Engine interface {
	// Config is the model the engine runs.
	Config() *Config
	// Options are the engine's settings, with defaults resolved.
	Options() Options
	// Step runs one batched forward. out is resized to len(in) and its buffers
	// are reused, so callers keep one slice across steps.
	Step(ctx context.Context, in []Input, out *[]Output) error
	// Len is the number of tokens already in a slot's cache.
	Len(slot int) int
	// Free empties a slot.
	Free(slot int)
	// Close releases the engine's memory (device memory, mapped files).
	Close() error
}

// PrefixSharer is implemented by engines that keep the keys and values of the prompt
// prefixes they computed, in fixed-size token blocks under Options.PrefixCacheBytes,
// and can start a new sequence from them instead of recomputing them: the other
// samplers, seeds and repeats of a problem reuse its whole prompt, and problems that
// share a few-shot prefix reuse that prefix. A sequence started this way produces the
// same numbers as one prefilled from scratch (bit for bit on the CPU backend).
type PrefixSharer interface {
	// AttachPrefix starts the empty slot with the longest stored prefix of prompt,
	// at most len(prompt)−1 tokens (the last prompt token is always computed, so the
	// first Output comes from Step as usual), and returns how many tokens the slot
	// now holds: the caller's next Step feeds prompt from there. The slot's later
	// Steps store the blocks of prompt they complete, so the sequences after it
	// reuse them, even while it is still running.
	AttachPrefix(slot int, prompt []int32) (int, error)
	// CachedPrefix is how many tokens AttachPrefix would reuse for prompt now.
	CachedPrefix(prompt []int32) int
}

// CheckAttach is the precondition both engines put on AttachPrefix, whether or
// not sharing is on: slot in range of lens (the tokens each slot holds), the
// slot empty, and a prompt that fits the cache.
func CheckAttach(slot int, lens []int, promptLen, maxSeqLen int) error {
	switch {
	case slot < 0 || slot >= len(lens):
		return fmt.Errorf("attach prefix: slot %d outside 0..%d", slot, len(lens)-1)
	case lens[slot] != 0:
		return fmt.Errorf("attach prefix: slot %d holds %d tokens; free it first", slot, lens[slot])
	case promptLen > maxSeqLen:
		return fmt.Errorf("attach prefix: prompt of %d tokens overflows the cache of %d", promptLen, maxSeqLen)
	}
	return nil
}
