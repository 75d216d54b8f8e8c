package eval

import "strings"

// CutAtStop returns text up to (not including) the earliest occurrence of any
// non-empty stop string, and whether one was found. lm-eval splits on each stop
// in turn (s = s.split(term)[0]), which keeps the same prefix.
func CutAtStop(text string, stops []string) (string, bool) {
	cut := -1
	for _, s := range stops {
		if s == "" {
			continue
		}
		if i := strings.Index(text, s); i >= 0 && (cut < 0 || i < cut) {
			cut = i
		}
	}
	if cut < 0 {
		return text, false
	}
	return text[:cut], true
}
