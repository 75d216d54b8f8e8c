// Threads: each block runs on one OS thread of a pool as blockDim fibers that switch
// only at __syncthreads, __syncwarp and the shuffles (the device API at the end).
#include <link.h>
#include <sys/mman.h>
#include <unistd.h>

#include "runtime.h"

namespace cudasim {
namespace rt {

thread_local Worker* tlWorker = nullptr;
int nWorkers = 1;
size_t stackSpan = 0;
uintptr_t moduleBase = 0;
std::vector<std::pair<uintptr_t, uintptr_t>> moduleSegs;
Pool pool;

// ---- fibers -----------------------------------------------------------------------

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

} // namespace rt

// ---- device API called by kernel code ---------------------------------------------------

using namespace rt;

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

namespace rt {
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
} // namespace rt

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
