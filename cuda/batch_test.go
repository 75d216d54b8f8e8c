package cuda

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/entropix-eval/entropix-eval/engine"
)

func TestValidateStepMatchesCPURules(t *testing.T) {
	o := &engine.Options{Slots: 4, MaxSeqLen: 10, PrefillChunk: 5}
	lens := []int{0, 8, 0, 0}
	seen := make([]bool, 4)
	for _, tc := range []struct {
		in   []engine.Input
		want string
	}{
		{[]engine.Input{{Slot: 4, Tokens: []int32{1}}}, "slot 4 outside 0..3"},
		{[]engine.Input{{Slot: 0, Tokens: []int32{1}}, {Slot: 0, Tokens: []int32{2}}}, "slot 0 appears twice"},
		{[]engine.Input{{Slot: 2}}, "no tokens"},
		{[]engine.Input{{Slot: 2, Tokens: make([]int32, 6)}}, "exceed the prefill chunk of 5"},
		{[]engine.Input{{Slot: 1, Tokens: make([]int32, 3)}}, "8 cached + 3 new tokens overflow the cache of 10"},
		{[]engine.Input{{Slot: 0, Tokens: []int32{1, 100}}}, "token 100 at index 1 outside the vocabulary 0..99"},
		{[]engine.Input{{Slot: 0, Tokens: []int32{-1}}}, "token -1"},
		{[]engine.Input{{Slot: 0, Tokens: []int32{1}, PromptStats: true}}, "computed by the cpu backend only; the cuda backend refuses them"},
	} {
		require.ErrorContains(t, validateStep(tc.in, lens, o, 100, seen), tc.want)
	}
	require.NoError(t, validateStep([]engine.Input{{Slot: 1, Tokens: []int32{1, 2}}, {Slot: 0, Tokens: []int32{3}}}, lens, o, 100, seen))
}

func TestSplitStep(t *testing.T) {
	lens := []int{5, 0, 2}
	in := []engine.Input{
		{Slot: 2, Tokens: []int32{10}},         // decode at position 2
		{Slot: 1, Tokens: []int32{20, 21, 22}}, // prefill from 0
		{Slot: 0, Tokens: []int32{30, 31}},     // chunk at 5..6
	}
	bs := splitStep(in, lens, 100, nil)
	require.Len(t, bs, 1)
	b := bs[0]
	require.Equal(t, []int32{10, 20, 21, 22, 30, 31}, b.IDs)
	require.Equal(t, []int32{2, 0, 1, 2, 5, 6}, b.Pos)
	require.Equal(t, []int32{2, 1, 1, 1, 0, 0}, b.Slot)
	require.Equal(t, []int32{0, 3, 5}, b.OutRows)
	require.Equal(t, []int{0, 1, 2}, b.OutInputs)
	require.Equal(t, 7, b.maxKeys())

	// A cap of 2 rows splits the prompt of slot 1 across sub-batches; its output
	// comes from the sub-batch with its last token, and every row keeps its position.
	bs = splitStep(in, lens, 2, bs)
	require.Len(t, bs, 3)
	require.Equal(t, []int32{10, 20}, bs[0].IDs)
	require.Equal(t, []int32{0}, bs[0].OutRows)
	require.Equal(t, []int{0}, bs[0].OutInputs)
	require.Equal(t, []int32{21, 22}, bs[1].IDs)
	require.Equal(t, []int32{1, 2}, bs[1].Pos)
	require.Equal(t, []int32{1}, bs[1].OutRows)
	require.Equal(t, []int{1}, bs[1].OutInputs)
	require.Equal(t, []int32{5, 6}, bs[2].Pos)
	require.Equal(t, []int{2}, bs[2].OutInputs)

	// Reuse: a smaller step after a bigger one leaves no stale rows.
	bs = splitStep(in[:1], lens, 2, bs)
	require.Len(t, bs, 1)
	require.Equal(t, []int32{10}, bs[0].IDs)
	require.Equal(t, []int{0}, bs[0].OutInputs)
}
