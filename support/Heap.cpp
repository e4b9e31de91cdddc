#include "support/Heap.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>

#if defined(__GLIBC__)
#include <malloc.h>
#include <sys/mman.h>
#include <unistd.h>
#endif

namespace bendc {

#if defined(__GLIBC__)

namespace {
// Blocks up to this size come from the heap rather than a mapping of their own.
constexpr int kMmapThreshold = 64 << 20;
// Freed memory at the top of the heap is kept up to this much (it only grows).
size_t trimThreshold = size_t(256) << 20;
} // namespace

void tuneHeapForCompiling() {
  // Compiling runs on threads of its own (for their deep stacks). glibc
  // would give each thread a malloc arena of its own, and such an arena
  // grows a page at a time, one system call each: 1.3 ms of a 5 ms compile.
  // The main arena grows in large steps.
  mallopt(M_ARENA_MAX, 1);
  // A compile frees large blocks (a table outgrowing itself, the syntax
  // tree once it is desugared) and then allocates as much again. By default
  // glibc maps such blocks fresh and gives them back when freed, so their
  // memory was paid for in page faults twice: 13% of the faults of a 4 MB
  // program, 3% of its compile time.
  mallopt(M_MMAP_THRESHOLD, kMmapThreshold);
  mallopt(M_TRIM_THRESHOLD, int(trimThreshold));
}

void tuneHeapForRechecking() {
  // A check allocates and frees the same tens of megabytes each time. By
  // default glibc maps large blocks fresh and gives freed memory back at
  // once, so every check paid for its memory again, page fault by page
  // fault: a fifth of a re-check. What is kept is at most one check's peak.
  mallopt(M_MMAP_THRESHOLD, kMmapThreshold);
  mallopt(M_TRIM_THRESHOLD, int(trimThreshold));
}

// Compiling a large program takes hundreds of megabytes, which the kernel
// would hand over a page at a time, one page fault each: a fifth of the
// compile time. Where pages filled before are still free at the top of the
// heap, they count towards `bytes`.
void prepareHeap(size_t bytes) {
  constexpr size_t kMinimum = size_t(16) << 20;
  constexpr size_t kMaximum = size_t(1) << 30;
  long pages = sysconf(_SC_PHYS_PAGES), pageSize = sysconf(_SC_PAGESIZE);
  if (bytes < kMinimum || pages <= 0 || pageSize <= 0)
    return;
  bytes = std::min({bytes, kMaximum, size_t(pages) * size_t(pageSize) / 4});
  // From the heap rather than a mapping of its own, and kept when freed
  // (the threshold only grows: what an earlier call filled stays too).
  trimThreshold = std::max(trimThreshold, bytes + (size_t(256) << 20));
  mallopt(M_TRIM_THRESHOLD, int(trimThreshold));
  mallopt(M_MMAP_THRESHOLD, int(bytes + (size_t(1) << 20)));
  char *block = static_cast<char *>(malloc(bytes));
  mallopt(M_MMAP_THRESHOLD, kMmapThreshold);
  if (!block)
    return;
  uintptr_t begin = (uintptr_t(block) + pageSize - 1) & ~uintptr_t(pageSize - 1);
  uintptr_t end = (uintptr_t(block) + bytes) & ~uintptr_t(pageSize - 1);
  // A kernel that cannot fill them (before Linux 5.14) leaves the pages to
  // come as they are used, as without this.
#ifdef MADV_POPULATE_WRITE
  if (end > begin)
    madvise(reinterpret_cast<void *>(begin), end - begin, MADV_POPULATE_WRITE);
#endif
  free(block);
}

#else

void tuneHeapForCompiling() {}
void tuneHeapForRechecking() {}
void prepareHeap(size_t) {}

#endif

} // namespace bendc
