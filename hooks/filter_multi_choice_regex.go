package hooks

// lm-eval's MultiChoiceRegexFilter (lm_eval/filters/extraction.py),
// "multi_choice_regex" in filter_list.

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

// multiChoiceFrom builds lm-eval's multi_choice_regex: the regex first; when
// it finds nothing, the doc's choice texts (normalised by ignore_case,
// ignore_punctuation, regexes_to_ignore) map to "(A)", "(B)"...; then a bare
// ": A" style letter; else the fallback.
func multiChoiceFrom(params map[string]any) (FilterFunc, error) {
	rf, err := regexFilterFrom(params)
	if err != nil {
		return nil, err
	}
	ignoreCase, err := boolParam(params, "ignore_case")
	if err != nil {
		return nil, err
	}
	ignorePunct, err := boolParam(params, "ignore_punctuation")
	if err != nil {
		return nil, err
	}
	var ignores []*pyRegex
	if raw, ok := params["regexes_to_ignore"].([]any); ok {
		for _, r := range raw {
			re, err := compilePyRegex(PyStrValue(r))
			if err != nil {
				return nil, fmt.Errorf("regexes_to_ignore: %w", err)
			}
			ignores = append(ignores, re)
		}
	}
	normalize := func(s string) (string, error) {
		for _, re := range ignores {
			var err error
			if s, err = re.removeAll(s); err != nil {
				return "", err
			}
		}
		if ignoreCase {
			s = PyLower(s)
		}
		if ignorePunct {
			s = strings.Map(func(r rune) rune {
				if unicode.IsPunct(r) {
					return -1
				}
				return r
			}, s)
		}
		return s, nil
	}
	// findMatch is the upstream find_match: the selected findall item,
	// stripped and mapped through convert; "" when nothing matched.
	findMatch := func(re *pyRegex, resp string, convert map[string]string) (string, error) {
		ms, err := re.findAll(resp)
		if err != nil || len(ms) == 0 {
			return "", err
		}
		i, ok := pyIndex(rf.groupSelect, len(ms))
		if !ok {
			return "", nil
		}
		g, ok := findallItem(ms[i], re.numGroups())
		if !ok {
			return "", nil
		}
		g = PyStrip(g)
		if c, ok := convert[g]; ok && g != "" {
			g = c
		}
		return g, nil
	}
	return func(v Values, doc map[string]any) (Values, error) {
		raw, ok := doc["choices"].([]any)
		if !ok {
			return Values{}, fmt.Errorf("multi_choice_regex: the doc has no list column \"choices\"")
		}
		var alts, letters []string
		toAlpha, letterTo := map[string]string{}, map[string]string{}
		for i, c := range raw {
			letter := string(rune('A' + i))
			m, err := normalize(PyStrip(PyStrValue(c)))
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
			m, err := findMatch(rf.re, resp, nil)
			if err == nil && m == "" {
				var norm string
				if norm, err = normalize(resp); err == nil {
					m, err = findMatch(choiceRE, norm, toAlpha)
				}
			}
			if err == nil && m == "" {
				m, err = findMatch(letterRE, resp, letterTo)
			}
			if err != nil {
				return Values{}, err
			}
			if m == "" {
				m = rf.fallback
			}
			out.Items[i] = m
		}
		return out, nil
	}, nil
}
