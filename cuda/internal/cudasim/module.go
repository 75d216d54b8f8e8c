//go:build cudasim

package cudasim

/*
#cgo LDFLAGS: -ldl
#include <dlfcn.h>
#include <stdint.h>
#include <stdlib.h>

typedef int (*abi_fn)(void);
typedef void (*set_workers_fn)(int);
typedef void* (*alloc_fn)(uint64_t, const char*);
typedef int (*free_fn)(void*);
typedef int (*range_fn)(uint64_t, uint64_t);
typedef int (*info_fn)(const char*, char*, int);
typedef void (*add_var_fn)(uint64_t, uint64_t, const char*);
typedef int (*launch_fn)(const char*, unsigned, unsigned, unsigned, uint64_t, const uint64_t*, int, char*, int);

static int call_abi(void* f) { return ((abi_fn)f)(); }
static void call_set_workers(void* f, int n) { ((set_workers_fn)f)(n); }
static void* call_alloc(void* f, uint64_t n, const char* what) { return ((alloc_fn)f)(n, what); }
static int call_free(void* f, void* p) { return ((free_fn)f)(p); }
static int call_range(void* f, uint64_t p, uint64_t n) { return ((range_fn)f)(p, n); }
static int call_info(void* f, const char* name, char* out, int len) { return ((info_fn)f)(name, out, len); }
static void call_add_var(void* f, uint64_t off, uint64_t size, const char* name) { ((add_var_fn)f)(off, size, name); }
static int call_launch(void* f, const char* name, unsigned gx, unsigned gy, unsigned bx, uint64_t smem,
                       const uint64_t* args, int nargs, char* msg, int len) {
	return ((launch_fn)f)(name, gx, gy, bx, smem, args, nargs, msg, len);
}
*/
import "C"

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"unsafe"
)

// Module is a loaded kernel library. Its device memory and launches are global to the
// process; calls are serialised.
type Module struct {
	path                                                        string
	mu                                                          sync.Mutex
	abi, setWorkers, alloc, free, inRange, info, launch, addVar unsafe.Pointer
}

// Load opens a library that Build made.
func Load(path string) (*Module, error) {
	cp := C.CString(path)
	defer C.free(unsafe.Pointer(cp))
	h := C.dlopen(cp, C.RTLD_NOW|C.RTLD_LOCAL)
	if h == nil {
		return nil, fmt.Errorf("cudasim: dlopen %s: %s", path, C.GoString(C.dlerror()))
	}
	m := &Module{path: path}
	for _, s := range []struct {
		dst  *unsafe.Pointer
		name string
	}{{&m.abi, "cudasim_abi"}, {&m.setWorkers, "cudasim_set_workers"}, {&m.alloc, "cudasim_alloc"}, {&m.free, "cudasim_free"},
		{&m.inRange, "cudasim_range"}, {&m.info, "cudasim_kernel_info"}, {&m.launch, "cudasim_launch"},
		{&m.addVar, "cudasim_add_shared_var"}} {
		cn := C.CString(s.name)
		*s.dst = C.dlsym(h, cn)
		C.free(unsafe.Pointer(cn))
		if *s.dst == nil {
			return nil, fmt.Errorf("cudasim: %s: symbol %s missing", path, s.name)
		}
	}
	if v := C.call_abi(m.abi); v != 1 {
		return nil, fmt.Errorf("cudasim: %s: runtime ABI %d, want 1", path, int(v))
	}
	vars, err := sharedVariables(path)
	if err != nil {
		return nil, err
	}
	for _, v := range vars {
		cn := C.CString(v.Name)
		C.call_add_var(m.addVar, C.uint64_t(v.Offset), C.uint64_t(v.Size), cn)
		C.free(unsafe.Pointer(cn))
	}
	return m, nil
}

// SetWorkers sets how many OS threads run blocks (each runs one block at a time).
func (m *Module) SetWorkers(n int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	C.call_set_workers(m.setWorkers, C.int(n))
}

// Alloc returns zeroed, 256-byte aligned device memory; kernels may touch exactly
// bytes of it.
func (m *Module) Alloc(bytes int64, what string) (unsafe.Pointer, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	cw := C.CString(what)
	defer C.free(unsafe.Pointer(cw))
	p := C.call_alloc(m.alloc, C.uint64_t(bytes), cw)
	if p == nil {
		return nil, fmt.Errorf("cudasim: allocating %d bytes for %s failed", bytes, what)
	}
	return p, nil
}

// Free releases memory from Alloc.
func (m *Module) Free(p unsafe.Pointer) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if C.call_free(m.free, p) != 0 {
		return fmt.Errorf("cudasim: free of %p: not an allocation", p)
	}
	return nil
}

// InRange reports whether [p, p+n) lies inside one allocation.
func (m *Module) InRange(p uint64, n int64) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return C.call_range(m.inRange, C.uint64_t(p), C.uint64_t(n)) == 1
}

// KernelInfo returns a kernel's parameter kinds (p pointer, i int, f float, l 64-bit
// integer, d double) and its thread limit.
func (m *Module) KernelInfo(name string) (kinds string, maxThreads int, ok bool) {
	cn := C.CString(name)
	defer C.free(unsafe.Pointer(cn))
	var buf [256]C.char
	if C.call_info(m.info, cn, &buf[0], C.int(len(buf))) == 0 {
		return "", 0, false
	}
	f := strings.Fields(C.GoString(&buf[0]))
	if len(f) == 1 { // a kernel without parameters
		f = []string{"", f[0]}
	}
	n, _ := strconv.Atoi(f[1])
	return f[0], n, true
}

// Launch runs kernel name on a grid × gridY grid of block-thread blocks with smem
// bytes of dynamic shared memory; args holds one 8-byte slot per parameter, as
// cuLaunchKernel's parameter array points to them. A fault or hazard is an error that
// names the kernel, block, thread and source line.
func (m *Module) Launch(name string, grid, gridY, block, smem int, args []uint64) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	cn := C.CString(name)
	defer C.free(unsafe.Pointer(cn))
	msg := make([]byte, 8192)
	var ap *C.uint64_t
	if len(args) > 0 {
		ap = (*C.uint64_t)(unsafe.Pointer(&args[0]))
	}
	if grid < 0 || gridY < 0 || block < 0 || smem < 0 {
		return fmt.Errorf("cudasim: %s: negative launch dimension (grid %d×%d, block %d, smem %d)", name, grid, gridY, block, smem)
	}
	if C.call_launch(m.launch, cn, C.uint(grid), C.uint(gridY), C.uint(block), C.uint64_t(smem), ap, C.int(len(args)),
		(*C.char)(unsafe.Pointer(&msg[0])), C.int(len(msg))) == 0 {
		return nil
	}
	text := string(msg[:bytes0(msg)])
	return fmt.Errorf("cudasim: launching %s (grid %d×%d, block %d, smem %d):\n%s", name, grid, gridY, block, smem, m.symbolize(text))
}

func bytes0(b []byte) int {
	for i, c := range b {
		if c == 0 {
			return i
		}
	}
	return len(b)
}

var pcRE = regexp.MustCompile(`\[pc \+0x([0-9a-f]+)\]`)

// symbolize turns the runtime's [pc +0x…] offsets into source lines with addr2line,
// where it is installed (binutils, beside the compiler).
func (m *Module) symbolize(text string) string {
	return pcRE.ReplaceAllStringFunc(text, func(s string) string {
		off := pcRE.FindStringSubmatch(s)[1]
		pc, _ := strconv.ParseUint(off, 16, 64)
		out, err := exec.Command("addr2line", "-e", m.path, "-i", "-s", fmt.Sprintf("%#x", pc-1)).Output()
		if err != nil {
			return s
		}
		var keep []string
		for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			if i := strings.Index(l, " (discriminator"); i >= 0 {
				l = l[:i]
			}
			if !strings.HasPrefix(l, "fibers.cc") && !strings.HasPrefix(l, "memory.cc") && !strings.HasPrefix(l, "cudasim.h") && !strings.HasPrefix(l, "??") {
				keep = append(keep, l)
			}
		}
		if len(keep) == 0 {
			return s
		}
		return "at " + strings.Join(keep, " inlined in ")
	})
}

// Dir is the build directory of the library (sources, wrappers, objects).
func (m *Module) Dir() string { return filepath.Dir(m.path) }
