package tokenizer

import (
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// addedToken is an entry of tokenizer.json's "added_tokens": text matched before
// the model sees the input, so "<|eot_id|>" in a prompt becomes one id.
type addedToken struct {
	id         int32
	content    string
	singleWord bool
	lstrip     bool
	rstrip     bool
	normalized bool
	special    bool
}

// addedMatcher finds added tokens in text with the Rust library's aho-corasick
// LeftmostLongest semantics: the earliest start wins, then the longest token.
type addedMatcher struct {
	// byFirstByte lists candidate patterns per first byte, longest first;
	// byFirstTwo the same per first two bytes, so text such as "<<" is
	// rejected without comparing every "<|…|>" token.
	byFirstByte [256][]addedPattern
	byFirstTwo  map[uint16][]addedPattern
	oneByte     [256]*addedPattern
	empty       bool
	// singleFirst is the one first byte all tokens share (e.g. '<'), or -1;
	// it lets split jump between candidates with strings.IndexByte.
	singleFirst int
}

type addedPattern struct {
	text  string
	token *addedToken
}

func newAddedMatcher(patterns []addedPattern) *addedMatcher {
	m := &addedMatcher{empty: true, singleFirst: -1, byFirstTwo: map[uint16][]addedPattern{}}
	firsts := 0
	for _, p := range patterns {
		if p.text == "" {
			continue
		}
		if len(m.byFirstByte[p.text[0]]) == 0 {
			firsts++
			m.singleFirst = int(p.text[0])
		}
		m.byFirstByte[p.text[0]] = append(m.byFirstByte[p.text[0]], p)
		m.empty = false
	}
	if firsts != 1 {
		m.singleFirst = -1
	}
	for i := range m.byFirstByte {
		list := m.byFirstByte[i]
		sort.SliceStable(list, func(a, b int) bool { return len(list[a].text) > len(list[b].text) })
		for j, p := range list {
			if len(p.text) == 1 {
				m.oneByte[i] = &list[j]
			} else {
				key := uint16(p.text[0])<<8 | uint16(p.text[1])
				m.byFirstTwo[key] = append(m.byFirstTwo[key], p)
			}
		}
	}
	return m
}

// segment is a stretch of input: either plain text (token nil) or an added token.
type segment struct {
	s     string
	start int // byte offset in the string that was split
	token *addedToken
}

// split cuts s into plain text and added tokens, applying single_word, lstrip and
// rstrip the way the Rust AddedVocabulary::find_matches does.
func (m *addedMatcher) split(dst []segment, s string, base int) []segment {
	if m == nil || m.empty {
		return append(dst, segment{s: s, start: base})
	}
	startOffset := 0
	for pos := 0; pos < len(s); {
		if m.singleFirst >= 0 {
			next := strings.IndexByte(s[pos:], byte(m.singleFirst))
			if next < 0 {
				break
			}
			pos += next
		}
		p, ok := m.longestAt(s, pos)
		if !ok {
			pos++
			continue
		}
		start, stop := pos, pos+len(p.text)
		pos = stop
		tok := p.token
		if tok.singleWord {
			startOK := start == 0 || !endsWithWordChar(s[:start])
			stopOK := stop == len(s) || !startsWithWordChar(s[stop:])
			if !startOK || !stopOK {
				continue
			}
		}
		if tok.lstrip {
			start = max(len(strings.TrimRightFunc(s[:start], unicode.IsSpace)), startOffset)
		}
		if tok.rstrip {
			stop = len(s) - len(strings.TrimLeftFunc(s[stop:], unicode.IsSpace))
		}
		if startOffset < start {
			dst = append(dst, segment{s: s[startOffset:start], start: base + startOffset})
		}
		dst = append(dst, segment{s: s[start:stop], start: base + start, token: tok})
		startOffset = stop
		pos = max(pos, stop)
	}
	if startOffset < len(s) {
		dst = append(dst, segment{s: s[startOffset:], start: base + startOffset})
	}
	return dst
}

func (m *addedMatcher) longestAt(s string, pos int) (addedPattern, bool) {
	if pos+1 < len(s) {
		for _, p := range m.byFirstTwo[uint16(s[pos])<<8|uint16(s[pos+1])] {
			if strings.HasPrefix(s[pos:], p.text) {
				return p, true
			}
		}
	}
	if p := m.oneByte[s[pos]]; p != nil {
		return *p, true
	}
	return addedPattern{}, false
}

// isWordChar is the Rust regex crate's Unicode \w, which single_word uses:
// Alphabetic (letters, Nl, Other_Alphabetic), marks, Nd, Pc and Join_Control.
func isWordChar(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsMark(r) ||
		unicode.In(r, unicode.Nd, unicode.Nl, unicode.Pc, unicode.Other_Alphabetic, unicode.Join_Control)
}

func endsWithWordChar(s string) bool {
	r, _ := utf8.DecodeLastRuneInString(s)
	return s != "" && isWordChar(r)
}

func startsWithWordChar(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return s != "" && isWordChar(r)
}
