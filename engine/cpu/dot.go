package cpu

import "math"

// The kernels below fix the reduction order of every dot product: per block of 8,
// four running sums each take a pair (k, k+4) of products; a sequential tail goes
// into the first sum; then a fixed pairwise combine. (Four chains of pairs, not
// eight chains: eight accumulators plus their products exceed amd64's 15 usable
// XMM registers and Go spills one every iteration.) Every matmul and attention score goes through one of them, and
// each variant performs the same float operations in the same order, so a value
// depends only on its own two vectors — never on batch size, chunking or threads.
// That is what makes the CPU backend batch-invariant bit for bit.

// dot returns Σ a[i]·b[i] over len(a) elements; b must be at least as long.
func dot(a, b []float32) float32 {
	n := len(a)
	b = b[:n]
	var s0, s1, s2, s3 float32
	i := 0
	for ; i+8 <= n; i += 8 {
		x := a[i : i+8 : i+8]
		y := b[i : i+8 : i+8]
		s0 += x[0]*y[0] + x[4]*y[4]
		s1 += x[1]*y[1] + x[5]*y[5]
		s2 += x[2]*y[2] + x[6]*y[6]
		s3 += x[3]*y[3] + x[7]*y[7]
	}
	for ; i < n; i++ {
		s0 += a[i] * b[i]
	}
	return (s0 + s1) + (s2 + s3)
}

// dotBF16 is dot with a as raw bfloat16 bits, widened by a shift on the fly: the
// single-token path, where decoding a row into scratch would cost a second pass.
// It performs exactly the float operations of dot on the widened values.
func dotBF16(a []uint16, b []float32) float32 {
	n := len(a)
	b = b[:n]
	var s0, s1, s2, s3 float32
	i := 0
	for ; i+8 <= n; i += 8 {
		x := a[i : i+8 : i+8]
		y := b[i : i+8 : i+8]
		s0 += bf16(x[0])*y[0] + bf16(x[4])*y[4]
		s1 += bf16(x[1])*y[1] + bf16(x[5])*y[5]
		s2 += bf16(x[2])*y[2] + bf16(x[6])*y[6]
		s3 += bf16(x[3])*y[3] + bf16(x[7])*y[7]
	}
	for ; i < n; i++ {
		s0 += bf16(a[i]) * b[i]
	}
	return (s0 + s1) + (s2 + s3)
}

// axpy adds a·x to y (the attention's weighted sum of values).
func axpy(y []float32, a float32, x []float32) {
	n := len(y)
	x = x[:n]
	i := 0
	for ; i+8 <= n; i += 8 {
		yy := y[i : i+8 : i+8]
		xx := x[i : i+8 : i+8]
		yy[0] += a * xx[0]
		yy[1] += a * xx[1]
		yy[2] += a * xx[2]
		yy[3] += a * xx[3]
		yy[4] += a * xx[4]
		yy[5] += a * xx[5]
		yy[6] += a * xx[6]
		yy[7] += a * xx[7]
	}
	for ; i < n; i++ {
		y[i] += a * x[i]
	}
}

// bf16 widens one bfloat16 (the top half of a float32) exactly; it inlines to a shift.
func bf16(h uint16) float32 { return math.Float32frombits(uint32(h) << 16) }

// decodeBF16 widens bfloat16 bits to float32 (exact: bf16 is the top half). It
// stays in integer registers (load, shift, store), unrolled by 8.
func decodeBF16(dst []float32, src []uint16) {
	n := len(dst)
	src = src[:n]
	i := 0
	for ; i+8 <= n; i += 8 {
		s := src[i : i+8 : i+8]
		d := dst[i : i+8 : i+8]
		d[0] = bf16(s[0])
		d[1] = bf16(s[1])
		d[2] = bf16(s[2])
		d[3] = bf16(s[3])
		d[4] = bf16(s[4])
		d[5] = bf16(s[5])
		d[6] = bf16(s[6])
		d[7] = bf16(s[7])
	}
	for ; i < n; i++ {
		dst[i] = bf16(src[i])
	}
}

// decodeF16 widens IEEE halves through a 64K-entry table, exact for subnormals
// (tiny-smollm2 checks them) and much cheaper than branching per element.
func decodeF16(dst []float32, src []uint16) {
	src = src[:len(dst)]
	t := f16Table()
	for i, h := range src {
		dst[i] = t[h]
	}
}
