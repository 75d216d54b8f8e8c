package sampler

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/entropix-eval/entropix-eval/sampler/metrics"
)

// testLogits are reproducible, LLM-like logits: Gaussian with a few strong tokens.
func testLogits(n int, seed uint64) []float32 {
	r := rand.New(rand.NewPCG(seed, 0))
	l := make([]float32, n)
	for i := range l {
		l[i] = float32(r.NormFloat64() * 2)
	}
	for i := 0; i < 5 && i < n; i++ {
		l[r.IntN(n)] += float32(8 + 2*i)
	}
	return l
}

func mustSpec(t testing.TB, flag string) Sampler {
	t.Helper()
	s, err := ParseFlag(flag)
	require.NoError(t, err)
	smp, err := s.New(func(string) (int32, bool) { return 3, true })
	require.NoError(t, err)
	return smp
}

// adaptiveAttn puts Entropix's original rules in the adaptive branch for testLogits.
var adaptiveAttn = metrics.AttnStats{Entropy: 11.9, Varentropy: 0.005, VarentropyDDOF1: 0.005, Agreement: 3e-6, InteractionStrength: 0.25}

func TestStreamsIgnoreScheduling(t *testing.T) {
	d := fullDist(testLogits(500, 1), 0)
	smp := mustSpec(t, "min_p,temperature=1.5,min_p=0.02")
	run := func(order []int) map[int][]int32 {
		rngs := map[int]*RNG{}
		out := map[int][]int32{}
		for _, seq := range order {
			if rngs[seq] == nil {
				rngs[seq] = NewRNG(42, "gsm8k/test/"+string(rune('a'+seq)), 0)
			}
			dec, err := smp.Sample(d, nil, out[seq], rngs[seq])
			require.NoError(t, err)
			out[seq] = append(out[seq], dec.Token)
		}
		return out
	}
	// Three sequences stepped one after another versus interleaved as a batch would.
	sequential := run([]int{0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2})
	interleaved := run([]int{2, 0, 1, 1, 2, 0, 0, 2, 1, 2, 1, 0})
	assert.Equal(t, sequential, interleaved)

	a, b := NewRNG(42, "p1", 0), NewRNG(42, "p1", 1)
	c, e := NewRNG(42, "p1", 0), NewRNG(43, "p1", 0)
	x := a.Uint64()
	assert.NotEqual(t, x, b.Uint64(), "repeat changes the stream")
	assert.Equal(t, x, c.Uint64(), "same triple, same stream")
	assert.NotEqual(t, x, e.Uint64(), "seed changes the stream")
	assert.NotEqual(t, DeriveKey(1, "ab", 0), DeriveKey(1, "a", 0), "length-prefixed ids")
}

func TestGreedyAndZeroTemperature(t *testing.T) {
	d := fullDist([]float32{1, 3, 3, -2}, 0)
	for _, f := range []string{"greedy", "temperature,temperature=0", "combined:vllm-v1,temperature=0.000001,top_p=0.5"} {
		dec, err := mustSpec(t, f).Sample(d, nil, nil, NewRNG(1, "g", 0))
		require.NoError(t, err, f)
		assert.Equal(t, int32(1), dec.Token, "%s: lowest id of the tied maximum", f)
		assert.Equal(t, StrategyGreedy, dec.Strategy, f)
		assert.InDelta(t, math.Log(math.Exp(3)/(math.Exp(1)+2*math.Exp(3)+math.Exp(-2))), dec.LogProb, 1e-12)
	}
}

func TestBadLogitsAreErrors(t *testing.T) {
	negInf := float32(math.Inf(-1))
	smp := mustSpec(t, "top_p")
	for name, d := range map[string]*metrics.Dist{
		"nan":           fullDist([]float32{0, float32(math.NaN()), 1}, 0),
		"all -inf":      fullDist([]float32{negInf, negInf}, 0),
		"no candidates": {VocabSize: 10},
	} {
		_, err := smp.Sample(d, nil, nil, NewRNG(1, name, 0))
		assert.ErrorIs(t, err, ErrBadLogits, name)
	}
	_, err := mustSpec(t, "entropix").Sample(fullDist([]float32{1, 2, 3, 4}, 0), nil, []int32{1}, NewRNG(1, "x", 0))
	assert.ErrorContains(t, err, "attention")
}

// The tail bounds must contain the true tempered tail mass, computed here directly
// from the full logits.
func TestTailBoundsContainTruth(t *testing.T) {
	for seed := uint64(0); seed < 20; seed++ {
		logits := testLogits(3000, seed)
		for _, k := range []int{10, 100, 1000} {
			d := fullDist(logits, k)
			for _, temp := range []float64{0.3, 0.7, 1, 1.5, 3} {
				var tr truncator
				tr.reset(d, temp)
				lo, hi := tr.tailBounds()
				l0 := float64(d.Candidates[0].Logit)
				inCand := map[int32]bool{}
				for _, c := range d.Candidates {
					inCand[c.ID] = true
				}
				var truth float64
				for id, l := range logits {
					if !inCand[int32(id)] {
						truth += math.Exp((float64(l) - l0) / temp)
					}
				}
				assert.LessOrEqual(t, lo, truth*(1+1e-9), "seed %d k %d T %v", seed, k, temp)
				assert.GreaterOrEqual(t, hi, truth*(1-1e-9), "seed %d k %d T %v", seed, k, temp)
			}
		}
	}
}

func TestTailIsReported(t *testing.T) {
	logits := testLogits(5000, 3)
	full := fullDist(logits, 0)
	cut := fullDist(logits, 64)
	require.Greater(t, cut.TailMass, 0.0)

	dec, err := mustSpec(t, "temperature").Sample(cut, nil, nil, NewRNG(1, "t", 0))
	require.NoError(t, err)
	assert.True(t, dec.TailCut, "pure sampling needs the whole vocabulary")
	assert.Equal(t, cut.TailMass, dec.TailMass, "T = 1: the exact tail mass")

	dec, err = mustSpec(t, "temperature,temperature=2").Sample(cut, nil, nil, NewRNG(1, "t", 0))
	require.NoError(t, err)
	assert.True(t, dec.TailCut)
	assert.Greater(t, dec.TailMass, cut.TailMass, "hotter: more mass outside the candidates")

	dec, err = mustSpec(t, "top_p,top_p=0.5").Sample(cut, nil, nil, NewRNG(1, "t", 0))
	require.NoError(t, err)
	assert.False(t, dec.TailCut, "the nucleus lies inside the candidates")

	dec, err = mustSpec(t, "min_p,min_p=0.1,temperature=1.3").Sample(cut, nil, nil, NewRNG(1, "t", 0))
	require.NoError(t, err)
	assert.False(t, dec.TailCut, "min-p removes every token below the last candidate")

	dec, err = mustSpec(t, "temperature").Sample(full, nil, nil, NewRNG(1, "t", 0))
	require.NoError(t, err)
	assert.False(t, dec.TailCut)
	assert.Zero(t, dec.TailMass)
}

func TestEntropixDecisions(t *testing.T) {
	d := fullDist(testLogits(4000, 5), 0)
	attn := adaptiveAttn
	r := NewRNG(1, "e", 0)

	faithful := mustSpec(t, "entropix,faithful=true")
	dec, err := faithful.Sample(d, &attn, nil, r)
	require.NoError(t, err)
	assert.Equal(t, StrategyFirstTokenArgmax, dec.Strategy, "faithful: the first token is the argmax")
	assert.Equal(t, d.Candidates[0].ID, dec.Token)

	dec, err = faithful.Sample(d, &attn, []int32{9}, r)
	require.NoError(t, err)
	assert.Equal(t, StrategyAdaptive, dec.Strategy)
	assert.True(t, dec.Faithful)
	assert.Equal(t, 5, dec.NSamples)

	fixed := mustSpec(t, "entropix")
	dec, err = fixed.Sample(d, &attn, nil, r)
	require.NoError(t, err)
	assert.Equal(t, StrategyAdaptive, dec.Strategy, "fixed: no special first token")
	assert.False(t, dec.Faithful)
	assert.Less(t, dec.SampleLogProb, 0.0)
	assert.Greater(t, dec.Survivors, 0)

	// High entropy, low varentropy: insert the clarifying token (id 3 here) once.
	hot := *d
	hot.Entropy, hot.Varentropy = 6, 0.05
	for _, tc := range []struct {
		s       Sampler
		history []int32
		want    Strategy
	}{
		{fixed, []int32{1}, StrategyInsertClarifying},
		{fixed, []int32{1, 3}, StrategyHELV},
		{fixed, []int32{3, 1}, StrategyInsertClarifying}, // fixed: last token only
		{faithful, []int32{3, 1}, StrategyHELV},          // original: whole history
	} {
		dec, err := tc.s.Sample(&hot, &attn, tc.history, r)
		require.NoError(t, err)
		assert.Equal(t, tc.want, dec.Strategy, "%s %v", tc.s.Name(), tc.history)
		if tc.want == StrategyInsertClarifying {
			assert.Equal(t, int32(3), dec.Token)
		}
	}
}

func TestHotPathDoesNotAllocate(t *testing.T) {
	logits := testLogits(4096, 9)
	for _, k := range []int{256, 0} {
		d := fullDist(logits, k)
		for _, f := range []string{"greedy", "temperature", "top_k", "top_p,temperature=0.7", "min_p",
			"combined:vllm-v1,top_k=40,top_p=0.9,min_p=0.05", "entropix", "entropix,faithful=true", "entropix:frog"} {
			smp := mustSpec(t, f)
			attn := adaptiveAttn
			r := NewRNG(1, f, 0)
			hist := []int32{1, 2}
			allocs := testing.AllocsPerRun(50, func() {
				if _, err := smp.Sample(d, &attn, hist, r); err != nil {
					t.Fatal(err)
				}
			})
			assert.Zero(t, allocs, "%s with %d candidates", f, len(d.Candidates))
		}
	}
}

func TestEntropixRefusesNonPositiveTemperature(t *testing.T) {
	s, err := ParseConfig(map[string]any{"name": "entropix", "ada_temp_logits": -5.0, "clarifying_token_id": 3})
	require.NoError(t, err)
	smp, err := s.New(nil)
	require.NoError(t, err)
	attn := adaptiveAttn
	d := fullDist(testLogits(100, 2), 0)
	_, err = smp.Sample(d, &attn, []int32{1}, NewRNG(1, "neg", 0))
	assert.ErrorContains(t, err, "computed temperature")
}

// Scratch weights left by one step must never leak into the next.
func TestScratchReuseAcrossSteps(t *testing.T) {
	smp := mustSpec(t, "temperature,temperature=0.001")
	wide := fullDist(testLogits(2000, 4), 0)
	warm := mustSpec(t, "temperature,temperature=50")
	r := NewRNG(3, "scratch", 0)
	peaked := fullDist([]float32{0, 5, 1, 2, 3}, 0) // at T = 0.001 only id 1 has weight
	for range 200 {
		_, err := warm.Sample(wide, nil, nil, r)
		require.NoError(t, err)
		_, err = smp.Sample(wide, nil, nil, r) // fills the scratch far down the list
		require.NoError(t, err)
		dec, err := smp.Sample(peaked, nil, nil, r)
		require.NoError(t, err)
		require.Equal(t, int32(1), dec.Token)
		require.Equal(t, 1, dec.Survivors)
	}
}

// Arbitrary logits (NaN, ±Inf, ties, tiny vocabularies, cut candidate lists) must give
// an error or a candidate token, never a panic or an out-of-range id.
func FuzzSample(f *testing.F) {
	f.Add([]byte{0, 0, 128, 63, 0, 0, 0, 64, 0, 0, 128, 255}, uint8(2), 0.7)
	f.Add([]byte{0, 0, 192, 127, 0, 0, 128, 63}, uint8(0), 1.0)
	f.Fuzz(func(t *testing.T, raw []byte, k uint8, temp float64) {
		if len(raw) < 4 || len(raw) > 4096 {
			return
		}
		logits := make([]float32, len(raw)/4)
		for i := range logits {
			b := raw[4*i : 4*i+4]
			logits[i] = math.Float32frombits(uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 | uint32(b[3])<<24)
		}
		d := fullDist(logits, int(k))
		if math.IsNaN(temp) || math.IsInf(temp, 0) {
			temp = 1
		}
		temp = math.Abs(math.Mod(temp, 5))
		attn := adaptiveAttn
		for _, f := range []string{"greedy", "combined,top_k=3,top_p=0.8,min_p=0.05", "combined:vllm-v1,top_p=0.5",
			"entropix", "entropix,faithful=true", "entropix:frog"} {
			s, err := ParseFlag(f)
			require.NoError(t, err)
			if s.Name == "combined" {
				s.Params.Temperature = temp
			}
			smp, err := s.New(func(string) (int32, bool) { return 0, true })
			require.NoError(t, err)
			dec, err := smp.Sample(d, &attn, []int32{1}, NewRNG(1, "fuzz", 0))
			if err != nil {
				continue
			}
			require.True(t, dec.Token >= 0 && int(dec.Token) < len(logits), "%s: token %d", f, dec.Token)
		}
	})
}
