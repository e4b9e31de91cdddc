// Reduction on a CUDA device.
//
// The net lives in device memory in the layout of runtime/common/Term.h and
// every rule is performed by the shared templates of Interact.h through
// DeviceCtx. Redexes are reduced in rounds:
//
//   * The redex stack S holds the pending redexes, grouped by rule. A round
//     takes a window from its top (all of it unless room is short) and a fixed
//     grid (sized from the SM count and occupancy) walks the window
//     grid-stride. Because the window is grouped by rule, the 32 threads of a
//     warp nearly always run the same rule.
//   * New redexes go to a bag in the block's shared memory, flushed to the
//     round buffer T with one atomic per block when half full; pushes that do
//     not fit spill to T directly.
//   * A scatter kernel (counting sort with one bucket per rule) moves T back
//     onto S, grouped by rule again. Kernel boundaries are the grid-wide
//     barriers between rounds.
//   * While few redexes are pending (sequential phases), one block reduces
//     them in shared memory for many rounds in a single launch, separated by
//     __syncthreads, and hands back to the grid when the bag grows.
//
// Allocation: per-thread free lists and bump chunks (state kept in global
// memory by thread id across launches); each interaction reserves exactly the
// nodes it allocates. When the arena is used up, threads that starve defer
// their redex, the free nodes of every thread are gathered in a pool, and only
// a round that makes no progress even then is out of memory.
//
// Definitions larger than a thread's expansion scratch are expanded by a
// second pass with fewer threads and scratch the size of the largest
// definition, so there is no per-definition node limit.
#include "runtime/NetHost.h"
#include "runtime/Progress.h"
#include "runtime/Runtime.h"
#include "runtime/cuda/DeviceContext.cuh"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstring>
#include <memory>
#include <new>
#include <string>
#include <unordered_map>
#include <vector>

namespace bendc::rt {

namespace cuda_rt {
namespace {

constexpr unsigned BlockThreads = 256;
constexpr unsigned WarpSize = 32;
/// Rounds one block-local launch may run before the host looks again.
constexpr unsigned LocalRoundBudget = 1u << 16;

// ---------------------------------------------------------------------------
// Device code
// ---------------------------------------------------------------------------

/// Adds the thread's interaction counts to the global totals: a warp sum, then
/// one atomic per warp and rule. Every lane of the warp must call it.
__device__ void flushCounts(const DeviceCtx &c) {
  if (blockDim.x % WarpSize != 0) {
    // A partial warp (the big-call pass may launch fewer threads): no shuffles.
    unsigned long long total = 0;
#pragma unroll
    for (unsigned r = 0; r < RuleCount; ++r) {
      total += c.counts[r];
      if (c.counts[r] != 0)
        atomicAdd(&c.net.st->interactions[r], (unsigned long long)c.counts[r]);
    }
    if (total != 0)
      atomicAdd(&c.net.st->progress, total);
    return;
  }
  unsigned long long total = 0;
#pragma unroll
  for (unsigned r = 0; r < RuleCount; ++r) {
    unsigned long long v = c.counts[r];
    for (unsigned d = WarpSize / 2; d > 0; d /= 2)
      v += __shfl_down_sync(0xFFFFFFFFu, v, d);
    total += v;
    if ((threadIdx.x & (WarpSize - 1)) == 0 && v != 0)
      atomicAdd(&c.net.st->interactions[r], v);
  }
  if ((threadIdx.x & (WarpSize - 1)) == 0 && total != 0)
    atomicAdd(&c.net.st->progress, total);
}

/// Copies a block's bag to the round buffer. Called by every thread of the
/// block after a __syncthreads; returns after one.
__device__ void flushBag(const NetView &v, Redex *bag, unsigned *bagCount, unsigned bagCap,
                         unsigned long long *flushBase) {
  unsigned n = *bagCount < bagCap ? *bagCount : bagCap;
  if (threadIdx.x == 0)
    *flushBase = n ? atomicAdd(&v.st->outCount, (unsigned long long)n) : 0;
  __syncthreads();
  for (unsigned k = threadIdx.x; k < n; k += blockDim.x) {
    unsigned long long j = *flushBase + k;
    if (j < v.outCap)
      v.out[j] = bag[k];
    else
      atomicExch(&v.st->overflow, 1u);
  }
  __syncthreads();
  if (threadIdx.x == 0)
    *bagCount = 0;
  __syncthreads();
}

/// Expands @main into the root slot (HVM2 counts it as one call).
__global__ void bootKernel(NetView v, uint32_t mainId) {
  DeviceCtx c(v, 0, PushTarget{});
  c.store(RootSlot, subTerm());
  if (c.reserve(v.defs[mainId].nodeCount)) {
    c.count(Rule::Call);
    Term root = expand(c, mainId);
    move(c, RootSlot, root);
  }
  c.saveAlloc();
  for (unsigned r = 0; r < RuleCount; ++r)
    if (c.counts[r])
      atomicAdd(&v.st->interactions[r], (unsigned long long)c.counts[r]);
}

/// One round over the window in[lo, hi). With `bigPass` false it performs every
/// redex but the expansions of definitions larger than `smallLimit` nodes; with
/// `bigPass` true (launched with fewer threads and larger scratch) only those.
__global__ void __launch_bounds__(BlockThreads)
roundKernel(NetView v, const Redex *in, unsigned long long lo, unsigned long long hi, unsigned bagCap,
            uint32_t smallLimit, bool bigPass) {
  Redex *bag = dynamicShared<Redex>();
  __shared__ unsigned bagCount;
  __shared__ unsigned bagRules[RuleBuckets];
  __shared__ unsigned long long flushBase;
  if (threadIdx.x == 0)
    bagCount = 0;
  // Strided: the big-call pass may run blocks of fewer threads than buckets.
  for (unsigned r = threadIdx.x; r < RuleBuckets; r += blockDim.x)
    bagRules[r] = 0;
  __syncthreads();

  unsigned gtid = blockIdx.x * blockDim.x + threadIdx.x;
  DeviceCtx c(v, gtid, PushTarget{bag, &bagCount, bagCap, bagRules, true});
  unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
  // `base` is the same for every thread of a block, so each block runs the loop
  // the same number of times and may synchronise inside it.
  for (unsigned long long base = lo + (unsigned long long)blockIdx.x * blockDim.x; base < hi; base += stride) {
    unsigned long long i = base + threadIdx.x;
    if (i < hi) {
      Redex r = in[i];
      Rule rule = ruleFor(tagOf(r.neg), tagOf(r.pos));
      if (c.tooBig(rule, r.neg, r.pos, smallLimit) == bigPass) {
        if (c.reserve(c.need(rule, r.neg, r.pos)))
          interact(c, r.neg, r.pos, rule);
        else
          c.push(r.neg, r.pos); // deferred: no node to build with until memory is pooled
      }
    }
    __syncthreads();
    // Every thread reads the count before any pushes again in the next pass:
    // threads that disagreed would meet different barriers (flushBag's).
    bool flush = bagCount >= bagCap / 2;
    __syncthreads();
    if (flush)
      flushBag(v, bag, &bagCount, bagCap, &flushBase);
  }
  __syncthreads();
  flushBag(v, bag, &bagCount, bagCap, &flushBase);
  for (unsigned r = threadIdx.x; r < RuleBuckets; r += blockDim.x)
    if (bagRules[r] != 0)
      atomicAdd(&v.st->ruleCount[r], (unsigned long long)bagRules[r]);
  c.saveAlloc();
  flushCounts(c);
}

// The scatter kernel gives each of the first RuleBuckets threads a bucket.
static_assert(BlockThreads >= RuleBuckets);

struct RuleStarts {
  unsigned long long at[RuleBuckets];
};

/// Moves the round's pushes src[0, m) onto the redex stack, grouped by rule:
/// rule r's redexes go to [starts.at[r], starts.at[r] + ruleCount[r]).
__global__ void __launch_bounds__(BlockThreads)
scatterKernel(const Redex *src, unsigned long long m, Redex *dst, unsigned long long dstCap, RuleStarts starts,
              DeviceState *st) {
  __shared__ unsigned hist[RuleBuckets];
  __shared__ unsigned long long at[RuleBuckets];
  unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
  for (unsigned long long base = (unsigned long long)blockIdx.x * blockDim.x; base < m; base += stride) {
    if (threadIdx.x < RuleBuckets)
      hist[threadIdx.x] = 0;
    __syncthreads();
    unsigned long long i = base + threadIdx.x;
    Redex r{};
    unsigned rule = 0, rank = 0;
    if (i < m) {
      r = src[i];
      rule = unsigned(ruleFor(tagOf(r.neg), tagOf(r.pos)));
      rank = atomicAdd(&hist[rule], 1u);
    }
    __syncthreads();
    if (threadIdx.x < RuleBuckets && hist[threadIdx.x] != 0)
      at[threadIdx.x] = starts.at[threadIdx.x] +
                        atomicAdd(&st->cursor[threadIdx.x], (unsigned long long)hist[threadIdx.x]);
    __syncthreads();
    if (i < m) {
      unsigned long long j = at[rule] + rank;
      if (j < dstCap)
        dst[j] = r;
      else
        atomicExch(&st->overflow, 1u);
    }
    __syncthreads(); // `hist` and `at` are reused by the next tile
  }
}

/// Block-local reduction: S[0, n) is loaded into shared memory and reduced for
/// up to `budget` rounds, double-buffered, each round's window sized so its
/// pushes fit. Stops when the bag is empty, grows past `exitAbove`, or meets a
/// redex it cannot do here (a large definition, or no memory): then the
/// remaining redexes go back to S[0, localCount) for the grid.
__global__ void __launch_bounds__(BlockThreads)
localKernel(NetView v, Redex *S, unsigned long long n, unsigned cap, unsigned maxPush, unsigned exitAbove,
            unsigned budget) {
  Redex *bufs = dynamicShared<Redex>();
  __shared__ unsigned count[2];
  __shared__ unsigned stop;
  Redex *buf[2] = {bufs, bufs + cap};
  for (unsigned k = threadIdx.x; k < n; k += blockDim.x)
    buf[0][k] = S[k];
  if (threadIdx.x == 0) {
    count[0] = unsigned(n);
    count[1] = 0;
    stop = 0;
  }
  __syncthreads();

  DeviceCtx c(v, threadIdx.x, PushTarget{});
  unsigned cur = 0;
  for (unsigned round = 0; round < budget; ++round) {
    // Shared values read right after a barrier: every thread decides alike.
    unsigned ncur = count[cur];
    if (ncur == 0 || stop != 0 || ncur > exitAbove)
      break;
    unsigned take = maxPush > 1 ? (cap - ncur) / (maxPush - 1) : ncur;
    take = take < ncur ? take : ncur;
    if (take == 0) {
      if (threadIdx.x == 0)
        v.st->needGrid = 1;
      break;
    }
    Redex *in = buf[cur], *out = buf[cur ^ 1];
    unsigned carry = ncur - take;
    for (unsigned k = threadIdx.x; k < carry; k += blockDim.x)
      out[k] = in[take + k];
    if (threadIdx.x == 0)
      count[cur ^ 1] = carry;
    __syncthreads();
    c.target = PushTarget{out, &count[cur ^ 1], cap, nullptr, false};
    for (unsigned i = threadIdx.x; i < take; i += blockDim.x) {
      Redex r = in[i];
      Rule rule = ruleFor(tagOf(r.neg), tagOf(r.pos));
      if (!c.tooBig(rule, r.neg, r.pos, v.scratchStride) && c.reserve(c.need(rule, r.neg, r.pos))) {
        interact(c, r.neg, r.pos, rule);
      } else {
        c.push(r.neg, r.pos);
        atomicOr(&stop, 1u);
      }
    }
    __syncthreads();
    cur ^= 1;
  }
  // After an overflow (reported through st->overflow) the count runs past the
  // buffer; only what it holds is copied.
  unsigned left = count[cur] < cap ? count[cur] : cap;
  for (unsigned k = threadIdx.x; k < left; k += blockDim.x)
    S[k] = buf[cur][k];
  if (threadIdx.x == 0) {
    v.st->localCount = left;
    if (stop)
      v.st->needGrid = 1;
  }
  c.saveAlloc();
  flushCounts(c);
}

/// Gathers every thread's free nodes (free list and unused bump chunk) into
/// the pool, from which starving threads take what they need.
__global__ void rebalanceKernel(NetView v, unsigned threads) {
  unsigned gtid = blockIdx.x * blockDim.x + threadIdx.x;
  if (gtid >= threads)
    return;
  AllocState a = v.alloc[gtid];
  unsigned long long have = a.freeCount + (a.bumpEnd - a.bump);
  if (have == 0)
    return;
  unsigned long long k = atomicAdd(&v.st->poolCount, have);
  while (a.bump < a.bumpEnd && k < v.poolCap)
    v.pool[k++] = a.bump++;
  while (a.freeHead != 0 && k < v.poolCap) {
    v.pool[k++] = a.freeHead;
    a.freeHead =
        NodeStock::next(SlotRef(v.slots[slotOf(a.freeHead, 0)]).load(cuda::std::memory_order_relaxed));
    --a.freeCount;
  }
  v.alloc[gtid] = a;
}

// ---------------------------------------------------------------------------
// Host code
// ---------------------------------------------------------------------------

std::string mib(uint64_t bytes) { return std::to_string((bytes + (1u << 20) - 1) >> 20) + " MiB"; }

/// Device allocations, freed on every path out of runCuda.
class DeviceBuffers {
public:
  ~DeviceBuffers() {
    for (void *p : owned)
      cudaFree(p);
  }
  template <class T> cudaError_t alloc(T *&ptr, size_t count) {
    void *p = nullptr;
    cudaError_t e = cudaMalloc(&p, std::max<size_t>(count, 1) * sizeof(T));
    if (e != cudaSuccess) {
      cudaGetLastError(); // a failed allocation is not sticky; clear it
      return e;
    }
    owned.push_back(p);
    ptr = static_cast<T *>(p);
    return cudaSuccess;
  }

private:
  std::vector<void *> owned;
};

/// How device memory is divided, decided before anything is allocated.
struct Plan {
  unsigned blocks = 0, threads = 0;     // the round grid
  unsigned bagCap = 0;                  // shared-memory bag of a round block (redexes)
  size_t roundSmem = 0;
  unsigned localCap = 0;                // each of the two shared buffers of the local kernel
  size_t localSmem = 0;
  bool useLocal = false;
  unsigned localEnter = 0, localExit = 0;
  uint32_t smallStride = 0;             // scratch Locs per thread in the main kernels
  uint32_t bigStride = 0;               // scratch Locs per thread of the big-call pass
  unsigned bigBlocks = 0, bigThreads = 0, bigBlockThreads = 0;
  bool hasBig = false;
  uint64_t scratchLocs = 0;
  Loc nodes = 0;
  uint64_t redexCap = 0;                // each of S and T
  uint64_t poolCap = 0;
  Loc chunkNodes = 0;
  uint64_t maxPush = 4;
};

class HostCtx;

struct Runner {
  const Book &book;
  const RunOptions &options;
  RunResult result;
  cudaDeviceProp prop{};
  int device = 0;

  // Decided and allocated by run() before the reduction starts.
  Plan p;
  DeviceBuffers mem;
  NetView v{}, vSmall{}, vBig{};
  Redex *dS = nullptr, *dT = nullptr; // the redex stack S and the round buffer T
  size_t freeBytes = 0;
  uint64_t usable = 0, scratchBytes = 0;
  double perNode = 0;

  // The reduction's state: the last copy of DeviceState, the redexes on S at
  // [0, pending), and why it stopped when it did not finish.
  DeviceState hs{};
  uint64_t pending = 0;
  bool outOfMemory = false, interrupted = false;
  std::string internal;
  cudaError_t error = cudaSuccess;
  const char *errorWhat = "";
  // For the progress line, which samples from its own thread.
  std::atomic<uint64_t> publishedInteractions{0}, publishedNodes{0};

  Runner(const Book &b, const RunOptions &o) : book(b), options(o) {}

  RunResult fail(RunStatus status, std::string message) {
    result.status = status;
    result.message = std::move(message);
    result.normalForm = {};
    return result;
  }
  RunResult deviceError(const char *what, cudaError_t e) {
    return fail(RunStatus::DeviceError, std::string("CUDA error while ") + what + ": " + cudaGetErrorName(e) +
                                            " (" + cudaGetErrorString(e) + ") on " + prop.name +
                                            "; rerun with --backend=cpu to reduce on the CPU");
  }
  bool failed(const char *what, cudaError_t e) {
    error = e;
    errorWhat = what;
    return false;
  }
  bool stopped() const {
    return error != cudaSuccess || outOfMemory || interrupted || !internal.empty() || hs.fault != 0 ||
           hs.overflow != 0;
  }

  RunResult run(bool required);
  cudaError_t readState();
  cudaError_t clearRound() { return cudaMemset(v.st, 0, offsetof(DeviceState, nextNode)); }
  cudaError_t scatter(unsigned long long base);
  /// Expands @main into the root; false when the run stopped.
  bool boot();
  /// Reduces the redexes on S until none is left; false when the run stopped.
  bool reduce();
  /// Hands the host's redexes to the device and reduces them (the IO protocol).
  bool reduceFromHost(HostCtx &host);
};

/// The Ctx of Interact.h on the host between reductions, for the IO protocol:
/// net memory read and written through copies (the device is idle then),
/// nodes from a chunk of the arena of the host's own, and counts and pushes
/// kept here until the next reduction takes them. The host links and expands
/// but performs no rule, so it needs no `fault`.
class HostCtx {
public:
  const Term *bookSlots;
  const Term *bookRedexes;
  const DefInfo *defs;
  const rt::Plan *plans;
  Loc *scratch;
  uint64_t counts[RuleCount] = {};
  std::vector<Redex> pushed;
  bool failed = false; // a copy failed or memory ran out; the runner says which

  HostCtx(Runner &runner, Loc *scratchLocs)
      : bookSlots(runner.book.slots.data()), bookRedexes(runner.book.redexes.data()),
        defs(runner.book.defs.data()), plans(runner.book.plans.data()), scratch(scratchLocs), r(runner) {}

  Term load(Loc slot) {
    Term t = 0;
    copyIn(&t, r.v.slots + slot, sizeof t);
    return t;
  }
  void store(Loc slot, Term t) { copyOut(r.v.slots + slot, &t, sizeof t); }
  Term exchange(Loc slot, Term t) {
    Term old = load(slot);
    store(slot, t);
    return old;
  }
  uint32_t addDead(Loc node, uint32_t n) {
    uint32_t word = 0;
    copyIn(&word, r.v.dead + (node >> 2), sizeof word);
    unsigned shift = unsigned(node & 3) * 8;
    uint32_t old = (word >> shift) & 0xFF;
    word += n << shift;
    copyOut(r.v.dead + (node >> 2), &word, sizeof word);
    return old;
  }
  void clearDead(Loc node) {
    uint32_t word = 0;
    copyIn(&word, r.v.dead + (node >> 2), sizeof word);
    word &= ~(0xFFu << (unsigned(node & 3) * 8));
    copyOut(r.v.dead + (node >> 2), &word, sizeof word);
  }
  Loc alloc() { return nodes.take(*this); }
  void release(Loc node) { nodes.give(*this, node); }
  void push(Term neg, Term pos) { pushed.push_back(Redex{neg, pos}); }
  bool deferCall(Term, Term) { return false; }
  void count(Rule rule) { ++counts[unsigned(rule)]; }
  void fault(Fault f, Term, Term) {
    unsigned code = unsigned(f);
    copyOut(&r.v.st->fault, &code, sizeof code);
  }

  /// Makes sure `n` nodes can be allocated: the host's free list and chunk,
  /// then a new chunk from the device's bump allocator.
  bool reserve(uint64_t n) {
    if (failed)
      return false;
    if (nodes.available() >= n)
      return true;
    nodes.retireRange(*this);
    unsigned long long next = 0;
    copyIn(&next, &r.v.st->nextNode, sizeof next);
    Loc want = std::max<Loc>(n, 1024);
    if (next + want > r.p.nodes)
      want = next < r.p.nodes ? r.p.nodes - next : 0;
    if (want != 0) {
      nodes.bump = next;
      nodes.bumpEnd = next + want;
      next += want;
      copyOut(&r.v.st->nextNode, &next, sizeof next);
    }
    if (!failed && nodes.available() >= n)
      return true;
    if (!failed)
      r.outOfMemory = true;
    failed = true;
    return false;
  }

private:
  void copyIn(void *dst, const void *src, size_t bytes) {
    cudaError_t e = failed ? cudaSuccess : cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToHost);
    if (failed || e != cudaSuccess) {
      std::memset(dst, 0, bytes);
      if (!failed)
        r.failed("reading the net for an IO call", e);
      failed = true;
    }
  }
  void copyOut(void *dst, const void *src, size_t bytes) {
    if (failed)
      return;
    if (cudaError_t e = cudaMemcpy(dst, src, bytes, cudaMemcpyHostToDevice); e != cudaSuccess) {
      r.failed("writing the net for an IO call", e);
      failed = true;
    }
  }

  Runner &r;
  NodeStock nodes;
};

/// The device's net as the IO protocol sees it between reductions.
class DeviceNet final : public CtxNetHost<HostCtx> {
public:
  DeviceNet(Runner &runner, HostCtx &host) : CtxNetHost(runner.book, host), r(runner) {}

  bool reserve(uint64_t n) override { return !r.stopped() && ctx.reserve(n); }
  bool reduce() override { return r.reduceFromHost(ctx); }

private:
  Runner &r;
};

/// The device's slots as readback reads them: each page of slots is copied
/// to the host the first time the reading reaches it.
class DevicePages {
public:
  /// Slots per page: 64 KiB, one copy of a few microseconds.
  static constexpr uint64_t PageSlots = 8192;

  DevicePages(const Term *deviceSlots, uint64_t slotCount) : device(deviceSlots), count(slotCount) {}

  static Term fetch(void *self, Loc slot) { return static_cast<DevicePages *>(self)->at(slot); }

  cudaError_t error = cudaSuccess;
  bool outOfMemory = false;

private:
  Term at(Loc slot) {
    // Only slots of nodes handed out can be reached; anything else reads as
    // empty, which readback reports as a broken net.
    if (slot >= count || error != cudaSuccess || outOfMemory)
      return 0;
    uint64_t index = slot / PageSlots;
    std::unique_ptr<Term[]> &page = pages[index];
    if (!page) {
      uint64_t first = index * PageSlots, n = std::min(PageSlots, count - first);
      page.reset(new (std::nothrow) Term[n]);
      if (!page) {
        outOfMemory = true;
        return 0;
      }
      if ((error = cudaMemcpy(page.get(), device + first, n * sizeof(Term), cudaMemcpyDeviceToHost)) != cudaSuccess)
        return 0;
    }
    return page[slot % PageSlots];
  }

  const Term *device;
  uint64_t count;
  std::unordered_map<uint64_t, std::unique_ptr<Term[]>> pages;
};

RunResult Runner::run(bool required) {
  // --- the device -----------------------------------------------------------
  int devices = 0;
  cudaError_t e = cudaGetDeviceCount(&devices);
  if (e != cudaSuccess || devices == 0) {
    std::string why = e == cudaErrorInsufficientDriver
                          ? "no NVIDIA driver is loaded, or it is older than this CUDA runtime needs"
                      : e != cudaSuccess ? std::string(cudaGetErrorString(e))
                                         : "no device found";
    cudaGetLastError();
    return fail(RunStatus::NoDevice, "no usable CUDA device (" + why +
                                         "); use --backend=cpu, or --backend=auto to fall back to the CPU");
  }
  // An execution error (an illegal address, a failed launch) is sticky: the
  // context stays broken for the rest of the process and every call returns
  // it. Such an error comes back twice in a row, where any other error is
  // cleared by the first call; then the device is as good as absent, and
  // --backend=auto falls back to the CPU instead of failing again.
  e = cudaGetLastError();
  if (e != cudaSuccess && cudaGetLastError() == e)
    return fail(RunStatus::NoDevice, std::string("the CUDA device failed earlier in this process (") +
                                         cudaGetErrorName(e) + ": " + cudaGetErrorString(e) +
                                         ") and cannot be used again until bendc restarts; use --backend=cpu");
  if ((e = cudaGetDevice(&device)) != cudaSuccess || (e = cudaGetDeviceProperties(&prop, device)) != cudaSuccess) {
    cudaGetLastError();
    return fail(RunStatus::NoDevice, std::string("no usable CUDA device (") + cudaGetErrorString(e) +
                                         "); use --backend=cpu");
  }
  if (prop.major * 10 + prop.minor < 75) {
    return fail(RunStatus::NoDevice, std::string("the CUDA device ") + prop.name + " has compute capability " +
                                         std::to_string(prop.major) + "." + std::to_string(prop.minor) +
                                         "; this bendc supports 7.5 and newer; use --backend=cpu");
  }
  (void)required; // both callers get the same status; only the driver decides what to print
  if ((e = cudaSetDevice(device)) != cudaSuccess)
    return deviceError("selecting the device", e);
  // Before the memory is measured: the driver takes the threads' stacks from it.
  size_t stackBytes = 0;
  if ((e = cudaDeviceGetLimit(&stackBytes, cudaLimitStackSize)) != cudaSuccess)
    return deviceError("reading the threads' stack size", e);
  if (stackBytes < DeviceStackBytes && (e = cudaDeviceSetLimit(cudaLimitStackSize, DeviceStackBytes)) != cudaSuccess)
    return deviceError("giving each thread its stack", e);

  // --- the plan -------------------------------------------------------------
  // maxPush bounds the redexes one interaction pushes: a commutation's 4, or
  // a call's (its redexes and those of the levels a fused expansion annihilates).
  uint32_t maxDefNodes = 0, largestDef = 0;
  p.maxPush = 4;
  for (uint32_t id = 0; id < book.defs.size(); ++id) {
    const DefInfo &d = book.defs[id];
    if (d.nodeCount > maxDefNodes) {
      maxDefNodes = d.nodeCount;
      largestDef = id;
    }
    p.maxPush = std::max(p.maxPush, maxCallPushes(d, book.slots.data()));
  }

  // Shared memory: the round kernel's bag takes its block's share of the SM at
  // the occupancy registers allow (never more than the default per-block
  // limit, so no opt-in is needed); the local kernel may opt in to the whole
  // per-block maximum the device offers.
  size_t staticSmem = 256; // the kernels' own __shared__ variables, rounded up
  unsigned minBag = 2 * BlockThreads;
  int occupancy = 0;
  if ((e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occupancy, roundKernel, BlockThreads,
                                                         minBag * sizeof(Redex))) != cudaSuccess)
    return deviceError("sizing the grid", e);
  occupancy = std::max(occupancy, 1);
  size_t perBlock = std::min<size_t>(prop.sharedMemPerBlock, prop.sharedMemPerMultiprocessor / unsigned(occupancy));
  size_t overhead = staticSmem + prop.reservedSharedMemPerBlock;
  perBlock = perBlock > overhead ? perBlock - overhead : 0;
  p.bagCap = std::max<unsigned>(minBag, unsigned(std::min<size_t>(perBlock / sizeof(Redex), 8 * BlockThreads)));
  p.roundSmem = size_t(p.bagCap) * sizeof(Redex);
  int finalOccupancy = 0;
  if ((e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&finalOccupancy, roundKernel, BlockThreads, p.roundSmem)) !=
      cudaSuccess)
    return deviceError("sizing the grid", e);
  p.blocks = unsigned(std::max(finalOccupancy, 1)) * unsigned(prop.multiProcessorCount);
  p.threads = p.blocks * BlockThreads;

  size_t localBytes = prop.sharedMemPerBlockOptin > staticSmem ? prop.sharedMemPerBlockOptin - staticSmem : 0;
  p.localCap = unsigned(std::min<size_t>(localBytes / (2 * sizeof(Redex)), 1u << 16));
  p.localSmem = size_t(p.localCap) * 2 * sizeof(Redex);
  p.localExit = std::min<unsigned>(4 * BlockThreads, p.localCap / 2);
  p.localEnter = std::min<unsigned>(BlockThreads, p.localExit);
  // The local kernel pays only if a round's pushes fit next to its input.
  p.useLocal = p.localCap >= 2 * p.maxPush + p.localExit && p.localEnter > 0;

  // Memory: --mem (default: most of the free device memory) covers the net:
  // slots and dead counters, the two redex buffers, the free pool and the
  // expansion scratch. Per-thread allocator state is on top of it.
  size_t totalBytes = 0;
  if ((e = cudaMemGetInfo(&freeBytes, &totalBytes)) != cudaSuccess)
    return deviceError("querying device memory", e);
  uint64_t margin = std::min<uint64_t>(uint64_t(512) << 20, freeBytes / 8); // CUDA context, kernels, readback staging
  usable = freeBytes > margin ? freeBytes - margin : 0;
  uint64_t budget = options.memBytes ? std::min<uint64_t>(options.memBytes, usable) : usable / 10 * 9;

  // Expansion scratch: a sixteenth of the budget, or the largest definition per thread.
  uint64_t scratchBudget = budget / 16;
  p.smallStride = uint32_t(std::min<uint64_t>(maxDefNodes, scratchBudget / (uint64_t(p.threads) * sizeof(Loc))));
  p.hasBig = maxDefNodes > p.smallStride;
  p.bigStride = std::max<uint32_t>(maxDefNodes, 1);
  uint64_t bigFit = std::max<uint64_t>(1, scratchBudget / (uint64_t(p.bigStride) * sizeof(Loc)));
  p.bigThreads = unsigned(std::min<uint64_t>({bigFit, uint64_t(p.threads), uint64_t(1) << 20}));
  if (p.bigThreads >= BlockThreads)
    p.bigThreads -= p.bigThreads % BlockThreads;
  // Whole blocks of BlockThreads, or one smaller block: every launched thread has its scratch.
  p.bigBlockThreads = std::min(p.bigThreads, BlockThreads);
  p.bigBlocks = p.bigThreads / p.bigBlockThreads;
  p.scratchLocs = std::max<uint64_t>(uint64_t(p.threads) * p.smallStride, uint64_t(p.bigStride) * p.bigThreads);

  // Per node: two slots, one dead-counter byte, a quarter redex in each of the
  // two redex buffers, and a sixteenth of a pool entry.
  scratchBytes = p.scratchLocs * sizeof(Loc);
  uint64_t netBytes = budget > scratchBytes ? budget - scratchBytes : 0;
  perNode = 2 * sizeof(Term) + 1 + 2 * sizeof(Redex) / 4.0 + sizeof(Loc) / 16.0;
  p.nodes = Loc(double(netBytes) / perNode);
  Loc minNodes = Loc(FirstNode) + maxDefNodes + 64;
  if (p.nodes < minNodes)
    p.nodes = minNodes;
  // The net must hold one copy of the largest definition, and one thread's
  // scratch must index it; a device too small for that cannot run the book
  // whatever --mem says.
  uint64_t leastBytes = uint64_t(double(minNodes) * perNode) + uint64_t(maxDefNodes) * sizeof(Loc);
  if (leastBytes > usable && book.defs.size() > largestDef)
    return fail(RunStatus::OutOfMemory,
                "out of memory: the definition @" + book.names[largestDef] + " has " + std::to_string(maxDefNodes) +
                    " nodes, and expanding it once takes " + mib(leastBytes) + " of device memory; " + prop.name +
                    " has about " + mib(usable) + " free; use --backend=cpu");
  p.nodes = (p.nodes + 3) & ~Loc(3); // whole dead-counter words
  // The local kernel hands back up to localCap redexes at once.
  p.redexCap = std::max<uint64_t>({p.nodes / 4, 4 * p.maxPush + 1024, uint64_t(p.localCap)});
  p.poolCap = std::max<uint64_t>(p.nodes / 16, uint64_t(maxDefNodes) + 64);
  p.chunkNodes = std::clamp<Loc>(p.nodes / (uint64_t(p.threads) * 8), 8, 4096);

  if (p.useLocal && p.localSmem > 48 * 1024) {
    if ((e = cudaFuncSetAttribute(localKernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(p.localSmem))) !=
        cudaSuccess) {
      cudaGetLastError();
      p.useLocal = false; // the grid alone still reduces everything
    }
  }

  // --- allocation -----------------------------------------------------------
  Term *dBookSlots = nullptr, *dBookRedexes = nullptr;
  DefInfo *dDefs = nullptr;
  rt::Plan *dPlans = nullptr;
  auto oom = [&](const char *what, uint64_t bytes) {
    return fail(RunStatus::OutOfMemory,
                std::string("out of memory: could not allocate ") + mib(bytes) + " of device memory for " + what +
                    " on " + prop.name + " (" + mib(freeBytes) +
                    " free); lower --mem (e.g. --mem 1G) or use --backend=cpu");
  };
  if (mem.alloc(v.slots, 2 * p.nodes) != cudaSuccess)
    return oom("the net", 2 * p.nodes * sizeof(Term));
  if (mem.alloc(v.dead, p.nodes / 4) != cudaSuccess)
    return oom("the net", p.nodes);
  if (mem.alloc(dS, p.redexCap) != cudaSuccess || mem.alloc(dT, p.redexCap) != cudaSuccess)
    return oom("the redex buffers", 2 * p.redexCap * sizeof(Redex));
  if (mem.alloc(v.pool, p.poolCap) != cudaSuccess)
    return oom("the free-node pool", p.poolCap * sizeof(Loc));
  if (mem.alloc(v.scratch, p.scratchLocs) != cudaSuccess)
    return oom("expansion scratch", p.scratchLocs * sizeof(Loc));
  if (mem.alloc(v.alloc, p.threads) != cudaSuccess)
    return oom("allocator state", uint64_t(p.threads) * sizeof(AllocState));
  if (mem.alloc(v.st, 1) != cudaSuccess || mem.alloc(dBookSlots, book.slots.size()) != cudaSuccess ||
      mem.alloc(dBookRedexes, book.redexes.size()) != cudaSuccess ||
      mem.alloc(dDefs, book.defs.size()) != cudaSuccess ||
      (!book.plans.empty() && mem.alloc(dPlans, book.plans.size()) != cudaSuccess))
    return oom("the book", (book.slots.size() + book.redexes.size()) * sizeof(Term));

  auto upload = [&](void *dst, const void *src, size_t bytes) -> cudaError_t {
    return bytes ? cudaMemcpy(dst, src, bytes, cudaMemcpyHostToDevice) : cudaSuccess;
  };
  if ((e = upload(dBookSlots, book.slots.data(), book.slots.size() * sizeof(Term))) != cudaSuccess ||
      (e = upload(dBookRedexes, book.redexes.data(), book.redexes.size() * sizeof(Term))) != cudaSuccess ||
      (e = upload(dDefs, book.defs.data(), book.defs.size() * sizeof(DefInfo))) != cudaSuccess ||
      (e = upload(dPlans, book.plans.data(), book.plans.size() * sizeof(rt::Plan))) != cudaSuccess)
    return deviceError("copying the book to the device", e);
  hs = DeviceState{};
  hs.nextNode = FirstNode;
  if ((e = cudaMemcpy(v.st, &hs, sizeof hs, cudaMemcpyHostToDevice)) != cudaSuccess ||
      (e = cudaMemset(v.dead, 0, p.nodes)) != cudaSuccess ||
      (e = cudaMemset(v.alloc, 0, size_t(p.threads) * sizeof(AllocState))) != cudaSuccess ||
      (e = cudaDeviceSynchronize()) != cudaSuccess)
    return deviceError("preparing device memory", e);

  v.nodeCap = p.nodes;
  v.bookSlots = dBookSlots;
  v.bookRedexes = dBookRedexes;
  v.defs = dDefs;
  v.plans = dPlans;
  v.poolCap = p.poolCap;
  v.out = dT;
  v.outCap = p.redexCap;
  v.chunkNodes = p.chunkNodes;
  vSmall = v;
  vBig = v;
  vSmall.scratchStride = p.smallStride;
  vBig.scratchStride = p.bigStride;

  // --- reduction --------------------------------------------------------------
  std::unique_ptr<ProgressLine> progress;
  if (options.progress)
    progress = std::make_unique<ProgressLine>(options.streams.err, [this] {
      ProgressSample sample;
      sample.interactions = publishedInteractions.load(std::memory_order_relaxed);
      sample.bytesInUse = uint64_t(double(publishedNodes.load(std::memory_order_relaxed)) * perNode);
      return sample;
    });
  IoConfig streams = options.streams;
  streams.progress = progress.get();
  streams.cancel = options.cancel;
  IoSession io(streams);
  std::vector<Loc> hostScratch(std::max<uint32_t>(maxDefNodes, 1));
  HostCtx host(*this, hostScratch.data());

  auto start = std::chrono::steady_clock::now();
  if (boot() && reduce() && options.io) {
    DeviceNet net(*this, host);
    io.run(net, RootSlot);
  }
  io.flushOutput();
  progress.reset();
  if (error != cudaSuccess)
    return deviceError(errorWhat, error);
  if ((e = cudaDeviceSynchronize()) != cudaSuccess || (e = readState()) != cudaSuccess)
    return deviceError("finishing the reduction", e);
  auto stop = std::chrono::steady_clock::now();

  // --- results ----------------------------------------------------------------
  RunStats &stats = result.stats;
  stats.seconds = std::chrono::duration<double>(stop - start).count();
  stats.threads = p.threads;
  stats.backend = std::string("cuda (") + prop.name + ")";
  stats.peakNodes = std::min<uint64_t>(hs.nextNode, p.nodes);
  stats.ioCalls = io.calls();
  for (unsigned r = 0; r < RuleCount; ++r) {
    stats.byRule[r] = hs.interactions[r] + host.counts[r];
    stats.interactions += stats.byRule[r];
  }

  if (interrupted)
    return fail(RunStatus::Interrupted, "interrupted");
  if (hs.fault != 0)
    return fail(RunStatus::Fault, Fault(hs.fault) == Fault::NoMemory
                                      ? "out of memory while joining two values; raise the limit with --mem"
                                      : "internal error: a redex joined two terms of the same polarity; "
                                        "please report this with the program");
  if (hs.overflow != 0 || !internal.empty())
    return fail(RunStatus::DeviceError,
                "internal error in the CUDA runtime (" +
                    (internal.empty() ? std::string("a redex buffer overflowed") : internal) +
                    "); rerun with --backend=cpu and report this");
  if (outOfMemory) {
    uint64_t used = uint64_t(p.nodes) * uint64_t(perNode) + scratchBytes;
    return fail(RunStatus::OutOfMemory,
                "out of memory: the net needed more than " + std::to_string(p.nodes) + " nodes and " +
                    std::to_string(p.redexCap) + " pending redexes (" + mib(used) + " of device memory on " +
                    prop.name + "); raise the limit with --mem (at most about " + mib(usable) +
                    " are free on this device) or use --backend=cpu");
  }

  // Readback fetches the pages of slots the reading reaches, not the whole
  // net: a result is usually small, and the net many gigabytes.
  DevicePages pages(v.slots, 2 * std::max<uint64_t>(stats.peakNodes, FirstNode));
  result.status = RunStatus::Ok;
  takeNormalForm(result, SlotReader(&DevicePages::fetch, &pages), book, options);
  if (pages.error != cudaSuccess)
    return deviceError("copying the result back", pages.error);
  if (pages.outOfMemory)
    return fail(RunStatus::OutOfMemory, "out of memory: the result is larger than the host memory left to read it back");
  return result;
}

cudaError_t Runner::readState() {
  cudaError_t err = cudaGetLastError();
  if (err != cudaSuccess)
    return err;
  err = cudaMemcpy(&hs, v.st, sizeof hs, cudaMemcpyDeviceToHost);
  uint64_t total = 0;
  for (unsigned r = 0; r < RuleCount; ++r)
    total += hs.interactions[r];
  publishedInteractions.store(total, std::memory_order_relaxed);
  publishedNodes.store(std::min<uint64_t>(hs.nextNode, p.nodes), std::memory_order_relaxed);
  return err;
}

cudaError_t Runner::scatter(unsigned long long base) {
  if (hs.outCount == 0)
    return cudaSuccess;
  RuleStarts starts{};
  unsigned long long at = base;
  for (unsigned r = 0; r < RuleBuckets; ++r) {
    starts.at[r] = at;
    at += hs.ruleCount[r];
  }
  unsigned blocks = unsigned(std::min<uint64_t>(p.blocks, (hs.outCount + BlockThreads - 1) / BlockThreads));
  return launch(scatterKernel, blocks, BlockThreads, 0, dT, hs.outCount, dS, p.redexCap, starts, v.st);
}

bool Runner::boot() {
  cudaError_t e;
  if ((e = clearRound()) != cudaSuccess)
    return failed("starting the reduction", e);
  if ((e = launch(bootKernel, 1, 1, 0, vBig, book.mainId)) != cudaSuccess || (e = readState()) != cudaSuccess)
    return failed("expanding @main", e);
  if (hs.starved != 0) {
    outOfMemory = true;
    return false;
  }
  if (hs.outCount > p.redexCap) {
    hs.overflow = 1;
    return false;
  }
  if ((e = scatter(0)) != cudaSuccess)
    return failed("launching a kernel", e);
  pending = hs.outCount;
  return !stopped();
}

bool Runner::reduce() {
  cudaError_t e;
  bool forceGrid = false, pooled = false;
  while (pending != 0 && !stopped()) {
    if (options.cancel && options.cancel->load(std::memory_order_relaxed)) {
      interrupted = true;
      break;
    }
    if ((e = clearRound()) != cudaSuccess)
      return failed("starting a round", e);
    if (p.useLocal && !forceGrid && pending <= p.localEnter) {
      if ((e = launch(localKernel, 1, BlockThreads, p.localSmem, vSmall, dS, pending, p.localCap,
                      unsigned(p.maxPush), p.localExit, LocalRoundBudget)) != cudaSuccess ||
          (e = readState()) != cudaSuccess)
        return failed("reducing in a block", e);
      pending = hs.localCount;
      forceGrid = hs.needGrid != 0;
    } else {
      forceGrid = false;
      // Window: the top `take` redexes, so that leftovers plus pushes fit.
      uint64_t room = p.redexCap - pending;
      uint64_t take = std::min<uint64_t>(pending, room / (p.maxPush - 1));
      if (take == 0) {
        outOfMemory = true;
        break;
      }
      uint64_t lo = pending - take;
      unsigned blocks = unsigned(std::min<uint64_t>(p.blocks, (take + BlockThreads - 1) / BlockThreads));
      if ((e = launch(roundKernel, blocks, BlockThreads, p.roundSmem, vSmall, dS, lo, pending, p.bagCap,
                      p.smallStride, false)) != cudaSuccess)
        return failed("launching a round", e);
      if (p.hasBig && (e = launch(roundKernel, p.bigBlocks, p.bigBlockThreads, p.roundSmem, vBig, dS, lo, pending,
                                  p.bagCap, p.smallStride, true)) != cudaSuccess)
        return failed("launching a round", e);
      if ((e = readState()) != cudaSuccess)
        return failed("reducing a round", e);
      if (hs.overflow)
        break;
      if ((e = scatter(lo)) != cudaSuccess)
        return failed("launching a kernel", e);
      pending = lo + hs.outCount;
    }
    if (hs.starved) {
      // Gather every free node where starving threads can take it; a round that
      // cannot progress even with all of them means the net does not fit.
      if (hs.progress == 0 && pooled) {
        outOfMemory = true;
        break;
      }
      unsigned long long zero[2] = {0, 0};
      if ((e = cudaMemcpy(&v.st->poolCount, zero, sizeof zero, cudaMemcpyHostToDevice)) != cudaSuccess)
        return failed("pooling free nodes", e);
      if ((e = launch(rebalanceKernel, p.blocks, BlockThreads, 0, v, p.threads)) != cudaSuccess)
        return failed("pooling free nodes", e);
      pooled = true;
    } else if (hs.progress == 0 && !forceGrid) {
      internal = "a round made no progress";
      break;
    } else {
      pooled = false;
    }
  }
  return !stopped();
}

bool Runner::reduceFromHost(HostCtx &host) {
  if (stopped() || host.failed)
    return false;
  std::vector<Redex> &rs = host.pushed;
  if (rs.size() > p.redexCap) {
    hs.overflow = 1;
    return false;
  }
  cudaError_t e;
  if (!rs.empty() &&
      (e = cudaMemcpy(dS, rs.data(), rs.size() * sizeof(Redex), cudaMemcpyHostToDevice)) != cudaSuccess)
    return failed("handing redexes to the device", e);
  pending = rs.size();
  rs.clear();
  return reduce();
}

} // namespace
} // namespace cuda_rt

RunResult runCuda(const Book &book, const RunOptions &options, bool required) {
  cuda_rt::Runner runner(book, options);
  return runner.run(required);
}

} // namespace bendc::rt
