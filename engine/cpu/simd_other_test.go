//go:build (!amd64 && !arm64) || purego

package cpu

import "testing"

func setSIMD(testing.TB, bool) {}

func hasSIMDKernels() bool { return false }
