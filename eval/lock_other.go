//go:build !unix

package eval

import (
	"log/slog"
	"os"
)

// flock is not implemented off Unix: the directory is used unlocked, and
// docs/reliability.md says so.
func flock(f *os.File) error {
	slog.Warn("run-directory locking is not supported on this platform; run one writer per directory", "lock", f.Name())
	return nil
}
