//go:build !amd64 || purego

package cpu

const useRoundAsm = false

func roundBF16AVX512(dst *uint32, src *float32, n int) { panic("unreachable") }
