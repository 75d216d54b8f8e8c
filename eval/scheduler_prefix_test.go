package eval

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/entropix-eval/entropix-eval/engine"
	"github.com/entropix-eval/entropix-eval/engine/prefixcache"
)

// sharingEngine is a fakeEngine with a prefix cache in 16-token blocks: every
// prompt prefix any slot was fed counts as stored. Its outputs hash the whole
// sequence, so a sequence started from the store must hold exactly the tokens a
// full prefill would.
type sharingEngine struct {
	*fakeEngine
	stored   [][]int32
	computed int // prompt tokens fed through Step
	prompts  map[int]int
}

const fakeBlock = 16

func (e *sharingEngine) CachedPrefix(prompt []int32) int {
	best := 0
	for _, s := range e.stored {
		best = max(best, prefixcache.CommonPrefix(prompt, s))
	}
	return min(best, len(prompt)-1) / fakeBlock * fakeBlock
}

func (e *sharingEngine) AttachPrefix(slot int, prompt []int32) (int, error) {
	if len(e.seqs[slot]) != 0 {
		return 0, assert.AnError
	}
	n := e.CachedPrefix(prompt)
	e.seqs[slot] = append(e.seqs[slot], prompt[:n]...)
	e.prompts[slot] = len(prompt)
	return n, nil
}

func (e *sharingEngine) Step(ctx context.Context, in []engine.Input, out *[]engine.Output) error {
	for _, x := range in {
		if have := len(e.seqs[x.Slot]); have < e.prompts[x.Slot] {
			e.computed += min(len(x.Tokens), e.prompts[x.Slot]-have)
		}
	}
	if err := e.fakeEngine.Step(ctx, in, out); err != nil {
		return err
	}
	for _, x := range in {
		e.stored = append(e.stored, append([]int32(nil), e.seqs[x.Slot]...))
	}
	return nil
}

func (e *sharingEngine) Free(slot int) {
	e.fakeEngine.Free(slot)
	e.prompts[slot] = 0
}

// TestSchedulerSharesPrefixes runs problems with a long common few-shot prefix
// through an engine with a prefix cache: the results are those of a run without
// one, each prompt is computed about once although 8 jobs use it (the later jobs
// wait for the first one's prefill instead of computing beside it), and the stats
// count what was computed.
func TestSchedulerSharesPrefixes(t *testing.T) {
	shots := strings.Repeat("Q: an example question.\nA: an example answer.\n\n", 3)
	problems := fakeProblems(6)
	for i := range problems {
		problems[i].Prompt = shots + problems[i].Prompt
	}
	ref := fakeRun{batch: 1, chunk: 1000, problems: 6}.runner(t.TempDir())
	ref.Problems = problems
	_, err := ref.Run(context.Background())
	require.NoError(t, err)
	want := outputs(t, ref.Config.Out)

	for _, batch := range []int{1, 3, 8} {
		dir := t.TempDir()
		r := fakeRun{batch: batch, chunk: 7, problems: 6}.runner(dir)
		r.Problems = problems
		var eng *sharingEngine
		r.OpenEngine = func(context.Context, int, string) (Engine, func() error, error) {
			eng = &sharingEngine{fakeEngine: newFakeEngine(batch, 7), prompts: map[int]int{}}
			return eng, nil, nil
		}
		m, err := r.Run(context.Background())
		require.NoError(t, err)
		assert.Equal(t, want, outputs(t, dir), "batch %d", batch)

		s := m.Stats
		promptLen := len(shots) + 1 + len("Q: question 0 \nA:") // the shortest prompt, BOS included
		assert.Equal(t, eng.computed, s.PrefillComputed, "batch %d", batch)
		assert.Equal(t, 6*8-1, s.PrefixHits, "batch %d: every sequence but the first reuses", batch)
		// The first prompt in full; every other sequence at most its unshared tail.
		assert.Less(t, s.PrefillComputed, promptLen+(6*8-1)*(fakeBlock+40), "batch %d", batch)
		assert.Greater(t, s.PromptTokens, 6*8*promptLen, "batch %d", batch)
	}
}
