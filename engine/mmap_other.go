//go:build !unix

package engine

import "os"

// mapFile reads the whole file where mmap is unavailable; Linux is the target, this
// only keeps the package building elsewhere.
func mapFile(path string) (data []byte, release func() error, err error) {
	data, err = os.ReadFile(path)
	if err != nil {
		return nil, nil, err
	}
	return data, func() error { return nil }, nil
}
