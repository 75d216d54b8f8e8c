package tokenizer

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// decoder turns token strings back into text. Like the Rust library, decoders
// work on the whole list of tokens (decode_chain) and Decode joins the result.
type decoder interface {
	decodeChain(tokens []string) ([]string, error)
}

type (
	sequenceDecoder  []decoder
	byteLevelDecoder struct{}
	metaspaceDecoder struct {
		replacement  string
		stripLeading bool // prepend_scheme is not "never"
	}
	replaceDecoder struct {
		pattern matcher
		content string
	}
	byteFallbackDecoder struct{}
	fuseDecoder         struct{}
	stripDecoder        struct {
		content     rune
		start, stop int
	}
)

func newDecoder(raw json.RawMessage) (decoder, error) {
	typ, ok, err := componentType(raw)
	if err != nil {
		return nil, fmt.Errorf("decoder: %w", err)
	}
	if !ok {
		return nil, nil
	}
	switch typ {
	case "Sequence":
		var s struct {
			Decoders []json.RawMessage `json:"decoders"`
		}
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, fmt.Errorf("decoder Sequence: %w", err)
		}
		seq := make(sequenceDecoder, 0, len(s.Decoders))
		for i, r := range s.Decoders {
			d, err := newDecoder(r)
			if err != nil {
				return nil, fmt.Errorf("decoder Sequence[%d]: %w", i, err)
			}
			if d != nil {
				seq = append(seq, d)
			}
		}
		return seq, nil
	case "ByteLevel":
		return byteLevelDecoder{}, nil
	case "Metaspace":
		p, err := newMetaspace(raw)
		if err != nil {
			return nil, fmt.Errorf("decoder: %w", err)
		}
		ms := p.(metaspacePreTokenizer)
		return metaspaceDecoder{replacement: ms.replacement, stripLeading: ms.prepend != "never"}, nil
	case "Replace":
		var s struct {
			Pattern patternSchema `json:"pattern"`
			Content string        `json:"content"`
		}
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, fmt.Errorf("decoder Replace: %w", err)
		}
		m, err := newMatcher(s.Pattern)
		if err != nil {
			return nil, fmt.Errorf("decoder Replace: %w", err)
		}
		return replaceDecoder{pattern: m, content: s.Content}, nil
	case "ByteFallback":
		return byteFallbackDecoder{}, nil
	case "Fuse":
		return fuseDecoder{}, nil
	case "Strip":
		var s struct {
			Content string `json:"content"`
			Start   int    `json:"start"`
			Stop    int    `json:"stop"`
		}
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, fmt.Errorf("decoder Strip: %w", err)
		}
		if utf8.RuneCountInString(s.Content) != 1 || s.Start < 0 || s.Stop < 0 {
			return nil, fmt.Errorf("decoder Strip: want one content character and non-negative start/stop, got %q %d %d", s.Content, s.Start, s.Stop)
		}
		r, _ := utf8.DecodeRuneInString(s.Content)
		return stripDecoder{content: r, start: s.Start, stop: s.Stop}, nil
	}
	return nil, fmt.Errorf("decoder type %q: unsupported", typ)
}

func (seq sequenceDecoder) decodeChain(tokens []string) ([]string, error) {
	for _, d := range seq {
		var err error
		if tokens, err = d.decodeChain(tokens); err != nil {
			return nil, err
		}
	}
	return tokens, nil
}

// ByteLevel maps each token's alphabet runes back to bytes (a token with a rune
// outside the alphabet, such as an added token, keeps its UTF-8 bytes) and decodes
// the concatenation lossily.
func (byteLevelDecoder) decodeChain(tokens []string) ([]string, error) {
	var raw []byte
	for _, t := range tokens {
		raw = appendByteLevelDecoded(raw, t)
	}
	return []string{string(appendLossyUTF8(make([]byte, 0, len(raw)), raw))}, nil
}

func appendByteLevelDecoded(dst []byte, t string) []byte {
	start := len(dst)
	for _, r := range t {
		b, ok := byteOfRune(r)
		if !ok {
			return append(dst[:start], t...)
		}
		dst = append(dst, b)
	}
	return dst
}

// Metaspace turns "▁" back into spaces; in the first token Rust drops every
// "▁" (not only a leading one) unless prepend_scheme is "never".
func (d metaspaceDecoder) decodeChain(tokens []string) ([]string, error) {
	out := make([]string, len(tokens))
	for i, t := range tokens {
		if i == 0 && d.stripLeading {
			out[i] = strings.ReplaceAll(t, d.replacement, "")
		} else {
			out[i] = strings.ReplaceAll(t, d.replacement, " ")
		}
	}
	return out, nil
}

func (d replaceDecoder) decodeChain(tokens []string) ([]string, error) {
	out := make([]string, len(tokens))
	for i, t := range tokens {
		var err error
		if out[i], err = replaceAll(d.pattern, t, d.content); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// ByteFallback turns runs of "<0xNN>" tokens into text. A run that is not valid
// UTF-8 becomes one U+FFFD per byte token, as in the Rust library.
func (byteFallbackDecoder) decodeChain(tokens []string) ([]string, error) {
	out := make([]string, 0, len(tokens))
	var run []byte
	flush := func() {
		if len(run) == 0 {
			return
		}
		if utf8.Valid(run) {
			out = append(out, string(run))
		} else {
			for range run {
				out = append(out, "\uFFFD")
			}
		}
		run = run[:0]
	}
	for _, t := range tokens {
		if b, ok := parseByteToken(t); ok {
			run = append(run, b)
			continue
		}
		flush()
		out = append(out, t)
	}
	flush()
	return out, nil
}

// parseByteToken recognizes "<0xNN>" the way Rust's u8::from_str_radix does
// (either case of hex digits).
func parseByteToken(t string) (byte, bool) {
	if len(t) != 6 || !strings.HasPrefix(t, "<0x") || t[5] != '>' {
		return 0, false
	}
	v, err := strconv.ParseUint(t[3:5], 16, 8)
	if err != nil {
		return 0, false
	}
	return byte(v), true
}

func (fuseDecoder) decodeChain(tokens []string) ([]string, error) {
	return []string{strings.Join(tokens, "")}, nil
}

func (d stripDecoder) decodeChain(tokens []string) ([]string, error) {
	out := make([]string, len(tokens))
	for i, t := range tokens {
		runes := []rune(t)
		lo, hi := 0, len(runes)
		for lo < d.start && lo < hi && runes[lo] == d.content {
			lo++
		}
		for k := 0; k < d.stop && hi > lo && runes[hi-1] == d.content; k++ {
			hi--
		}
		out[i] = string(runes[lo:hi])
	}
	return out, nil
}
