package cuda

import (
	"fmt"
	"unsafe"

	"github.com/entropix-eval/entropix-eval/engine"
)

// cuBLAS ABI constants (cublas_api.h, library_types.h).
const (
	cublasOpN         = 0
	cublasOpT         = 1
	cudaR32F          = 0
	cudaR16BF         = 14
	cublasCompute32F  = 68
	cublasGemmDefault = -1
)

// gemmEx is one cublasGemmEx call as cuBLAS reads it: column-major
// C = alpha·op(A)·op(B) + beta·C with op(A) m×k, op(B) k×n and C m×n. The GPU backend
// passes these fields to cuBLAS unchanged; the tests run them through reference, so the
// row-major to column-major mapping is checked without a GPU.
type gemmEx struct {
	TransA, TransB int
	M, N, K        int
	Alpha          float32
	A              dptr
	AType, LDA     int
	B              dptr
	BType, LDB     int
	Beta           float32
	C              dptr
	CType, LDC     int
	Compute, Algo  int
	// Strided-batched calls only: Batch problems at these element strides.
	Batch                     int
	StrideA, StrideB, StrideC int64
}

// rowMajorGemm is Y = X·Wᵀ + beta·Y for row-major X [rows × k] (bf16), W [n × k] (bf16, a
// Hugging Face weight) and Y [rows × n] (float32). In column-major terms that is
// Yᵀ = W·Xᵀ: A is W read as the k × n matrix Wᵀ and transposed, B is Xᵀ (k × rows).
func rowMajorGemm(w, x, y dptr, rows, n, k int, beta float32) gemmEx {
	return gemmEx{TransA: cublasOpT, TransB: cublasOpN, M: n, N: rows, K: k, Alpha: 1,
		A: w, AType: cudaR16BF, LDA: k, B: x, BType: cudaR16BF, LDB: k, Beta: beta,
		C: y, CType: cudaR32F, LDC: n, Compute: cublasCompute32F, Algo: cublasGemmDefault, Batch: 1}
}

// rowMajorGemmBatched is rowMajorGemm over batch problems at element strides sw, sx, sy
// (cublasGemmStridedBatchedEx). The GPU tests exercise the binding; the forward pass
// fuses its projections instead and does not need it today.
func rowMajorGemmBatched(w, x, y dptr, rows, n, k, batch int, sw, sx, sy int64, beta float32) gemmEx {
	g := rowMajorGemm(w, x, y, rows, n, k, beta)
	g.Batch, g.StrideA, g.StrideB, g.StrideC = batch, sw, sx, sy
	return g
}

// deviceMemory gives the host a view of device bytes; an error for a range outside
// every allocation.
type deviceMemory interface {
	view(p dptr, n int64) ([]byte, error)
}

// reference computes the call like cuBLAS, for the type combination the engine uses
// (bf16 A and B, float32 C, float32 compute), after cuBLAS's argument checks. Sums run
// in float32 in index order; cuBLAS's order differs within float32 rounding. With beta
// 0, C is not read (cuBLAS ignores NaNs there too).
func (g gemmEx) reference(mem deviceMemory) error {
	if g.AType != cudaR16BF || g.BType != cudaR16BF || g.CType != cudaR32F || g.Compute != cublasCompute32F {
		return fmt.Errorf("gemm: types A %d B %d C %d compute %d: only bf16×bf16→f32 (compute 32F) is implemented", g.AType, g.BType, g.CType, g.Compute)
	}
	aRows, aCols := g.M, g.K // A as stored
	if g.TransA == cublasOpT {
		aRows, aCols = g.K, g.M
	}
	bRows, bCols := g.K, g.N
	if g.TransB == cublasOpT {
		bRows, bCols = g.N, g.K
	}
	switch {
	case g.TransA != cublasOpN && g.TransA != cublasOpT, g.TransB != cublasOpN && g.TransB != cublasOpT:
		return fmt.Errorf("gemm: transa %d transb %d: CUBLAS_STATUS_INVALID_VALUE", g.TransA, g.TransB)
	case g.M < 0 || g.N < 0 || g.K < 0 || g.Batch < 1:
		return fmt.Errorf("gemm: m %d n %d k %d batch %d: CUBLAS_STATUS_INVALID_VALUE", g.M, g.N, g.K, g.Batch)
	case g.LDA < max(1, aRows) || g.LDB < max(1, bRows) || g.LDC < max(1, g.M):
		return fmt.Errorf("gemm: lda %d (≥ %d) ldb %d (≥ %d) ldc %d (≥ %d): CUBLAS_STATUS_INVALID_VALUE",
			g.LDA, aRows, g.LDB, bRows, g.LDC, g.M)
	}
	if g.M == 0 || g.N == 0 {
		return nil
	}
	for b := 0; b < g.Batch; b++ {
		a, err := matrix[uint16](mem, g.A+dptr(2*int64(b)*g.StrideA), aRows, aCols, g.LDA, "A")
		if err != nil {
			return err
		}
		bm, err := matrix[uint16](mem, g.B+dptr(2*int64(b)*g.StrideB), bRows, bCols, g.LDB, "B")
		if err != nil {
			return err
		}
		c, err := matrix[float32](mem, g.C+dptr(4*int64(b)*g.StrideC), g.M, g.N, g.LDC, "C")
		if err != nil {
			return err
		}
		g.one(a, bm, c)
	}
	return nil
}

// one computes a single problem on column-major views.
func (g gemmEx) one(a, b []uint16, c []float32) {
	opA := func(i, l int) float32 { // op(A)[i][l]
		if g.TransA == cublasOpT {
			return engine.BF16ToF32(a[l+i*g.LDA])
		}
		return engine.BF16ToF32(a[i+l*g.LDA])
	}
	col := make([]float32, g.K)
	for j := 0; j < g.N; j++ {
		for l := range col { // op(B)[l][j]
			if g.TransB == cublasOpT {
				col[l] = engine.BF16ToF32(b[j+l*g.LDB])
			} else {
				col[l] = engine.BF16ToF32(b[l+j*g.LDB])
			}
		}
		for i := 0; i < g.M; i++ {
			var s float32
			for l, v := range col {
				s += opA(i, l) * v
			}
			out := &c[i+j*g.LDC]
			if g.Beta == 0 {
				*out = g.Alpha * s
			} else {
				*out = g.Alpha*s + g.Beta**out
			}
		}
	}
}

// matrix is the column-major rows × cols matrix at p with leading dimension ld, as a
// slice of its whole span (the last column ends at row rows).
func matrix[T uint16 | float32](mem deviceMemory, p dptr, rows, cols, ld int, name string) ([]T, error) {
	if rows == 0 || cols == 0 {
		return nil, nil
	}
	var zero T
	size := int64(unsafe.Sizeof(zero))
	n := int64(cols-1)*int64(ld) + int64(rows)
	b, err := mem.view(p, n*size)
	if err != nil {
		return nil, fmt.Errorf("gemm: %s (%d×%d, ld %d) at %#x: %w", name, rows, cols, ld, uint64(p), err)
	}
	if uintptr(unsafe.Pointer(&b[0]))%uintptr(size) != 0 {
		return nil, fmt.Errorf("gemm: %s at %#x is not %d-byte aligned", name, uint64(p), size)
	}
	return unsafe.Slice((*T)(unsafe.Pointer(&b[0])), n), nil
}
