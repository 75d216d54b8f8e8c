//go:build amd64 && !purego

package cpu

import "testing"

// setSIMD switches the assembly kernels on or off for the rest of the test.
func setSIMD(t testing.TB, on bool) {
	old, old512 := useSIMD, useAVX512
	useSIMD = on && hasAVX2F16C()
	useAVX512 = useSIMD && hasAVX512F()
	t.Cleanup(func() { useSIMD, useAVX512 = old, old512 })
}

// hasSIMDKernels reports whether this CPU runs assembly kernels (AVX2/F16C).
func hasSIMDKernels() bool { return hasAVX2F16C() }
