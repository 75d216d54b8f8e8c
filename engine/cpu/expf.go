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
// expf; the AVX2 kernel does eight at a time with the same bits.
func swiglu(gate, up []float32) {
	up = up[:len(gate)]
	one := func(i int) { gate[i] = gate[i] / (1 + expf(-gate[i])) * up[i] }
	i := 0
	for useSIMD && len(gate)-i >= 8 {
		i += swigluAVX2(&gate[i], &up[i], (len(gate)-i)&^7)
		if len(gate)-i >= 8 { // a block the kernel leaves to expf's special cases
			for end := i + 8; i < end; i++ {
				one(i)
			}
		}
	}
	for ; i < len(gate); i++ {
		one(i)
	}
}

// expSub sets s[j] = expf(s[j] − m), eight at a time on AVX2 (same bits).
func expSub(s []float32, m float32) {
	i := 0
	for useSIMD && len(s)-i >= 8 {
		i += expSubAVX2(&s[i], m, (len(s)-i)&^7)
		if len(s)-i >= 8 {
			for end := i + 8; i < end; i++ {
				s[i] = expf(s[i] - m)
			}
		}
	}
	for ; i < len(s); i++ {
		s[i] = expf(s[i] - m)
	}
}
