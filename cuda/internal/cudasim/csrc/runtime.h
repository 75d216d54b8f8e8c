// Internal declarations shared by the runtime's translation units (fibers.cc,
// memory.cc, api.cc); see api.cc for what the runtime is. Not seen by kernel code.
#pragma once
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

// cudasim_swap saves the callee-saved registers and stack pointer at *save and resumes
// the context whose stack pointer is to (fibers.cc); cudasim_fiber_start is where a new
// fiber's first switch lands.
extern "C" void cudasim_swap(void** save, void* to);
extern "C" void cudasim_fiber_start();

namespace cudasim {
namespace rt {

// Device memory: every allocation, sorted by address. Changed only between launches.
struct Alloc {
    uintptr_t lo, hi;
    std::string what;
};
extern std::mutex allocMu;
extern std::vector<Alloc> allocs;
const Alloc* findAlloc(uintptr_t a);

std::map<std::string, KernelInfo>& kernels();
std::vector<std::pair<std::string, void* (*)()>>& dynamicShared();

// A __shared__ variable: size bytes at off in the module's TLS block.
struct SharedVar {
    uintptr_t off, size;
    std::string name;
};
extern std::vector<SharedVar> sharedVars;

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

extern thread_local Worker* tlWorker; // the worker running on this OS thread
extern int nWorkers;
extern size_t stackSpan; // bytes of one worker's fiber stacks, guard pages included

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

extern uintptr_t moduleBase;
extern std::vector<std::pair<uintptr_t, uintptr_t>> moduleSegs; // the module's mapped code and data

struct Pool {
    std::mutex mu;
    std::condition_variable work, done;
    std::vector<Worker*> workers;
    Launch* job = nullptr;
    uint64_t jobID = 0;
    int active = 0;
};
extern Pool pool;
void ensureWorkers(int n);

std::string fmt(const char* f, ...) __attribute__((format(printf, 1, 2)));
std::string where(Worker* w);
void report(Worker* w, bool fatal, const char* kind, const std::string& msg);
[[noreturn]] void fault(Worker* w, const std::string& msg);

} // namespace rt
} // namespace cudasim
