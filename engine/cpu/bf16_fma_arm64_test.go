//go:build arm64 && !purego

package cpu

import "testing"

// setBF16FMA switches the FMA kernels on or off for the rest of the test.
func setBF16FMA(t testing.TB, on bool) {
	old := useBF16FMA
	useBF16FMA = on
	t.Cleanup(func() { useBF16FMA = old })
}

// setBF16Go leaves BF16 precision to the Go kernel for the rest of the test.
func setBF16Go(t testing.TB) { setBF16FMA(t, false) }

// skipWithoutFMA skips nothing: every arm64 core has AdvSIMD's FMLA.
func skipWithoutFMA(*testing.T) {}

// fmaInvalidNaN is what FMLA returns for ∞·0 with FPCR.DN clear: the ARM
// default NaN (Arm ARM, FPDefaultNaN), not the x86 one dpNaN gives.
const fmaInvalidNaN = 0x7fc00000
