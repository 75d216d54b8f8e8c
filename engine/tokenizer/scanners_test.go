package tokenizer

import (
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"
)

type spanList [][2]int

func collect(m matcher, s string) spanList {
	var out spanList
	if err := m.matches(s, func(start, end int) { out = append(out, [2]int{start, end}) }); err != nil {
		return spanList{{-1, -1}} // never equal to a real match list
	}
	return out
}

var scannerPatterns = map[string]string{
	"llama3": llama3Pattern,
	"qwen2":  qwen2Pattern,
	"gpt2":   gpt2Pattern,
}

var scannerSeeds = []string{
	"", " ", "  ", "\t", "\n", "\r\n", " \n \n ", "hello world", "  two leading", "trailing  ",
	"don't I'M THEY'RE it'S we'll 'll 'x ''", "1234567 9.11 3,000", "a\u00a0b\u3000c\u2028d\u0085e",
	"  hello\n\n  world  \r\n\tend", "x^2 + y^2 = z^2;", "(hello) [world] ' quoted'", "\u00bd \u00b2 \u216b \u2460",
	"emoji \U0001F916\U0001F44D\U0001F3FD", "e\u0301 Z\u0351\u0308", "\ufeffBOM", "<|eot_id|> \n\n<s>",
	"  \n", "\n  ", "a \n b", " ?!", " 123", "  123abc", "\t\tfoo", "foo\t\t", "\v\f", "'S'T'RE'VE'M'LL'D",
	"\u017fs 'ſ 'K 'İ", "中文 日本語 한국어", "mixed \t \n whitespace \r\n\t end",
}

// TestScannersMatchRegex checks the hand-written scanners against regexp2 on
// tricky inputs; FuzzScannersMatchRegex extends this to arbitrary text.
func TestScannersMatchRegex(t *testing.T) {
	for name, pattern := range scannerPatterns {
		t.Run(name, func(t *testing.T) {
			re, err := newRegexMatcher(pattern)
			require.NoError(t, err)
			scan := fastScanner(pattern)
			require.NotNil(t, scan)
			for _, s := range scannerSeeds {
				require.Equal(t, collect(re, s), collect(scan, s), "%q", s)
			}
		})
	}
}

func FuzzScannersMatchRegex(f *testing.F) {
	for _, s := range scannerSeeds {
		f.Add(s)
	}
	regexes := map[string]*regexMatcher{}
	for name, pattern := range scannerPatterns {
		re, err := newRegexMatcher(pattern)
		require.NoError(f, err)
		regexes[name] = re
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !utf8.ValidString(s) || len(s) > 512 {
			return // Encode makes input valid UTF-8; long inputs only slow regexp2
		}
		for name, pattern := range scannerPatterns {
			want := collect(regexes[name], s)
			got := collect(fastScanner(pattern), s)
			if len(want) != len(got) {
				t.Fatalf("%s %q: got %v want %v", name, s, got, want)
			}
			for i := range want {
				if want[i] != got[i] {
					t.Fatalf("%s %q: got %v want %v", name, s, got, want)
				}
			}
		}
	})
}
