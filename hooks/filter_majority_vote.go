package hooks

// majority_vote (lm_eval/filters/selection.py MajorityVoteFilter): the most
// frequent response, as a list of one.
func init() {
	registerFilter(Filter{Name: "majority_vote", New: func(map[string]any) (FilterFunc, error) {
		return func(v Values, _ map[string]any) (Values, error) {
			return Values{Items: []string{majority(v.Items)}}, nil
		}, nil
	}})
}

// majority is lm-eval's Counter(resps).most_common(1)[0][0]: the most
// frequent answer, ties going to the one seen first.
func majority(items []string) string {
	counts := map[string]int{}
	best, bestN := "", 0
	for _, s := range items {
		counts[s]++
	}
	for _, s := range items {
		if n := counts[s]; n > bestN {
			best, bestN = s, n
		}
	}
	return best
}
