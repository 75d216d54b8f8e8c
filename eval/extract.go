package eval

// Answer extraction, lm-eval style: a task declares its filters (regex +
// take_first) as data in package datasets; this file compiles and applies them
// with the exact semantics of lm_eval/filters/extraction.py's RegexFilter.

import (
	"fmt"
	"regexp"
	"strings"
	"unicode"

	"github.com/entropix-eval/entropix-eval/datasets"
)

// RegexFilter is lm-eval's RegexFilter followed by take_first.
type RegexFilter struct {
	name        string
	re          *regexp.Regexp
	groupSelect int
	fallback    string
	fast        fastScanner // nil: use re
}

// NewRegexFilter compiles a filter. The lm-eval GSM8K patterns use only syntax
// on which Python's re and Go's RE2 agree (leftmost-first alternation, escaped
// punctuation, bounded repeats).
func NewRegexFilter(spec datasets.FilterSpec) (*RegexFilter, error) {
	re, err := regexp.Compile(spec.Pattern)
	if err != nil {
		return nil, fmt.Errorf("filter %s: compile %q: %w", spec.Name, spec.Pattern, err)
	}
	fb := spec.Fallback
	if fb == "" {
		fb = datasets.InvalidAnswer
	}
	return &RegexFilter{name: spec.Name, re: re, groupSelect: spec.GroupSelect, fallback: fb,
		fast: fastScanners[spec.Pattern]}, nil
}

// Name is the filter's name as lm-eval reports it ("strict-match", ...).
func (f *RegexFilter) Name() string { return f.name }

// Apply extracts the answer from one response, as Python would compute
//
//	m = re.findall(pattern, resp); m = m[group_select]
//	if tuple: first non-empty group, else fallback; then m.strip()
//
// findall yields the whole match without groups, the group with one, and a
// tuple with several, so the pattern's group count decides what comes back.
func (f *RegexFilter) Apply(response string) string {
	if f.fast != nil {
		return f.applyFast(response)
	}
	matches := f.re.FindAllStringSubmatch(response, -1)
	if len(matches) == 0 {
		return f.fallback
	}
	i := f.groupSelect
	if i < 0 {
		i += len(matches) // Python's negative index
	}
	if i < 0 || i >= len(matches) {
		return f.fallback // Python would raise IndexError; an answer is still owed
	}
	m := matches[i]
	switch f.re.NumSubexp() {
	case 0:
		return pyStrip(m[0])
	case 1:
		return pyStrip(m[1]) // a non-participating group is "" in both languages
	}
	for _, g := range m[1:] {
		if g != "" {
			return pyStrip(g)
		}
	}
	return f.fallback
}

func (f *RegexFilter) applyFast(response string) string {
	matches := f.fast(response)
	i := f.groupSelect
	if i < 0 {
		i += len(matches)
	}
	if i < 0 || i >= len(matches) {
		return f.fallback
	}
	return pyStrip(matches[i])
}

// pyStrip is Python's str.strip(): Unicode whitespace plus the ASCII
// separators \x1c-\x1f, which Python counts as whitespace and Go does not.
func pyStrip(s string) string {
	return strings.TrimFunc(s, func(r rune) bool { return unicode.IsSpace(r) || (r >= 0x1c && r <= 0x1f) })
}

// Extraction is what a task's filters make of one response.
type Extraction struct {
	Strict   string
	Flexible string
}

// Extractor applies a task's strict-match and flexible-extract filters.
type Extractor struct {
	strict, flexible *RegexFilter
}

// NewExtractor compiles the task's "strict-match" and "flexible-extract" filters.
func NewExtractor(task datasets.Task) (*Extractor, error) {
	var e Extractor
	for _, f := range []struct {
		name string
		dst  **RegexFilter
	}{{datasets.StrictMatch, &e.strict}, {datasets.FlexibleExtract, &e.flexible}} {
		spec, ok := task.Filter(f.name)
		if !ok {
			return nil, fmt.Errorf("task %s: no %s filter", task.Name, f.name)
		}
		rf, err := NewRegexFilter(spec)
		if err != nil {
			return nil, fmt.Errorf("task %s: %w", task.Name, err)
		}
		*f.dst = rf
	}
	return &e, nil
}

// Extract runs both filters on a response (already cut at its stop string).
func (e *Extractor) Extract(response string) Extraction {
	return Extraction{Strict: e.strict.Apply(response), Flexible: e.flexible.Apply(response)}
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
