package hooks

// lm-eval's RegexFilter (lm_eval/filters/extraction.py), "regex" in
// filter_list.

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
		fb = InvalidAnswer
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
	if spec.Fallback, err = strParam(params, "fallback", InvalidAnswer); err != nil {
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
		return PyStrip(matches[i]), nil
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
		return PyStrip(g), nil
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

// InvalidAnswer is lm-eval's fallback for a response no regex matches.
const InvalidAnswer = "[invalid]"

func init() {
	registerFilter(Filter{Name: "regex", Params: []string{"regex_pattern", "group_select", "fallback"},
		New: func(params map[string]any) (FilterFunc, error) {
			rf, err := regexFilterFrom(params)
			if err != nil {
				return nil, err
			}
			return mapEach(rf.ApplyErr), nil
		}})
}
