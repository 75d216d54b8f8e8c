package cuda

import (
	"fmt"

	"github.com/entropix-eval/entropix-eval/engine"
)

// subBatch is one forward launch sequence: up to tokenCap token rows, and the outputs
// whose last token is among them. A Step whose inputs hold more tokens than the
// activation buffers is run as several sub-batches in order; a prompt split across
// two of them is just a chunked prefill, since attention reads earlier keys from the
// cache.
type subBatch struct {
	IDs, Pos, Slot []int32 // per token row
	OutRows        []int32 // the token row of each output in this sub-batch
	OutInputs      []int   // the Step input each output belongs to
	// ScoreRows are the token rows some input's Score targets name, in row order
	// (each once); ScoreHits the targets among them.
	ScoreRows []int32
	ScoreHits []scoreHit
}

// scoreHit is one engine.ScoreTarget in a sub-batch: Input's target Target, whose
// position is the sub-batch's scored row Row (an index into ScoreRows).
type scoreHit struct {
	Input, Target, Row int
	Token              int32
}

// Tokens is the number of token rows.
func (b *subBatch) Tokens() int { return len(b.IDs) }

// validateStep applies the CPU backend's rules to a Step's inputs (same messages), so
// a caller switching backends sees the same errors. lens are the slots' cache lengths.
func validateStep(in []engine.Input, lens []int, o *engine.Options, vocab int, seen []bool) error {
	clear(seen)
	for i, inp := range in {
		if inp.Slot < 0 || inp.Slot >= o.Slots {
			return fmt.Errorf("input %d: slot %d outside 0..%d", i, inp.Slot, o.Slots-1)
		}
		if seen[inp.Slot] {
			return fmt.Errorf("input %d: slot %d appears twice in one step", i, inp.Slot)
		}
		seen[inp.Slot] = true
		if len(inp.Tokens) == 0 {
			return fmt.Errorf("input %d (slot %d): no tokens", i, inp.Slot)
		}
		if o.PrefillChunk > 0 && len(inp.Tokens) > o.PrefillChunk {
			return fmt.Errorf("input %d (slot %d): %d tokens exceed the prefill chunk of %d; split the prompt",
				i, inp.Slot, len(inp.Tokens), o.PrefillChunk)
		}
		have := lens[inp.Slot]
		if have+len(inp.Tokens) > o.MaxSeqLen {
			return fmt.Errorf("input %d (slot %d): %d cached + %d new tokens overflow the cache of %d",
				i, inp.Slot, have, len(inp.Tokens), o.MaxSeqLen)
		}
		if err := o.AttnViewOf(inp).Fits(have + len(inp.Tokens)); err != nil {
			return fmt.Errorf("input %d (slot %d): %w", i, inp.Slot, err)
		}
		if inp.PromptStats {
			return fmt.Errorf("input %d (slot %d): prompt-averaged metrics (first_token_metrics: prompt_mean, the faithful "+
				"entropix:smollm-* first token) are computed by the cpu backend only; the cuda backend refuses them", i, inp.Slot)
		}
		for j, t := range inp.Tokens {
			if t < 0 || int(t) >= vocab {
				return fmt.Errorf("input %d (slot %d): token %d at index %d outside the vocabulary 0..%d",
					i, inp.Slot, t, j, vocab-1)
			}
		}
		for j, s := range inp.Score {
			if s.At < 0 || s.At >= len(inp.Tokens) {
				return fmt.Errorf("input %d (slot %d): score target %d at position %d outside the input's %d tokens",
					i, inp.Slot, j, s.At, len(inp.Tokens))
			}
			if s.Token < 0 || int(s.Token) >= vocab {
				return fmt.Errorf("input %d (slot %d): score target %d: token %d outside the vocabulary 0..%d",
					i, inp.Slot, j, s.Token, vocab-1)
			}
		}
	}
	return nil
}

// splitStep flattens validated inputs into sub-batches of at most tokenCap rows,
// filling each one before starting the next. The sub-batch slices are reused from
// prev when it has room.
func splitStep(in []engine.Input, lens []int, tokenCap int, prev []subBatch) []subBatch {
	bs := prev[:0]
	cur := func() *subBatch {
		if len(bs) == 0 || bs[len(bs)-1].Tokens() == tokenCap {
			if len(bs) < cap(bs) {
				bs = bs[:len(bs)+1]
				b := &bs[len(bs)-1]
				b.IDs, b.Pos, b.Slot, b.OutRows, b.OutInputs = b.IDs[:0], b.Pos[:0], b.Slot[:0], b.OutRows[:0], b.OutInputs[:0]
				b.ScoreRows, b.ScoreHits = b.ScoreRows[:0], b.ScoreHits[:0]
			} else {
				bs = append(bs, subBatch{})
			}
		}
		return &bs[len(bs)-1]
	}
	var targetsAt [][]int
	for i, inp := range in {
		start := lens[inp.Slot]
		targetsAt = scoreTargetsByPosition(inp, targetsAt)
		for j, t := range inp.Tokens {
			b := cur()
			b.IDs = append(b.IDs, t)
			b.Pos = append(b.Pos, int32(start+j))
			b.Slot = append(b.Slot, int32(inp.Slot))
			if j == len(inp.Tokens)-1 {
				b.OutRows = append(b.OutRows, int32(b.Tokens()-1))
				b.OutInputs = append(b.OutInputs, i)
			}
			if len(inp.Score) > 0 && len(targetsAt[j]) > 0 {
				b.ScoreRows = append(b.ScoreRows, int32(b.Tokens()-1))
				for _, k := range targetsAt[j] {
					b.ScoreHits = append(b.ScoreHits, scoreHit{Input: i, Target: k, Row: len(b.ScoreRows) - 1, Token: inp.Score[k].Token})
				}
			}
		}
	}
	return bs
}

// scoreTargetsByPosition lists, for each of inp's token positions, the indices of the
// Score targets there (reusing prev's slices); empty when inp scores nothing.
func scoreTargetsByPosition(inp engine.Input, prev [][]int) [][]int {
	if len(inp.Score) == 0 {
		return prev
	}
	if cap(prev) < len(inp.Tokens) {
		prev = append(prev[:cap(prev)], make([][]int, len(inp.Tokens)-cap(prev))...)
	}
	at := prev[:len(inp.Tokens)]
	for j := range at {
		at[j] = at[j][:0]
	}
	for k, s := range inp.Score {
		at[s.At] = append(at[s.At], k)
	}
	return at
}

// maxKeys is the longest attention row of a sub-batch (its largest position + 1).
func (b *subBatch) maxKeys() int {
	m := 0
	for _, p := range b.Pos {
		m = max(m, int(p)+1)
	}
	return m
}
