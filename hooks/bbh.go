package hooks

// BBH zero-shot (bbh/cot_zeroshot, bbh/zeroshot; one utils.py): the filter
// classes MultiChoiceRegexFilter, MapRegexFilter, NumberParseRegexFilter and
// WordSortFilter, on ExtendedRegexFilter's find_match and filter_ignores.
// Where the Python raises (an index past the matches, a tuple of empty
// groups, word2number rejecting its input) lm-eval stops the run; here the
// grade fails with the same cause.

import (
	"fmt"
	"slices"
	"strings"
)

var bbhSources = []Source{
	{"bbh/cot_zeroshot", "1faaca748bffd4ac209fd43671c40ecc08f081d6e74d279a3e62ca0c11335305"},
	{"bbh/zeroshot", "1faaca748bffd4ac209fd43671c40ecc08f081d6e74d279a3e62ca0c11335305"},
}

var extendedParams = []string{"regex_pattern", "group_select", "fallback", "ignore_case", "ignore_punctuation", "regexes_to_ignore"}

func init() {
	registerPort(Port{Function: "MultiChoiceRegexFilter", Sources: bbhSources,
		Filter: &Filter{Name: "MultiChoiceRegexFilter", Params: extendedParams, New: bbhMultiChoice}})
	registerPort(Port{Function: "MapRegexFilter", Sources: bbhSources,
		Filter: &Filter{Name: "MapRegexFilter", Params: []string{"regex_pattern_to_value", "group_select", "fallback", "ignore_case", "ignore_punctuation", "regexes_to_ignore"}, New: bbhMapRegex}})
	registerPort(Port{Function: "NumberParseRegexFilter", Sources: bbhSources,
		Filter: &Filter{Name: "NumberParseRegexFilter", Params: extendedParams, New: bbhNumberParse}})
	registerPort(Port{Function: "WordSortFilter", Sources: bbhSources,
		Filter: &Filter{Name: "WordSortFilter", New: func(map[string]any) (FilterFunc, error) { return bbhWordSort, nil }}})
}

var bbhChoiceRE = mustPyRegex(`\([A-Z]\)([^\n^(]*)`)

func mustPyRegex(p string) *pyRegex {
	re, err := compilePyRegex(p)
	if err != nil {
		panic(err) // constant patterns: a failure is a programming error
	}
	return re
}

// bbhMultiChoice is BBH's MultiChoiceRegexFilter: the core filter's
// matching with the choices parsed from doc["input"] ("(A) text" up to a
// newline or "("), and an all-empty tuple match raising as in the Python.
func bbhMultiChoice(params map[string]any) (FilterFunc, error) {
	x, err := newExtendedRegex(params, "")
	if err != nil {
		return nil, err
	}
	x.emptyTupleRaises = true
	return func(v Values, doc map[string]any) (Values, error) {
		input, ok := doc["input"].(string)
		if !ok {
			return Values{}, fmt.Errorf("MultiChoiceRegexFilter: doc[\"input\"]: want a string, got %T", doc["input"])
		}
		ms, err := bbhChoiceRE.findAll(input)
		if err != nil {
			return Values{}, err
		}
		choices := make([]string, len(ms))
		for i, m := range ms {
			choices[i] = m[1]
		}
		out, err := x.multiChoice(v, choices)
		if err != nil {
			return Values{}, fmt.Errorf("MultiChoiceRegexFilter: %w", err)
		}
		return out, nil
	}, nil
}

// bbhMapRegex is MapRegexFilter: the patterns joined with "|" in the
// mapping's order find the group_select-th match in the filtered response;
// then the first pattern that matches that match (filtered again) gives its
// value; else the fallback.
func bbhMapRegex(params map[string]any) (FilterFunc, error) {
	pairs, err := orderedPairs(params["regex_pattern_to_value"])
	if err != nil {
		return nil, fmt.Errorf("regex_pattern_to_value: %w", err)
	}
	var keys []string
	type rv struct {
		re    *pyRegex
		value string
	}
	var each []rv
	for _, p := range pairs {
		keys = append(keys, p[0])
		re, err := compilePyRegex(p[0])
		if err != nil {
			return nil, fmt.Errorf("regex_pattern_to_value: %w", err)
		}
		each = append(each, rv{re, p[1]})
	}
	x, err := newExtendedRegex(params, strings.Join(keys, "|"))
	if err != nil {
		return nil, err
	}
	return mapEach(func(resp string) (string, error) {
		f, err := x.filterIgnores(resp)
		if err != nil {
			return "", err
		}
		whole, err := x.findMatch(x.re, f, nil)
		if err != nil {
			return "", fmt.Errorf("MapRegexFilter: %w", err)
		}
		if whole == "" {
			return x.fallback, nil
		}
		wf, err := x.filterIgnores(whole)
		if err != nil {
			return "", err
		}
		for _, e := range each {
			m, err := x.findMatch(e.re, wf, nil)
			if err != nil {
				return "", fmt.Errorf("MapRegexFilter: %w", err)
			}
			if m != "" {
				return e.value, nil
			}
		}
		return x.fallback, nil
	}), nil
}

// orderedPairs reads a mapping whose order matters: the task loader keeps
// regex_pattern_to_value as a list of [key, value] pairs in file order.
func orderedPairs(v any) ([][2]string, error) {
	list, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("want an ordered mapping, got %T", v)
	}
	out := make([][2]string, 0, len(list))
	for _, e := range list {
		p, ok := e.([]any)
		if !ok || len(p) != 2 {
			return nil, fmt.Errorf("want [pattern, value] pairs")
		}
		out = append(out, [2]string{PyStrValue(p[0]), PyStrValue(p[1])})
	}
	return out, nil
}

// englishNumberRE is NumberParseRegexFilter's pattern for numbers in words.
// It is written for the regex module, whose (?|...) branch reset has no
// groups inside here, so it is the non-capturing (?:...) in re syntax.
var englishNumberRE = mustPyRegex(strings.ReplaceAll(
	`((?:(?:zero|one|two|three|four|five|(?:twen|thir|for|fif|six|seven|nine)(?|teen|ty)|eight(?:|een|y)|ten|eleven|twelve|fourteen|hundred|thousand|(?:m|b|tr)illion)(?:zero|one|two|three|four|five|(?:twen|thir|for|fif|six|seven|nine)(?:|teen|ty)|eight(?|een|y)|ten|eleven|twelve|fourteen|hundred|thousand|(?:m|b|tr)illion|[^\S\r\n]|,|and|&)+)?(?:zero|one|two|three|four|five|(?:twen|thir|for|fif|six|seven|nine)(?|teen|ty)|eight(?|een|y)|ten|eleven|twelve|fourteen|hundred|thousand|(?:m|b|tr)illion))`,
	"(?|", "(?:"))

// bbhNumberParse is NumberParseRegexFilter: the regex on the response; else
// English number words in the lower-cased response, read by word2number.
func bbhNumberParse(params map[string]any) (FilterFunc, error) {
	x, err := newExtendedRegex(params, "")
	if err != nil {
		return nil, err
	}
	return mapEach(func(resp string) (string, error) {
		m, err := x.findMatch(x.re, resp, nil)
		if err == nil && m == "" {
			if m, err = x.findMatch(englishNumberRE, PyLower(resp), nil); err == nil && m != "" {
				m, err = wordToNum(m)
			}
		}
		if err != nil {
			return "", fmt.Errorf("NumberParseRegexFilter: %w", err)
		}
		if m == "" {
			return x.fallback, nil
		}
		return m, nil
	}), nil
}

// bbhWordSort is WordSortFilter: the words after "List:" in the doc's input
// (unescaped, as the Python builds its pattern) found as \bword\b in the
// response, each kept once at its last occurrence, in order.
func bbhWordSort(v Values, doc map[string]any) (Values, error) {
	input, ok := doc["input"].(string)
	if !ok {
		return Values{}, fmt.Errorf("WordSortFilter: doc[\"input\"]: want a string, got %T", doc["input"])
	}
	parts := strings.Split(input, "List:")
	if len(parts) < 2 {
		return Values{}, fmt.Errorf("WordSortFilter: the input has no \"List:\" (Python: IndexError)")
	}
	words := strings.FieldsFunc(PyStrip(parts[1]), pyIsSpace)
	alts := make([]string, len(words))
	for i, w := range words {
		alts[i] = `\b` + w + `\b`
	}
	re, err := compilePyRegex(strings.Join(alts, "|"))
	if err != nil {
		return Values{}, fmt.Errorf("WordSortFilter: %w", err)
	}
	return mapEach(func(resp string) (string, error) {
		ms, err := re.findAll(resp)
		if err != nil {
			return "", err
		}
		var kept []string
		for i := len(ms) - 1; i >= 0; i-- {
			if w := ms[i][0]; !slices.Contains(kept, w) {
				kept = append(kept, w)
			}
		}
		slices.Reverse(kept)
		return strings.Join(kept, " "), nil
	})(v, doc)
}
