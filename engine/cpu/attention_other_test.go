//go:build !amd64 || purego

package cpu

import "testing"

func setAVX2Only(testing.TB) {}
