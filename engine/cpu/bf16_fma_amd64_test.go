//go:build amd64 && !purego

package cpu

import "testing"

// setBF16FMA switches the FMA kernels on (and the AVX512_BF16 ones off, so that
// they are what runs even on a CPU that has both) or off for the rest of the test.
func setBF16FMA(t testing.TB, on bool) {
	oldFMA, oldAsm := useBF16FMA, useBF16Asm
	useBF16FMA = on && hasAVX2F16C() && hasFMA()
	if on {
		useBF16Asm = false
	}
	t.Cleanup(func() { useBF16FMA, useBF16Asm = oldFMA, oldAsm })
}

// setBF16Go leaves BF16 precision to the Go kernel for the rest of the test.
func setBF16Go(t testing.TB) {
	setBF16FMA(t, false)
	useBF16Asm = false
}

// fmaInvalidNaN is what VFMADD231PS returns for ∞·0: the x86 default NaN, as
// dpNaN gives.
const fmaInvalidNaN = defaultNaN

func skipWithoutFMA(t *testing.T) {
	if !hasAVX2F16C() || !hasFMA() {
		t.Skip("no AVX2 + FMA on this CPU: the FMA kernels cannot run here")
	}
}
