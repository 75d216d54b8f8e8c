package textmetrics

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// Hand-derived from squad_metrics.compute_f1's definition.
func TestSquadF1(t *testing.T) {
	cases := []struct {
		gold, pred string
		f1, exact  float64
	}{
		// gold [cat sat], pred [cat sat down]: P = 2/3, R = 1, F1 = 0.8
		{"The cat sat", "a cat sat down", 0.8, 0},
		{"Hello, world!", "hello world", 1, 1},
		{"", "", 1, 1},
		{"the", "", 1, 1}, // "the" normalises to no token: both empty
		{"", "x", 0, 0},
		{"x", "y", 0, 0},
		// gold [x y y], pred [y y y]: 2 shared, P = R = 2/3
		{"x y y", "y y y", 2.0 / 3, 0},
		// "an-the": the hyphen goes first, leaving the word "anthe"
		{"an-the", "anthe", 1, 1},
		// articles are whole \w runs only: "théa" and "a1" stay
		{"théa a1", "théa a1", 1, 1},
		{"Ça a marché", "ça marché", 1, 1},
		// typographic punctuation is not string.punctuation
		{"don’t", "dont", 0, 0},
		{"A\u00a0B", "b", 1, 1}, // NBSP is whitespace; "a" is an article
	}
	for _, c := range cases {
		assert.InDelta(t, c.f1, SquadF1(c.gold, c.pred), 1e-15, "f1(%q, %q)", c.gold, c.pred)
		assert.Equal(t, c.exact, SquadExact(c.gold, c.pred), "exact(%q, %q)", c.gold, c.pred)
	}
}

// F1 is symmetric, in [0, 1], and 1 for a string against itself; the
// normaliser is idempotent.
func FuzzSquadF1(f *testing.F) {
	f.Add("The cat sat", "a cat sat down")
	f.Add("Ça, l'été!", "the ÇA")
	f.Fuzz(func(t *testing.T, a, b string) {
		x, y := SquadF1(a, b), SquadF1(b, a)
		if x != y || x < 0 || x > 1 {
			t.Fatalf("f1(%q, %q) = %v, reversed %v", a, b, x, y)
		}
		if SquadF1(a, a) != 1 {
			t.Fatalf("f1(%q, itself) = %v", a, SquadF1(a, a))
		}
		if n := SquadNormalize(a); SquadNormalize(n) != n {
			t.Fatalf("normalize(%q) = %q is not a fixed point", a, n)
		}
	})
}
