//go:build amd64 && !purego

package cpu

// prefetchL2 asks for the cache lines of p[0:n] (n > 0) to be brought into L2
// (prefetch_amd64.s): a hint that changes no value.
//
//go:noescape
func prefetchL2(p *byte, n int)
