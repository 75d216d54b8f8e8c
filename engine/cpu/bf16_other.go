//go:build !amd64 || purego

package cpu

// useBF16Asm is false off amd64 (or with the purego tag): BF16 precision runs the
// Go kernel, which gives the assembly's bits.
const useBF16Asm = false

func hasAVX512BF16() bool { return false }

func bf16Kernel12(w *uint32, x *uint32, xstride int, k2 int, out *float32, ostride int, bias *float32, part *float32, flags int, mask, biasMask, accMask uint32) {
	panic("unreachable")
}
func bf16Kernel4(w *uint32, x *uint32, xstride int, k2 int, out *float32, ostride int, bias *float32, part *float32, flags int, mask, biasMask, accMask uint32) {
	panic("unreachable")
}
func bf16Kernel1(w *uint32, x *uint32, xstride int, k2 int, out *float32, ostride int, bias *float32, part *float32, flags int, mask, biasMask, accMask uint32) {
	panic("unreachable")
}
