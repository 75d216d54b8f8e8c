// Memory: device allocations, and the check of every load and store of kernel code
// (the ThreadSanitizer entry points at the end): global accesses inside one allocation
// and naturally aligned, shared accesses inside a __shared__ variable and the launch's
// dynamic size, and the shadow of shared memory that finds races between barriers.
#include "runtime.h"

namespace cudasim {
namespace rt {

// ---- registries -----------------------------------------------------------------

std::map<std::string, KernelInfo>& kernels() {
    static std::map<std::string, KernelInfo> m;
    return m;
}
std::vector<std::pair<std::string, void* (*)()>>& dynamicShared() {
    static std::vector<std::pair<std::string, void* (*)()>> v;
    return v;
}

std::mutex allocMu;
std::vector<Alloc> allocs;

const Alloc* findAlloc(uintptr_t a) {
    auto it = std::upper_bound(allocs.begin(), allocs.end(), a, [](uintptr_t x, const Alloc& al) { return x < al.lo; });
    if (it == allocs.begin()) return nullptr;
    --it;
    return a < it->hi ? &*it : nullptr;
}

// The module's __shared__ variables (its thread_locals but the runtime's own), by
// offset in the TLS block; from the library's symbol table, via cudasim_add_shared_var.
std::vector<SharedVar> sharedVars;

const SharedVar* findSharedVar(Worker* w, uintptr_t a) {
    uintptr_t off = a - w->tlsLo;
    auto it = std::upper_bound(sharedVars.begin(), sharedVars.end(), off, [](uintptr_t x, const SharedVar& v) { return x < v.off; });
    if (it == sharedVars.begin()) return nullptr;
    --it;
    return off < it->off + it->size ? &*it : nullptr;
}

// sharedName names a shared-memory word for reports.
std::string sharedName(Worker* w, uintptr_t a) {
    for (size_t i = 0; i < w->dyn.size(); i++)
        if (a >= w->dyn[i].first && a < w->dyn[i].second)
            return fmt("dynamic shared %s+%zu", dynamicShared()[i].first.c_str(), (size_t)(a - w->dyn[i].first));
    if (const SharedVar* v = findSharedVar(w, a)) return fmt("__shared__ %s+%zu", v->name.c_str(), (size_t)(a - w->tlsLo - v->off));
    return fmt("static shared memory (module offset %zu)", (size_t)(a - w->tlsLo));
}

void sharedAccess(Worker* w, uintptr_t a, size_t size, bool write) {
    if (!sharedVars.empty()) {
        const SharedVar* v = findSharedVar(w, a);
        if (!v || a + size > w->tlsLo + v->off + v->size) {
            std::string near;
            for (auto& x : sharedVars)
                if (w->tlsLo + x.off <= a) near = fmt(" (%zu bytes past the start of %s, %zu bytes long)", (size_t)(a - w->tlsLo - x.off), x.name.c_str(), (size_t)x.size);
            fault(w, fmt("%s of %zu bytes in shared memory outside every __shared__ variable%s", write ? "write" : "read", size, near.c_str()));
        }
    }
    for (auto& d : w->dyn) {
        if (a >= d.first && a < d.second) {
            if (a + size > d.first + w->L->smem)
                fault(w, fmt("%s of %zu bytes at dynamic shared offset %zu, beyond the launch's %zu bytes", write ? "write" : "read",
                             size, (size_t)(a - d.first), w->L->smem));
            break;
        }
    }
    Fiber* f = w->cur;
    int16_t t = (int16_t)f->tid;
    for (uintptr_t word = (a - w->tlsLo) / 4, end = (a + size - 1 - w->tlsLo) / 4; word <= end; word++) {
        Shadow& s = w->shadow[word];
        if (s.epoch != w->epoch) {
            s.epoch = w->epoch;
            s.writer = s.reader = -1;
        }
        if (!write) {
            if (s.wblock != w->blockGen) {
                report(w, false, "uninitialised", where(w) + ": read of " + sharedName(w, w->tlsLo + word * 4) + ", which this block never wrote");
                s.wblock = w->blockGen; // once per word
            } else if (s.writer >= 0 && s.writer != t) {
                report(w, false, "read-after-write", where(w) + fmt(": shared-memory race: reads %s, which thread %d wrote with no barrier between",
                                                sharedName(w, w->tlsLo + word * 4).c_str(), s.writer));
            }
            s.reader = (s.reader == -1 || s.reader == t) ? t : -2;
        } else {
            if (s.writer >= 0 && s.writer != t)
                report(w, false, "write-after-write", where(w) + fmt(": shared-memory race: overwrites %s, which thread %d wrote with no barrier between",
                                                sharedName(w, w->tlsLo + word * 4).c_str(), s.writer));
            else if (s.reader == -2 || (s.reader >= 0 && s.reader != t))
                report(w, false, "write-after-read", where(w) + fmt(": shared-memory race: overwrites %s, which %s read with no barrier between",
                                                sharedName(w, w->tlsLo + word * 4).c_str(),
                                                s.reader == -2 ? "other threads" : fmt("thread %d", s.reader).c_str()));
            s.writer = t;
            s.wblock = w->blockGen;
        }
    }
}

inline void check(uintptr_t a, size_t size, bool write, bool aligned, void* pc) {
    Worker* w = tlWorker;
    if (!w || !w->inKernel || w->aborted) return;
    w->pc = reinterpret_cast<uintptr_t>(pc);
    if (aligned && (a & (size - 1)) != 0)
        fault(w, fmt("misaligned %zu-byte %s at %#lx", size, write ? "write" : "read", (unsigned long)a));
    if (a - w->tlsLo < w->tlsSize) {
        sharedAccess(w, a, size, write);
        return;
    }
    if (a - reinterpret_cast<uintptr_t>(w->stacks) < stackSpan) return; // a thread's local memory
    const Alloc* al = w->lastAlloc;
    if (!al || a < al->lo || a >= al->hi) al = findAlloc(a);
    if (al) {
        w->lastAlloc = al;
        if (a + size > al->hi)
            fault(w, fmt("%s of %zu bytes at %#lx runs past the end of %s [%#lx, +%zu)", write ? "write" : "read", size, (unsigned long)a,
                         al->what.c_str(), (unsigned long)al->lo, (size_t)(al->hi - al->lo)));
        return;
    }
    if (!write)
        for (auto& s : moduleSegs)
            if (a >= s.first && a + size <= s.second) return; // the kernel module's own constants
    const Alloc* near = nullptr;
    for (auto& x : allocs)
        if (x.lo <= a) near = &x;
    if (near && a - near->hi < (1u << 20))
        fault(w, fmt("%s of %zu bytes at %#lx is %zu bytes past the end of %s [%#lx, +%zu)", write ? "write" : "read", size, (unsigned long)a,
                     (size_t)(a - near->hi), near->what.c_str(), (unsigned long)near->lo, (size_t)(near->hi - near->lo)));
    fault(w, fmt("%s of %zu bytes at %#lx outside every device allocation", write ? "write" : "read", size, (unsigned long)a));
}
} // namespace rt
} // namespace cudasim

using cudasim::rt::check;

// ThreadSanitizer's instrumentation entry points.
#define PC __builtin_return_address(0)
#define U(p) reinterpret_cast<uintptr_t>(p)
#define HOOKS(N)                                                                          \
    API void __tsan_read##N(void* p) { check(U(p), N, false, true, PC); }                 \
    API void __tsan_write##N(void* p) { check(U(p), N, true, true, PC); }                 \
    API void __tsan_unaligned_read##N(void* p) { check(U(p), N, false, false, PC); }      \
    API void __tsan_unaligned_write##N(void* p) { check(U(p), N, true, false, PC); }      \
    API void __tsan_volatile_read##N(void* p) { check(U(p), N, false, true, PC); }        \
    API void __tsan_volatile_write##N(void* p) { check(U(p), N, true, true, PC); }
HOOKS(1)
HOOKS(2)
HOOKS(4)
HOOKS(8)
HOOKS(16)
API void __tsan_read_range(void* p, unsigned long n) { check(U(p), n, false, false, PC); }
API void __tsan_write_range(void* p, unsigned long n) { check(U(p), n, true, false, PC); }
API void __tsan_init(void) {}
API void __tsan_func_entry(void*) {}
API void __tsan_func_exit(void) {}
API void __tsan_vptr_update(void**, void*) {}
API void __tsan_vptr_read(void**) {}
