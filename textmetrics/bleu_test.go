package textmetrics

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The vectors below are sacrebleu's own (test/test_bleu.py and
// test/test_sentence_bleu.py at mjpost/sacrebleu f615c72), with their
// tolerances. Cases for the intl and char tokenizers are left out: lm-eval
// never uses them and they are not implemented.

var (
	readmeRefs = [][]string{
		{"The dog bit the man.", "It was not unexpected.", "The man bit him first."},
		{"The dog had bit the man.", "No one was surprised.", "The man had bitten the dog."},
	}
	readmeHyps = []string{"The dog bit the man.", "It wasn't surprising.", "The man had just bitten him."}
)

// rawBLEU is sacrebleu.raw_corpus_bleu: no tokenisation, floor smoothing,
// effective order.
func rawBLEU(smooth float64) BLEU {
	return BLEU{Tokenize: "none", Smooth: "floor", SmoothValue: smooth, MaxOrder: 4, EffectiveOrder: true}
}

func TestCorpusBLEUSacrebleuVectors(t *testing.T) {
	withTok := func(tok string) BLEU { b := DefaultBLEU(); b.Tokenize = tok; return b }
	noSmooth := DefaultBLEU()
	noSmooth.Smooth = "none"
	cases := []struct {
		name string
		b    BLEU
		hyps []string
		want float64
	}{
		{"default", DefaultBLEU(), readmeHyps, 48.530827},
		{"empty hypotheses kept", DefaultBLEU(), []string{"", "", ""}, 0},
		{"tokenize none", withTok("none"), readmeHyps, 49.1919566},
		{"tokenize 13a", withTok("13a"), readmeHyps, 48.530827},
		{"smooth none", noSmooth, readmeHyps, 48.530827},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, err := c.b.Corpus(c.hyps, readmeRefs)
			require.NoError(t, err)
			assert.InDelta(t, c.want, s.Score, 1e-8)
		})
	}
}

func TestRawBLEUSacrebleuVectors(t *testing.T) {
	cases := []struct {
		hyps []string
		refs [][]string
		want float64
	}{
		{[]string{"this is a test", "another test"}, [][]string{{"ref1", "ref2"}}, 0},
		{[]string{"this is a test"}, [][]string{{"this is a test"}}, 1},
		{[]string{"this is a fest"}, [][]string{{"this is a test"}}, 0.223606797749979},
		// effective order
		{[]string{"test"}, [][]string{{"a test"}}, 0.3678794411714425},
		{[]string{"a test"}, [][]string{{"a test"}}, 1},
		{[]string{"a little test"}, [][]string{{"a test"}}, 0.03218297948685433},
	}
	for i, c := range cases {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			s, err := rawBLEU(0.01).Corpus(c.hyps, c.refs)
			require.NoError(t, err)
			assert.InDelta(t, c.want, s.Score/100, 1e-8)
		})
	}
}

func TestBLEUStatisticsAndOffsets(t *testing.T) {
	hyps, refs := []string{"am I am a character sequence"}, [][]string{{"I am a symbol string sequence a a"}}
	s, err := rawBLEU(0.01).Corpus(hyps, refs)
	require.NoError(t, err)
	assert.Equal(t, []int{4, 2, 1, 0}, s.Counts)
	assert.Equal(t, []int{6, 5, 4, 3}, s.Totals)

	s, err = rawBLEU(0).Corpus(hyps, refs)
	require.NoError(t, err)
	assert.InDelta(t, 0, s.Score/100, 1e-8, "offset 0")
	s, err = rawBLEU(-1).Corpus(hyps, refs) // sacrebleu's default floor, 0.1
	require.NoError(t, err)
	assert.InDelta(t, 0.1555722182, s.Score/100, 1e-8, "default offset")
}

// statsOf lays out sacrebleu's compute_bleu arguments as segment statistics.
func statsOf(correct, total []int, sysLen, refLen int) []int {
	return append(append([]int{sysLen, refLen}, correct...), total...)
}

func TestComputeBLEUFromStatistics(t *testing.T) {
	b := BLEU{Tokenize: "none", Smooth: "none", SmoothValue: -1, MaxOrder: 4}
	assert.InDelta(t, 0.8375922397, b.fromStats(statsOf([]int{9, 7, 5, 3}, []int{10, 8, 6, 4}, 11, 11)).Score/100, 1e-8)

	degenerate := []struct {
		correct, total []int
		sysLen, refLen int
		offset         float64
	}{
		{[]int{0, 0, 0, 0}, []int{4, 4, 2, 1}, 0, 1, 0},
		{[]int{0, 0, 0, 0}, []int{10, 11, 12, 0}, 14, 10, 0},
		{[]int{0, 0, 0, 0}, []int{0, 0, 0, 0}, 0, 0, 0},
		{[]int{6, 5, 4, 0}, []int{6, 5, 4, 3}, 6, 6, 0},
		{[]int{0, 0, 0, 0}, []int{0, 0, 0, 0}, 0, 0, 0.1},
		{[]int{0, 0, 0, 0}, []int{0, 0, 0, 0}, 1, 5, 0.01},
	}
	for i, c := range degenerate {
		floor := BLEU{Tokenize: "none", Smooth: "floor", SmoothValue: c.offset, MaxOrder: 4}
		assert.Equal(t, 0.0, floor.fromStats(statsOf(c.correct, c.total, c.sysLen, c.refLen)).Score, "case %d", i)
	}
}

func TestBLEUMaxOrderSacrebleuVectors(t *testing.T) {
	for order, want := range map[int]string{1: "77.65", 2: "60.50", 3: "53.93", 4: "48.53", 5: "46.14", 6: "43.28"} {
		b := DefaultBLEU()
		b.MaxOrder = order
		s, err := b.Corpus(readmeHyps, readmeRefs)
		require.NoError(t, err)
		assert.Equal(t, want, fmt.Sprintf("%.2f", s.Score), "order %d", order)
	}
}

func TestSentenceBLEUSacrebleuVectors(t *testing.T) {
	const ref, sys = "producţia de zahăr brut se exprimă în zahăr alb;",
		"Producția de zahăr primă va fi exprimată în ceea ce privește zahărul alb;"
	cases := []struct {
		smooth string
		value  float64
		tok    string
		want   float64
	}{
		{"exp", -1, "13a", 8.493},
		{"none", -1, "13a", 0},
		{"floor", -1, "13a", 4.51688},
		{"floor", 0.1, "13a", 4.51688},
		{"floor", 0.5, "13a", 10.10},
		{"add-k", -1, "13a", 14.882},
		{"add-k", 1, "13a", 14.882},
		{"add-k", 2, "13a", 21.389},
		{"exp", -1, "none", 7.347},
	}
	for _, c := range cases {
		b := BLEU{Tokenize: c.tok, Smooth: c.smooth, SmoothValue: c.value, MaxOrder: 4, EffectiveOrder: true}
		s, err := b.Corpus([]string{sys}, [][]string{{ref}})
		require.NoError(t, err)
		assert.InDelta(t, c.want, s.Score, 1e-3, "%s %v %s", c.smooth, c.value, c.tok)

		zero, err := b.Corpus([]string{"this is a cat"}, [][]string{{"okay thanks"}})
		require.NoError(t, err)
		assert.Equal(t, 0.0, zero.Score, "no match, %s", c.smooth)
	}
}

// Hand-derived: hypothesis "a b c d e" against "a b c d f" matches 4/5
// unigrams, 3/4 bigrams, 2/3 trigrams and 1/2 four-grams at equal length, so
// BLEU = 100·(0.8·0.75·(2/3)·0.5)^(1/4) = 100·0.2^(1/4). Adding the segment
// "x y" / "z w" (nothing matches) changes the corpus sums to 4/7, 3/5, 2/3,
// 1/2: 100·(4/7·3/5·2/3·1/2)^(1/4) = 100·(4/35)^(1/4) — not the mean of the
// two sentence scores, which is what a per-document average would give.
func TestLMEvalBLEUIsCorpusLevel(t *testing.T) {
	one := []Item{{Refs: []string{"a b c d f"}, Pred: "a b c d e"}}
	got, err := LMEvalBLEU(one)
	require.NoError(t, err)
	assert.InDelta(t, 66.87403049764220, got, 1e-10)

	two := append(one, Item{Refs: []string{"z w"}, Pred: "x y"})
	got, err = LMEvalBLEU(two)
	require.NoError(t, err)
	assert.InDelta(t, 58.14307369682194, got, 1e-10)

	_, err = LMEvalBLEU(nil)
	assert.ErrorIs(t, err, ErrNoSegments)
}

// lm-eval's _sacreformat zips the references per position: with two
// references for one doc and one for the other, only the first of each is
// used (zip stops at the shortest list).
func TestLMEvalBLEUMultipleReferencesCutToShortest(t *testing.T) {
	items := []Item{{Refs: []string{"a b c d f", "a b c d e"}, Pred: "a b c d e"}, {Refs: []string{"q r"}, Pred: "q r"}}
	hyps, refs := sacreformat(items)
	assert.Equal(t, []string{"a b c d e", "q r"}, hyps)
	assert.Equal(t, [][]string{{"a b c d f", "q r"}}, refs)

	both := []Item{{Refs: []string{"a b c d f", "a b c d e"}, Pred: "a b c d e"}}
	got, err := LMEvalBLEU(both)
	require.NoError(t, err)
	assert.InDelta(t, 100, got, 1e-12, "the second reference matches exactly")
}

func TestBLEUOptionErrors(t *testing.T) {
	for _, b := range []BLEU{{Tokenize: "intl", Smooth: "exp", MaxOrder: 4}, {Tokenize: "13a", Smooth: "x", MaxOrder: 4}, {Tokenize: "13a", Smooth: "exp"}} {
		_, err := b.Corpus([]string{"a"}, [][]string{{"a"}})
		assert.Error(t, err, "%+v", b)
	}
}

func BenchmarkLMEvalBLEU(b *testing.B) {
	items := make([]Item, 1000)
	for i := range items {
		items[i] = Item{Refs: []string{"The quick brown fox, it said, jumps over the lazy dog's back in 1.5 seconds."},
			Pred: fmt.Sprintf("A quick brown fox (number %d) jumped over the lazy dog - in 2 seconds.", i)}
	}
	b.ResetTimer()
	for range b.N {
		if _, err := LMEvalBLEU(items); err != nil {
			b.Fatal(err)
		}
	}
}
