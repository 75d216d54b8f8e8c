package tokenizer

import (
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"
)

// streamAll decodes ids one at a time and returns every Next result and the
// concatenation with Flush.
func streamAll(t testing.TB, tok *Tokenizer, ids []int32, skipSpecial bool) ([]string, string) {
	t.Helper()
	d := tok.NewStreamDecoder(skipSpecial)
	var parts []string
	var all strings.Builder
	for _, id := range ids {
		s, err := d.Next(id)
		require.NoError(t, err)
		parts = append(parts, s)
		all.WriteString(s)
	}
	rest, err := d.Flush()
	require.NoError(t, err)
	all.WriteString(rest)
	return parts, all.String()
}

// TestStreamDecoderMatchesGoldens streams the golden ids of every edge case: each
// piece is valid UTF-8 and the pieces add up to the Rust library's decoded text.
func TestStreamDecoderMatchesGoldens(t *testing.T) {
	for _, name := range goldenTokenizers {
		t.Run(name, func(t *testing.T) {
			tok := cachedShared(t, name)
			for _, g := range readGoldenLines[encodeGolden](t, "golden/tokenizers/"+name+".jsonl") {
				parts, all := streamAll(t, tok, g.IDs, false)
				for _, p := range parts {
					require.True(t, utf8.ValidString(p), "%q: piece %q", g.Text, p)
				}
				require.Equal(t, g.Decoded, all, "%q", g.Text)
			}
		})
	}
}

// TestStreamDecoderHoldsSplitCharacters feeds the four UTF-8 bytes of 😀 as
// separate byte tokens: nothing comes out until the character is complete.
func TestStreamDecoderHoldsSplitCharacters(t *testing.T) {
	emoji := "😀"
	cases := map[string]func(b byte) string{
		"llama3":      func(b byte) string { return byteToString[b] },
		"gpt2":        func(b byte) string { return byteToString[b] },
		"llama2":      func(b byte) string { return "<0x" + strings.ToUpper(hex2(b)) + ">" },
		"stories260k": func(b byte) string { return "<0x" + strings.ToUpper(hex2(b)) + ">" },
	}
	for name, byteToken := range cases {
		t.Run(name, func(t *testing.T) {
			tok := cachedShared(t, name)
			a, ok := tok.TokenID(byteToken('A'))
			if !ok {
				a, ok = tok.TokenID("A")
			}
			require.True(t, ok)
			ids := []int32{a}
			for i := 0; i < len(emoji); i++ {
				id, ok := tok.TokenID(byteToken(emoji[i]))
				require.True(t, ok, "byte token %q", byteToken(emoji[i]))
				ids = append(ids, id)
			}
			parts, all := streamAll(t, tok, ids, false)
			require.Equal(t, []string{"A", "", "", "", emoji}, parts)
			require.Equal(t, "A"+emoji, all)
		})
	}
}

func TestStreamDecoderFlushesInvalidBytes(t *testing.T) {
	tok := cachedShared(t, "llama3")
	lead, ok := tok.TokenID(byteToString[0xF0])
	require.True(t, ok)
	parts, all := streamAll(t, tok, []int32{lead}, false)
	require.Equal(t, []string{""}, parts)
	require.Equal(t, "\uFFFD", all)
}

func hex2(b byte) string {
	const digits = "0123456789abcdef"
	return string([]byte{digits[b>>4], digits[b&15]})
}

var (
	sharedMu    sync.Mutex
	sharedCache = map[string]*Tokenizer{}
)

// cachedShared loads a shared tokenizer once per test binary; loading Llama 3
// costs most of a second.
func cachedShared(t testing.TB, name string) *Tokenizer {
	t.Helper()
	name = sharedDir(name)
	sharedMu.Lock()
	defer sharedMu.Unlock()
	if tok, ok := sharedCache[name]; ok {
		return tok
	}
	tok := loadShared(t, name)
	sharedCache[name] = tok
	return tok
}

// FuzzRoundTrip: byte-level tokenizers must give back any valid UTF-8 text, the
// SentencePiece-style ones any text without "▁" or "<", and streaming must add
// up to Decode.
func FuzzRoundTrip(f *testing.F) {
	for _, s := range scannerSeeds {
		f.Add(s)
	}
	names := []string{"llama3", "gpt2", "llama2", "stories260k"}
	toks := make([]*Tokenizer, len(names))
	for i, n := range names {
		toks[i] = cachedShared(f, n)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !utf8.ValidString(s) {
			return
		}
		for i, tok := range toks {
			ids, err := tok.Encode(s, false)
			require.NoError(t, err)
			got, err := tok.Decode(ids, false)
			require.NoError(t, err)
			byteLevel := names[i] == "llama3" || names[i] == "gpt2"
			if byteLevel || !strings.ContainsAny(s, "▁<") {
				require.Equal(t, s, got, "%s", names[i])
			}
			_, all := streamAll(t, tok, ids, false)
			require.Equal(t, got, all, "%s stream", names[i])
		}
	})
}
