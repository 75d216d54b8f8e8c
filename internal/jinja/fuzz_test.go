package jinja

import (
	"testing"
	"time"
)

// FuzzTemplate compiles and renders arbitrary sources: an error is fine; a
// panic, a crash or a render past the limits is not.
func FuzzTemplate(f *testing.F) {
	for _, s := range []string{
		"{{ question }}", "{% for i in range(3) %}{{ i * 'ab' }}{% endfor %}", "{{ (q ~ q) * 3 }}",
		"{% set ns = namespace(s='x') %}{% set ns.s = ns.s + ns.s %}{{ ns.s | center(9) }}",
		"{{ q.replace('Q', 'QQ').ljust(5) }}{{ [1, 2] + [3] }}{{ {'a': 1}['a'] }}", "{% macro m(x) %}{{ x }}{% endmacro %}{{ m(q) }}",
		"{{ ((((1)))) }}", "{% if q %}{% for x in q %}{{ loop.index }}{% endfor %}{% endif %}",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		tpl, err := Compile(src, Options{Name: "fuzz", StrictUndefined: true, KeepTrailingNL: true})
		if err != nil {
			return
		}
		start := time.Now()
		out, _ := tpl.Render(map[string]any{"question": "What is 2+2?", "q": "Q?", "n": int64(3), "l": []any{"a", int64(1)}})
		if len(out) > MaxOutputBytes {
			t.Fatalf("output of %d bytes", len(out))
		}
		if d := time.Since(start); d > RenderTimeout+2*time.Second {
			t.Fatalf("render took %v", d)
		}
	})
}
