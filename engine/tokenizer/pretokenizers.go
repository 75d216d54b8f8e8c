package tokenizer

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode"
)

// piece is a span of normalized text on its way to the model. first marks the
// span that starts the input (Metaspace's prepend_scheme "first" needs it);
// byteLevel marks text still to be mapped to the byte-level alphabet, which the
// model does into a reused buffer instead of allocating a string per word.
type piece struct {
	s         string
	first     bool
	byteLevel bool
}

// preTokenizer splits a piece into smaller ones (and may rewrite them, as
// ByteLevel does), appending the results to dst.
type preTokenizer interface {
	preTokenize(dst []piece, p piece, sc *scratch) ([]piece, error)
}

type splitBehavior int

const (
	behaviorRemoved splitBehavior = iota
	behaviorIsolated
	behaviorMergedWithPrevious
	behaviorMergedWithNext
	behaviorContiguous
)

var splitBehaviors = map[string]splitBehavior{
	"Removed":            behaviorRemoved,
	"Isolated":           behaviorIsolated,
	"MergedWithPrevious": behaviorMergedWithPrevious,
	"MergedWithNext":     behaviorMergedWithNext,
	"Contiguous":         behaviorContiguous,
}

type (
	sequencePreTokenizer []preTokenizer
	splitPreTokenizer    struct {
		pattern  matcher
		behavior splitBehavior
		invert   bool
	}
	byteLevelPreTokenizer struct {
		addPrefixSpace bool
		split          matcher // nil when use_regex is false
		// eager maps the text at once: set when a later stage must see it.
		eager bool
	}
	metaspacePreTokenizer struct {
		replacement string
		prepend     string // "always", "first" or "never"
		split       bool
	}
)

// gpt2Pattern is the regex ByteLevel uses when use_regex is true.
const gpt2Pattern = `'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+`

func newPreTokenizer(raw json.RawMessage) (preTokenizer, error) {
	typ, ok, err := componentType(raw)
	if err != nil {
		return nil, fmt.Errorf("pre_tokenizer: %w", err)
	}
	if !ok {
		return nil, nil
	}
	fail := func(err error) (preTokenizer, error) {
		return nil, fmt.Errorf("pre_tokenizer %s: %w", typ, err)
	}
	switch typ {
	case "Sequence":
		var s struct {
			PreTokenizers []json.RawMessage `json:"pretokenizers"`
		}
		if err := json.Unmarshal(raw, &s); err != nil {
			return fail(err)
		}
		seq := make(sequencePreTokenizer, 0, len(s.PreTokenizers))
		for i, r := range s.PreTokenizers {
			p, err := newPreTokenizer(r)
			if err != nil {
				return nil, fmt.Errorf("pre_tokenizer Sequence[%d]: %w", i, err)
			}
			// Nested sequences are flattened: the result is the same and the
			// scratch buffers need only one level.
			if inner, ok := p.(sequencePreTokenizer); ok {
				seq = append(seq, inner...)
			} else if p != nil {
				seq = append(seq, p)
			}
		}
		for i := range seq[:max(len(seq)-1, 0)] {
			if bl, ok := seq[i].(byteLevelPreTokenizer); ok {
				bl.eager = true
				seq[i] = bl
			}
		}
		return seq, nil
	case "Split":
		var s struct {
			Pattern  patternSchema `json:"pattern"`
			Behavior string        `json:"behavior"`
			Invert   bool          `json:"invert"`
		}
		if err := json.Unmarshal(raw, &s); err != nil {
			return fail(err)
		}
		b, ok := splitBehaviors[s.Behavior]
		if !ok {
			return fail(fmt.Errorf("behavior %q: unsupported", s.Behavior))
		}
		m, err := newMatcher(s.Pattern)
		if err != nil {
			return fail(err)
		}
		return splitPreTokenizer{pattern: m, behavior: b, invert: s.Invert}, nil
	case "ByteLevel":
		s := struct {
			AddPrefixSpace bool  `json:"add_prefix_space"`
			UseRegex       *bool `json:"use_regex"`
		}{}
		if err := json.Unmarshal(raw, &s); err != nil {
			return fail(err)
		}
		p := byteLevelPreTokenizer{addPrefixSpace: s.AddPrefixSpace}
		if s.UseRegex == nil || *s.UseRegex { // absent in old files means true
			m, err := newMatcher(patternSchema{Regex: ptr(gpt2Pattern)})
			if err != nil {
				return fail(err)
			}
			p.split = m
		}
		return p, nil
	case "Digits":
		var s struct {
			Individual bool `json:"individual_digits"`
		}
		if err := json.Unmarshal(raw, &s); err != nil {
			return fail(err)
		}
		// Rust's char::is_numeric is the Unicode N category, not just 0-9.
		b := behaviorContiguous
		if s.Individual {
			b = behaviorIsolated
		}
		return splitPreTokenizer{pattern: runeMatcher(unicode.IsNumber), behavior: b}, nil
	case "Metaspace":
		return newMetaspace(raw)
	}
	return nil, fmt.Errorf("pre_tokenizer type %q: unsupported", typ)
}

func ptr[T any](v T) *T { return &v }

func newMetaspace(raw json.RawMessage) (preTokenizer, error) {
	var s struct {
		Replacement    string  `json:"replacement"`
		PrependScheme  *string `json:"prepend_scheme"`
		AddPrefixSpace *bool   `json:"add_prefix_space"` // pre-0.15 files
		Split          *bool   `json:"split"`
	}
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, fmt.Errorf("pre_tokenizer Metaspace: %w", err)
	}
	p := metaspacePreTokenizer{replacement: s.Replacement, prepend: "always", split: true}
	if p.replacement == "" {
		p.replacement = "▁"
	}
	switch {
	case s.PrependScheme != nil:
		p.prepend = *s.PrependScheme
	case s.AddPrefixSpace != nil && !*s.AddPrefixSpace:
		p.prepend = "never"
	}
	if p.prepend != "always" && p.prepend != "first" && p.prepend != "never" {
		return nil, fmt.Errorf("pre_tokenizer Metaspace: prepend_scheme %q: unsupported", p.prepend)
	}
	if s.Split != nil {
		p.split = *s.Split
	}
	return p, nil
}

func (seq sequencePreTokenizer) preTokenize(dst []piece, p piece, sc *scratch) ([]piece, error) {
	return seq.apply(dst, p, 0, sc)
}

// apply runs stages depth.. on p; each depth owns one scratch buffer.
func (seq sequencePreTokenizer) apply(dst []piece, p piece, depth int, sc *scratch) ([]piece, error) {
	if depth == len(seq) {
		return append(dst, p), nil
	}
	for len(sc.stageBufs) <= depth {
		sc.stageBufs = append(sc.stageBufs, nil)
	}
	out, err := seq[depth].preTokenize(sc.stageBufs[depth][:0], p, sc)
	if err != nil {
		return nil, err
	}
	sc.stageBufs[depth] = out
	for _, q := range out {
		if dst, err = seq.apply(dst, q, depth+1, sc); err != nil {
			return nil, err
		}
	}
	return dst, nil
}

func (sp splitPreTokenizer) preTokenize(dst []piece, p piece, sc *scratch) ([]piece, error) {
	return splitPiece(dst, p, sp.pattern, sp.behavior, sp.invert, sc)
}

func (bl byteLevelPreTokenizer) preTokenize(dst []piece, p piece, sc *scratch) ([]piece, error) {
	if bl.addPrefixSpace && !strings.HasPrefix(p.s, " ") {
		p.s = " " + p.s
	}
	start := len(dst)
	if bl.split != nil {
		var err error
		if dst, err = splitPiece(dst, p, bl.split, behaviorIsolated, false, sc); err != nil {
			return nil, err
		}
	} else if p.s != "" {
		dst = append(dst, p)
	}
	for i := start; i < len(dst); i++ {
		if bl.eager {
			dst[i].s = string(appendByteLevel(make([]byte, 0, 2*len(dst[i].s)), dst[i].s))
		} else {
			dst[i].byteLevel = true
		}
	}
	return dst, nil
}

func (ms metaspacePreTokenizer) preTokenize(dst []piece, p piece, sc *scratch) ([]piece, error) {
	s := strings.ReplaceAll(p.s, " ", ms.replacement)
	prepend := ms.prepend == "always" || (ms.prepend == "first" && p.first)
	if prepend && !strings.HasPrefix(s, ms.replacement) {
		s = ms.replacement + s
	}
	if !ms.split {
		if s != "" {
			dst = append(dst, piece{s: s, first: p.first})
		}
		return dst, nil
	}
	return splitPiece(dst, piece{s: s, first: p.first}, literalMatcher(ms.replacement), behaviorMergedWithNext, false, sc)
}

// span is one stretch of a piece, a match of the pattern or the text between.
type span struct {
	start, end int
	match      bool
}

// splitPiece cuts p at the matches of m and groups the stretches as the Rust
// library's NormalizedString::split does for the given behavior; empty results
// are dropped.
func splitPiece(dst []piece, p piece, m matcher, behavior splitBehavior, invert bool, sc *scratch) ([]piece, error) {
	if p.s == "" {
		return dst, nil
	}
	spans := sc.spans[:0]
	prev := 0
	err := m.matches(p.s, func(start, end int) {
		if prev != start {
			spans = append(spans, span{prev, start, invert})
		}
		spans = append(spans, span{start, end, !invert})
		prev = end
	})
	if err != nil {
		return nil, err
	}
	if prev != len(p.s) {
		spans = append(spans, span{prev, len(p.s), invert})
	}
	sc.spans = spans
	groups := sc.groups[:0] // match here means "drop"
	switch behavior {
	case behaviorIsolated:
		for _, s := range spans {
			groups = append(groups, span{s.start, s.end, false})
		}
	case behaviorRemoved:
		groups = spans
	case behaviorContiguous, behaviorMergedWithPrevious:
		prevMatch := false
		for _, s := range spans {
			join := s.match == prevMatch
			if behavior == behaviorMergedWithPrevious {
				join = s.match && !prevMatch
			}
			if join && len(groups) > 0 {
				groups[len(groups)-1].end = s.end
			} else {
				groups = append(groups, span{s.start, s.end, false})
			}
			prevMatch = s.match
		}
	case behaviorMergedWithNext:
		prevMatch := false
		for i := len(spans) - 1; i >= 0; i-- {
			s := spans[i]
			if s.match && !prevMatch && len(groups) > 0 {
				groups[len(groups)-1].start = s.start
			} else {
				groups = append(groups, span{s.start, s.end, false})
			}
			prevMatch = s.match
		}
		for i, j := 0, len(groups)-1; i < j; i, j = i+1, j-1 {
			groups[i], groups[j] = groups[j], groups[i]
		}
	}
	for _, g := range groups {
		if g.match || g.start == g.end {
			continue
		}
		dst = append(dst, piece{s: p.s[g.start:g.end], first: p.first && g.start == 0, byteLevel: p.byteLevel})
	}
	sc.groups = groups
	return dst, nil
}
