package cpu

import (
	"math/rand/v2"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"

	"github.com/entropix-eval/entropix-eval/engine"
)

// withHugePageMin sets hugePageMin for one test.
func withHugePageMin(t *testing.T, n int64) {
	old := hugePageMin
	hugePageMin = n
	t.Cleanup(func() { hugePageMin = old })
}

// TestHugePageWeightsSameBits runs each invariance model, in both matmul
// precisions, with its streamed matrices (fp32) or BF16 panels (bf16) in huge
// pages and without: every snapshot is equal bit for bit, and where the platform
// has transparent huge pages, every streamed matrix or panel does live in them.
func TestHugePageWeightsSameBits(t *testing.T) {
	for name, spec := range invarianceSpecs {
		for _, prec := range precisions {
			t.Run(name+"/"+string(prec), func(t *testing.T) {
				m := buildModel(t, spec)
				prompt := randomIDs(rand.New(rand.NewPCG(5, 6)), 11, m.Config.VocabSize)
				opts := engine.Options{MaxSeqLen: 32, MetricLayer: -1, Threads: 2, MatmulPrecision: prec}

				withHugePageMin(t, 1<<62)
				plain := newEngine(t, m, opts)
				require.Nil(t, plain.huge)
				want := runAlone(t, plain, 0, [][]int32{prompt})

				hugePageMin = 0
				e := newEngine(t, m, opts)
				if !hugePagesAvailable() {
					require.Nil(t, e.huge)
					t.Skip("no transparent huge pages here: the engine keeps its weights where they are")
				}
				require.NotNil(t, e.huge)
				lo := uintptr(unsafe.Pointer(unsafe.SliceData(e.huge.mapping)))
				hi := lo + uintptr(len(e.huge.mapping))
				inside := func(p unsafe.Pointer, n int64) bool {
					return uintptr(p) >= lo && uintptr(p)+uintptr(n) <= hi
				}
				for _, mx := range streamedMatrices(e.w) {
					switch {
					case prec == engine.MatmulBF16:
						p := e.bf16.panels[mx]
						require.True(t, inside(unsafe.Pointer(unsafe.SliceData(p.data)), bf16PanelBytes(p.rows, p.cols)), "panels of %s", mx.name)
					case mx.dtype == engine.F32:
						require.True(t, inside(unsafe.Pointer(unsafe.SliceData(mx.f32)), matrixBytes(mx)), "matrix %s", mx.name)
					default:
						require.True(t, inside(unsafe.Pointer(unsafe.SliceData(mx.u16)), matrixBytes(mx)), "matrix %s", mx.name)
					}
				}
				require.Equal(t, want, runAlone(t, e, 0, [][]int32{prompt}))

				require.NoError(t, e.Close())
				require.Nil(t, e.huge)
			})
		}
	}
}

// TestHugePagesOnlyWithinBudget checks the copy is refused, leaving the
// matrices where they were, below hugePageMin and above half the free memory.
func TestHugePagesOnlyWithinBudget(t *testing.T) {
	m := buildModel(t, invarianceSpecs["qwen2-f32"])
	var size int64
	w, err := loadWeights(m)
	require.NoError(t, err)
	for _, mx := range streamedMatrices(w) {
		size += matrixBytes(mx)
	}
	before := &w.layers[0].wq.f32[0]
	for _, c := range []struct {
		name      string
		min, free int64
	}{
		{"below the minimum", size + 1, 1 << 40},
		{"more than half the free memory", 0, 2*size - 1},
		{"nothing free", 0, 0},
	} {
		withHugePageMin(t, c.min)
		h, err := moveToHugePages(w, c.free)
		require.NoError(t, err, c.name)
		require.Nil(t, h, c.name)
		require.Same(t, before, &w.layers[0].wq.f32[0], c.name)
	}
}
