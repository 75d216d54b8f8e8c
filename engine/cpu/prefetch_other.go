//go:build !amd64 || purego

package cpu

// prefetchL2 is a no-op without the amd64 assembly.
func prefetchL2(p *byte, n int) {}
