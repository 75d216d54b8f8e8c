// A stand-in libcuda.so.1 for window_test.go: enough of the driver API for the cuda
// test binary to find ENTROPIX_STANDIN_DEVICES devices (default 1), open one and fail
// to load PTX with a JIT error log, as a real driver does when the PTX is too new for
// it. The test adds a stub returning CUDA_ERROR_NOT_SUPPORTED for every other entry
// point the binary imports. Compiled against the CUDA headers in ../shared/cuda, so
// the signatures are the real ones (cuda.h maps names to their _v2 symbols).
#include <cuda.h>
#include <stdlib.h>
#include <string.h>

static int devices(void) {
    const char* s = getenv("ENTROPIX_STANDIN_DEVICES");
    return s ? atoi(s) : 1;
}

CUresult cuInit(unsigned int flags) { return CUDA_SUCCESS; }

CUresult cuDriverGetVersion(int* v) {
    *v = 13000;
    return CUDA_SUCCESS;
}

CUresult cuDeviceGetCount(int* n) {
    *n = devices();
    return CUDA_SUCCESS;
}

CUresult cuDeviceGet(CUdevice* d, int ordinal) {
    if (ordinal < 0 || ordinal >= devices()) return CUDA_ERROR_INVALID_DEVICE;
    *d = ordinal;
    return CUDA_SUCCESS;
}

CUresult cuDeviceGetName(char* name, int len, CUdevice d) {
    strncpy(name, "Stand-in GPU", len);
    return CUDA_SUCCESS;
}

CUresult cuDeviceGetAttribute(int* v, CUdevice_attribute a, CUdevice d) {
    *v = a == CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR ? 9 : 0;
    return CUDA_SUCCESS;
}

CUresult cuDevicePrimaryCtxRetain(CUcontext* c, CUdevice d) {
    *c = (CUcontext)0x1;
    return CUDA_SUCCESS;
}

CUresult cuDevicePrimaryCtxRelease(CUdevice d) { return CUDA_SUCCESS; }
CUresult cuCtxSetCurrent(CUcontext c) { return CUDA_SUCCESS; }

CUresult cuStreamCreate(CUstream* s, unsigned int flags) {
    *s = (CUstream)0x2;
    return CUDA_SUCCESS;
}

CUresult cuStreamSynchronize(CUstream s) { return CUDA_SUCCESS; }
CUresult cuStreamDestroy(CUstream s) { return CUDA_SUCCESS; }

CUresult cuModuleLoadDataEx(CUmodule* m, const void* image, unsigned int n, CUjit_option* opts, void** vals) {
    static const char msg[] = "stand-in JIT: ptxas fatal : Unsupported .version; the stand-in driver compiles nothing";
    char* buf = 0;
    size_t size = 0;
    for (unsigned int i = 0; i < n; i++) {
        if (opts[i] == CU_JIT_ERROR_LOG_BUFFER) buf = (char*)vals[i];
        if (opts[i] == CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES) size = (size_t)vals[i];
    }
    if (buf && size > 0) {
        strncpy(buf, msg, size - 1);
        buf[size - 1] = 0;
    }
    return CUDA_ERROR_INVALID_PTX;
}
