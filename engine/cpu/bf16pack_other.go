//go:build !amd64 || purego

package cpu

func packBF16AVX512(dst *uint32, x *float32, n int) { panic("unreachable") }
