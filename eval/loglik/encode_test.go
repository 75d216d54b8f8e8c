package loglik

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/entropix-eval/entropix-eval/engine/tokenizer"
	"github.com/entropix-eval/entropix-eval/internal/sharedtest"
)

// realEncoder is lm-eval's tok_encode over a shared tokenizer.json: the
// tokenizer's own special tokens by default, none for EncodePlain.
func realEncoder(t *testing.T, name string) (Encoder, *tokenizer.Tokenizer) {
	t.Helper()
	tok, err := tokenizer.Load(sharedtest.Path(t, "tokenizers/"+name+"/tokenizer.json"))
	require.NoError(t, err)
	prefix := int32(-1)
	if _, id, ok := tok.BOS(); ok {
		prefix = id
	} else if _, id, ok := tok.EOS(); ok {
		prefix = id
	}
	return Encoder{
		Encode:      func(s string) ([]int32, error) { return tok.Encode(s, true) },
		EncodePlain: func(s string) ([]int32, error) { return tok.Encode(s, false) },
		Prefix:      prefix,
	}, tok
}

// vocab looks pieces up in the vocabulary: the expected ids are derived by
// hand from the pieces a word is, not from the encoder under test.
func vocab(t *testing.T, tok *tokenizer.Tokenizer, pieces ...string) []int32 {
	t.Helper()
	var out []int32
	for _, p := range pieces {
		id, ok := tok.TokenID(p)
		require.True(t, ok, "piece %q is in the vocabulary", p)
		out = append(out, id)
	}
	return out
}

func TestEncodePairRealTokenizers(t *testing.T) {
	t.Run("byte-level BPE (smollm), no BOS", func(t *testing.T) {
		e, tok := realEncoder(t, "smollm")
		for _, c := range []struct {
			name      string
			req       Request
			ctx, cont []string
		}{
			// The trailing space moves to the continuation: " Paris" is one piece.
			{"trailing space", Request{"The capital of France is ", "Paris"},
				[]string{"The", "Ġcapital", "Ġof", "ĠFrance", "Ġis"}, []string{"ĠParis"}},
			// target_delimiter " " + choice, as multiple_choice builds it.
			{"delimiter in the continuation", Request{"Question: Is it?\nAnswer:", " yes"},
				[]string{"Question", ":", "ĠIs", "Ġit", "?", "Ċ", "Answer", ":"}, []string{"Ġyes"}},
			// Two trailing whitespace characters move together.
			{"newline and space", Request{"Answer:\n ", "B"},
				[]string{"Answer", ":"}, []string{"Ċ", "ĠB"}},
		} {
			t.Run(c.name, func(t *testing.T) {
				p, err := e.EncodePair(c.req)
				require.NoError(t, err)
				require.Equal(t, vocab(t, tok, c.ctx...), p.Context)
				require.Equal(t, vocab(t, tok, c.cont...), p.Continuation)
			})
		}
	})
	t.Run("SentencePiece BPE (llama2), BOS added", func(t *testing.T) {
		e, tok := realEncoder(t, "llama2")
		bos := vocab(t, tok, "<s>")
		p, err := e.EncodePair(Request{"The capital of France is ", "Paris"})
		require.NoError(t, err)
		require.Equal(t, append(bos, vocab(t, tok, "▁The", "▁capital", "▁of", "▁France", "▁is")...), p.Context)
		require.Equal(t, vocab(t, tok, "▁Paris"), p.Continuation)

		// Empty context: [prefix_token_id] (BOS) + the continuation without specials.
		p, err = e.EncodePair(Request{"", " Paris"})
		require.NoError(t, err)
		require.Equal(t, bos, p.Context)
		require.Equal(t, vocab(t, tok, "▁", "▁Paris"), p.Continuation, "SentencePiece's dummy prefix makes ' Paris' two pieces")
	})
}

// fakeEncoder maps each character to its code point; Encode adds 1 (BOS) in
// front.
func fakeEncoder(bos bool) Encoder {
	plain := func(s string) ([]int32, error) {
		var out []int32
		for _, r := range s {
			out = append(out, int32(r))
		}
		return out, nil
	}
	return Encoder{
		EncodePlain: plain,
		Encode: func(s string) ([]int32, error) {
			ids, _ := plain(s)
			if bos {
				ids = append([]int32{1}, ids...)
			}
			return ids, nil
		},
		Prefix: 1,
	}
}

func TestEncodePairRules(t *testing.T) {
	e := fakeEncoder(true)
	for _, c := range []struct {
		name      string
		req       Request
		ctx, cont []int32
	}{
		{"plain", Request{"ab", "c"}, []int32{1, 'a', 'b'}, []int32{'c'}},
		{"trailing whitespace moves", Request{"ab \t", "c"}, []int32{1, 'a', 'b'}, []int32{' ', '\t', 'c'}},
		{"unicode whitespace moves too", Request{"ab\u00a0", "c"}, []int32{1, 'a', 'b'}, []int32{0xa0, 'c'}},
		{"empty context gets the prefix token", Request{"", "xy"}, []int32{1}, []int32{'x', 'y'}},
		{"a continuation starting with the prefix keeps it as context", Request{"", "\x01xy"}, []int32{1}, []int32{'x', 'y'}},
	} {
		t.Run(c.name, func(t *testing.T) {
			p, err := e.EncodePair(c.req)
			require.NoError(t, err)
			require.Equal(t, c.ctx, p.Context)
			require.Equal(t, c.cont, p.Continuation)
		})
	}
	_, err := e.EncodePair(Request{"", ""})
	require.Error(t, err)
}

func TestWindowTruncatesOnTheLeft(t *testing.T) {
	p := Pair{Context: []int32{1, 2, 3, 4, 5}, Continuation: []int32{6, 7}}
	s, err := p.Window(100)
	require.NoError(t, err)
	require.Equal(t, Sequence{Input: []int32{1, 2, 3, 4, 5, 6}, Targets: []int32{6, 7}}, s)
	// (ctx+cont)[-(4+1):][:-1] = [3 4 5 6 7][:-1]
	s, err = p.Window(4)
	require.NoError(t, err)
	require.Equal(t, Sequence{Input: []int32{3, 4, 5, 6}, Targets: []int32{6, 7}}, s)
	_, err = p.Window(1)
	require.ErrorContains(t, err, "exceeds max length")
	_, err = Pair{Context: []int32{1}}.Window(4)
	require.Error(t, err)
}

// TestRollingWindows is get_rolling_token_windows' own docstring example
// (tokens 0..9, max length 4), then make_disjoint_window, as the model runs
// each window.
func TestRollingWindows(t *testing.T) {
	const bos = 100
	tokens := []int32{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}
	ws, err := RollingWindows(tokens, bos, 4)
	require.NoError(t, err)
	want := []Sequence{
		{Input: []int32{bos, 0, 1, 2}, Targets: []int32{0, 1, 2, 3}},
		{Input: []int32{3, 4, 5, 6}, Targets: []int32{4, 5, 6, 7}},
		{Input: []int32{5, 6, 7, 8}, Targets: []int32{8, 9}},
	}
	require.Len(t, ws, len(want))
	for i, w := range ws {
		s, err := w.Window(4)
		require.NoError(t, err)
		require.Equal(t, want[i], s, "window %d", i)
	}
	// A document shorter than the max length is one window.
	ws, err = RollingWindows(tokens[:3], bos, 8)
	require.NoError(t, err)
	require.Equal(t, []Pair{{Context: []int32{bos}, Continuation: []int32{0, 1, 2}}}, ws)
	ws, err = RollingWindows(nil, bos, 8)
	require.NoError(t, err)
	require.Empty(t, ws)
}

// FuzzRollingWindows: every token is predicted exactly once, in order, and
// no window's input exceeds the max length.
func FuzzRollingWindows(f *testing.F) {
	f.Add(10, 4)
	f.Add(1, 1)
	f.Add(100, 7)
	f.Fuzz(func(t *testing.T, n, maxLen int) {
		if n < 0 || n > 2000 || maxLen < 1 || maxLen > 300 {
			return
		}
		tokens := make([]int32, n)
		for i := range tokens {
			tokens[i] = int32(i)
		}
		ws, err := RollingWindows(tokens, -1, maxLen)
		require.NoError(t, err)
		var predicted []int32
		for _, w := range ws {
			s, err := w.Window(maxLen)
			require.NoError(t, err)
			require.LessOrEqual(t, len(s.Input), maxLen)
			// Position len(Input)−len(Targets)+i holds the token before Targets[i].
			for i, tg := range s.Targets {
				require.Equal(t, tg-1, s.Input[len(s.Input)-len(s.Targets)+i])
			}
			predicted = append(predicted, s.Targets...)
		}
		require.Equal(t, tokens, append([]int32{}, predicted...)[:n:n])
		require.Len(t, predicted, n)
	})
}

func TestCountWords(t *testing.T) {
	// len(re.split(r"\s+", s)), by hand.
	for s, n := range map[string]int{"a b  c": 3, " a": 2, "a\n\nb ": 3, "": 1, strings.Repeat("x ", 4): 5} {
		require.Equal(t, n, CountWords(s), "%q", s)
	}
}
