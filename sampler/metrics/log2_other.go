//go:build !amd64 || purego

package metrics

// useLog2Kernel is false where there is no kernel (or with the purego tag):
// math.Log2 runs per element.
var useLog2Kernel = false

func normalizeLog2Kernel(p, lg *float64, z, clip float64, n int) int { panic("unreachable") }
