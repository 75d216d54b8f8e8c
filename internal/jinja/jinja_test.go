package jinja

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func render(t *testing.T, src string, vars map[string]any) (string, error) {
	t.Helper()
	tpl, err := Compile(src, Options{Name: "doc_to_text", StrictUndefined: true, KeepTrailingNL: true})
	if err != nil {
		return "", err
	}
	return tpl.Render(vars)
}

// The bounded operators, filters and methods mean what gonja's do on
// ordinary inputs (the prompts stay byte-equal to lm-eval's).
func TestBoundedEnvironmentKeepsMeaning(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{`{{ 'ab' * 3 }}`, "ababab"},
		{`{{ 2 * 3 }}|{{ 1.5 * 2 }}|{{ 'x' * 0 }}`, "6|3.0|"},
		{`{{ 1 + 2 }}|{{ 'a' + 'b' }}|{{ [1] + [2, 3] }}|{{ 0.5 + 1 }}`, "3|ab|[1, 2, 3]|1.5"},
		{`{{ 'a' ~ 1 ~ q }}`, "a1Q?"},
		{`{{ q | center(7) }}|{{ 'a,b' | replace(',', '--') }}|{{ ['x', 'y'] | join('+') }}`, "   Q?  |a--b|x+y"},
		{`{{ q.ljust(4, '.') }}|{{ '-'.join(['a', 'b']) }}|{{ 'a{}c'.format('b') }}`, "Q?..|a-b|abc"},
		{`{% for i in range(5, 0, -2) %}{{ i }}{% endfor %}`, "531"},
		{`{% set ns = namespace(s='x') %}{% for i in range(3) %}{% set ns.s = ns.s ~ ns.s %}{% endfor %}{{ ns.s }}`, "xxxxxxxx"},
		{`{% if q and 2 * 2 == 4 %}{{ (1 + 2) * 3 }}{% endif %}`, "9"},
		{`{{ {'k': 1 + 1}['k'] }}|{{ [q * 2][0] }}`, "2|Q?Q?"},
		{"{% macro m(x) %}<{{ x * 2 }}>{% endmacro %}{{ m('ab') }}", "<abab>"},
	} {
		got, err := render(t, tc.src, map[string]any{"q": "Q?"})
		require.NoError(t, err, tc.src)
		assert.Equal(t, tc.want, got, tc.src)
	}
}

// Each hostile template ends within seconds (most at once) with an error
// wrapping ErrLimit, before the allocation it asks for.
func TestHostileTemplatesStopWithAnError(t *testing.T) {
	for _, tc := range []struct{ name, src, want string }{
		{"nested parentheses", "{{ " + strings.Repeat("(", 100000) + "1" + strings.Repeat(")", 100000) + " }}", "brackets nested 100002 deep"},
		{"nested blocks", strings.Repeat("{% if true %}", 1000) + strings.Repeat("{% endif %}", 1000), "blocks nested 1000 deep"},
		{"long sum", "{{ " + strings.Repeat("1 + ", 5000) + "1 }}", "nested more than"},
		{"string times string times", `{{ ('x' * 100000) * 100000 }}`, "times 100000 is more than"},
		{"namespace doubling", `{% set ns = namespace(s='x') %}{% for i in range(40) %}{% set ns.s = ns.s ~ ns.s %}{% endfor %}{{ ns.s }}`, "a string of"},
		{"plus doubling", `{% set ns = namespace(s='x') %}{% for i in range(40) %}{% set ns.s = ns.s + ns.s %}{% endfor %}`, "a string of"},
		{"list doubling", `{% set ns = namespace(l=[1]) %}{% for i in range(40) %}{% set ns.l = ns.l + ns.l %}{% endfor %}`, "a list of"},
		{"huge range", `{{ range(100000000) | length }}`, "range of 100000000 elements"},
		{"nested ranges", `{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}`, "ran more than 200000 steps"},
		{"center", `{{ 'x' | center(1000000000) }}`, "argument 1000000000 above"},
		{"ljust method", `{{ 'x'.ljust(1000000000) }}`, "argument 1000000000 above"},
		{"replace growth", `{% set s = 'a' * 4000 %}{{ s.replace('a', s) }}`, "would build a string of 16000000"},
		{"join growth", `{% set s = 'a' * 1000000 %}{% set ns = namespace(l=[]) %}{% for i in range(100) %}{% set ns.l = ns.l + [s] %}{% endfor %}{{ ns.l | join }}`, "would build a string"},
		{"output flood", `{% for i in range(90000) %}` + strings.Repeat("x", 2000) + `{% endfor %}`, "output of more than"},
		{"recursive macro", `{% macro f(n) %}{{ f(n) }}{% endmacro %}{{ f(1) }}`, "recursive macro (f → f)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			start := time.Now()
			_, err := render(t, tc.src, nil)
			require.ErrorIs(t, err, ErrLimit)
			if !strings.Contains(err.Error(), "rendering took more than") {
				assert.ErrorContains(t, err, tc.want)
			} // a loaded machine may reach the time limit first on the loops
			assert.Less(t, time.Since(start), 5*time.Second)
		})
	}
}

func TestRenderTimeLimit(t *testing.T) {
	defer func(d time.Duration) { RenderTimeout = d }(RenderTimeout)
	RenderTimeout = time.Millisecond
	_, err := render(t, `{% for i in range(100000) %}{% for j in range(1) %}{% set x = i * j %}{% endfor %}{% endfor %}`, nil)
	require.ErrorIs(t, err, ErrLimit)
	assert.ErrorContains(t, err, "rendering took more than")
}
