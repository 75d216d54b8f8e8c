// The CUDA dialect the kernels in cuda/*.cu use, for a host C++ compiler. Every kernel
// source is compiled unmodified after this header, instrumented with GCC's
// -fsanitize=thread: the instrumentation calls the __tsan_* hooks in memory.cc on every
// load and store, which is where bounds, alignment and shared-memory hazards are
// checked. Thread-level state (threadIdx, barriers, shuffles) lives in the runtime; this
// header only forwards to it.
//
// __shared__ is thread_local: the runtime runs each block's threads as fibers on one
// OS thread, so an OS thread's copy of a thread_local is exactly one block's shared
// memory (and `extern __shared__ T name[]` names an array the generated wrapper
// defines, sized for the largest dynamic allocation the launch layer may request).
#pragma once
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <type_traits>
#include <utility>

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline __attribute__((always_inline))
#define __launch_bounds__(...)
#define __shared__ thread_local

struct uint3 { unsigned x, y, z; };
struct dim3 { unsigned x, y, z; };
struct __attribute__((aligned(8))) float2 { float x, y; };
struct __attribute__((aligned(16))) float4 { float x, y, z, w; };
struct __attribute__((aligned(16))) uint4 { unsigned x, y, z, w; };
struct __attribute__((aligned(8))) uint2 { unsigned x, y; };
struct __attribute__((aligned(8))) int2 { int x, y; };

static const int warpSize = 32;

namespace cudasim {
// Defined in fibers.cc (not instrumented): the calling fiber's coordinates.
uint3 thread_idx();
uint3 block_idx();
dim3 block_dim();
dim3 grid_dim();
void syncthreads(const char* site);
void syncwarp(unsigned mask, const char* site);
// shfl exchanges the 8-byte payload v among the lanes of mask; mode 0: from lane src
// (within width), 1: lane ^ src, 2: lane - src, 3: lane + src.
uint64_t shfl(unsigned mask, uint64_t v, int src, int width, int mode, const char* site);

template <class T>
__attribute__((always_inline)) inline T shfl_t(unsigned mask, T v, int src, int width, int mode, const char* site) {
    static_assert(sizeof(T) <= 8, "__shfl_* moves at most 8 bytes");
    uint64_t raw = 0;
    memcpy(&raw, &v, sizeof(T));
    raw = shfl(mask, raw, src, width, mode, site);
    T out;
    memcpy(&out, &raw, sizeof(T));
    return out;
}
} // namespace cudasim

#define threadIdx (::cudasim::thread_idx())
#define blockIdx (::cudasim::block_idx())
#define blockDim (::cudasim::block_dim())
#define gridDim (::cudasim::grid_dim())

// Barriers and shuffles carry their source location: threads waiting at one barrier
// must have reached the same __syncthreads of the source, and the lanes of a shuffle
// the same __shfl_*_sync; the location also names the place in hazard reports.
#define CUDASIM_STR2(x) #x
#define CUDASIM_STR(x) CUDASIM_STR2(x)
#define CUDASIM_SITE __FILE__ ":" CUDASIM_STR(__LINE__)
#define __syncthreads() ::cudasim::syncthreads(CUDASIM_SITE)
#define __syncwarp(...) ::cudasim::syncwarp_at(CUDASIM_SITE, ##__VA_ARGS__)
#define __shfl_sync(...) ::cudasim::shfl_at<0>(CUDASIM_SITE, __VA_ARGS__)
#define __shfl_xor_sync(...) ::cudasim::shfl_at<1>(CUDASIM_SITE, __VA_ARGS__)
#define __shfl_up_sync(...) ::cudasim::shfl_at<2>(CUDASIM_SITE, __VA_ARGS__)
#define __shfl_down_sync(...) ::cudasim::shfl_at<3>(CUDASIM_SITE, __VA_ARGS__)

namespace cudasim {
template <int Mode, class T>
__attribute__((always_inline)) inline T shfl_at(const char* site, unsigned mask, T v, int src, int width = 32) {
    return shfl_t(mask, v, src, width, Mode, site);
}
__attribute__((always_inline)) inline void syncwarp_at(const char* site, unsigned mask = 0xffffffffu) {
    syncwarp(mask, site);
}
} // namespace cudasim

// Device math that the C library spells differently or lacks.
static inline int min(int a, int b) { return a < b ? a : b; }
static inline int max(int a, int b) { return a > b ? a : b; }
static inline long long min(long long a, long long b) { return a < b ? a : b; }
static inline long long max(long long a, long long b) { return a > b ? a : b; }
static inline unsigned min(unsigned a, unsigned b) { return a < b ? a : b; }
static inline unsigned max(unsigned a, unsigned b) { return a > b ? a : b; }
static inline float rsqrtf(float x) { return 1.0f / sqrtf(x); }
// __expf and __logf (the GPU's fast approximations) are glibc's own exported
// __expf/__logf here: correctly rounded, within the intrinsics' documented error.
static inline float __fdividef(float a, float b) { return a / b; }
static inline float __saturatef(float x) { return x < 0.f ? 0.f : (x > 1.f ? 1.f : x); }
static inline float __int_as_float(int i) { float f; memcpy(&f, &i, 4); return f; }
static inline int __float_as_int(float f) { int i; memcpy(&i, &f, 4); return i; }

// Registration, emitted by the generated wrapper of each .cu after the source itself.
namespace cudasim {
enum : char { kPtr = 'p', kI32 = 'i', kF32 = 'f', kI64 = 'l', kF64 = 'd' };

struct KernelInfo {
    const char* name;
    void* fn;
    void (*invoke)(void* fn, const uint64_t* args);
    const char* kinds; // one kind per parameter
    int max_threads;   // __launch_bounds__, or 1024
};
void register_kernel(const KernelInfo& k);
void register_dynamic_shared(const char* name, void* (*addr)());

template <class T> constexpr char kind_of() {
    if constexpr (std::is_pointer<T>::value) return kPtr;
    else if constexpr (std::is_same<T, float>::value) return kF32;
    else if constexpr (std::is_same<T, double>::value) return kF64;
    else if constexpr (sizeof(T) == 8) return kI64;
    else return kI32;
}

// unpack reads a parameter the way the driver does: sizeof(T) bytes from the 8-byte
// slot the launch layer packed it in (little-endian, so the low bytes).
template <class T> inline T unpack(uint64_t v) {
    T out;
    memcpy(&out, &v, sizeof(T));
    return out;
}

template <class... A> struct Thunk {
    template <size_t... I>
    __attribute__((no_sanitize_thread)) static void call(void (*fn)(A...), const uint64_t* a, std::index_sequence<I...>) {
        fn(unpack<A>(a[I])...);
    }
    __attribute__((no_sanitize_thread)) static void invoke(void* fn, const uint64_t* args) {
        call(reinterpret_cast<void (*)(A...)>(fn), args, std::index_sequence_for<A...>());
    }
    static constexpr char kinds[sizeof...(A) + 1] = {kind_of<A>()..., 0};
};

struct KernelReg {
    template <class... A> KernelReg(const char* name, void (*fn)(A...), int max_threads) {
        register_kernel(KernelInfo{name, reinterpret_cast<void*>(fn), &Thunk<A...>::invoke, Thunk<A...>::kinds, max_threads});
    }
};
struct SharedReg {
    SharedReg(const char* name, void* (*addr)()) { register_dynamic_shared(name, addr); }
};
} // namespace cudasim

// CUDASIM_DYNAMIC_SHARED_BYTES is the most dynamic shared memory a launch may ask for
// without an opt-in attribute (48 KiB on every GPU since sm_20).
#define CUDASIM_DYNAMIC_SHARED_BYTES (48 * 1024)
#define CUDASIM_DYNAMIC_SHARED(T, name)                                                                   \
    thread_local __attribute__((aligned(16))) T name[CUDASIM_DYNAMIC_SHARED_BYTES / sizeof(T)];       \
    static void* cudasim_addr_##name() { return (void*)name; }                                         \
    static ::cudasim::SharedReg cudasim_shared_##name(#name, cudasim_addr_##name);
#define CUDASIM_KERNEL(name, max_threads) static ::cudasim::KernelReg cudasim_kernel_##name(#name, &name, max_threads);
