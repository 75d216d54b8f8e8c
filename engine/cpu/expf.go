package cpu

import "math"

// expf is e^x in float32 (Cephes' expf: x = n·ln2 + r with ln2 split in two, a
// degree-6 polynomial in r, then ·2^n), within 2 ulp of the exact value. It is the
// one exponential of the forward pass (SiLU and the attention softmax): plain Go
// float32 arithmetic with every product rounded by an explicit conversion, so no
// architecture can fuse a multiply-add and the bits are the same everywhere, with
// or without SIMD kernels and with -tags purego. math.Exp in float64 cost 20% of a
// prefill.
func expf(x float32) float32 {
	const (
		log2e = 1.44269504088896341
		ln2Hi = 0.693359375
		ln2Lo = -2.12194440e-4
		maxX  = 88.72283905206835 // ln(MaxFloat32)
		minX  = -103.972077083991 // ln(smallest subnormal)
	)
	switch {
	case x != x: // NaN
		return x
	case x > maxX:
		return float32(math.Inf(1))
	case x < minX:
		return 0
	}
	t := float32(x*log2e) + 0.5
	n := float32(int32(t)) // floor(t): int32 truncates towards zero
	if n > t {
		n--
	}
	r := x - float32(n*ln2Hi)
	r -= float32(n * ln2Lo)
	z := float32(r * r)
	p := float32(1.9875691500e-4*r) + 1.3981999507e-3
	p = float32(p*r) + 8.3334519073e-3
	p = float32(p*r) + 4.1665795894e-2
	p = float32(p*r) + 1.6666665459e-1
	p = float32(p*r) + 5.0000001201e-1
	y := float32(p*z) + r + 1
	// y·2^n in two exact steps, so that results in the subnormal range round once.
	k := int32(n)
	if k < -125 {
		return y * math.Float32frombits(uint32(k+127+100)<<23) * math.Float32frombits(uint32(127-100)<<23)
	}
	if k > 127 {
		return y * 2 * math.Float32frombits(uint32(k-1+127)<<23)
	}
	return y * math.Float32frombits(uint32(k+127)<<23)
}

// swiglu sets gate = silu(gate) · up, SiLU(g) = g / (1 + e^−g), in float32 with
// expf; the AVX2 kernel does eight at a time, the NEON one four, with the same
// bits.
func swiglu(gate, up []float32) {
	up = up[:len(gate)]
	block, kernel := expBlock(), swigluAVX2
	if useNEON {
		kernel = swigluNEON
	}
	one := func(i int) { gate[i] = gate[i] / (1 + expf(-gate[i])) * up[i] }
	for i := inBlocks(len(gate), block, func(i, m int) int { return kernel(&gate[i], &up[i], m) }, one); i < len(gate); i++ {
		one(i)
	}
}

// expSub sets s[j] = expf(s[j] − m), eight at a time on AVX2, four on NEON
// (same bits).
func expSub(s []float32, m float32) {
	block, kernel := expBlock(), expSubAVX2
	if useNEON {
		kernel = expSubNEON
	}
	i := inBlocks(len(s), block, func(i, n int) int { return kernel(&s[i], m, n) }, func(i int) { s[i] = expf(s[i] - m) })
	for ; i < len(s); i++ { // the tail, and everything without a kernel, in a plain loop
		s[i] = expf(s[i] - m)
	}
}

// expBlock is the lane count of the exp kernels here (0: none, Go only).
func expBlock() int {
	switch {
	case useSIMD:
		return 8
	case useNEON:
		return 4
	}
	return 0
}

// inBlocks runs the exp kernel over the whole blocks of n elements where there
// is one (block > 0) and returns where the rest (fewer than block) starts:
// kernel(i, m) does some of the m elements from i (a multiple of block) and
// returns how many, stopping before a block holding values outside its range,
// which one(i) then does element by element.
func inBlocks(n, block int, kernel func(i, m int) int, one func(i int)) int {
	i := 0
	for block > 0 && n-i >= block {
		i += kernel(i, (n-i)/block*block)
		if n-i >= block {
			for end := i + block; i < end; i++ {
				one(i)
			}
		}
	}
	return i
}
