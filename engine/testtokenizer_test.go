package engine

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/entropix-eval/entropix-eval/engine/tokenizer"
)

// TestTestTokenizerLoads builds the tiny preset with the generated tokenizer and
// reads both back: the model's vocabulary, BOS and EOS agree with the tokenizer,
// text round-trips byte for byte, and " ..." is one token.
func TestTestTokenizerLoads(t *testing.T) {
	spec, err := TestModelPreset("tiny")
	require.NoError(t, err)
	spec, err = WithTestTokenizer(spec)
	require.NoError(t, err)
	dir := filepath.Join(t.TempDir(), "m")
	require.NoError(t, BuildTestModel(dir, spec))

	m, err := Load(dir)
	require.NoError(t, err)
	defer m.Close()
	require.NotEmpty(t, m.TokenizerPath)
	tok, err := tokenizer.Load(m.TokenizerPath)
	require.NoError(t, err)
	require.Equal(t, m.Config.VocabSize, tok.VocabSize())

	eosText, eos, ok := tok.EOS()
	require.True(t, ok)
	require.Equal(t, TestTokenEndOfText, eosText)
	require.Equal(t, m.Config.EOS, []int32{eos})
	require.True(t, tok.IsSpecial(eos))

	text := "Q: Mira has 4 rows of 9 tulips...\nA: Let's think step by step. Ünïcode ✓ …"
	ids, err := tok.Encode(text, true)
	require.NoError(t, err)
	back, err := tok.Decode(ids, true)
	require.NoError(t, err)
	require.Equal(t, text, back)

	dots, err := tok.Encode(" ...", false)
	require.NoError(t, err)
	require.Len(t, dots, 1, "Entropix's clarifying token is one token")

	withSpecial, err := tok.Encode("<|im_start|>user<|im_end|>", false)
	require.NoError(t, err)
	require.Equal(t, int32(TestTokenizerVocabSize-2), withSpecial[0])
	require.Equal(t, int32(TestTokenizerVocabSize-1), withSpecial[len(withSpecial)-1])
}

// TestTestTokenizerDeterministic: the files are the same bytes every time, so a
// cached demo model is recognised by their hash.
func TestTestTokenizerDeterministic(t *testing.T) {
	a1, b1, err := TestTokenizerFiles()
	require.NoError(t, err)
	a2, b2, err := TestTokenizerFiles()
	require.NoError(t, err)
	require.Equal(t, a1, a2)
	require.Equal(t, b1, b2)
}
