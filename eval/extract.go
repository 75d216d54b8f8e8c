package eval

// Answer extraction with the exact semantics of lm_eval/filters/extraction.py:
// RegexFilter and MultiChoiceRegexFilter.

import (
	"fmt"
	"regexp"
	"strings"
	"unicode"

	"github.com/entropix-eval/entropix-eval/datasets"
)

// RegexSpec configures a RegexFilter: lm-eval's regex_pattern, group_select
// (which findall match to keep; negative counts from the end) and fallback.
type RegexSpec struct {
	Pattern     string
	GroupSelect int
	Fallback    string
}

// RegexFilter is lm-eval's RegexFilter on one response.
type RegexFilter struct {
	re          *pyRegex
	groupSelect int
	fallback    string
	fast        fastScanner // nil: use re
}

// lm-eval's defaults for the regex filter's arguments.
const defaultRegexPattern = `#### (\-?[0-9\.\,]+)`

// NewRegexFilter compiles a regex filter.
func NewRegexFilter(spec RegexSpec) (*RegexFilter, error) {
	re, err := compilePyRegex(spec.Pattern)
	if err != nil {
		return nil, err
	}
	fb := spec.Fallback
	if fb == "" {
		fb = datasets.InvalidAnswer
	}
	return &RegexFilter{re: re, groupSelect: spec.GroupSelect, fallback: fb, fast: fastScanners[spec.Pattern]}, nil
}

func regexFilterFrom(params map[string]any) (*RegexFilter, error) {
	var spec RegexSpec
	var err error
	if spec.Pattern, err = strParam(params, "regex_pattern", defaultRegexPattern); err != nil {
		return nil, err
	}
	if spec.GroupSelect, err = intParam(params, "group_select", 0); err != nil {
		return nil, err
	}
	if spec.Fallback, err = strParam(params, "fallback", datasets.InvalidAnswer); err != nil {
		return nil, err
	}
	return NewRegexFilter(spec)
}

// Apply extracts the answer from one response, as Python would compute
//
//	m = re.findall(pattern, resp); m = m[group_select]
//	if tuple: first non-empty group, else fallback; then m.strip()
//
// findall yields the whole match without groups, the group with one, and a
// tuple with several, so the pattern's group count decides what comes back.
// An index outside the matches gives the fallback (Python would raise
// IndexError). A regex that hits its time limit also gives the fallback.
func (f *RegexFilter) Apply(response string) string {
	s, err := f.ApplyErr(response)
	if err != nil {
		return f.fallback
	}
	return s
}

// ApplyErr is Apply, reporting a regex time-out instead of hiding it.
func (f *RegexFilter) ApplyErr(response string) (string, error) {
	if f.fast != nil {
		matches := f.fast(response)
		i, ok := pyIndex(f.groupSelect, len(matches))
		if !ok {
			return f.fallback, nil
		}
		return pyStrip(matches[i]), nil
	}
	matches, err := f.re.findAll(response)
	if err != nil {
		return "", err
	}
	i, ok := pyIndex(f.groupSelect, len(matches))
	if !ok {
		return f.fallback, nil
	}
	if g, ok := findallItem(matches[i], f.re.numGroups()); ok {
		return pyStrip(g), nil
	}
	return f.fallback, nil
}

// findallItem is what findall returns for one match: the whole match, the
// one group, or (several groups) the first non-empty one; ok is false when a
// tuple has no non-empty group.
func findallItem(m []string, groups int) (string, bool) {
	switch groups {
	case 0:
		return m[0], true
	case 1:
		return m[1], true // a non-participating group is "" in both languages
	}
	for _, g := range m[1:] {
		if g != "" {
			return g, true
		}
	}
	return "", false
}

// pyIndex maps a Python index (negative from the end) onto [0, n).
func pyIndex(i, n int) (int, bool) {
	if i < 0 {
		i += n
	}
	return i, i >= 0 && i < n
}

// pyStrip is Python's str.strip(): Unicode whitespace plus the ASCII
// separators \x1c-\x1f, which Python counts as whitespace and Go does not.
func pyStrip(s string) string {
	return strings.TrimFunc(s, func(r rune) bool { return unicode.IsSpace(r) || (r >= 0x1c && r <= 0x1f) })
}

// multiChoiceFrom builds lm-eval's multi_choice_regex: the regex first; when
// it finds nothing, the doc's choice texts (normalised by ignore_case,
// ignore_punctuation, regexes_to_ignore) map to "(A)", "(B)"...; then a bare
// ": A" style letter; else the fallback.
func multiChoiceFrom(params map[string]any) (filterFunc, error) {
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
			re, err := compilePyRegex(pyStrValue(r))
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
			s = pyLower(s)
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
		g = pyStrip(g)
		if c, ok := convert[g]; ok && g != "" {
			g = c
		}
		return g, nil
	}
	return func(v filterValue, doc datasets.Doc) (filterValue, error) {
		raw, ok := doc["choices"].([]any)
		if !ok {
			return filterValue{}, fmt.Errorf("multi_choice_regex: the doc has no list column \"choices\"")
		}
		var alts, letters []string
		toAlpha, letterTo := map[string]string{}, map[string]string{}
		for i, c := range raw {
			letter := string(rune('A' + i))
			m, err := normalize(pyStrip(pyStrValue(c)))
			if err != nil {
				return filterValue{}, err
			}
			alts = append(alts, regexp.QuoteMeta(m))
			toAlpha[m] = "(" + letter + ")"
			letters = append(letters, letter)
			letterTo[letter] = "(" + letter + ")"
		}
		choiceRE, err := compilePyRegex(strings.Join(alts, "|"))
		if err != nil {
			return filterValue{}, err
		}
		letterRE, err := compilePyRegex(`:[\s]*(` + strings.Join(letters, "|") + `)`)
		if err != nil {
			return filterValue{}, err
		}
		out := filterValue{items: make([]string, len(v.items)), single: v.single}
		for i, resp := range v.items {
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
				return filterValue{}, err
			}
			if m == "" {
				m = rf.fallback
			}
			out.items[i] = m
		}
		return out, nil
	}, nil
}

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
