//go:build amd64 && !purego

package cpu

// useRoundAsm selects roundBF16AVX512 for packing activations (AVX-512F integer
// operations only; the same bits as roundBF16). Tests may switch it off.
var useRoundAsm = useAVX512

//go:noescape
func roundBF16AVX512(dst *uint32, src *float32, n int)
