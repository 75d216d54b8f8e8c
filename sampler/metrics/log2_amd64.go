//go:build amd64 && !purego

package metrics

import "golang.org/x/sys/cpu"

// useLog2Kernel selects normalizeLog2AVX2. math.Log's amd64 assembly (archLog) uses
// no FMA, and neither does the kernel, so AVX2 alone gates it; tests may switch it off.
var useLog2Kernel = cpu.X86.HasAVX2

// normalizeLog2AVX2 is normalizeLog2 for n (a multiple of 4) elements; it returns
// how many it did, stopping before the first block of four it does not take.
//
//go:noescape
func normalizeLog2AVX2(p, lg *float64, z, clip float64, n int) int

// normalizeLog2Kernel is this architecture's kernel.
func normalizeLog2Kernel(p, lg *float64, z, clip float64, n int) int {
	return normalizeLog2AVX2(p, lg, z, clip, n)
}
