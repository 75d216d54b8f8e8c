package textmetrics

import "strings"

// SquadF1 is transformers' squad_metrics.compute_f1(gold, pred), the token F1
// lm-eval's QA hooks (xquad, coqa, norquad, ...) report as "f1": both strings
// normalised (SquadNormalize) and split on whitespace; 1 or 0 when either has
// no token (whether both have none); else 2PR/(P+R) over the multiset
// intersection of the tokens.
func SquadF1(gold, pred string) float64 {
	g, p := squadTokens(gold), squadTokens(pred)
	if len(g) == 0 || len(p) == 0 {
		if len(g) == len(p) {
			return 1
		}
		return 0
	}
	counts := map[string]int{}
	for _, t := range g {
		counts[t]++
	}
	same := 0
	for _, t := range p {
		if counts[t] > 0 {
			counts[t]--
			same++
		}
	}
	if same == 0 {
		return 0
	}
	precision := 1.0 * float64(same) / float64(len(p))
	recall := 1.0 * float64(same) / float64(len(g))
	return (2 * precision * recall) / (precision + recall)
}

// SquadExact is squad_metrics.compute_exact: 1 when the normalised strings
// are equal.
func SquadExact(gold, pred string) float64 {
	if SquadNormalize(gold) == SquadNormalize(pred) {
		return 1
	}
	return 0
}

func squadTokens(s string) []string {
	if s == "" {
		return nil
	}
	return pyFields(SquadNormalize(s))
}

// SquadNormalize is squad_metrics.normalize_answer: lower case, drop ASCII
// punctuation, replace the articles a/an/the (whole \w-runs, Python's
// Unicode \b) by a space, and collapse whitespace.
func SquadNormalize(s string) string {
	s = strings.Map(func(r rune) rune {
		if r < 0x80 && strings.ContainsRune(asciiPunctuation, r) {
			return -1
		}
		return r
	}, pyLower(s))
	var b strings.Builder
	rs := []rune(s)
	for i := 0; i < len(rs); {
		if !isPyWord(rs[i]) {
			b.WriteRune(rs[i])
			i++
			continue
		}
		j := i
		for j < len(rs) && isPyWord(rs[j]) {
			j++
		}
		switch w := string(rs[i:j]); w {
		case "a", "an", "the":
			b.WriteByte(' ')
		default:
			b.WriteString(w)
		}
		i = j
	}
	return strings.Join(pyFields(b.String()), " ")
}
