//go:build !linux

package cpu

import "errors"

func hugePagesAvailable() bool { return false }

func mapHuge(int) (aligned, mapping []byte, err error) {
	return nil, nil, errors.New("no huge pages on this platform")
}

func unmapHuge([]byte) {}
