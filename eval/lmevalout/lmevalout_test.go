package lmevalout

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// Expected values worked out from lm-eval's sanitize_model_name regex
// r"[\"<>:/|\\?*\[\]]+" → "__" and hashlib.sha256(...).hexdigest().
func TestLMEvalNames(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"HuggingFaceTB/SmolLM2-360M-Instruct", "HuggingFaceTB__SmolLM2-360M-Instruct"},
		{"/data/models/m", "__data__models__m"},
		{"a://b", "a__b"},
		{"greedy/seed=0", "greedy__seed=0"},
		{`x"<>|?*[]y`, "x__y"},
		{"plain", "plain"},
	} {
		assert.Equal(t, tc.want, SanitizeModelName(tc.in), tc.in)
	}
	assert.Equal(t, "HuggingFaceTB/SmolLM2-360M-Instruct",
		ModelName("/home/u/.cache/huggingface/hub/models--HuggingFaceTB--SmolLM2-360M-Instruct/snapshots/abc123"))
	assert.Equal(t, "/models/local", ModelName("/models/local"))
	// FIPS 180-2 test vector "abc".
	assert.Equal(t, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad", HashString("abc"))
}

func FuzzModelName(f *testing.F) {
	f.Add("/hub/models--a--b/snapshots/r")
	f.Add("models--/snapshots")
	f.Fuzz(func(t *testing.T, s string) {
		_ = ModelName(s)
		if got := SanitizeModelName(s); unsafeChars.MatchString(got) {
			t.Fatalf("sanitized %q still has unsafe characters: %q", s, got)
		}
	})
}
