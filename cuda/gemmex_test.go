package cuda

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"
)

// putBF16 writes bf16 values at a device address of the emulator.
func putBF16(e *emulator, p dptr, v ...float32) {
	for i, x := range v {
		e.setBF16(p, i, x)
	}
}

func TestReferenceGemmColumnMajor(t *testing.T) {
	nan := float32(math.NaN())
	e := &emulator{}
	a, _ := e.alloc(2*8, "A")
	b, _ := e.alloc(2*6, "B")
	c, _ := e.alloc(4*6, "C")
	// A = [[1 2 3] [4 5 6]] column-major with lda 3: a padding row of NaN, never read.
	putBF16(e, a, 1, 4, nan, 2, 5, nan, 3, 6)
	// op(B) = [[1 0] [0 1] [1 1]] (k × n), stored transposed: B is n × k with ldb 2.
	putBF16(e, b, 1, 0, 0, 1, 1, 1)
	copy(e.f32(c, 6), []float32{2, 2, 7, 2, 2, 7}) // ldc 3: row 2 is padding
	g := gemmEx{TransA: cublasOpN, TransB: cublasOpT, M: 2, N: 2, K: 3, Alpha: 2, A: a, AType: cudaR16BF, LDA: 3,
		B: b, BType: cudaR16BF, LDB: 2, Beta: 0.5, C: c, CType: cudaR32F, LDC: 3, Compute: cublasCompute32F, Batch: 1}
	require.NoError(t, g.reference(e))
	// C = 2·A·op(B) + 0.5·C = 2·[[4 5] [10 11]] + 1.
	require.Equal(t, []float32{9, 21, 7, 11, 23, 7}, e.f32(c, 6))

	g.LDA = 1
	require.ErrorContains(t, g.reference(e), "CUBLAS_STATUS_INVALID_VALUE")
}

// The engine's mapping computes Y = X·Wᵀ + beta·Y on row-major matrices.
func TestRowMajorGemmMapping(t *testing.T) {
	e := &emulator{}
	x, _ := e.alloc(2*6, "x")
	w, _ := e.alloc(2*8, "w")
	y, _ := e.alloc(4*12, "y")
	putBF16(e, x, 1, 2, 3, 4, 5, 6)        // X: 3 rows × k 2
	putBF16(e, w, 1, 0, 0, 1, 1, 1, 2, -1) // W: n 4 × k 2
	for i := range e.f32(y, 12) {
		e.f32(y, 12)[i] = 10
	}
	require.NoError(t, rowMajorGemm(w, x, y, 3, 4, 2, 1).reference(e))
	require.Equal(t, []float32{11, 12, 13, 10, 13, 14, 17, 12, 15, 16, 21, 14}, e.f32(y, 12))
	require.NoError(t, rowMajorGemm(w, x, y, 3, 4, 2, 0).reference(e))
	require.Equal(t, []float32{1, 2, 3, 0, 3, 4, 7, 2, 5, 6, 11, 4}, e.f32(y, 12))

	// Strided batches: the second problem's X is the first's plus 1.
	x2, _ := e.alloc(2*12, "x2")
	putBF16(e, x2, 1, 2, 3, 4, 5, 6, 2, 3, 4, 5, 6, 7)
	y2, _ := e.alloc(4*24, "y2")
	require.NoError(t, rowMajorGemmBatched(w, x2, y2, 3, 4, 2, 2, 0, 6, 12, 0).reference(e))
	got := e.f32(y2, 24)
	require.Equal(t, []float32{1, 2, 3, 0, 3, 4, 7, 2, 5, 6, 11, 4}, got[:12])
	require.Equal(t, []float32{2, 3, 5, 1, 4, 5, 9, 3, 6, 7, 13, 5}, got[12:])
}
