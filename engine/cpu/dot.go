package cpu

import "math"

// The kernels below fix the reduction order of every dot product, the same with
// or without SIMD:
//
//   - the first n − n mod 32 elements are spread over dotLanes = 32 lanes, element
//     i to lane i mod 32, and each lane runs the chain acc = acc + float32(w[i]·x[i])
//     in increasing i (a product rounded to float32, then an add: no fused
//     multiply-add, so the Go kernels reproduce the assembly exactly on any
//     architecture; an explicit float32() conversion forbids Go from fusing);
//   - the lanes are reduced in a fixed tree (reduceLanes): lane l + l+16 and l+8 +
//     l+24, those two, then l + l+4, l + l+2, l + l+1;
//   - the last n mod 32 elements are added to that sum one by one, in order.
//
// On amd64 with AVX2 the lane part runs in simd_amd64.s (four YMM registers of 8
// lanes); with AVX-512 or AVX2, dot4 and dot2x4 compute four or eight such dots
// at once (reduced in the same tree) so loads are shared; on arm64 dot, dotBF16
// and axpy run in neon_arm64.s (eight 4-lane registers); elsewhere dotF32Lanes
// and friends do the same operations in Go. Every
// matmul and attention score goes through one of these kernels, and each variant
// performs the same float operations in the same order, so a value depends only on
// its own two vectors — never on batch size, chunking, threads or the kernel
// picked. That is what makes the CPU backend batch-invariant bit for bit.

// dotLanes is the number of interleaved partial sums of a dot product.
const dotLanes = 32

// dot returns Σ a[i]·b[i] over len(a) elements; b must be at least as long.
func dot(a, b []float32) float32 {
	n := len(a)
	b = b[:n]
	m := n &^ (dotLanes - 1)
	var s float32
	if m > 0 {
		switch {
		case useSIMD:
			s = dotF32AVX2(&a[0], &b[0], m)
		case useNEON:
			s = dotF32NEON(&a[0], &b[0], m)
		default:
			s = dotF32Lanes(a[:m], b[:m])
		}
	}
	for i := m; i < n; i++ {
		s += float32(a[i] * b[i])
	}
	return s
}

// dot4 sets s[k] = dot(w, x[k·stride:]) for k < 4: one weight row against four
// tokens, the same four values bit for bit (same lanes, same reduction, same
// tail), with each weight load shared by the four when AVX-512 is there.
func dot4(w, x []float32, stride int, s *[4]float32) {
	n := len(w)
	m := n &^ (dotLanes - 1)
	if !useAVX512 || m == 0 {
		for k := range s {
			s[k] = dot(w, x[k*stride:k*stride+n])
		}
		return
	}
	_ = x[3*stride+n-1]
	dotF32x4AVX512(&w[0], &x[0], stride, m, s)
	for k := range s {
		xk := x[k*stride : k*stride+n]
		for i := m; i < n; i++ {
			s[k] += float32(w[i] * xk[i])
		}
	}
}

// dot2x4 sets s[4j+k] = dot(w[j·ws:j·ws+n], x[k·xs:k·xs+n]) for two weight rows
// j and four tokens k, n = len(x) − 3·xs: the same eight values bit for bit as
// dot, with each load shared by two or four products (AVX-512, AVX2 or NEON kernel).
func dot2x4(w []float32, ws int, x []float32, xs int, s *[8]float32) {
	n := len(x) - 3*xs
	m := n &^ (dotLanes - 1)
	if !useSIMD && !useNEON || m == 0 {
		var t [4]float32
		for j := range 2 {
			dot4(w[j*ws:j*ws+n], x, xs, &t)
			copy(s[4*j:], t[:])
		}
		return
	}
	_ = w[ws+n-1]
	if useNEON {
		var part [64]float32
		dotF32x8NEON(&w[0], ws, &x[0], xs, m, s, &part)
	} else if useAVX512 {
		dotF32x8AVX512(&w[0], ws, &x[0], xs, m, s)
	} else {
		dotF32x8AVX2(&w[0], ws, &x[0], xs, m, s)
	}
	if m < n {
		addTails(s[:], w, ws, x, xs, 4, m, n)
	}
}

// addTails adds dot's sequential tail (elements m to n) to the lane parts s of
// a block kernel's 2 rows × tokens products, s[tokens·j + k].
func addTails(s, w []float32, ws int, x []float32, xs, tokens, m, n int) {
	for j := range 2 {
		wj := w[j*ws : j*ws+n]
		for k := range tokens {
			xk := x[k*xs : k*xs+n]
			v := s[tokens*j+k]
			for i := m; i < n; i++ {
				v += float32(wj[i] * xk[i])
			}
			s[tokens*j+k] = v
		}
	}
}

// dot2x6 is dot2x4 for six tokens, s[6j+k], n = len(x) − 5·xs: the AVX2
// kernel's block (dotF32x12AVX2), dot's bits; elsewhere twelve dot calls.
func dot2x6(w []float32, ws int, x []float32, xs int, s *[12]float32) {
	n := len(x) - 5*xs
	m := n &^ (dotLanes - 1)
	if !useSIMD || m == 0 {
		for j := range 2 {
			for k := range 6 {
				s[6*j+k] = dot(w[j*ws:j*ws+n], x[k*xs:k*xs+n])
			}
		}
		return
	}
	_ = w[ws+n-1]
	dotF32x12AVX2(&w[0], ws, &x[0], xs, m, s)
	if m < n { // a tail costs 12 slice checks per call even when empty
		addTails(s[:], w, ws, x, xs, 6, m, n)
	}
}

// dotBF16 is dot with a as raw bfloat16 bits, widened on the fly: the
// single-token path, where decoding a row into scratch would cost a second pass.
// It performs exactly the float operations of dot on the widened values.
func dotBF16(a []uint16, b []float32) float32 {
	n := len(a)
	b = b[:n]
	m := n &^ (dotLanes - 1)
	var s float32
	if m > 0 {
		switch {
		case useSIMD:
			s = dotBF16AVX2(&a[0], &b[0], m)
		case useNEON:
			s = dotBF16NEON(&a[0], &b[0], m)
		default:
			s = dotBF16Lanes(a[:m], b[:m])
		}
	}
	for i := m; i < n; i++ {
		s += float32(bf16(a[i]) * b[i])
	}
	return s
}

// dotF16 is dotBF16 for IEEE half weights (widened exactly, subnormals included).
func dotF16(a []uint16, b []float32) float32 {
	n := len(a)
	b = b[:n]
	m := n &^ (dotLanes - 1)
	var s float32
	if m > 0 {
		switch {
		case useSIMD:
			s = dotF16AVX2(&a[0], &b[0], m)
		case useNEON:
			s = dotF16NEON(&a[0], &b[0], m)
		default:
			s = dotF16Lanes(a[:m], b[:m])
		}
	}
	t := f16Table()
	for i := m; i < n; i++ {
		s += float32(t[a[i]] * b[i])
	}
	return s
}

// The Go lane kernels run the 32 lane chains as four groups of eight, each group
// over the whole row: every lane still adds its own elements in increasing order
// (so the bits are the assembly's), but eight scalar accumulators stay in
// registers where a 32-entry array would live in memory.

// dotF32Lanes is the Go lane kernel: len(a) is a multiple of dotLanes.
func dotF32Lanes(a, b []float32) float32 {
	var acc [dotLanes]float32
	b = b[:len(a)]
	for g := 0; g < dotLanes; g += 8 {
		var s0, s1, s2, s3, s4, s5, s6, s7 float32
		for i := g; i < len(a); i += dotLanes {
			x := a[i : i+8 : i+8]
			y := b[i : i+8 : i+8]
			s0 += float32(x[0] * y[0])
			s1 += float32(x[1] * y[1])
			s2 += float32(x[2] * y[2])
			s3 += float32(x[3] * y[3])
			s4 += float32(x[4] * y[4])
			s5 += float32(x[5] * y[5])
			s6 += float32(x[6] * y[6])
			s7 += float32(x[7] * y[7])
		}
		acc[g], acc[g+1], acc[g+2], acc[g+3] = s0, s1, s2, s3
		acc[g+4], acc[g+5], acc[g+6], acc[g+7] = s4, s5, s6, s7
	}
	return reduceLanes(&acc)
}

// dotBF16Lanes is dotF32Lanes on bfloat16 weights.
func dotBF16Lanes(a []uint16, b []float32) float32 {
	var acc [dotLanes]float32
	b = b[:len(a)]
	for g := 0; g < dotLanes; g += 8 {
		var s0, s1, s2, s3, s4, s5, s6, s7 float32
		for i := g; i < len(a); i += dotLanes {
			x := a[i : i+8 : i+8]
			y := b[i : i+8 : i+8]
			s0 += float32(bf16(x[0]) * y[0])
			s1 += float32(bf16(x[1]) * y[1])
			s2 += float32(bf16(x[2]) * y[2])
			s3 += float32(bf16(x[3]) * y[3])
			s4 += float32(bf16(x[4]) * y[4])
			s5 += float32(bf16(x[5]) * y[5])
			s6 += float32(bf16(x[6]) * y[6])
			s7 += float32(bf16(x[7]) * y[7])
		}
		acc[g], acc[g+1], acc[g+2], acc[g+3] = s0, s1, s2, s3
		acc[g+4], acc[g+5], acc[g+6], acc[g+7] = s4, s5, s6, s7
	}
	return reduceLanes(&acc)
}

// dotF16Lanes is dotF32Lanes on IEEE half weights.
func dotF16Lanes(a []uint16, b []float32) float32 {
	var acc [dotLanes]float32
	b = b[:len(a)]
	t := f16Table()
	for g := 0; g < dotLanes; g += 8 {
		var s0, s1, s2, s3, s4, s5, s6, s7 float32
		for i := g; i < len(a); i += dotLanes {
			x := a[i : i+8 : i+8]
			y := b[i : i+8 : i+8]
			s0 += float32(t[x[0]] * y[0])
			s1 += float32(t[x[1]] * y[1])
			s2 += float32(t[x[2]] * y[2])
			s3 += float32(t[x[3]] * y[3])
			s4 += float32(t[x[4]] * y[4])
			s5 += float32(t[x[5]] * y[5])
			s6 += float32(t[x[6]] * y[6])
			s7 += float32(t[x[7]] * y[7])
		}
		acc[g], acc[g+1], acc[g+2], acc[g+3] = s0, s1, s2, s3
		acc[g+4], acc[g+5], acc[g+6], acc[g+7] = s4, s5, s6, s7
	}
	return reduceLanes(&acc)
}

// reduceLanes sums the lanes in the assembly's order (REDUCE in simd_amd64.s:
// four 8-lane registers added pairwise, 0+2 and 1+3, then the halves of the 8).
func reduceLanes(acc *[dotLanes]float32) float32 {
	var v [8]float32
	for l := range v {
		v[l] = (acc[l] + acc[l+16]) + (acc[l+8] + acc[l+24])
	}
	w0, w1, w2, w3 := v[0]+v[4], v[1]+v[5], v[2]+v[6], v[3]+v[7]
	return (w0 + w2) + (w1 + w3)
}

// axpy adds a·x to y (the attention's weighted sum of values): each element
// gets y + float32(a·x), a rounded product then an add, with or without SIMD.
func axpy(y []float32, a float32, x []float32) {
	n := len(y)
	x = x[:n]
	i := 0
	if m := n &^ 7; useSIMD && m > 0 {
		axpyAVX2(&y[0], a, &x[0], m)
		i = m
	}
	if m := n &^ 15; useNEON && m > 0 {
		axpyNEON(&y[0], a, &x[0], m)
		i = m
	}
	for ; i+8 <= n; i += 8 {
		yy := y[i : i+8 : i+8]
		xx := x[i : i+8 : i+8]
		yy[0] += float32(a * xx[0])
		yy[1] += float32(a * xx[1])
		yy[2] += float32(a * xx[2])
		yy[3] += float32(a * xx[3])
		yy[4] += float32(a * xx[4])
		yy[5] += float32(a * xx[5])
		yy[6] += float32(a * xx[6])
		yy[7] += float32(a * xx[7])
	}
	for ; i < n; i++ {
		y[i] += float32(a * x[i])
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
	if m := n &^ 7; useSIMD && m > 0 {
		decodeBF16AVX2(&dst[0], &src[0], m)
		i = m
	}
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
// With F16C, VCVTPH2PS widens 8 at a time, exactly as well; on arm64 FCVTL 16.
func decodeF16(dst []float32, src []uint16) {
	src = src[:len(dst)]
	if m := len(dst) &^ 7; useSIMD && m > 0 {
		decodeF16AVX2(&dst[0], &src[0], m)
		dst, src = dst[m:], src[m:]
	}
	if m := len(dst) &^ 15; useNEON && m > 0 {
		decodeF16NEON(&dst[0], &src[0], m)
		dst, src = dst[m:], src[m:]
	}
	t := f16Table()
	for i, h := range src {
		dst[i] = t[h]
	}
}

// weightedSum sets out[i] = Σ_j p[j]·v[j·stride + i], each element the chain of
// axpy: 0, then + float32(p[j]·v) for j in order. On AVX2 the sums stay in
// registers across positions (same bits).
func weightedSum(out, p, v []float32, stride int) {
	m := 0
	if useSIMD && len(p) > 0 {
		m = len(out) &^ 31
		if m > 0 {
			_ = v[(len(p)-1)*stride+m-1]
			clear(out[:m]) // the chains start from +0, as axpy's do
			weightedSumAVX2(&out[0], &p[0], &v[0], stride, len(p), m)
		}
	}
	if rest := out[m:]; len(rest) > 0 {
		clear(rest)
		for j, a := range p {
			axpy(rest, a, v[j*stride+m:j*stride+len(out)])
		}
	}
}
