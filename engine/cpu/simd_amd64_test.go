//go:build amd64 && !purego

package cpu

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/entropix-eval/entropix-eval/engine"
)

// setSIMD switches the assembly kernels on or off for the rest of the test.
func setSIMD(t testing.TB, on bool) {
	old, old512 := useSIMD, useAVX512
	useSIMD = on && hasAVX2F16C()
	useAVX512 = useSIMD && hasAVX512F()
	t.Cleanup(func() { useSIMD, useAVX512 = old, old512 })
}

// TestSIMDForwardMatchesGo runs the invariance models through a prefill and greedy
// decode with the AVX-512 (where present) and AVX2 assembly kernels and with the
// Go kernels: every logit, score and statistic must be bit-identical.
func TestSIMDForwardMatchesGo(t *testing.T) {
	if !hasAVX2F16C() {
		t.Skip("no AVX2/F16C: only the Go kernels run here")
	}
	for name, spec := range invarianceSpecs {
		t.Run(name, func(t *testing.T) {
			m := buildModel(t, spec)
			prompt := randomIDs(rand.New(rand.NewPCG(7, 11)), 13, m.Config.VocabSize)
			opts := engine.Options{MaxSeqLen: 32, MetricLayer: -1, Threads: 2}
			setSIMD(t, true)
			simd := reference(t, m, prompt, opts)
			useAVX512 = false // AVX2 only, as on CPUs without AVX-512
			avx2 := reference(t, m, prompt, opts)
			setSIMD(t, false)
			generic := reference(t, m, prompt, opts)
			require.Equal(t, generic, simd)
			require.Equal(t, generic, avx2)
		})
	}
}
