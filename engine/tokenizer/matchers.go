package tokenizer

import (
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/dlclark/regexp2"
)

// matcher reports the non-overlapping matches of a pattern in s, left to right,
// as byte offsets.
type matcher interface {
	matches(s string, fn func(start, end int)) error
}

// literalMatcher is a {"String": ...} pattern, matched literally as Rust does.
type literalMatcher string

func (l literalMatcher) matches(s string, fn func(start, end int)) error {
	if l == "" {
		return nil
	}
	for off := 0; ; {
		i := strings.Index(s[off:], string(l))
		if i < 0 {
			return nil
		}
		fn(off+i, off+i+len(l))
		off += i + len(l)
	}
}

// runeMatcher matches every single rune for which the predicate holds.
type runeMatcher func(r rune) bool

func (f runeMatcher) matches(s string, fn func(start, end int)) error {
	for i, r := range s {
		if f(r) {
			fn(i, i+utf8.RuneLen(r))
		}
	}
	return nil
}

// regexMatcher runs a tokenizer.json regex. The Rust library uses Oniguruma;
// the lookahead Go's regexp lacks. regexp2 reports rune offsets, converted here.
//
// A backtracking engine can take exponential time: tokenizer.json comes from the
// internet, and a pattern like (a+)+$ on 40 "a"s runs for minutes. Each match
// attempt therefore has a time limit, and the text one call scans is bounded.
type regexMatcher struct {
	re *regexp2.Regexp
}

// Limits on one regex scan; no real prompt or pattern comes near them.
var (
	regexMatchTimeout = 2 * time.Second
	// MaxScanBytes bounds the text one tokenizer pass scans in one piece (the
	// text between two added tokens).
	MaxScanBytes = 4 << 20
)

func newRegexMatcher(pattern string) (*regexMatcher, error) {
	re, err := regexp2.Compile(pattern, regexp2.Unicode)
	if err != nil {
		return nil, fmt.Errorf("regex %q: %w", pattern, err)
	}
	re.MatchTimeout = regexMatchTimeout
	return &regexMatcher{re: re}, nil
}

func (m *regexMatcher) matches(s string, fn func(start, end int)) error {
	if len(s) > MaxScanBytes {
		return fmt.Errorf("regex %q: a piece of %d bytes is more than the %d bytes scanned in one piece", m.re.String(), len(s), MaxScanBytes)
	}
	runes := []rune(s)
	// byteAt[i] is the byte offset of rune i; the input is valid UTF-8.
	byteAt := make([]int, len(runes)+1)
	off := 0
	for i, r := range runes {
		byteAt[i] = off
		off += utf8.RuneLen(r)
	}
	byteAt[len(runes)] = off
	mt, err := m.re.FindRunesMatch(runes)
	for err == nil && mt != nil {
		fn(byteAt[mt.Index], byteAt[mt.Index+mt.Length])
		mt, err = m.re.FindNextMatch(mt)
	}
	if err != nil {
		return fmt.Errorf("regex %q on a piece of %d bytes: %w (a pattern that backtracks catastrophically)", m.re.String(), len(s), err)
	}
	return nil
}

// newMatcher builds the matcher of a Split/Replace pattern. Known pre-tokenizer
// regexes get a hand-written scanner (tested equal to regexp2) for speed.
func newMatcher(p patternSchema) (matcher, error) {
	switch {
	case p.String != nil:
		return literalMatcher(*p.String), nil
	case p.Regex != nil:
		if fast := fastScanner(*p.Regex); fast != nil {
			return fast, nil
		}
		m, err := newRegexMatcher(*p.Regex)
		if err != nil {
			return nil, err
		}
		return m, nil
	}
	return nil, fmt.Errorf("pattern: neither String nor Regex")
}
