//go:build !unix

package cpu

import "time"

// processCPUTime is unavailable here; benchmarks then skip the CPU-time metric.
func processCPUTime() time.Duration { return 0 }
