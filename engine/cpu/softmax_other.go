//go:build !(amd64 || arm64) || purego

package cpu

func sumsF64(s0, s1, s2, s3 *float32, n int, z *[4]float64) { panic("unreachable") }
