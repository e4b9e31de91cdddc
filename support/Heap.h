// The one place bendc tunes the C library's allocator (glibc's malloc; on
// other C libraries these do nothing). Each setting is kept for a measured
// reason, given where it is made (Heap.cpp). Together, measured by running
// the same bendc with mallopt and madvise made no-ops (LD_PRELOAD), median
// of 7 runs: compiling the 4 MB program of tools/gen_large_bend.py takes
// 0.93 of the wall time (1.78 s against 2.08 s; system time 0.24 s against
// 0.40 s) for a peak of 218 MiB against 195 MiB; compiling
// samples/bench/quick_sort.bend takes 0.83 of it (10 ms against 13 ms).
#pragma once

#include <cstddef>

namespace bendc {

/// For a process that compiles once: one malloc arena for every thread, and
/// blocks up to 64 MiB from the heap, kept there when freed.
void tuneHeapForCompiling();

/// For a process that checks documents over and over (the language server):
/// freed memory is kept for the next check instead of going back to the
/// system.
void tuneHeapForRechecking();

/// Asks the system for `bytes` of heap at once (one call fills the pages)
/// and leaves them in the heap, freed, for the allocations to come. Small
/// amounts, whose page faults cost little, are left alone; at most 1 GiB or
/// a quarter of the physical memory is filled.
void prepareHeap(size_t bytes);

} // namespace bendc
