package hooks

// A reader for the Python literals ported hooks read from the task tree at
// load time instead of carrying copies: a module-level
// `NAME = {"key": ["str", ...], ...}` (mmlu_prox's LANG_LIBS) and a list of
// string-valued dicts a function returns (minerva's few-shot samples). The
// files are hash-checked before they are read, so the reader needs only
// what that syntax uses: dicts, lists, single- or double-quoted strings with
// backslash escapes, commas, comments.

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// pyDictOfStringLists reads the value assigned to name in src.
func pyDictOfStringLists(src, name string) (map[string][]string, error) {
	i := strings.Index(src, "\n"+name+" = ")
	if i < 0 && strings.HasPrefix(src, name+" = ") {
		i = -1
	} else if i < 0 {
		return nil, fmt.Errorf("no assignment to %s", name)
	}
	p := &pyLit{s: src, i: i + 1 + len(name+" = ")}
	out := map[string][]string{}
	if err := p.expect('{'); err != nil {
		return nil, err
	}
	for {
		if p.peek() == '}' {
			p.i++
			return out, nil
		}
		k, err := p.str()
		if err != nil {
			return nil, err
		}
		if err := p.expect(':'); err != nil {
			return nil, err
		}
		if err := p.expect('['); err != nil {
			return nil, err
		}
		var list []string
		for p.peek() != ']' {
			v, err := p.str()
			if err != nil {
				return nil, err
			}
			list = append(list, v)
			if p.peek() == ',' {
				p.i++
			}
		}
		p.i++
		out[k] = list
		if p.peek() == ',' {
			p.i++
		}
	}
}

// pyReturnedDicts reads the list of {str: str} dicts that `def fn(...)`
// returns in src (`return [ {...}, ... ]`), with the first dict's key order.
func pyReturnedDicts(src, fn string) ([]map[string]any, []string, error) {
	i := strings.Index(src, "\ndef "+fn+"(")
	if i < 0 {
		return nil, nil, fmt.Errorf("no function %s", fn)
	}
	j := strings.Index(src[i:], "\n    return [")
	if j < 0 {
		return nil, nil, fmt.Errorf("%s: no `return [`", fn)
	}
	p := &pyLit{s: src, i: i + j + len("\n    return ")}
	if err := p.expect('['); err != nil {
		return nil, nil, err
	}
	var out []map[string]any
	var cols []string
	for p.peek() != ']' {
		if err := p.expect('{'); err != nil {
			return nil, nil, err
		}
		d := map[string]any{}
		for p.peek() != '}' {
			k, err := p.str()
			if err != nil {
				return nil, nil, err
			}
			if err := p.expect(':'); err != nil {
				return nil, nil, err
			}
			v, err := p.str()
			if err != nil {
				return nil, nil, err
			}
			if len(out) == 0 {
				cols = append(cols, k)
			}
			d[k] = v
			if p.peek() == ',' {
				p.i++
			}
		}
		p.i++
		out = append(out, d)
		if p.peek() == ',' {
			p.i++
		}
	}
	return out, cols, nil
}

type pyLit struct {
	s string
	i int
}

// peek skips blanks and comments and returns the next byte (0 at the end).
func (p *pyLit) peek() byte {
	for p.i < len(p.s) {
		switch c := p.s[p.i]; {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			p.i++
		case c == '#':
			for p.i < len(p.s) && p.s[p.i] != '\n' {
				p.i++
			}
		default:
			return c
		}
	}
	return 0
}

func (p *pyLit) expect(c byte) error {
	if p.peek() != c {
		return fmt.Errorf("offset %d: want %q", p.i, c)
	}
	p.i++
	return nil
}

// str reads one string literal, or several adjacent ones joined as Python
// joins them.
func (p *pyLit) str() (string, error) {
	var b strings.Builder
	n := 0
	for q := p.peek(); q == '"' || q == '\''; q = p.peek() {
		p.i++
		for {
			if p.i >= len(p.s) || p.s[p.i] == '\n' {
				return "", fmt.Errorf("offset %d: unterminated string", p.i)
			}
			c := p.s[p.i]
			if c == q {
				p.i++
				break
			}
			if c != '\\' {
				r, size := utf8.DecodeRuneInString(p.s[p.i:])
				b.WriteRune(r)
				p.i += size
				continue
			}
			if p.i+1 >= len(p.s) {
				return "", fmt.Errorf("offset %d: unterminated escape", p.i)
			}
			switch e := p.s[p.i+1]; e {
			case '\\', '\'', '"':
				b.WriteByte(e)
				p.i += 2
			case 'n':
				b.WriteByte('\n')
				p.i += 2
			case 't':
				b.WriteByte('\t')
				p.i += 2
			case 'u':
				if p.i+6 > len(p.s) {
					return "", fmt.Errorf("offset %d: short \\u escape", p.i)
				}
				v, err := strconv.ParseUint(p.s[p.i+2:p.i+6], 16, 32)
				if err != nil {
					return "", fmt.Errorf("offset %d: \\u escape: %w", p.i, err)
				}
				b.WriteRune(rune(v))
				p.i += 6
			default:
				return "", fmt.Errorf("offset %d: escape \\%c is not read here", p.i, e)
			}
		}
		n++
	}
	if n == 0 {
		return "", fmt.Errorf("offset %d: want a string", p.i)
	}
	return b.String(), nil
}
