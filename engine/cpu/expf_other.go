//go:build !amd64 || purego

package cpu

func swigluAVX2(gate *float32, up *float32, n int) int { panic("unreachable") }
func expSubAVX2(s *float32, m float32, n int) int      { panic("unreachable") }
