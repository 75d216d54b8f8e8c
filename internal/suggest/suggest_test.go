package suggest

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestClosest(t *testing.T) {
	tasks := []string{"gsm8k", "gsm8k_cot", "gsm8k_cot_zeroshot", "gsm8k_cot_llama"}
	samplers := []string{"greedy", "temperature", "top_k", "top_p", "min_p", "combined", "entropix"}
	for _, tc := range []struct {
		name  string
		cands []string
		want  string
		ok    bool
	}{
		{"gsm8k-cot", tasks, "gsm8k_cot", true}, // '-' for '_'
		{"gsm8k_cott", tasks, "gsm8k_cot", true},
		{"gsm8k_cot_zeroshoot", tasks, "gsm8k_cot_zeroshot", true},
		{"minp", samplers, "min_p", true},
		{"entropics", samplers, "entropix", true},
		{"gredy", samplers, "greedy", true},
		{"Greedy", samplers, "greedy", true}, // case differs: still worth saying
		{"mmlu", tasks, "", false},
		{"nosuch", samplers, "", false},
		{"greedy", samplers, "", false}, // an exact name needs no hint
		{"x", nil, "", false},
	} {
		got, ok := Closest(tc.name, tc.cands)
		assert.Equal(t, tc.ok, ok, tc.name)
		if tc.ok {
			assert.Equal(t, tc.want, got, tc.name)
		}
	}
	assert.Equal(t, " (did you mean min_p?)", Hint("minp", samplers))
	assert.Equal(t, "", Hint("zzzzzz", samplers))
}

func TestDistance(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want int
	}{{"", "", 0}, {"kitten", "sitting", 3}, {"flaw", "lawn", 2}, {"abc", "", 3}, {"same", "same", 0}} {
		assert.Equal(t, tc.want, distance(tc.a, tc.b), "%s/%s", tc.a, tc.b)
	}
}

func FuzzClosest(f *testing.F) {
	f.Add("gsm8k_cot", "gsm8k")
	f.Fuzz(func(t *testing.T, name, cand string) {
		got, ok := Closest(name, []string{cand, "greedy"})
		if ok {
			assert.Contains(t, []string{cand, "greedy"}, got)
		}
		assert.Equal(t, distance(name, cand), distance(cand, name))
	})
}
