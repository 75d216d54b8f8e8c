//go:build amd64 && !purego

package cpu

import "testing"

// setAVX2Only runs the rest of the test on the AVX2 kernels alone, as on CPUs
// without AVX-512.
func setAVX2Only(t testing.TB) {
	setSIMD(t, true)
	useAVX512 = false
}
