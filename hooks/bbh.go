package hooks

// BBH zero-shot (bbh/cot_zeroshot, bbh/zeroshot; one utils.py): the filter
// classes MultiChoiceRegexFilter, MapRegexFilter, NumberParseRegexFilter and
// WordSortFilter, on ExtendedRegexFilter's find_match and filter_ignores.
// Where the Python raises (an index past the matches, a tuple of empty
// groups, word2number rejecting its input) lm-eval stops the run; here the
// grade fails with the same cause.

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"unicode"
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

// extendedRegex is ExtendedRegexFilter: a RegexFilter plus the options
// filter_ignores applies.
type extendedRegex struct {
	re          *pyRegex
	groupSelect int
	fallback    string
	ignoreCase  bool
	ignorePunct bool
	ignores     []*pyRegex
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
		return "", fmt.Errorf("find_match: every group of the match is empty (Python: IndexError)")
	}
	m = PyStrip(m)
	if c, ok := convert[m]; ok && m != "" {
		m = c
	}
	return m, nil
}

var bbhChoiceRE = mustPyRegex(`\([A-Z]\)([^\n^(]*)`)

func mustPyRegex(p string) *pyRegex {
	re, err := compilePyRegex(p)
	if err != nil {
		panic(err) // constant patterns: a failure is a programming error
	}
	return re
}

// bbhMultiChoice is BBH's MultiChoiceRegexFilter: the regex; else the
// choice texts parsed from doc["input"] ("(A) text" up to a newline or "("),
// normalised by filter_ignores, found in the normalised response; else
// ": X" for a choice letter X; else the fallback.
func bbhMultiChoice(params map[string]any) (FilterFunc, error) {
	x, err := newExtendedRegex(params, "")
	if err != nil {
		return nil, err
	}
	return func(v Values, doc map[string]any) (Values, error) {
		input, ok := doc["input"].(string)
		if !ok {
			return Values{}, fmt.Errorf("MultiChoiceRegexFilter: doc[\"input\"]: want a string, got %T", doc["input"])
		}
		ms, err := bbhChoiceRE.findAll(input)
		if err != nil {
			return Values{}, err
		}
		var alts, letters []string
		toAlpha, letterTo := map[string]string{}, map[string]string{}
		for i, m := range ms {
			letter := string(rune('A' + i))
			c, err := x.filterIgnores(PyStrip(m[1]))
			if err != nil {
				return Values{}, err
			}
			alts = append(alts, regexp.QuoteMeta(c))
			toAlpha[c] = "(" + letter + ")"
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
				return Values{}, fmt.Errorf("MultiChoiceRegexFilter: %w", err)
			}
			if m == "" {
				m = x.fallback
			}
			out.Items[i] = m
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
