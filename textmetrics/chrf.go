package textmetrics

import (
	"fmt"
	"strings"
)

// CHRF holds sacrebleu's chrF options; DefaultCHRF is what
// sacrebleu.corpus_chrf(hyps, refs) uses and lm-eval's "chrf" aggregation
// calls.
type CHRF struct {
	CharOrder, WordOrder, Beta int
	// Whitespace keeps whitespace inside character n-grams.
	Whitespace bool
	// EpsSmoothing averages per-order F-scores with chrF++.py's epsilon
	// instead of sacrebleu's default effective-order averaging.
	EpsSmoothing bool
}

// DefaultCHRF is chrF with character n-grams up to 6, no word n-grams, β = 2.
func DefaultCHRF() CHRF { return CHRF{CharOrder: 6, WordOrder: 0, Beta: 2} }

// Corpus scores hyps against reference streams (the layout and truncation
// of BLEU.Corpus) and returns chrF on a 0-100 scale: statistics are summed
// over the corpus, then one F-score is computed, as sacrebleu does.
func (c CHRF) Corpus(hyps []string, refs [][]string) (float64, error) {
	if c.CharOrder < 0 || c.WordOrder < 0 || c.CharOrder+c.WordOrder == 0 {
		return 0, fmt.Errorf("chrf: char order %d, word order %d: want a positive total", c.CharOrder, c.WordOrder)
	}
	segs := segmentRefs(refs)
	if len(hyps) == 0 || len(segs) == 0 {
		return 0, ErrNoSegments
	}
	stats := make([]int, 3*(c.CharOrder+c.WordOrder))
	for i := 0; i < len(hyps) && i < len(segs); i++ {
		s := c.segmentStats(hyps[i], segs[i])
		for j := range stats {
			stats[j] += s[j]
		}
	}
	return c.fScore(stats), nil
}

// ngrams are the character n-gram counts for orders 1..CharOrder, then the
// word n-gram counts for orders 1..WordOrder.
func (c CHRF) ngrams(s string) []map[string]int {
	line := s
	if !c.Whitespace {
		line = strings.Join(pyFields(s), "")
	}
	rs := []rune(line)
	out := make([]map[string]int, 0, c.CharOrder+c.WordOrder)
	for n := 1; n <= c.CharOrder; n++ {
		m := make(map[string]int, len(rs))
		for i := 0; i+n <= len(rs); i++ {
			m[string(rs[i:i+n])]++
		}
		out = append(out, m)
	}
	if c.WordOrder > 0 {
		words := splitPunctuation(s)
		for n := 1; n <= c.WordOrder; n++ {
			m := map[string]int{}
			for i := 0; i+n <= len(words); i++ {
				m[strings.Join(words[i:i+n], " ")]++
			}
			out = append(out, m)
		}
	}
	return out
}

// splitPunctuation is sacrebleu's chrF++ word splitter: one ASCII
// punctuation mark is split off the end of a word, else off its start.
func splitPunctuation(s string) []string {
	var out []string
	for _, w := range pyFields(s) {
		rs := []rune(w)
		switch {
		case len(rs) == 1:
			out = append(out, w)
		case strings.ContainsRune(asciiPunctuation, rs[len(rs)-1]):
			out = append(out, string(rs[:len(rs)-1]), string(rs[len(rs)-1]))
		case strings.ContainsRune(asciiPunctuation, rs[0]):
			out = append(out, string(rs[0]), string(rs[1:]))
		default:
			out = append(out, w)
		}
	}
	return out
}

// asciiPunctuation is Python's string.punctuation.
const asciiPunctuation = "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~"

// segmentStats is [hyp, ref, match] per order against the reference with the
// best F-score (the first on a tie).
func (c CHRF) segmentStats(hyp string, refs []string) []int {
	h := c.ngrams(hyp)
	var best []int
	bestF := -1.0
	for _, r := range refs {
		rn := c.ngrams(r)
		stats := make([]int, 0, 3*len(h))
		for i := range h {
			hypCount, refCount, match := 0, 0, 0
			for g, n := range h[i] {
				hypCount += n
				if rc, ok := rn[i][g]; ok {
					match += min(n, rc)
				}
			}
			for _, n := range rn[i] {
				refCount += n
			}
			if len(rn[i]) == 0 {
				hypCount = 0 // sacrebleu: no hits where the reference has no n-gram of this order
			}
			stats = append(stats, hypCount, refCount, match)
		}
		if f := c.fScore(stats); f > bestF {
			best, bestF = stats, f
		}
	}
	return best
}

// fScore is sacrebleu's CHRF._compute_f_score, operation for operation.
func (c CHRF) fScore(stats []int) float64 {
	const eps = 1e-16
	factor := float64(c.Beta * c.Beta)
	order := c.CharOrder + c.WordOrder
	score, avgPrec, avgRec, effective := 0.0, 0.0, 0.0, 0
	for i := range order {
		nHyp, nRef, nMatch := stats[3*i], stats[3*i+1], stats[3*i+2]
		prec, rec := eps, eps
		if nHyp > 0 {
			prec = float64(nMatch) / float64(nHyp)
		}
		if nRef > 0 {
			rec = float64(nMatch) / float64(nRef)
		}
		if denom := factor*prec + rec; denom > 0 {
			score += (1 + factor) * prec * rec / denom
		} else {
			score += eps
		}
		if nHyp > 0 && nRef > 0 {
			avgPrec += prec
			avgRec += rec
			effective++
		}
	}
	if c.EpsSmoothing {
		return 100 * score / float64(order)
	}
	if effective == 0 {
		return 0
	}
	avgPrec /= float64(effective)
	avgRec /= float64(effective)
	if avgPrec+avgRec == 0 {
		return 0
	}
	f := (1 + factor) * avgPrec * avgRec
	f /= factor*avgPrec + avgRec
	return 100 * f
}
