package hooks

// lm-eval's MultiChoiceRegexFilter (lm_eval/filters/extraction.py),
// "multi_choice_regex" in filter_list, and the matching BBH's class of the
// same name shares.

import (
	"fmt"
	"regexp"
	"strings"
	"unicode"
)

func init() {
	registerFilter(Filter{Name: "multi_choice_regex",
		Params: []string{"regex_pattern", "group_select", "fallback", "ignore_case", "ignore_punctuation", "regexes_to_ignore"},
		New:    multiChoiceFrom})
}

// multiChoiceFrom builds lm-eval's multi_choice_regex over the doc's
// "choices" column.
func multiChoiceFrom(params map[string]any) (FilterFunc, error) {
	x, err := newExtendedRegex(params, "")
	if err != nil {
		return nil, err
	}
	return func(v Values, doc map[string]any) (Values, error) {
		raw, ok := doc["choices"].([]any)
		if !ok {
			return Values{}, fmt.Errorf("multi_choice_regex: the doc has no list column \"choices\"")
		}
		choices := make([]string, len(raw))
		for i, c := range raw {
			choices[i] = PyStrValue(c)
		}
		return x.multiChoice(v, choices)
	}, nil
}

// multiChoice answers each response: the regex first; when it finds
// nothing, the choice texts (stripped, normalised by filter_ignores) found
// in the normalised response map to "(A)", "(B)"...; then ": X" for a
// choice letter X; else the fallback.
func (x *extendedRegex) multiChoice(v Values, choices []string) (Values, error) {
	var alts, letters []string
	toAlpha, letterTo := map[string]string{}, map[string]string{}
	for i, c := range choices {
		letter := string(rune('A' + i))
		m, err := x.filterIgnores(PyStrip(c))
		if err != nil {
			return Values{}, err
		}
		alts = append(alts, regexp.QuoteMeta(m))
		toAlpha[m] = "(" + letter + ")"
		letters = append(letters, letter)
		letterTo[letter] = "(" + letter + ")"
	}
	choiceRE, err := compilePyRegex(strings.Join(alts, "|"))
	if err != nil {
		return Values{}, err
	}
	letterRE, err := compilePyRegex(`:[\s]*(` + strings.Join(letters, "|") + `)`)
	if err != nil {
		return Values{}, err
	}
	out := Values{Items: make([]string, len(v.Items)), Single: v.Single}
	for i, resp := range v.Items {
		m, err := x.findMatch(x.re, resp, nil)
		if err == nil && m == "" {
			var norm string
			if norm, err = x.filterIgnores(resp); err == nil {
				m, err = x.findMatch(choiceRE, norm, toAlpha)
			}
		}
		if err == nil && m == "" {
			m, err = x.findMatch(letterRE, resp, letterTo)
		}
		if err != nil {
			return Values{}, err
		}
		if m == "" {
			m = x.fallback
		}
		out.Items[i] = m
	}
	return out, nil
}

// extendedRegex is a RegexFilter plus the options filter_ignores applies:
// lm-eval's MultiChoiceRegexFilter and BBH's ExtendedRegexFilter.
type extendedRegex struct {
	re          *pyRegex
	groupSelect int
	fallback    string
	ignoreCase  bool
	ignorePunct bool
	ignores     []*pyRegex
	// emptyTupleRaises: a match whose groups are all empty raises
	// IndexError (BBH's find_match) instead of counting as no match (the
	// core filter's).
	emptyTupleRaises bool
}

func newExtendedRegex(params map[string]any, pattern string) (*extendedRegex, error) {
	x := &extendedRegex{}
	var err error
	if pattern == "" {
		if pattern, err = strParam(params, "regex_pattern", defaultRegexPattern); err != nil {
			return nil, err
		}
	}
	if x.re, err = compilePyRegex(pattern); err != nil {
		return nil, err
	}
	if x.groupSelect, err = intParam(params, "group_select", 0); err != nil {
		return nil, err
	}
	if x.fallback, err = strParam(params, "fallback", InvalidAnswer); err != nil {
		return nil, err
	}
	if x.ignoreCase, err = boolParam(params, "ignore_case"); err != nil {
		return nil, err
	}
	if x.ignorePunct, err = boolParam(params, "ignore_punctuation"); err != nil {
		return nil, err
	}
	ignores, err := strListParam(params, "regexes_to_ignore")
	if err != nil {
		return nil, err
	}
	for _, p := range ignores {
		re, err := compilePyRegex(p)
		if err != nil {
			return nil, fmt.Errorf("regexes_to_ignore: %w", err)
		}
		x.ignores = append(x.ignores, re)
	}
	return x, nil
}

// filterIgnores is filter_ignores: remove each regexes_to_ignore match,
// lower-case, and drop every character of a Unicode punctuation category
// (the class's punct_tbl: every code point whose category starts with P).
func (x *extendedRegex) filterIgnores(s string) (string, error) {
	for _, re := range x.ignores {
		var err error
		if s, err = re.removeAll(s); err != nil {
			return "", err
		}
	}
	if x.ignoreCase {
		s = PyLower(s)
	}
	if x.ignorePunct {
		s = strings.Map(func(r rune) rune {
			if unicode.IsPunct(r) {
				return -1
			}
			return r
		}, s)
	}
	return s, nil
}

// findMatch is find_match: the group_select-th findall item (a tuple's
// first non-empty group), stripped, mapped through convert; "" when the
// regex finds nothing (Python returns the empty list, which is as falsy).
func (x *extendedRegex) findMatch(re *pyRegex, resp string, convert map[string]string) (string, error) {
	ms, err := re.findAll(resp)
	if err != nil || len(ms) == 0 {
		return "", err
	}
	i, ok := pyIndex(x.groupSelect, len(ms))
	if !ok {
		return "", fmt.Errorf("find_match: group_select %d with %d matches (Python: IndexError)", x.groupSelect, len(ms))
	}
	m, ok := findallItem(ms[i], re.numGroups())
	if !ok {
		if !x.emptyTupleRaises {
			return "", nil
		}
		return "", fmt.Errorf("find_match: every group of the match is empty (Python: IndexError)")
	}
	m = PyStrip(m)
	if c, ok := convert[m]; ok && m != "" {
		m = c
	}
	return m, nil
}
