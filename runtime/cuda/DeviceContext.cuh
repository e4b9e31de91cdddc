// The device side of the CUDA runtime: net memory, per-round bookkeeping and
// the context through which runtime/common/Interact.h performs every rule on
// the device. Only CUDA translation units (or their host emulation) include
// this header.
#pragma once

#include "runtime/common/Interact.h"
#include "runtime/common/NodeStock.h"
#include "runtime/cuda/CudaApi.cuh"

#include <cstdint>

namespace bendc::rt::cuda_rt {

struct Redex {
  Term neg, pos;
};

/// Rules are 0..RuleCount-1; Invalid redexes get a bucket of their own so the
/// round that meets them reports the fault.
inline constexpr unsigned RuleBuckets = RuleCount + 1;

/// Bookkeeping shared by every kernel, in device memory; the host reads it
/// after each round (one small copy) to decide what to launch next.
struct DeviceState {
  // Cleared before every launch that reduces: the fields up to `nextNode`.
  unsigned long long outCount;            // redexes pushed this round
  unsigned long long ruleCount[RuleBuckets]; // pushes this round, by rule
  unsigned long long cursor[RuleBuckets];    // scatter cursors, by rule
  unsigned long long progress;            // interactions this round
  unsigned long long localCount;          // redexes left by the block-local kernel
  unsigned int starved;                   // a thread could not reserve nodes
  unsigned int needGrid;                  // the local kernel met work it leaves to the grid
  // Kept for the whole run.
  unsigned long long nextNode;            // global bump allocator (nodes)
  unsigned long long interactions[RuleCount]; // since the start, by rule
  unsigned long long poolCount, poolTake; // the shared free-node pool
  unsigned int fault;                     // first Fault seen (0 = none)
  unsigned int overflow;                  // a bag bound was broken (a runtime bug)
};

/// A thread's allocator, kept in global memory between kernels and indexed
/// by the global thread id, so freed nodes stay with the thread that freed them.
using AllocState = NodeStock;

/// Everything a kernel needs, passed by value.
struct NetView {
  Term *slots;          // 2 per node
  uint32_t *dead;       // dead-slot counters, one byte per node, packed 4 to a word
  Loc nodeCap;          // nodes in `slots`
  const Term *bookSlots;
  const Term *bookRedexes;
  const DefInfo *defs;
  const Plan *plans;
  Loc *scratch;         // per-thread expansion scratch
  uint32_t scratchStride; // Locs of scratch per thread (also the largest definition a thread expands)
  AllocState *alloc;
  Loc *pool;            // free nodes handed between threads when memory runs low
  unsigned long long poolCap;
  DeviceState *st;
  Redex *out;           // this round's pushes
  unsigned long long outCap;
  Loc chunkNodes;       // nodes a thread takes from the bump allocator at a time
};

// Memory ordering between blocks. Within a launch, one block consumes what
// another publishes only through net memory: a node is built with relaxed
// stores and published by the acq_rel exchange that links it (device scope,
// so the release orders those stores for every block), and a node is freed
// only after the acq_rel fetch_add on its dead counter by the last thread
// that touched it. Everything else a block writes for others — the round
// buffer, the free-node pool, the allocator states, DeviceState — is read in
// a later launch or by the host after one, and a kernel boundary orders it.
// So no __threadfence is needed; a new channel between blocks within a
// launch would need one (or a release/acquire pair) next to it.
using SlotRef = cuda::atomic_ref<Term, cuda::thread_scope_device>;
using DeadRef = cuda::atomic_ref<uint32_t, cuda::thread_scope_device>;

/// Where pushes go: a block's bag in shared memory (spilling to the global
/// round buffer when full) or, without a bag, the global buffer directly.
struct PushTarget {
  Redex *bag = nullptr;          // shared memory
  unsigned *bagCount = nullptr;  // shared; may run past bagCap (those spilled)
  unsigned bagCap = 0;
  unsigned *bagRules = nullptr;  // shared per-rule counts; null: count in global memory
  bool spill = true;             // false: the bag must never fill (block-local kernel)
};

/// The Ctx of Interact.h for one device thread.
struct DeviceCtx {
  // --- the context interface of runtime/common/Interact.h ---
  const Term *bookSlots;
  const Term *bookRedexes;
  const DefInfo *defs;
  const Plan *plans;
  Loc *scratch;

  __device__ Term load(Loc slot) const { return SlotRef(net.slots[slot]).load(cuda::std::memory_order_relaxed); }
  __device__ void store(Loc slot, Term t) { SlotRef(net.slots[slot]).store(t, cuda::std::memory_order_relaxed); }
  // acq_rel, as on the CPU: nodes built with relaxed stores are published by
  // the exchange that places them, and a slot is reused only after the
  // exchanges of every thread that touched it.
  __device__ Term exchange(Loc slot, Term t) {
    return SlotRef(net.slots[slot]).exchange(t, cuda::std::memory_order_acq_rel);
  }
  __device__ uint32_t addDead(Loc node, uint32_t n) {
    unsigned shift = unsigned(node & 3) * 8;
    uint32_t old = DeadRef(net.dead[node >> 2]).fetch_add(n << shift, cuda::std::memory_order_acq_rel);
    return (old >> shift) & 0xFF;
  }
  __device__ void clearDead(Loc node) {
    unsigned shift = unsigned(node & 3) * 8;
    // Neighbours share the word, so the byte is cleared atomically.
    DeadRef(net.dead[node >> 2]).fetch_and(~(0xFFu << shift), cuda::std::memory_order_relaxed);
  }
  __device__ Loc alloc() { return nodes.take(*this); }
  __device__ void release(Loc node) { nodes.give(*this, node); }
  /// Calls whose number is on its way run now: the device's passes have no
  /// later list to put them on.
  __device__ bool deferCall(Term, Term) { return false; }
  __device__ void push(Term neg, Term pos) {
    unsigned r = unsigned(ruleFor(tagOf(neg), tagOf(pos)));
    if (target.bag) {
      if (target.bagRules)
        atomicAdd(&target.bagRules[r], 1u);
      unsigned i = atomicAdd(target.bagCount, 1u);
      if (i < target.bagCap) {
        target.bag[i] = Redex{neg, pos};
        return;
      }
      if (!target.spill) {
        atomicExch(&net.st->overflow, 1u);
        return;
      }
    } else {
      atomicAdd(&net.st->ruleCount[r], 1ull);
    }
    unsigned long long j = atomicAdd(&net.st->outCount, 1ull);
    if (j < net.outCap)
      net.out[j] = Redex{neg, pos};
    else
      atomicExch(&net.st->overflow, 1u);
  }
  // After inlining, every call names a constant rule, so these stay in registers.
  __device__ void count(Rule rule) { ++counts[unsigned(rule)]; }
  __device__ void fault(Fault f, Term, Term) { atomicCAS(&net.st->fault, 0u, unsigned(f)); }

  // --- the thread's own state ---
  NetView net;
  PushTarget target;
  unsigned tid;
  NodeStock nodes;
  uint32_t counts[RuleCount];

  __device__ DeviceCtx(const NetView &v, unsigned threadId, const PushTarget &t)
      : bookSlots(v.bookSlots), bookRedexes(v.bookRedexes), defs(v.defs), plans(v.plans),
        scratch(v.scratch + size_t(threadId) * v.scratchStride), net(v), target(t), tid(threadId) {
    nodes = v.alloc[threadId];
#pragma unroll
    for (unsigned r = 0; r < RuleCount; ++r)
      counts[r] = 0;
  }

  __device__ void saveAlloc() { net.alloc[tid] = nodes; }

  /// Makes sure `n` nodes can be allocated without checks: the free list, the
  /// bump chunk, a fresh chunk, the end of the arena, then the shared pool.
  __device__ bool reserve(uint64_t n) {
    if (nodes.available() >= n)
      return true;
    return refill(n);
  }

  __device__ bool refill(uint64_t n) {
    nodes.retireRange(*this);
    Loc want = net.chunkNodes > n ? net.chunkNodes : Loc(n);
    Loc begin = atomicAdd(&net.st->nextNode, (unsigned long long)want);
    if (begin + want <= net.nodeCap) {
      nodes.bump = begin;
      nodes.bumpEnd = begin + want;
      return true;
    }
    // The arena ends here; only the thread whose chunk straddles the end gets the tail.
    for (Loc i = begin; i < net.nodeCap; ++i)
      release(i);
    if (nodes.freeCount >= n)
      return true;
    unsigned long long have = net.st->poolCount;
    if (have > net.poolCap)
      have = net.poolCap;
    unsigned long long take = n - nodes.freeCount;
    unsigned long long at = atomicAdd(&net.st->poolTake, take);
    for (unsigned long long k = at; k < at + take && k < have; ++k)
      release(net.pool[k]);
    if (nodes.freeCount >= n)
      return true;
    atomicExch(&net.st->starved, 1u);
    return false;
  }

  /// Nodes an interaction of `rule` on `neg ~ pos` allocates (the exact count,
  /// so a large definition costs only when it is expanded).
  __device__ uint64_t need(Rule rule, Term neg, Term pos) const {
    switch (rule) {
    case Rule::Call: {
      const DefInfo &d = defs[refOf(pos)];
      return (tagOf(neg) == tag::Dup && d.safe) ? 0 : d.nodeCount;
    }
    case Rule::Comm: return 4;
    case Rule::Oper: return 1;
    case Rule::Swit: return 2;
    default: return 0;
    }
  }

  /// True when the redex expands a definition larger than `limit` nodes (the
  /// scratch of a thread in the main kernels): those go to the big-call pass.
  __device__ bool tooBig(Rule rule, Term neg, Term pos, uint32_t limit) const {
    if (rule != Rule::Call)
      return false;
    const DefInfo &d = defs[refOf(pos)];
    return !(tagOf(neg) == tag::Dup && d.safe) && d.nodeCount > limit;
  }
};

} // namespace bendc::rt::cuda_rt
