//go:build amd64 && !purego

package cpu

// useBF16Asm selects the AVX512_BF16 kernels of bf16_amd64.s for BF16 precision.
// They give the same bits as the Go kernel (TestBF16KernelMatchesHardware), so the
// choice changes speed only. Tests may switch it off to run the Go kernel.
var useBF16Asm = hasAVX512BF16()

// hasAVX512BF16 reports AVX512_BF16 (CPUID.(7,1):EAX bit 5) besides AVX-512F with
// ZMM state enabled by the OS.
func hasAVX512BF16() bool {
	if maxLeaf, _, _, _ := cpuid(0, 0); maxLeaf < 7 || !hasAVX512F() {
		return false
	}
	a, _, _, _ := cpuid(7, 1)
	return a&(1<<5) != 0
}

// The kernels compute one 32-row panel against 12, 4 or 1 packed tokens (xstride
// bytes apart), k2 > 0 pairs deep; ostride is the bytes between tokens' outputs.
// flags bit 0 starts the chains from part (32 floats per token), else from +0;
// bit 1 finishes them into out, else stores them back to part. mask marks the
// panel's rows that exist, biasMask (mask, or 0 with no bias) and accMask (mask,
// or 0 when not accumulating) select the final epilogue.

//go:noescape
func bf16Kernel12(w *uint32, x *uint32, xstride int, k2 int, out *float32, ostride int, bias *float32, part *float32, flags int, mask, biasMask, accMask uint32)

//go:noescape
func bf16Kernel4(w *uint32, x *uint32, xstride int, k2 int, out *float32, ostride int, bias *float32, part *float32, flags int, mask, biasMask, accMask uint32)

//go:noescape
func bf16Kernel1(w *uint32, x *uint32, xstride int, k2 int, out *float32, ostride int, bias *float32, part *float32, flags int, mask, biasMask, accMask uint32)
