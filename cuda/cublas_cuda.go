//go:build cuda

package cuda

/*
#cgo LDFLAGS: -ldl
#include <dlfcn.h>
#include <stdint.h>
#include <stdlib.h>

// cuBLAS is reached through dlopen'ed function pointers, so one binary runs with
// whichever libcublas (13, 12 or 11) the machine has. The enums are plain ints in
// the C ABI, and these entry points have kept their signatures since CUDA 11.
typedef int (*cublas_create_fn)(void**);
typedef int (*cublas_destroy_fn)(void*);
typedef int (*cublas_set_stream_fn)(void*, void*);
typedef int (*cublas_get_version_fn)(void*, int*);
typedef int (*cublas_gemm_ex_fn)(void*, int, int, int, int, int, const void*, const void*, int, int,
                                 const void*, int, int, const void*, void*, int, int, int, int);
typedef int (*cublas_gemm_sb_fn)(void*, int, int, int, int, int, const void*, const void*, int, int, long long,
                                 const void*, int, int, long long, const void*, void*, int, int, long long, int,
                                 int, int);

static int call_create(void* fn, uintptr_t* handle) {
	void* h = 0;
	int st = ((cublas_create_fn)fn)(&h);
	*handle = (uintptr_t)h;
	return st;
}
static int call_destroy(void* fn, uintptr_t h) { return ((cublas_destroy_fn)fn)((void*)h); }
static int call_set_stream(void* fn, uintptr_t h, uintptr_t stream) {
	return ((cublas_set_stream_fn)fn)((void*)h, (void*)stream);
}
static int call_get_version(void* fn, uintptr_t h, int* v) { return ((cublas_get_version_fn)fn)((void*)h, v); }
static int call_gemm_ex(void* fn, uintptr_t h, int ta, int tb, int m, int n, int k, float alpha, uintptr_t A,
                        int at, int lda, uintptr_t B, int bt, int ldb, float beta, uintptr_t C, int ct, int ldc,
                        int compute, int algo) {
	return ((cublas_gemm_ex_fn)fn)((void*)h, ta, tb, m, n, k, &alpha, (const void*)A, at, lda, (const void*)B, bt,
	                               ldb, &beta, (void*)C, ct, ldc, compute, algo);
}
static int call_gemm_sb(void* fn, uintptr_t h, int ta, int tb, int m, int n, int k, float alpha, uintptr_t A,
                        int at, int lda, long long sa, uintptr_t B, int bt, int ldb, long long sb, float beta,
                        uintptr_t C, int ct, int ldc, long long sc, int batch, int compute, int algo) {
	return ((cublas_gemm_sb_fn)fn)((void*)h, ta, tb, m, n, k, &alpha, (const void*)A, at, lda, sa, (const void*)B,
	                               bt, ldb, sb, &beta, (void*)C, ct, ldc, sc, batch, compute, algo);
}
*/
import "C"

import (
	"fmt"
	"os"
	"strings"
	"unsafe"

	"gorgonia.org/cu"
)

// cublas is one handle bound to the engine's stream, with the entry points it calls.
type cublas struct {
	lib                                 unsafe.Pointer
	name                                string
	create, destroy, setStream, version unsafe.Pointer
	gemmEx, gemmStridedBatchedEx        unsafe.Pointer
	handle                              C.uintptr_t
}

// openCublas dlopens the first library of cublasCandidates that loads, creates a
// handle and binds it to stream. The error lists every library tried and why each
// failed.
func openCublas(stream cu.Stream) (*cublas, error) {
	names := cublasCandidates(os.Getenv)
	var tried []string
	b := &cublas{}
	for _, n := range names {
		cn := C.CString(n)
		lib := C.dlopen(cn, C.RTLD_NOW|C.RTLD_LOCAL)
		C.free(unsafe.Pointer(cn))
		if lib != nil {
			b.lib, b.name = lib, n
			break
		}
		tried = append(tried, fmt.Sprintf("%s (%s)", n, C.GoString(C.dlerror())))
	}
	if b.lib == nil {
		return nil, fmt.Errorf("cuBLAS not found: tried %s; install CUDA 11.x–13.x cuBLAS or set ENTROPIX_CUBLAS to libcublas.so's path",
			strings.Join(tried, ", "))
	}
	for _, s := range []struct {
		dst  *unsafe.Pointer
		name string
	}{
		{&b.create, "cublasCreate_v2"}, {&b.destroy, "cublasDestroy_v2"}, {&b.setStream, "cublasSetStream_v2"},
		{&b.version, "cublasGetVersion_v2"}, {&b.gemmEx, "cublasGemmEx"},
		{&b.gemmStridedBatchedEx, "cublasGemmStridedBatchedEx"},
	} {
		cn := C.CString(s.name)
		*s.dst = C.dlsym(b.lib, cn)
		C.free(unsafe.Pointer(cn))
		if *s.dst == nil {
			C.dlclose(b.lib)
			return nil, fmt.Errorf("cuBLAS %s: symbol %s missing", b.name, s.name)
		}
	}
	if st := C.call_create(b.create, &b.handle); st != 0 {
		C.dlclose(b.lib)
		return nil, fmt.Errorf("cuBLAS %s: cublasCreate: %s", b.name, cublasStatus(st))
	}
	if st := C.call_set_stream(b.setStream, b.handle, C.uintptr_t(uintptr(unsafe.Pointer(stream.C())))); st != 0 {
		b.close()
		return nil, fmt.Errorf("cuBLAS %s: cublasSetStream: %s", b.name, cublasStatus(st))
	}
	return b, nil
}

// Version is cuBLAS' version number (e.g. 120805), for the run manifest.
func (b *cublas) Version() int {
	var v C.int
	if C.call_get_version(b.version, b.handle, &v) != 0 {
		return -1
	}
	return int(v)
}

// gemm runs one cublasGemmEx (Batch 1) or cublasGemmStridedBatchedEx call.
func (b *cublas) gemm(g gemmEx) error {
	var st C.int
	call := "cublasGemmEx"
	if g.Batch == 1 {
		st = C.call_gemm_ex(b.gemmEx, b.handle, C.int(g.TransA), C.int(g.TransB), C.int(g.M), C.int(g.N), C.int(g.K),
			C.float(g.Alpha), C.uintptr_t(g.A), C.int(g.AType), C.int(g.LDA), C.uintptr_t(g.B), C.int(g.BType), C.int(g.LDB),
			C.float(g.Beta), C.uintptr_t(g.C), C.int(g.CType), C.int(g.LDC), C.int(g.Compute), C.int(g.Algo))
	} else {
		call = "cublasGemmStridedBatchedEx"
		st = C.call_gemm_sb(b.gemmStridedBatchedEx, b.handle, C.int(g.TransA), C.int(g.TransB), C.int(g.M), C.int(g.N),
			C.int(g.K), C.float(g.Alpha), C.uintptr_t(g.A), C.int(g.AType), C.int(g.LDA), C.longlong(g.StrideA),
			C.uintptr_t(g.B), C.int(g.BType), C.int(g.LDB), C.longlong(g.StrideB), C.float(g.Beta), C.uintptr_t(g.C),
			C.int(g.CType), C.int(g.LDC), C.longlong(g.StrideC), C.int(g.Batch), C.int(g.Compute), C.int(g.Algo))
	}
	if st != 0 {
		return fmt.Errorf("%s m %d n %d k %d batch %d: %s", call, g.M, g.N, g.K, g.Batch, cublasStatus(st))
	}
	return nil
}

func (b *cublas) close() error {
	if b == nil || b.lib == nil {
		return nil
	}
	var err error
	if b.handle != 0 {
		if st := C.call_destroy(b.destroy, b.handle); st != 0 {
			err = fmt.Errorf("cublasDestroy: %s", cublasStatus(st))
		}
		b.handle = 0
	}
	// The library stays loaded: cuBLAS registers process-wide state, and other
	// engines in this process may hold handles from the same dlopen.
	return err
}

// cublasStatus names a cublasStatus_t.
func cublasStatus(st C.int) string {
	names := map[C.int]string{1: "NOT_INITIALIZED", 3: "ALLOC_FAILED", 7: "INVALID_VALUE", 8: "ARCH_MISMATCH",
		11: "MAPPING_ERROR", 13: "EXECUTION_FAILED", 14: "INTERNAL_ERROR", 15: "NOT_SUPPORTED", 16: "LICENSE_ERROR"}
	if n, ok := names[st]; ok {
		return fmt.Sprintf("CUBLAS_STATUS_%s (%d)", n, int(st))
	}
	return fmt.Sprintf("status %d", int(st))
}
