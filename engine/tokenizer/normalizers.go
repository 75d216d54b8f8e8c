package tokenizer

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// normalizer rewrites a text segment before pre-tokenization. Segments are the
// pieces between added tokens, so e.g. Llama 2's Prepend("▁") applies to each.
type normalizer interface {
	normalize(s string) (string, error)
}

type (
	sequenceNormalizer  []normalizer
	unicodeNormalizer   struct{ form norm.Form }
	lowercaseNormalizer struct{}
	prependNormalizer   struct{ prefix string }
	replaceNormalizer   struct {
		pattern matcher
		content string
	}
	stripNormalizer        struct{ left, right bool }
	stripAccentsNormalizer struct{}
)

func newNormalizer(raw json.RawMessage) (normalizer, error) {
	typ, ok, err := componentType(raw)
	if err != nil {
		return nil, fmt.Errorf("normalizer: %w", err)
	}
	if !ok {
		return nil, nil
	}
	switch typ {
	case "Sequence":
		var s struct {
			Normalizers []json.RawMessage `json:"normalizers"`
		}
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, fmt.Errorf("normalizer Sequence: %w", err)
		}
		seq := make(sequenceNormalizer, 0, len(s.Normalizers))
		for i, r := range s.Normalizers {
			n, err := newNormalizer(r)
			if err != nil {
				return nil, fmt.Errorf("normalizer Sequence[%d]: %w", i, err)
			}
			if n != nil {
				seq = append(seq, n)
			}
		}
		return seq, nil
	case "NFC":
		return unicodeNormalizer{norm.NFC}, nil
	case "NFD":
		return unicodeNormalizer{norm.NFD}, nil
	case "NFKC":
		return unicodeNormalizer{norm.NFKC}, nil
	case "NFKD":
		return unicodeNormalizer{norm.NFKD}, nil
	case "Lowercase":
		return lowercaseNormalizer{}, nil
	case "Prepend":
		var s struct {
			Prepend string `json:"prepend"`
		}
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, fmt.Errorf("normalizer Prepend: %w", err)
		}
		return prependNormalizer{s.Prepend}, nil
	case "Replace":
		var s struct {
			Pattern patternSchema `json:"pattern"`
			Content string        `json:"content"`
		}
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, fmt.Errorf("normalizer Replace: %w", err)
		}
		m, err := newMatcher(s.Pattern)
		if err != nil {
			return nil, fmt.Errorf("normalizer Replace: %w", err)
		}
		return replaceNormalizer{pattern: m, content: s.Content}, nil
	case "Strip":
		var s struct {
			Left  bool `json:"strip_left"`
			Right bool `json:"strip_right"`
		}
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, fmt.Errorf("normalizer Strip: %w", err)
		}
		return stripNormalizer{s.Left, s.Right}, nil
	case "StripAccents":
		return stripAccentsNormalizer{}, nil
	}
	return nil, fmt.Errorf("normalizer type %q: unsupported", typ)
}

func (seq sequenceNormalizer) normalize(s string) (string, error) {
	for _, n := range seq {
		var err error
		if s, err = n.normalize(s); err != nil {
			return "", err
		}
	}
	return s, nil
}

func (u unicodeNormalizer) normalize(s string) (string, error) { return u.form.String(s), nil }

// Rust lowercases char by char (no final-sigma rule); Go's ToLower agrees except
// for U+0130, which Rust expands to "i̇".
func (lowercaseNormalizer) normalize(s string) (string, error) {
	return strings.ToLower(strings.ReplaceAll(s, "\u0130", "i\u0307")), nil
}

// Rust prepends only to non-empty strings.
func (p prependNormalizer) normalize(s string) (string, error) {
	if s == "" {
		return s, nil
	}
	return p.prefix + s, nil
}

func (r replaceNormalizer) normalize(s string) (string, error) {
	return replaceAll(r.pattern, s, r.content)
}

func (st stripNormalizer) normalize(s string) (string, error) {
	if st.left {
		s = strings.TrimLeftFunc(s, unicode.IsSpace)
	}
	if st.right {
		s = strings.TrimRightFunc(s, unicode.IsSpace)
	}
	return s, nil
}

func (stripAccentsNormalizer) normalize(s string) (string, error) {
	return strings.Map(func(r rune) rune {
		if unicode.Is(unicode.M, r) {
			return -1
		}
		return r
	}, s), nil
}

// replaceAll replaces every match of m in s by content.
func replaceAll(m matcher, s, content string) (string, error) {
	if lit, ok := m.(literalMatcher); ok {
		return strings.ReplaceAll(s, string(lit), content), nil
	}
	var b strings.Builder
	prev := 0
	err := m.matches(s, func(start, end int) {
		b.WriteString(s[prev:start])
		b.WriteString(content)
		prev = end
	})
	if err != nil {
		return "", err
	}
	b.WriteString(s[prev:])
	return b.String(), nil
}
