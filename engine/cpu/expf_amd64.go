//go:build amd64 && !purego

package cpu

// The kernels take n, a multiple of 8, and return how many elements they did
// (see expf_amd64.s).

//go:noescape
func swigluAVX2(gate *float32, up *float32, n int) int

//go:noescape
func expSubAVX2(s *float32, m float32, n int) int
