// The host execution model behind cudasim.h: device memory, the launch of a grid, the
// threads of a block as fibers, barriers, warp shuffles, and the checks a GPU (or
// compute-sanitizer) would make. Compiled without instrumentation; the kernel
// translation units are compiled with -fsanitize=thread, whose __tsan_* calls land in
// the hooks at the end of this file.
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
#include <dlfcn.h>
#include <link.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "cudasim.h"

#define API extern "C" __attribute__((visibility("default")))

namespace cudasim {
namespace {

// ---- registries -----------------------------------------------------------------

std::map<std::string, KernelInfo>& kernels() {
    static std::map<std::string, KernelInfo> m;
    return m;
}
std::vector<std::pair<std::string, void* (*)()>>& dynamicShared() {
    static std::vector<std::pair<std::string, void* (*)()>> v;
    return v;
}

// Device memory: every allocation, sorted by address. Changed only between launches.
struct Alloc {
    uintptr_t lo, hi;
    std::string what;
};
std::mutex allocMu;
std::vector<Alloc> allocs;

const Alloc* findAlloc(uintptr_t a) {
    auto it = std::upper_bound(allocs.begin(), allocs.end(), a, [](uintptr_t x, const Alloc& al) { return x < al.lo; });
    if (it == allocs.begin()) return nullptr;
    --it;
    return a < it->hi ? &*it : nullptr;
}

// ---- fibers -----------------------------------------------------------------------

extern "C" void cudasim_swap(void** save, void* to);
extern "C" void cudasim_fiber_start();
#if defined(__x86_64__)
asm(R"(
	.text
	.globl cudasim_swap
	.hidden cudasim_swap
	.type cudasim_swap,@function
cudasim_swap:
	pushq %rbp
	pushq %rbx
	pushq %r12
	pushq %r13
	pushq %r14
	pushq %r15
	movq %rsp, (%rdi)
	movq %rsi, %rsp
	popq %r15
	popq %r14
	popq %r13
	popq %r12
	popq %rbx
	popq %rbp
	ret
	.size cudasim_swap, .-cudasim_swap
	.globl cudasim_fiber_start
	.hidden cudasim_fiber_start
	.type cudasim_fiber_start,@function
cudasim_fiber_start:
	movq %rbx, %rdi
	callq *%r12
	ud2
	.size cudasim_fiber_start, .-cudasim_fiber_start
)");
#else
#error "cudasim: fibers are implemented for x86-64 only"
#endif

enum State { kRunnable, kBarrier, kShuffle, kExited };

struct Fiber {
    void* sp;
    State state;
    const char* site; // where it waits
    unsigned tid;
    unsigned mask;    // shuffle / syncwarp mask
    int src, width, mode;
    uint64_t in, out; // shuffle payload
    bool warpSync;    // waiting in __syncwarp rather than a shuffle
};

struct Launch;

// Shadow of one 4-byte word of shared memory.
struct Shadow {
    uint32_t epoch;  // barrier interval the writer/reader fields belong to
    uint32_t wblock; // block generation of the last write (0: never)
    int16_t writer;  // thread that wrote in this interval, -1 none
    int16_t reader;  // thread that read in this interval, -1 none, -2 several
};

constexpr size_t kStack = 128 << 10;
constexpr int kMaxThreads = 1024;

struct Worker {
    std::thread th;
    // Fibers and their stacks (one mapping, a guard page below each stack).
    char* stacks = nullptr;
    std::vector<Fiber> fibers;
    void* schedSP = nullptr;
    Fiber* cur = nullptr;
    bool inKernel = false;
    bool aborted = false;
    // This OS thread's copy of the kernel module's thread_locals (= shared memory).
    uintptr_t tlsLo = 0, tlsSize = 0;
    std::vector<std::pair<uintptr_t, uintptr_t>> dyn; // dynamic shared arrays [lo, lo+cap)
    std::vector<Shadow> shadow;
    uint32_t epoch = 0, blockGen = 0;
    // The block being run.
    Launch* L = nullptr;
    uint3 block{};
    const Alloc* lastAlloc = nullptr;
    uintptr_t pc = 0; // the kernel instruction of the access being checked
};

thread_local Worker* tlWorker = nullptr;
int nWorkers = 1;
size_t stackSpan = 0; // bytes of one worker's fiber stacks, guard pages included

struct Launch {
    const KernelInfo* k;
    const uint64_t* args;
    unsigned gx, gy, bx;
    size_t smem;
    std::atomic<unsigned> next{0};
    std::atomic<bool> failed{false};
    std::mutex mu;
    std::vector<std::string> msgs;
    std::map<std::string, int> kinds; // reports per kind of defect
    int nmsgs = 0;
};

uintptr_t moduleBase = 0;
std::vector<std::pair<uintptr_t, uintptr_t>> moduleSegs; // the module's mapped code and data

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

void fiberMain(Fiber* f) {
    Worker* w = tlWorker;
    w->L->k->invoke(w->L->k->fn, w->L->args);
    f->state = kExited;
    cudasim_swap(&f->sp, w->schedSP);
    __builtin_trap();
}

void yield(Worker* w) { cudasim_swap(&w->cur->sp, w->schedSP); }

// ---- module TLS = shared memory ------------------------------------------------------

int findTLS(struct dl_phdr_info* info, size_t, void* data) {
    Worker* w = static_cast<Worker*>(data);
    uintptr_t self = reinterpret_cast<uintptr_t>(&findTLS);
    bool mine = false;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr)& p = info->dlpi_phdr[i];
        if (p.p_type == PT_LOAD && self >= info->dlpi_addr + p.p_vaddr && self < info->dlpi_addr + p.p_vaddr + p.p_memsz)
            mine = true;
    }
    if (!mine) return 0;
    moduleBase = info->dlpi_addr;
    moduleSegs.clear();
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr)& p = info->dlpi_phdr[i];
        if (p.p_type == PT_LOAD) moduleSegs.push_back({info->dlpi_addr + p.p_vaddr, info->dlpi_addr + p.p_vaddr + p.p_memsz});
        if (p.p_type == PT_TLS) {
            w->tlsLo = reinterpret_cast<uintptr_t>(info->dlpi_tls_data);
            w->tlsSize = p.p_memsz;
        }
    }
    return 1;
}

void initWorker(Worker* w) {
    tlWorker = w; // also makes glibc allocate this thread's TLS block of the module
    dl_iterate_phdr(findTLS, w);
    for (auto& d : dynamicShared()) {
        uintptr_t lo = reinterpret_cast<uintptr_t>(d.second());
        w->dyn.push_back({lo, lo + CUDASIM_DYNAMIC_SHARED_BYTES});
    }
    w->shadow.assign(w->tlsSize / 4 + 1, Shadow{0, 0, -1, -1});
    size_t page = sysconf(_SC_PAGESIZE);
    size_t per = kStack + page;
    w->stacks = static_cast<char*>(
        mmap(nullptr, per * kMaxThreads, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0));
    if (w->stacks == MAP_FAILED) {
        fprintf(stderr, "cudasim: cannot map fiber stacks\n");
        abort();
    }
    for (int i = 0; i < kMaxThreads; i++) mprotect(w->stacks + i * per, page, PROT_NONE);
    stackSpan = per * kMaxThreads;
    w->fibers.resize(kMaxThreads);
}

// ---- running a block ----------------------------------------------------------------

std::string waitState(Worker* w, unsigned n) {
    std::map<std::string, std::vector<unsigned>> by;
    for (unsigned i = 0; i < n; i++) {
        Fiber& f = w->fibers[i];
        std::string k = f.state == kExited ? "exited"
                        : f.state == kBarrier ? std::string("__syncthreads at ") + f.site
                        : f.state == kShuffle ? std::string(f.warpSync ? "__syncwarp at " : "shuffle at ") + f.site
                                              : "runnable";
        by[k].push_back(i);
    }
    std::string s;
    for (auto& kv : by) {
        s += fmt(" [%zu threads (first %u) %s]", kv.second.size(), kv.second[0], kv.first.c_str());
    }
    return s;
}

void runBlock(Worker* w, unsigned bx, unsigned by) {
    Launch* L = w->L;
    unsigned n = L->bx;
    w->block = uint3{bx, by, 0};
    w->blockGen++;
    w->epoch++;
    w->aborted = false;
    size_t page = sysconf(_SC_PAGESIZE);
    for (unsigned i = 0; i < n; i++) {
        Fiber& f = w->fibers[i];
        f = Fiber{};
        f.tid = i;
        f.state = kRunnable;
        uintptr_t top = reinterpret_cast<uintptr_t>(w->stacks + i * (kStack + page) + page + kStack) & ~uintptr_t(15);
        uint64_t* s = reinterpret_cast<uint64_t*>(top - 72);
        s[0] = s[1] = s[2] = 0;                              // r15 r14 r13
        s[3] = reinterpret_cast<uint64_t>(&fiberMain);       // r12: entry
        s[4] = reinterpret_cast<uint64_t>(&f);               // rbx: its argument
        s[5] = 0;                                            // rbp
        s[6] = reinterpret_cast<uint64_t>(&cudasim_fiber_start);
        f.sp = s;
    }
    w->inKernel = true;
    w->pc = 0;
    for (;;) {
        bool ran = false;
        for (unsigned i = 0; i < n && !w->aborted; i++) {
            Fiber& f = w->fibers[i];
            if (f.state != kRunnable) continue;
            ran = true;
            w->cur = &f;
            cudasim_swap(&w->schedSP, f.sp);
            w->cur = nullptr;
            w->pc = 0;
        }
        if (w->aborted) break;
        if (ran) continue;
        unsigned live = 0, atBarrier = 0;
        const char* site = nullptr;
        bool sameSite = true;
        for (unsigned i = 0; i < n; i++) {
            Fiber& f = w->fibers[i];
            if (f.state == kExited) continue;
            live++;
            if (f.state == kBarrier) {
                atBarrier++;
                if (site && strcmp(site, f.site) != 0) sameSite = false;
                site = f.site;
            }
        }
        if (live == 0) break;
        if (atBarrier == live) {
            if (!sameSite) report(w, false, "divergent barrier", where(w) + ": divergent __syncthreads:" + waitState(w, n));
            else if (live < n) report(w, false, "divergent barrier", where(w) + fmt(": __syncthreads at %s reached by %u of %u threads; the others exited", site, live, n));
            w->epoch++;
            for (unsigned i = 0; i < n; i++)
                if (w->fibers[i].state == kBarrier) w->fibers[i].state = kRunnable;
            continue;
        }
        report(w, true, "deadlock", where(w) + ": deadlock (warp-divergent shuffle or barrier):" + waitState(w, n));
        break;
    }
    w->inKernel = false;
}

// ---- the pool ---------------------------------------------------------------------------

struct Pool {
    std::mutex mu;
    std::condition_variable work, done;
    std::vector<Worker*> workers;
    Launch* job = nullptr;
    uint64_t jobID = 0;
    int active = 0;
};
Pool pool;

void workerLoop(Worker* w) {
    initWorker(w);
    uint64_t seen = 0;
    for (;;) {
        Launch* L;
        {
            std::unique_lock<std::mutex> g(pool.mu);
            pool.work.wait(g, [&] { return pool.jobID != seen; });
            seen = pool.jobID;
            L = pool.job;
        }
        w->L = L;
        unsigned total = L->gx * L->gy;
        for (unsigned b; !L->failed && (b = L->next++) < total;) runBlock(w, b % L->gx, b / L->gx);
        w->L = nullptr;
        std::lock_guard<std::mutex> g(pool.mu);
        if (--pool.active == 0) pool.done.notify_all();
    }
}

void ensureWorkers(int n) {
    while ((int)pool.workers.size() < n) {
        Worker* w = new Worker;
        pool.workers.push_back(w);
        w->th = std::thread(workerLoop, w);
        w->th.detach();
    }
}


// ---- memory checks ---------------------------------------------------------------------

// The module's __shared__ variables (its thread_locals but the runtime's own), by
// offset in the TLS block; from the library's symbol table, via cudasim_add_shared_var.
struct SharedVar {
    uintptr_t off, size;
    std::string name;
};
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

} // namespace

// ---- device API called by kernel code ---------------------------------------------------

void register_kernel(const KernelInfo& k) { kernels()[k.name] = k; }
void register_dynamic_shared(const char* name, void* (*addr)()) { dynamicShared().push_back({name, addr}); }

uint3 thread_idx() { return uint3{tlWorker->cur->tid, 0, 0}; }
uint3 block_idx() { return tlWorker->block; }
dim3 block_dim() { return dim3{tlWorker->L->bx, 1, 1}; }
dim3 grid_dim() { return dim3{tlWorker->L->gx, tlWorker->L->gy, 1}; }

void syncthreads(const char* site) {
    Worker* w = tlWorker;
    w->cur->state = kBarrier;
    w->cur->site = site;
    yield(w);
}

namespace {
// arrive registers the calling lane at a warp operation and, when it completes one,
// resolves it for every lane of the mask. It returns once the lane may go on.
void arrive(Worker* w, Fiber* f) {
    unsigned lane = f->tid & 31, warp0 = f->tid & ~31u;
    unsigned n = w->L->bx;
    if (!(f->mask >> lane & 1)) report(w, false, "shuffle mask", where(w) + fmt(": %s at %s by lane %u outside its own mask %#x", f->warpSync ? "__syncwarp" : "shuffle", f->site, lane, f->mask));
    f->state = kShuffle;
    for (unsigned l = 0; l < 32; l++) {
        if (!(f->mask >> l & 1)) continue;
        if (warp0 + l >= n) fault(w, fmt("shuffle at %s names lane %u, beyond the block's %u threads", f->site, l, n));
        Fiber& g = w->fibers[warp0 + l];
        if (g.state != kShuffle) {
            yield(w); // not all here yet; the last lane to arrive resolves the exchange
            return;
        }
    }
    for (unsigned l = 0; l < 32; l++) {
        if (!(f->mask >> l & 1)) continue;
        Fiber& g = w->fibers[warp0 + l];
        if (g.mask != f->mask || g.warpSync != f->warpSync || strcmp(g.site, f->site) != 0)
            report(w, false, "divergent shuffle", where(w) + fmt(": warp-divergent %s: lane %u at %s (mask %#x), lane %u at %s (mask %#x)",
                                            f->warpSync ? "__syncwarp" : "shuffle", lane, f->site, f->mask, l, g.site, g.mask));
        if (!f->warpSync) {
            int src;
            int seg = l & ~(g.width - 1);
            switch (g.mode) {
            case 0: src = seg + (g.src & (g.width - 1)); break;
            case 1: src = (int)l ^ g.src; if (src >= seg + g.width) src = l; break;
            case 2: src = (int)l - g.src; if (src < seg) src = l; break;
            default: src = (int)l + g.src; if (src >= seg + g.width) src = l; break;
            }
            if (!(f->mask >> src & 1))
                report(w, false, "shuffle mask", where(w) + fmt(": lane %u's shuffle at %s reads lane %d, which is not in the mask %#x", l, g.site, src, f->mask));
            g.out = w->fibers[warp0 + src].in;
        }
    }
    for (unsigned l = 0; l < 32; l++)
        if (f->mask >> l & 1) w->fibers[warp0 + l].state = kRunnable;
}
} // namespace

void syncwarp(unsigned mask, const char* site) {
    Worker* w = tlWorker;
    Fiber* f = w->cur;
    f->mask = mask;
    f->site = site;
    f->warpSync = true;
    arrive(w, f);
    f->warpSync = false;
}

uint64_t shfl(unsigned mask, uint64_t v, int src, int width, int mode, const char* site) {
    Worker* w = tlWorker;
    Fiber* f = w->cur;
    if (width <= 0 || width > 32 || (width & (width - 1)))
        fault(w, fmt("shuffle at %s with width %d (a power of two up to 32)", site, width));
    f->mask = mask;
    f->site = site;
    f->in = v;
    f->src = src;
    f->width = width;
    f->mode = mode;
    f->warpSync = false;
    arrive(w, f);
    return f->out;
}

} // namespace cudasim

// ---- the C API the Go side calls ----------------------------------------------------------

using namespace cudasim;

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

// ---- ThreadSanitizer's instrumentation entry points ------------------------------------------

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
