package metrics

import "math"

// ExpShifted sets dst[i] = math.Exp(float64(src[i]) − shift), bit for bit: on amd64
// with AVX2 and FMA four lanes at a time (exp_amd64.s repeats math.Exp's own
// instruction sequence), on arm64 two lanes at a time, four a step (exp_arm64.s,
// the same for math.Exp's arm64 assembly), elsewhere, and for arguments outside
// [−708, 708], with math.Exp itself. It is most of FillDist's cost over a large
// vocabulary; the samplers' truncation at temperature 1 uses it too.
func ExpShifted(dst []float64, src []float32, shift float64) {
	dst = dst[:len(src)]
	one := func(i int) { dst[i] = math.Exp(float64(src[i]) - shift) }
	i := 0
	for useExpKernel && len(src)-i >= 4 {
		i += expShiftedKernel(&dst[i], &src[i], shift, (len(src)-i)&^3)
		if len(src)-i >= 4 { // a block with an argument the kernel leaves to math.Exp
			for end := i + 4; i < end; i++ {
				one(i)
			}
		}
	}
	for ; i < len(src); i++ {
		one(i)
	}
}
