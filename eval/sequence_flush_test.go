package eval

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/entropix-eval/entropix-eval/engine"
	"github.com/entropix-eval/entropix-eval/sampler"
)

// holdingStream holds every token's text back until Flush, like a byte-level
// decoder waiting for the rest of a multi-byte character.
type holdingStream struct{ held string }

func (h *holdingStream) Next(id int32) (string, error) {
	h.held += string(rune('a' + id))
	return "", nil
}

func (h *holdingStream) Flush() (string, error) {
	out := h.held
	h.held = ""
	return out, nil
}

// scriptedChooser returns the given tokens in order.
type scriptedChooser struct{ tokens []int32 }

func (c *scriptedChooser) Choose(_ *engine.Dist, _ *engine.AttnStats, history []int32, promptLen int) (sampler.Decision, error) {
	return sampler.Decision{Token: c.tokens[len(history)-promptLen], Strategy: "scripted"}, nil
}

// scriptedSequence is a sequence past its one-token prompt that generates tokens;
// scored may be nil.
func scriptedSequence(tokens []int32, stream, scored TextStream) *sequence {
	return &sequence{
		item:   workItem{problem: &preparedProblem{Problem: Problem{ID: "p"}}},
		tokens: []int32{7}, promptLen: 1,
		chooser: &scriptedChooser{tokens: tokens}, stream: stream, scored: scored,
	}
}

// runToEnd advances s until it finishes and returns its journal record.
func runToEnd(t *testing.T, s *sequence, lim *limits) Record {
	t.Helper()
	var out engine.Output
	for s.finish == "" {
		c := s.choose(&out, lim)
		require.NoError(t, c.err)
		require.NoError(t, s.apply(&out, c, lim))
	}
	return s.record()
}

func TestSequenceFlushesHeldTextAtTheEnd(t *testing.T) {
	tests := []struct {
		name       string
		tokens     []int32
		stops      []string
		wantText   string
		wantFinish string
	}{
		{"length keeps the held bytes", []int32{0, 1, 2}, nil, "abc", FinishLength},
		{"eos keeps the held bytes", []int32{0, 1, 99}, nil, "ab", FinishEOS},
		{"a stop string in the held bytes still cuts", []int32{0, 1, 2}, []string{"bc"}, "a", FinishStop},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lim := &limits{maxNew: 3, maxSeqLen: 100, stops: newStopMatcher(tt.stops), eos: map[int32]bool{99: true}}
			s := scriptedSequence(tt.tokens, &holdingStream{}, nil)
			rec := runToEnd(t, s, lim)
			assert.Equal(t, tt.wantFinish, rec.FinishReason)
			assert.Equal(t, tt.wantText, rec.Response)
			joined := ""
			for _, st := range rec.Trace {
				joined += st.Text
			}
			assert.Equal(t, s.text.String(), joined, "trace texts join to the decoded text")
		})
	}
}
