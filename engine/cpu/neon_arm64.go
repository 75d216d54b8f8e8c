//go:build arm64 && !purego

package cpu

// useNEON selects the AdvSIMD kernels of neon_arm64.s for dot, dotBF16 and
// axpy. AdvSIMD is part of every ARMv8-A core Go runs on; the kernels give the
// Go lane kernels' bits (TestNEONKernelsMatchGo, run under qemu-user on amd64),
// so the choice changes speed only. Tests may switch it off.
var useNEON = true

// The dot kernels take n > 0, a multiple of dotLanes; axpyNEON a multiple of 16.

//go:noescape
func dotF32NEON(w *float32, x *float32, n int) float32

//go:noescape
func dotBF16NEON(w *uint16, x *float32, n int) float32

//go:noescape
func axpyNEON(y *float32, a float32, x *float32, n int)

// dotF32x8NEON is dotF32x8AVX2 on NEON (neon_arm64.s), part its scratch.
//
//go:noescape
func dotF32x8NEON(w *float32, wstride int, x *float32, xstride int, n int, out *[8]float32, part *[64]float32)
