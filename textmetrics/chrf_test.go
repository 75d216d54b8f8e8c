package textmetrics

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// sacrebleu's own chrF vectors (test/test_chrf.py at mjpost/sacrebleu
// f615c72), tolerance 1e-4 as there. They use β = 3; lm-eval's default β = 2
// is covered by the sentence-level vectors and the hand-derived cases.

func TestCHRFSacrebleuVectors(t *testing.T) {
	beta3 := func(eps, ws bool) CHRF { return CHRF{CharOrder: 6, Beta: 3, EpsSmoothing: eps, Whitespace: ws} }
	type vec struct {
		hyps, refs []string
		want       float64
	}
	epsCases := []vec{
		{[]string{"abcdefg"}, []string{"hijklmnop"}, 0},
		{[]string{"a"}, []string{"b"}, 0},
		{[]string{""}, []string{"b"}, 0},
		{[]string{""}, []string{"ref"}, 0},
		{[]string{""}, []string{"reference"}, 0},
		{[]string{"aa"}, []string{"ab"}, 8.3333},
		{[]string{"a", "b"}, []string{"a", "c"}, 8.3333},
		{[]string{"a"}, []string{"a"}, 16.6667},
		{[]string{"a b c"}, []string{"a b c"}, 50},
		{[]string{"a b c"}, []string{"abc"}, 50},
		{[]string{" risk assessment must be made of those who are qualified and expertise in the sector - these are the scientists ."},
			[]string{"risk assessment has to be undertaken by those who are qualified and expert in that area - that is the scientists ."}, 63.361730},
		{[]string{" Die    Beziehung zwischen  Obama und Netanjahu ist nicht gerade  freundlich. "},
			[]string{"Das Verhältnis zwischen Obama und Netanyahu ist nicht gerade freundschaftlich."}, 64.1302698},
		{[]string{"Niemand hat die Absicht, eine Mauer zu errichten"}, []string{"Niemand hat die Absicht, eine Mauer zu errichten"}, 100},
	}
	effCases := []vec{
		{[]string{"a"}, []string{"a"}, 100},
		{[]string{""}, []string{"reference"}, 0},
		{[]string{"a b c"}, []string{"a b c"}, 100},
		{[]string{"a b c"}, []string{"abc"}, 100},
		{[]string{""}, []string{"c"}, 0},
		{[]string{"a", "b"}, []string{"a", "c"}, 50},
		{[]string{"aa"}, []string{"ab"}, 25},
	}
	wsCases := []vec{
		{[]string{"Die Beziehung zwischen Obama und Netanjahu ist nicht gerade freundlich."},
			[]string{"Das Verhältnis zwischen Obama und Netanyahu ist nicht gerade freundschaftlich."}, 67.3481606},
		{[]string{"risk assessment must be made of those who are qualified and expertise in the sector - these are the scientists ."},
			[]string{"risk assessment has to be undertaken by those who are qualified and expert in that area - that is the scientists ."}, 65.2414427},
	}
	run := func(name string, c CHRF, cases []vec) {
		for _, v := range cases {
			got, err := c.Corpus(v.hyps, [][]string{v.refs})
			require.NoError(t, err)
			assert.InDelta(t, v.want, got, 1e-4, "%s: %q vs %q", name, v.hyps, v.refs)
		}
	}
	run("eps smoothing", beta3(true, false), epsCases)
	run("effective order", beta3(false, false), effCases)
	run("keep whitespace", beta3(false, true), wsCases)
}

func TestSentenceCHRFSacrebleuVectors(t *testing.T) {
	cases := []struct {
		hyp, ref string
		want     float64
	}{
		{"Co nás nejvíc trápí, protože lékaři si vybírají, kdo bude žít a kdo zemře.",
			"Nejvíce smutní jsme z toho, že musíme rozhodovat o tom, kdo bude žít a kdo zemře.", 39.14078509},
		{"Nebo prostě nemají vybavení, které by jim pomohlo, uvedli lékaři.",
			"A někdy nemáme ani potřebný materiál, abychom jim pomohli, popsali lékaři.", 31.22557079},
		{"Lapali po dechu, jejich životy skončily dřív, než skutečně začaly.",
			"Lapali po dechu a pak jejich život skončil - dřív, než skutečně mohl začít, připomněli.", 57.15704367},
	}
	c := DefaultCHRF()
	c.EpsSmoothing = true
	for _, v := range cases {
		got, err := c.Corpus([]string{v.hyp}, [][]string{{v.ref}})
		require.NoError(t, err)
		assert.InDelta(t, v.want, got, 1e-4, v.hyp)
	}
}

// Hand-derived, lm-eval's defaults (char order 6, β = 2, effective order):
// "ab" vs "ac": unigrams 1/2 precision and recall, bigrams 0/1; orders 3-6
// have no n-grams on either side and do not count. Mean P = R = 0.25, so
// F2 = 5·P·R/(4P+R) = 0.25 → 25. Corpus level: adding "xy" vs "xy" (every
// order matches where it exists) sums the statistics to unigrams 3/4,
// bigrams 1/2: P = R = 0.625 → 62.5, not the mean (25+100)/2.
func TestLMEvalCHRFIsCorpusLevel(t *testing.T) {
	got, err := LMEvalCHRF([]Item{{Refs: []string{"ac"}, Pred: "ab"}})
	require.NoError(t, err)
	assert.InDelta(t, 25, got, 1e-12)

	got, err = LMEvalCHRF([]Item{{Refs: []string{"ac"}, Pred: "ab"}, {Refs: []string{"xy"}, Pred: "xy"}})
	require.NoError(t, err)
	assert.InDelta(t, 62.5, got, 1e-12)
}

// chrF++ (word order 2): "(hi)" splits into "(hi" and ")" as sacrebleu's
// splitter does (its issue #124), and word bigrams join with a space.
func TestCHRFWordSplitting(t *testing.T) {
	assert.Equal(t, []string{"(hi", ")", "a", "b", "!", "c"}, splitPunctuation("(hi) a b! c"))
	assert.Equal(t, []string{",", "x"}, splitPunctuation(",x"))
	plus := CHRF{CharOrder: 6, WordOrder: 2, Beta: 2}
	got, err := plus.Corpus([]string{"the cat"}, [][]string{{"the cat"}})
	require.NoError(t, err)
	assert.InDelta(t, 100, got, 1e-12)
}

func TestCHRFPicksBestReference(t *testing.T) {
	got, err := DefaultCHRF().Corpus([]string{"ab"}, [][]string{{"zz"}, {"ab"}})
	require.NoError(t, err)
	assert.InDelta(t, 100, got, 1e-12)
}
