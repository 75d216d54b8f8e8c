package metrics

import "math"

// normalizeLog2 divides p by z in place and sets lg[i] = math.Log2(math.Max(p[i], clip))
// for the divided p[i], bit for bit: on amd64 with AVX2 four lanes at a time
// (log2_amd64.s repeats math.Log2's steps and math.Log's amd64 assembly), elsewhere,
// and for any block of four holding a quotient the kernel does not take (NaN, +Inf),
// with math.Log2 itself. It is the logarithm pass of the attention entropy; the
// entropy's sum stays a serial float64 chain in the caller. lg needs len(p) elements.
func normalizeLog2(p, lg []float64, z, clip float64) {
	lg = lg[:len(p)]
	one := func(i int) {
		p[i] /= z
		lg[i] = math.Log2(math.Max(p[i], clip))
	}
	i := 0
	// the kernel's exponent arithmetic holds for a normal, finite clip (probClip is)
	for useLog2Kernel && clip >= 0x1p-1022 && clip <= math.MaxFloat64 && len(p)-i >= 4 {
		i += normalizeLog2Kernel(&p[i], &lg[i], z, clip, (len(p)-i)&^3)
		if len(p)-i >= 4 { // a block the kernel leaves to math.Log2
			for end := i + 4; i < end; i++ {
				one(i)
			}
		}
	}
	for ; i < len(p); i++ {
		one(i)
	}
}
