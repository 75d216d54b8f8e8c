package cpu

import (
	"encoding/binary"
	"fmt"
	"math"
	"sync"
	"unsafe"

	"github.com/entropix-eval/entropix-eval/engine"
)

// matrix is a weight in its stored dtype, viewed as rows × cols without copying
// (the tensor's bytes are usually a mapped file). BF16/F16 rows are widened to
// float32 inside the kernels, so a BF16 model keeps its size in memory.
type matrix struct {
	name       string
	rows, cols int
	dtype      engine.DType
	f32        []float32 // F32 weights
	u16        []uint16  // BF16 / F16 weights, raw bits
}

// hostLittleEndian tells whether the tensor bytes (little-endian on disk) can be
// viewed in place; on a big-endian host they are converted once instead.
var hostLittleEndian = binary.NativeEndian.Uint16([]byte{1, 0}) == 1

// newMatrix views t as a rows × cols matrix, checking its shape.
func newMatrix(t *engine.Tensor, rows, cols int) (*matrix, error) {
	if err := t.CheckShape(rows, cols); err != nil {
		return nil, err
	}
	return viewTensor(t, rows, cols)
}

// newVector views a 1-D tensor of n elements as one row.
func newVector(t *engine.Tensor, n int) (*matrix, error) {
	if err := t.CheckShape(n); err != nil {
		return nil, err
	}
	return viewTensor(t, 1, n)
}

func viewTensor(t *engine.Tensor, rows, cols int) (*matrix, error) {
	m := &matrix{name: t.Name, rows: rows, cols: cols, dtype: t.DType}
	n := rows * cols
	if len(t.Data) != n*t.DType.Size() {
		return nil, fmt.Errorf("tensor %q: %d bytes for %d %s elements", t.Name, len(t.Data), n, t.DType)
	}
	switch t.DType {
	case engine.F32:
		m.f32 = viewAs[float32](t.Data, n, func(b []byte) float32 {
			return math.Float32frombits(binary.LittleEndian.Uint32(b))
		})
	case engine.BF16, engine.F16:
		m.u16 = viewAs[uint16](t.Data, n, binary.LittleEndian.Uint16)
	default:
		return nil, fmt.Errorf("tensor %q: dtype %q not supported by the CPU backend", t.Name, t.DType)
	}
	return m, nil
}

// viewAs reinterprets little-endian bytes as n elements of T in place when the host
// and alignment allow it, and otherwise copies them once (same dtype, same size).
func viewAs[T float32 | uint16](b []byte, n int, decode func([]byte) T) []T {
	size := int(unsafe.Sizeof(T(0)))
	if n == 0 {
		return nil
	}
	if hostLittleEndian && uintptr(unsafe.Pointer(&b[0]))%uintptr(size) == 0 {
		return unsafe.Slice((*T)(unsafe.Pointer(&b[0])), n)
	}
	out := make([]T, n)
	for i := range out {
		out[i] = decode(b[i*size:])
	}
	return out
}

// row returns row r as float32, widening into scratch (len ≥ cols) when needed.
func (m *matrix) row(r int, scratch []float32) []float32 {
	return m.rowRange(r, r+1, scratch)
}

// storedRows returns the stored bytes of rows [r0, r1) (empty past the end).
func (m *matrix) storedRows(r0, r1 int) []byte {
	r1 = min(r1, m.rows)
	if r0 >= r1 {
		return nil
	}
	lo, hi := r0*m.cols, r1*m.cols
	if m.dtype == engine.F32 {
		return unsafe.Slice((*byte)(unsafe.Pointer(&m.f32[lo])), 4*(hi-lo))
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&m.u16[lo])), 2*(hi-lo))
}

// rowRange returns rows [r0, r1) as one contiguous float32 slice: a view for F32,
// a widened copy in scratch for BF16/F16.
func (m *matrix) rowRange(r0, r1 int, scratch []float32) []float32 {
	lo, hi := r0*m.cols, r1*m.cols
	switch m.dtype {
	case engine.F32:
		return m.f32[lo:hi]
	case engine.BF16:
		dst := scratch[:hi-lo]
		decodeBF16(dst, m.u16[lo:hi])
		return dst
	default:
		dst := scratch[:hi-lo]
		decodeF16(dst, m.u16[lo:hi])
		return dst
	}
}

var f16Table = sync.OnceValue(func() *[1 << 16]float32 {
	var t [1 << 16]float32
	for i := range t {
		t[i] = engine.F16ToF32(uint16(i))
	}
	return &t
})
