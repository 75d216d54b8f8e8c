package textmetrics

import (
	"bufio"
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/entropix-eval/entropix-eval/internal/pythontest"
)

// Hand-derived from the 13a rules.
func TestTokenize13a(t *testing.T) {
	cases := []struct{ in, want string }{
		{"The dog bit the man.", "The dog bit the man ."},
		{"It wasn't surprising.", "It wasn't surprising ."},
		{"1,000.5 and 3.14, then 2-3", "1,000.5 and 3.14 , then 2 - 3"},
		{"a-b (c) [d] {e} \"f\" $5 @x #y", "a-b ( c ) [ d ] { e } \" f \" $ 5 @ x # y"},
		{"x&amp;y &lt;p&gt; &quot;q&quot;", "x & y < p > \" q \""},
		{"line-\nbreak\nnext<skipped>", "linebreak next"},
		{"end.", "end ."},
		{".5", ". 5"}, // a period before a digit and after the leading space
		{"a.b", "a . b"},
		{"\u00a0a\u3000b\x1cc  ", "a b c"},
		{"", ""},
	}
	for _, c := range cases {
		assert.Equal(t, c.want, Tokenize13a(c.in), "%q", c.in)
	}
}

// Properties every 13a output has, for any input: single spaces between
// tokens, no other whitespace, and only spaces added to the unescaped text.
func FuzzTokenize13a(f *testing.F) {
	for _, s := range []string{"The dog bit the man.", "1,000.5-2", "&amp;&lt;", "a-\nb", "ż.,", "\x1c\u2028x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !utf8Valid(s) {
			t.Skip("Python strings are code points; invalid UTF-8 has no Python counterpart")
		}
		got := Tokenize13a(s)
		if got != strings.TrimSpace(got) || strings.Contains(got, "  ") {
			t.Fatalf("%q → %q: stray spaces", s, got)
		}
		if strings.IndexFunc(got, func(r rune) bool { return r != ' ' && isPySpace(r) }) >= 0 {
			t.Fatalf("%q → %q: whitespace other than a space", s, got)
		}
		pre := strings.NewReplacer("<skipped>", "").Replace(s)
		pre = strings.ReplaceAll(strings.ReplaceAll(pre, "-\n", ""), "\n", " ")
		if strings.Contains(pre, "&") {
			pre = strings.NewReplacer("&quot;", `"`).Replace(pre)
			pre = strings.ReplaceAll(pre, "&amp;", "&")
			pre = strings.ReplaceAll(strings.ReplaceAll(pre, "&lt;", "<"), "&gt;", ">")
		}
		if strings.Join(pyFields(pre), "") != strings.ReplaceAll(got, " ", "") {
			t.Fatalf("%q → %q: text changed beyond spacing", s, got)
		}
	})
}

func utf8Valid(s string) bool { return strings.ToValidUTF8(s, "\uFFFD") == s }

// pyTokenizer applies sacrebleu's 13a rules with Python's own str and re
// (the regexes as sacrebleu's tokenizer_13a.py and tokenizer_re.py write
// them), and squad_metrics.normalize_answer the same way, to JSON lines on
// stdin.
const pyTokenizer = `
import json, re, string, sys
RULES = [(re.compile(r'([\{-\~\[-\` + "`" + ` -\&\(-\+\:-\@\/])'), r' \1 '),
         (re.compile(r'([^0-9])([\.,])'), r'\1 \2 '),
         (re.compile(r'([\.,])([^0-9])'), r' \1 \2'),
         (re.compile(r'([0-9])(-)'), r'\1 \2 ')]
def tok13a(line):
    line = line.replace('<skipped>', '').replace('-\n', '').replace('\n', ' ')
    if '&' in line:
        line = line.replace('&quot;', '"').replace('&amp;', '&').replace('&lt;', '<').replace('&gt;', '>')
    line = ' ' + line + ' '
    for r, s in RULES:
        line = r.sub(s, line)
    return ' '.join(line.split())
ARTICLES = re.compile(r'\b(a|an|the)\b', re.UNICODE)
def squad(s):
    s = ''.join(ch for ch in s.lower() if ch not in set(string.punctuation))
    return ' '.join(ARTICLES.sub(' ', s).split())
for line in sys.stdin:
    s = json.loads(line)
    print(json.dumps([tok13a(s), squad(s)]))
`

// TestTokenizersMatchPython compares Tokenize13a and SquadNormalize with the
// same rules run by CPython on 20,000 generated strings.
func TestTokenizersMatchPython(t *testing.T) {
	py := pythontest.Python(t)
	alphabet := []rune("aAbnthe Tt.,-'&;<>/\"()[]{}$@#09_\n\t\x1c\u00a0\u2028ßİéλΣ一٣²-..,,&amp;&lt;")
	words := []string{"&amp;", "&quot;", "<skipped>", "-\n", "the ", "an ", "a.", "1.5", "3,000"}
	rng := rand.New(rand.NewPCG(27, 13))
	inputs := make([]string, 20000)
	for i := range inputs {
		var b strings.Builder
		for range rng.IntN(24) {
			if rng.IntN(6) == 0 {
				b.WriteString(words[rng.IntN(len(words))])
			} else {
				b.WriteRune(alphabet[rng.IntN(len(alphabet))])
			}
		}
		inputs[i] = b.String()
	}
	var stdin bytes.Buffer
	for _, s := range inputs {
		line, err := json.Marshal(s)
		require.NoError(t, err)
		stdin.Write(append(line, '\n'))
	}
	cmd := exec.Command(py, "-c", pyTokenizer)
	cmd.Stdin = &stdin
	out, err := cmd.Output()
	require.NoError(t, err)
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<20)
	mismatches := 0
	for i := 0; sc.Scan(); i++ {
		var want [2]string
		require.NoError(t, json.Unmarshal(sc.Bytes(), &want))
		if got := Tokenize13a(inputs[i]); got != want[0] {
			mismatches++
			t.Errorf("13a %q: got %q, Python %q", inputs[i], got, want[0])
		}
		if got := SquadNormalize(inputs[i]); got != want[1] && !strings.ContainsRune(inputs[i], 'Σ') {
			mismatches++
			t.Errorf("squad %q: got %q, Python %q", inputs[i], got, want[1])
		}
		if mismatches > 10 {
			t.FailNow()
		}
	}
}
