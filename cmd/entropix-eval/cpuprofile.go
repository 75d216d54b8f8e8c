package main

import (
	"fmt"
	"log/slog"
	"os"
	"runtime/pprof"
)

// startCPUProfile starts Go's CPU profiler writing to path; stop ends it and
// closes the file. Where a sweep's time goes inside the engine (attention,
// matmuls, the samplers' statistics) is a question for pprof, not for the log.
func startCPUProfile(path string) (stop func(), err error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("--cpuprofile: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("--cpuprofile %s: %w", path, err)
	}
	return func() {
		pprof.StopCPUProfile()
		if err := f.Close(); err != nil {
			slog.Error("--cpuprofile: closing the profile", "file", path, "err", err)
		}
	}, nil
}
