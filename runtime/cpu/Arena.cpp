#include "runtime/cpu/Arena.h"

#include <cstring>
#include <sys/mman.h>
#include <unistd.h>

namespace bendc::rt {

static void *reserve(size_t bytes) {
  void *p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                 -1, 0);
  // No MADV_HUGEPAGE: measured here, faulting huge pages in (with the
  // kernel compacting memory on demand) was three times slower than 4 KiB pages.
  return p == MAP_FAILED ? nullptr : p;
}

Arena::Arena(uint64_t bytes) {
  nodes = bytes / bytesPerNode;
  if (nodes < FirstNode + 16)
    nodes = FirstNode + 16;
  slotBytes = size_t(nodes) * 2 * sizeof(Term);
  deadBytes = size_t(nodes);
  slots = static_cast<Term *>(reserve(slotBytes));
  dead = static_cast<uint8_t *>(reserve(deadBytes));
  if (!slots || !dead) {
    if (slots)
      munmap(slots, slotBytes);
    if (dead)
      munmap(dead, deadBytes);
    slots = nullptr;
    dead = nullptr;
  }
}

Arena::~Arena() {
  if (slots)
    munmap(slots, slotBytes);
  if (dead)
    munmap(dead, deadBytes);
}

void Arena::touch(Loc begin, Loc end) {
  if (end > nodes)
    end = nodes;
  if (begin >= end)
    return;
  // Fresh anonymous pages read as zero; writing zero maps them.
  memset(slots + 2 * begin, 0, size_t(end - begin) * 2 * sizeof(Term));
  memset(dead + begin, 0, size_t(end - begin));
}

/// MADV_POPULATE_WRITE on the pages holding bytes [from, to) of `base`.
static bool populatePages(void *base, size_t from, size_t to) {
#ifdef MADV_POPULATE_WRITE
  static const size_t page = size_t(sysconf(_SC_PAGESIZE));
  from -= from % page;
  to += (page - to % page) % page;
  return madvise(static_cast<char *>(base) + from, to - from, MADV_POPULATE_WRITE) == 0;
#else
  (void)base, (void)from, (void)to;
  return false;
#endif
}

void Arena::populate(Loc begin, Loc end) {
  if (end > nodes)
    end = nodes;
  if (begin >= end || !populates.load(std::memory_order_relaxed))
    return;
  // Linux before 5.14 answers EINVAL; the pages then fault in one by one.
  if (!populatePages(slots, size_t(begin) * 2 * sizeof(Term), size_t(end) * 2 * sizeof(Term)) ||
      !populatePages(dead, size_t(begin), size_t(end)))
    populates.store(false, std::memory_order_relaxed);
}

} // namespace bendc::rt
