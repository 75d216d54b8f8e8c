package hooks

import (
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/dlclark/regexp2"
)

// pyRegex runs a Python `re` pattern. Patterns RE2 accepts and on which RE2
// and Python agree run on Go's regexp (linear time); the rest (look-around,
// backreferences, Unicode \d \w \s \b) on regexp2, a backtracking engine with
// Python's semantics for them, under a per-call time limit so a hostile
// response cannot hang a run.
type pyRegex struct {
	src string
	re  *regexp.Regexp
	re2 *regexp2.Regexp
}

// RegexTimeout bounds one regexp2 search on one response.
const RegexTimeout = 2 * time.Second

func compilePyRegex(pattern string) (*pyRegex, error) {
	if re2Safe(pattern) {
		// A pattern that can match the empty string stays off RE2: Go's
		// FindAll drops an empty match right after a non-empty one, Python
		// (3.7+) keeps it ("yes|" on "yes" finds "yes" and "").
		if re, err := regexp.Compile(pattern); err == nil && !re.MatchString("") {
			return &pyRegex{src: pattern, re: re}, nil
		}
	}
	// Python spells named groups (?P<name>...) and (?P=name); .NET (?<name>) and \k<name>.
	p := strings.ReplaceAll(pattern, "(?P<", "(?<")
	p = pyBackref.ReplaceAllString(p, `\k<$1>`)
	re, err := regexp2.Compile(p, regexp2.None)
	if err != nil {
		return nil, fmt.Errorf("compile %q: %w", pattern, err)
	}
	re.MatchTimeout = RegexTimeout
	return &pyRegex{src: pattern, re2: re}, nil
}

var pyBackref = regexp.MustCompile(`\(\?P=(\w+)\)`)

// re2Safe reports whether a pattern avoids the escapes whose meaning differs
// between Go (ASCII) and Python 3 str patterns (Unicode) and the "$" anchor
// (Python's also matches before a final newline).
func re2Safe(p string) bool {
	for i := 0; i < len(p); i++ {
		switch p[i] {
		case '\\':
			if i+1 < len(p) && strings.IndexByte("dDwWsSbBZ", p[i+1]) >= 0 {
				return false
			}
			i++
		case '$':
			if i == 0 || p[i-1] != '[' { // "$" inside a class like [$0-9] is a literal
				if !inClass(p, i) {
					return false
				}
			}
		}
	}
	return true
}

// inClass reports whether byte i of p sits inside a [...] character class.
func inClass(p string, i int) bool {
	in := false
	for j := 0; j < i; j++ {
		switch p[j] {
		case '\\':
			j++
		case '[':
			in = true
		case ']':
			in = false
		}
	}
	return in
}

// numGroups is the pattern's capture group count.
func (r *pyRegex) numGroups() int {
	if r.re != nil {
		return r.re.NumSubexp()
	}
	return len(r.re2.GetGroupNumbers()) - 1
}

// findAll returns each match's groups as Python's findall sees them: element 0
// is the whole match, then one string per group ("" when it did not take part).
func (r *pyRegex) findAll(s string) ([][]string, error) {
	if r.re != nil {
		return r.re.FindAllStringSubmatch(s, -1), nil
	}
	var out [][]string
	m, err := r.re2.FindStringMatch(s)
	for ; m != nil && err == nil; m, err = r.re2.FindNextMatch(m) {
		gs := m.Groups()
		row := make([]string, len(gs))
		for i, g := range gs {
			if len(g.Captures) > 0 {
				row[i] = g.String()
			}
		}
		out = append(out, row)
	}
	if err != nil {
		return nil, fmt.Errorf("regex %q: %w", r.src, err)
	}
	return out, nil
}

// removeAll is Python's re.sub(pattern, "", s).
func (r *pyRegex) removeAll(s string) (string, error) {
	if r.re != nil {
		return r.re.ReplaceAllString(s, ""), nil
	}
	out, err := r.re2.Replace(s, "", -1, -1)
	if err != nil {
		return s, fmt.Errorf("regex %q: %w", r.src, err)
	}
	return out, nil
}
