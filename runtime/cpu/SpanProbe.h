// The span of a run (RunOptions::span): the length of its longest chain of
// interactions that each need the one before, measured on one thread.
//
// The run is taken a step at a time: a step is a redex taken from the stack
// (or a call put off earlier) with every interaction it performs at once
// (numbers met at a link, switches and calls done in place). A step can
// start once its redex exists and the slots it reads hold what it reads
// there; its interactions then run one after another. So every slot and
// every redex waiting on the stack carries a stamp: the length of the
// longest chain that ends with the step that wrote it. A step ends at the
// largest stamp among its redex and the slots it read, plus the
// interactions it performed, and stamps what it wrote and pushed with that.
// The span is the largest stamp of all.
//
// Counting a step's interactions one after another, and every slot it reads
// as something it needed, can only lengthen a chain: the span is an upper
// estimate, and the work over the span (the parallelism) a lower one.
// Taking a node from a free list is not a dependency (reuse of memory would
// chain unrelated work), so the allocator's reads are not measured.
#pragma once

#include "runtime/common/Term.h"

#include "llvm/ADT/SmallVector.h"

#include <algorithm>
#include <cstdint>
#include <sys/mman.h>
#include <vector>

namespace bendc::rt {

class SpanProbe {
public:
  SpanProbe() = default;
  SpanProbe(const SpanProbe &) = delete;
  SpanProbe &operator=(const SpanProbe &) = delete;
  ~SpanProbe() {
    if (stamps)
      munmap(stamps, stampBytes);
  }

  /// Room for a stamp per slot, mapped as it is used. False when the address
  /// space cannot be reserved.
  bool reserve(uint64_t slotCount) {
    stampBytes = slotCount * sizeof(uint64_t);
    void *p =
        mmap(nullptr, stampBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    stamps = p == MAP_FAILED ? nullptr : static_cast<uint64_t *>(p);
    return stamps != nullptr;
  }

  /// A step starts from a redex stamped `stamp`.
  void begin(uint64_t stamp) {
    start = stamp;
    seen = 0;
    performed = 0;
    written.clear();
    stackFrom = stackStamps.size();
    putOffFrom = putOffStamps.size();
  }
  /// The step is over: what it wrote and pushed gets its end.
  void finish() {
    uint64_t end = std::max(start, seen) + performed;
    longest = std::max(longest, end);
    for (Loc slot : written)
      stamps[slot] = end;
    for (size_t k = stackFrom; k < stackStamps.size(); ++k)
      stackStamps[k] = end;
    for (size_t k = putOffFrom; k < putOffStamps.size(); ++k)
      putOffStamps[k] = end;
  }

  void read(Loc slot) { seen = std::max(seen, stamps[slot]); }
  /// Until the step ends, a slot it wrote reads as written at its start.
  void wrote(Loc slot) {
    stamps[slot] = start;
    written.push_back(slot);
  }
  void interaction() { ++performed; }

  /// Reads that are not dependencies (the free list) are undone.
  uint64_t mark() const { return seen; }
  void undo(uint64_t mark) { seen = mark; }

  // The stamps of the stack's redexes and of the calls put off, kept beside
  // them in the same order; a new one is stamped when its step ends.
  void pushed() { stackStamps.push_back(0); }
  uint64_t popped() {
    uint64_t s = stackStamps.back();
    stackStamps.pop_back();
    return s;
  }
  /// Redexes that came onto the stack some other way need nothing.
  void stackResized(size_t n) { stackStamps.resize(n, 0); }
  void putOff() { putOffStamps.push_back(0); }
  uint64_t takenPutOff(size_t k) {
    uint64_t s = putOffStamps[k];
    putOffStamps.erase(putOffStamps.begin() + ptrdiff_t(k));
    return s;
  }

  uint64_t span() const { return longest; }

private:
  uint64_t *stamps = nullptr;
  uint64_t stampBytes = 0;
  uint64_t start = 0, seen = 0, performed = 0, longest = 0;
  llvm::SmallVector<Loc, 32> written;
  std::vector<uint64_t> stackStamps, putOffStamps;
  size_t stackFrom = 0, putOffFrom = 0;
};

} // namespace bendc::rt
