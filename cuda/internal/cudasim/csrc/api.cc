// The host execution model behind cudasim.h: device memory, the launch of a grid, the
// threads of a block as fibers, barriers, warp shuffles, and the checks a GPU (or
// compute-sanitizer) would make. This file is the C API the Go side calls and the
// reports; fibers.cc runs blocks, memory.cc checks accesses. Compiled without
// instrumentation; the kernel translation units are compiled with -fsanitize=thread,
// whose __tsan_* calls land in the hooks at the end of memory.cc.
//
// Execution: a launch hands its blocks to a pool of OS threads; each runs one block at a
// time as blockDim fibers that switch only at __syncthreads, __syncwarp and the shuffles.
// A barrier releases when every live thread of the block waits at it (at the same
// source line, or it is reported as divergent); a shuffle exchanges when every lane of
// its mask has arrived (at the same line). A block whose threads can make no progress
// is a deadlock and reported with where each thread waits.
//
// Checks, per access of kernel code: global addresses must lie inside one allocation
// and be naturally aligned; dynamic shared memory must lie inside the launch's size;
// shared memory (static and dynamic) is shadowed per 4-byte word with the last writer
// and readers since the last barrier, so a read of another thread's write, or a write
// over another thread's access, with no barrier between is a race, and a read of a
// word this block never wrote is a read of uninitialised memory.
#include "runtime.h"

namespace cudasim {
namespace rt {

std::string fmt(const char* f, ...) {
    char buf[1024];
    va_list ap;
    va_start(ap, f);
    vsnprintf(buf, sizeof buf, f, ap);
    va_end(ap);
    return buf;
}

std::string where(Worker* w) {
    std::string s = fmt("%s block (%u,%u)", w->L->k->name, w->block.x, w->block.y);
    if (w->cur) s += fmt(" thread %u", w->cur->tid);
    if (w->pc) s += fmt(" [pc +%#lx]", (unsigned long)(w->pc - moduleBase));
    return s;
}

// report records a defect of a kind; a launch keeps the first two of each kind.
void report(Worker* w, bool fatal, const char* kind, const std::string& msg) {
    Launch* L = w->L;
    std::lock_guard<std::mutex> g(L->mu);
    L->nmsgs++;
    if (L->kinds[kind]++ < 2) L->msgs.push_back(msg);
    if (fatal) L->failed = true;
}

// fault ends the block at once, as a GPU would stop the kernel on an illegal access:
// the access about to happen never does.
[[noreturn]] void fault(Worker* w, const std::string& msg) {
    report(w, true, "fault", where(w) + ": " + msg);
    w->aborted = true;
    void* dummy;
    cudasim_swap(&dummy, w->schedSP);
    __builtin_unreachable();
}

} // namespace rt
} // namespace cudasim

// ---- the C API the Go side calls ----------------------------------------------------------

using namespace cudasim;
using namespace cudasim::rt;

API int cudasim_abi(void) { return 1; }

API void cudasim_set_workers(int n) { nWorkers = n < 1 ? 1 : n > 64 ? 64 : n; }

API void* cudasim_alloc(uint64_t bytes, const char* what) {
    size_t n = bytes == 0 ? 1 : bytes;
    void* p = nullptr;
    if (posix_memalign(&p, 256, (n + 255) & ~size_t(255)) != 0) return nullptr;
    memset(p, 0, (n + 255) & ~size_t(255));
    std::lock_guard<std::mutex> g(allocMu);
    Alloc a{reinterpret_cast<uintptr_t>(p), reinterpret_cast<uintptr_t>(p) + n, what};
    allocs.insert(std::upper_bound(allocs.begin(), allocs.end(), a, [](const Alloc& x, const Alloc& y) { return x.lo < y.lo; }), a);
    for (Worker* w : pool.workers) w->lastAlloc = nullptr; // the vector moved
    return p;
}

// cudasim_add_shared_var declares a __shared__ variable: size bytes at offset off of
// the module's TLS block. Accesses to shared memory outside all of them fault.
API void cudasim_add_shared_var(uint64_t off, uint64_t size, const char* name) {
    SharedVar v{off, size, name};
    sharedVars.insert(std::upper_bound(sharedVars.begin(), sharedVars.end(), v, [](const SharedVar& x, const SharedVar& y) { return x.off < y.off; }), v);
}

API int cudasim_free(void* p) {
    std::lock_guard<std::mutex> g(allocMu);
    for (size_t i = 0; i < allocs.size(); i++) {
        if (allocs[i].lo == reinterpret_cast<uintptr_t>(p)) {
            allocs.erase(allocs.begin() + i);
            for (Worker* w : pool.workers) w->lastAlloc = nullptr;
            free(p);
            return 0;
        }
    }
    return -1;
}

// cudasim_range reports whether [p, p+n) lies inside one allocation: 1 yes, 0 no.
API int cudasim_range(uint64_t p, uint64_t n) {
    std::lock_guard<std::mutex> g(allocMu);
    const Alloc* a = findAlloc(p);
    return a && p + n <= a->hi;
}

// cudasim_kernel_info writes "kinds max_threads" for a registered kernel; 0 if none.
API int cudasim_kernel_info(const char* name, char* out, int len) {
    auto it = kernels().find(name);
    if (it == kernels().end()) return 0;
    snprintf(out, len, "%s %d", it->second.kinds, it->second.max_threads);
    return 1;
}

// cudasim_launch runs kernel name over a gx × gy grid of bx-thread blocks with smem
// bytes of dynamic shared memory. args holds one 8-byte slot per parameter, as the
// launch layer packs them for cuLaunchKernel. It returns 0, or -1 with msg filled.
API int cudasim_launch(const char* name, unsigned gx, unsigned gy, unsigned bx, uint64_t smem, const uint64_t* args, int nargs,
                       char* msg, int msglen) {
    auto fail = [&](const std::string& s) {
        snprintf(msg, msglen, "%s", s.c_str());
        return -1;
    };
    auto it = kernels().find(name);
    if (it == kernels().end()) return fail(fmt("no kernel %s in the module", name));
    const KernelInfo& k = it->second;
    int np = (int)strlen(k.kinds);
    if (nargs != np) return fail(fmt("%s takes %d parameters, the launch packed %d", name, np, nargs));
    if (gx == 0 || gy == 0 || gx > 0x7fffffffu || gy > 65535) return fail(fmt("%s: grid %u×%u outside 1..2^31-1 × 1..65535", name, gx, gy));
    if (bx == 0 || bx > (unsigned)k.max_threads)
        return fail(fmt("%s: block of %u threads; the kernel allows 1..%d (__launch_bounds__)", name, bx, k.max_threads));
    if (smem > CUDASIM_DYNAMIC_SHARED_BYTES) return fail(fmt("%s: %lu bytes of dynamic shared memory, above the 48 KiB limit", name, (unsigned long)smem));
    {
        std::lock_guard<std::mutex> g(allocMu);
        for (int i = 0; i < np; i++) {
            if (k.kinds[i] == kPtr) {
                if (args[i] != 0 && !findAlloc(args[i]))
                    return fail(fmt("%s: parameter %d (a pointer) is %#lx, not device memory", name, i, (unsigned long)args[i]));
            } else if ((k.kinds[i] == kI32 || k.kinds[i] == kF32) && (args[i] >> 32) != 0) {
                return fail(fmt("%s: parameter %d is 4 bytes but its slot holds %#lx (packed as 8 bytes?)", name, i, (unsigned long)args[i]));
            }
        }
    }
    Launch L;
    L.k = &k;
    L.args = args;
    L.gx = gx;
    L.gy = gy;
    L.bx = bx;
    L.smem = smem;
    {
        std::unique_lock<std::mutex> g(pool.mu);
        ensureWorkers(nWorkers);
        pool.job = &L;
        pool.jobID++;
        pool.active = (int)pool.workers.size();
        pool.work.notify_all();
        pool.done.wait(g, [] { return pool.active == 0; });
        pool.job = nullptr;
    }
    if (L.nmsgs == 0) return 0;
    std::string s;
    for (auto& m : L.msgs) s += m + "\n";
    if (L.nmsgs > (int)L.msgs.size()) {
        s += "reports by kind:";
        for (auto& kv : L.kinds) s += fmt(" %s %d", kv.first.c_str(), kv.second);
        s += "\n";
    }
    return fail(s);
}
