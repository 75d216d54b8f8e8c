//go:build (amd64 || arm64) && !purego

package cpu

// The BF16 FMA kernels, in bf16_fma_amd64.s and bf16_fma_arm64.s alike; their
// arguments are described in bf16_fma_amd64.s.

//go:noescape
func bf16FMAKernel6(w *uint32, x *float32, xstride int, k2 int, out *float32, ostride int, bias *float32, part *float32, flags int)

//go:noescape
func bf16FMAKernel4(w *uint32, x *float32, xstride int, k2 int, out *float32, ostride int, bias *float32, part *float32, flags int)

//go:noescape
func bf16FMAKernel2(w *uint32, x *float32, xstride int, k2 int, out *float32, ostride int, bias *float32, part *float32, flags int)

//go:noescape
func bf16FMAKernel1(w *uint32, x *float32, xstride int, k2 int, out *float32, ostride int, bias *float32, part *float32, flags int)
