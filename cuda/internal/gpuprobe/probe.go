//go:build cuda

// Package gpuprobe lets `go test -tags cuda` skip cleanly on a machine without a GPU.
//
// gorgonia.org/cu calls cuInit in its package init and exits with status 1 when it
// fails, before any test can call t.Skip. Packages initialise in import-path order
// among those whose imports are ready, and this path sorts before gorgonia.org/cu, so
// its init runs first: in a test binary it probes the driver through dlopen and, when
// no device is usable, reports the skip and exits 0 — or, where ENTROPIX_REQUIRE_GPU is
// set (cuda/bench/window.sh sets it), reports a failure and exits 1, since a GPU run
// that skips proves nothing. Outside tests it does nothing.
package gpuprobe

/*
#cgo LDFLAGS: -ldl
#include <dlfcn.h>

typedef int (*cu_init_fn)(unsigned int);
typedef int (*cu_count_fn)(int*);

// probe returns the device count, -1 without a driver library, -2 when cuInit fails.
static int probe(void) {
	void* h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!h) return -1;
	cu_init_fn init = (cu_init_fn)dlsym(h, "cuInit");
	cu_count_fn count = (cu_count_fn)dlsym(h, "cuDeviceGetCount");
	if (!init || !count) return -1;
	if (init(0) != 0) return -2;
	int n = 0;
	if (count(&n) != 0) return -2;
	return n;
}
*/
import "C"

import (
	"fmt"
	"os"
	"testing"
)

// RequireEnv, when set, turns a missing GPU into a failure instead of a skip.
const RequireEnv = "ENTROPIX_REQUIRE_GPU"

func init() {
	if !testing.Testing() {
		return
	}
	if n := int(C.probe()); n <= 0 {
		if os.Getenv(RequireEnv) != "" {
			fmt.Printf("FAIL: no usable CUDA device (probe %d) and %s is set\n", n, RequireEnv)
			os.Exit(1)
		}
		fmt.Printf("SKIP: no usable CUDA device (probe %d); the cuda-tag tests need an NVIDIA GPU\nok\n", n)
		os.Exit(0)
	}
}
