// Package suggest finds the name a user most likely meant ("did you mean …?")
// among the names a flag, key or registry accepts.
package suggest

import "strings"

// Closest returns the candidate nearest to name by edit distance (case and
// '-'/'_' ignored), when it is near enough to be a typo: at most a third of the
// longer name's length, and at least 1 edit allowed. Ties go to the earlier
// candidate, so callers list the likelier names first.
func Closest(name string, candidates []string) (string, bool) {
	key := fold(name)
	best, bestDist := "", -1
	for _, c := range candidates {
		d := distance(key, fold(c))
		if bestDist < 0 || d < bestDist {
			best, bestDist = c, d
		}
	}
	if bestDist < 0 || bestDist == 0 && best == name {
		return "", false
	}
	limit := max(1, max(len(key), len(fold(best)))/3)
	return best, bestDist <= limit
}

// Hint is Closest as a message suffix: " (did you mean X?)", or "".
func Hint(name string, candidates []string) string {
	if c, ok := Closest(name, candidates); ok {
		return " (did you mean " + c + "?)"
	}
	return ""
}

func fold(s string) string {
	return strings.ReplaceAll(strings.ToLower(s), "-", "_")
}

// distance is the Levenshtein distance between a and b in bytes, with two rows.
func distance(a, b string) int {
	if len(a) > 256 || len(b) > 256 { // user input: bound the work
		if a == b {
			return 0
		}
		return max(len(a), len(b))
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
