#include "runtime/cpu/Arena.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <sys/mman.h>
#include <unistd.h>

namespace bendc::rt {

namespace {
struct HugeRoom {
  uint64_t bytes = 0;     // of the arena to map with huge pages
  uint64_t pageBytes = 0; // a huge page
};
} // namespace

/// Reserves `bytes` of address space starting on a multiple of `align` (a
/// power of two, at least a page), so that huge pages can cover it from its
/// first byte.
static void *reserve(size_t bytes, size_t align) {
  size_t span = bytes + align;
  void *p = mmap(nullptr, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED)
    return nullptr;
  uintptr_t begin = reinterpret_cast<uintptr_t>(p), at = (begin + align - 1) & ~uintptr_t(align - 1);
  if (at != begin)
    munmap(p, at - begin);
  if (size_t tail = span - (at - begin) - bytes)
    munmap(reinterpret_cast<void *>(at + bytes), tail);
  return reinterpret_cast<void *>(at);
}

/// One line of a sysfs file, or "" where it cannot be read.
static std::string firstLine(const char *path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

/// How many bytes of the arena to map with transparent huge pages, and their
/// size. A net's nodes are scattered over the pages it has touched, so with
/// 4 KiB pages most of its reads of a large net also miss the TLB, and in a
/// virtual machine such a miss walks two page tables (sum_tree ran 1.3 to
/// 1.8 times as long; see PERF.md). Huge pages are asked for only where the
/// kernel leaves them to the program (`madvise` mode) and only for half of
/// the memory it holds free in blocks of a huge page or more
/// (/proc/buddyinfo): asked for beyond that, each fault waits while the
/// kernel compacts memory, which made a net three times slower.
static HugeRoom hugeRoom() {
  HugeRoom room;
  if (firstLine("/sys/kernel/mm/transparent_hugepage/enabled").find("[madvise]") == std::string::npos)
    return room;
  const uint64_t page = uint64_t(sysconf(_SC_PAGESIZE));
  const uint64_t huge =
      std::strtoull(firstLine("/sys/kernel/mm/transparent_hugepage/hpage_pmd_size").c_str(), nullptr, 10);
  if (page == 0 || huge <= page || (huge & (huge - 1)) != 0)
    return room;
  unsigned hugeOrder = 0;
  while ((page << hugeOrder) < huge)
    ++hugeOrder;
  // "Node 0, zone   Normal  n0 n1 ... n10": free blocks of 2^k pages.
  std::ifstream in("/proc/buddyinfo");
  uint64_t free = 0;
  for (std::string line; std::getline(in, line);) {
    size_t zone = line.find("zone");
    if (zone == std::string::npos)
      continue;
    std::istringstream fields(line.substr(zone + 4));
    std::string name;
    fields >> name;
    uint64_t count = 0;
    for (unsigned order = 0; fields >> count; ++order)
      if (order >= hugeOrder)
        free += count * (page << order);
  }
  room.bytes = free / 2 / huge * huge;
  room.pageBytes = huge;
  return room;
}

Arena::Arena(uint64_t bytes) {
  nodes = bytes / bytesPerNode;
  if (nodes < FirstNode + 16)
    nodes = FirstNode + 16;
  slotBytes = size_t(nodes) * 2 * sizeof(Term);
  deadBytes = size_t(nodes);
  HugeRoom room = hugeRoom();
  const size_t align = std::max<size_t>(room.pageBytes, size_t(sysconf(_SC_PAGESIZE)));
  slots = static_cast<Term *>(reserve(slotBytes, align));
  dead = static_cast<uint8_t *>(reserve(deadBytes, align));
  if (!slots || !dead) {
    if (slots)
      munmap(slots, slotBytes);
    if (dead)
      munmap(dead, deadBytes);
    slots = nullptr;
    dead = nullptr;
    return;
  }
  if (room.bytes != 0) {
    hugePage = room.pageBytes;
    // The slots of the first nodes, and their dead counters, a sixteenth as
    // many bytes; a failure leaves 4 KiB pages.
    size_t slotHuge = std::min(slotBytes, size_t(room.bytes) * 16 / 17) / room.pageBytes * room.pageBytes;
    size_t deadHuge = std::min(deadBytes, slotHuge / 16) / room.pageBytes * room.pageBytes;
    if (slotHuge != 0)
      hugeBytes += madvise(slots, slotHuge, MADV_HUGEPAGE) == 0 ? slotHuge : 0;
    if (deadHuge != 0)
      hugeBytes += madvise(dead, deadHuge, MADV_HUGEPAGE) == 0 ? deadHuge : 0;
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
