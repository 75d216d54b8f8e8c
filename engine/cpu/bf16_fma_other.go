//go:build !(amd64 || arm64) || purego

package cpu

// useBF16FMA is false off amd64 and arm64 (or with the purego tag).
const useBF16FMA = false

// bf16FMATakesInf only shapes the unused exponent floors here.
const bf16FMATakesInf = true

func hasFMA() bool { return false }

func bf16FMAKernel6(w *uint32, x *float32, xstride int, k2 int, out *float32, ostride int, bias *float32, part *float32, flags int) {
	panic("unreachable")
}
func bf16FMAKernel4(w *uint32, x *float32, xstride int, k2 int, out *float32, ostride int, bias *float32, part *float32, flags int) {
	panic("unreachable")
}
func bf16FMAKernel2(w *uint32, x *float32, xstride int, k2 int, out *float32, ostride int, bias *float32, part *float32, flags int) {
	panic("unreachable")
}
func bf16FMAKernel1(w *uint32, x *float32, xstride int, k2 int, out *float32, ostride int, bias *float32, part *float32, flags int) {
	panic("unreachable")
}

func roundWidenBF16(dst *uint32, wide *float32, src *float32, n int) int { panic("unreachable") }
