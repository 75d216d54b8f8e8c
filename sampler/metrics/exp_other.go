//go:build !amd64 || purego

package metrics

// useExpKernel is false off amd64 (or with the purego tag): math.Exp runs per element.
var useExpKernel = false

func expShiftedAVX2(dst *float64, src *float32, shift float64, n int) int { panic("unreachable") }
