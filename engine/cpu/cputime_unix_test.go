//go:build unix

package cpu

import (
	"syscall"
	"time"
)

// processCPUTime is the user+system time this process has used: on a shared
// machine, tokens per CPU-second is steadier than tokens per wall-second.
func processCPUTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
