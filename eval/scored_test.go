package eval

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// mapStream decodes ids through a table; ids at or above special are special
// tokens, whose text it drops when skip is set.
type mapStream struct {
	text    map[int32]string
	special int32
	skip    bool
}

func (m mapStream) Next(id int32) (string, error) {
	if m.skip && id >= m.special {
		return "", nil
	}
	return m.text[id], nil
}

func (mapStream) Flush() (string, error) { return "", nil }

// The response is what lm-eval's HF backend scores: every generated id decoded
// with special tokens skipped, cut at the earliest stop string; generation itself
// stops on text that keeps them (as HF's stop criterion decodes).
func TestResponseSkipsSpecialTokens(t *testing.T) {
	table := map[int32]string{0: "The final answer is 4", 1: ".", 2: " user", 3: " Q:", 50: "<|eot_id|>", 51: "<|start_header_id|>", 52: "<|end_header_id|>"}
	tests := []struct {
		name       string
		tokens     []int32
		stops      []string
		want       string
		wantFinish string
	}{
		// A special token mid-response leaves no text in the scored response.
		{"special skipped", []int32{0, 51, 1, 99}, nil, "The final answer is 4.", FinishEOS},
		// Stopping on "<|start_header_id|> user": the scored text no longer holds
		// the stop (its special token is skipped), so, as in lm-eval, " user" stays.
		{"special stop", []int32{0, 51, 2, 1}, []string{"<|start_header_id|> user"}, "The final answer is 4 user", FinishStop},
		// An ordinary stop string cuts the scored text too.
		{"plain stop", []int32{0, 3, 1}, []string{"Q:"}, "The final answer is 4 ", FinishStop},
		{"length", []int32{0, 50, 1, 1}, nil, "The final answer is 4..", FinishLength},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lim := &limits{maxNew: 4, maxSeqLen: 100, stops: newStopMatcher(tt.stops), eos: map[int32]bool{99: true}}
			s := scriptedSequence(tt.tokens, mapStream{text: table, special: 50}, mapStream{text: table, special: 50, skip: true})
			rec := runToEnd(t, s, lim)
			assert.Equal(t, tt.wantFinish, rec.FinishReason)
			assert.Equal(t, tt.want, rec.Response)
		})
	}
}
