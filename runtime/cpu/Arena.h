// Net memory for the CPU runtime: the slot array (two 64-bit slots per node)
// and one dead-slot counter byte per node, reserved with mmap so untouched
// pages cost nothing.
#pragma once

#include "runtime/common/Term.h"

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace bendc::rt {

class Arena {
public:
  /// Reserves room for as many nodes as fit in `bytes`. `ok()` says whether it worked.
  explicit Arena(uint64_t bytes);
  ~Arena();
  Arena(const Arena &) = delete;
  Arena &operator=(const Arena &) = delete;

  bool ok() const { return slots != nullptr; }
  Term *slotData() const { return slots; }
  uint8_t *deadData() const { return dead; }
  Loc nodeCount() const { return nodes; }
  static constexpr uint64_t bytesPerNode = 2 * sizeof(Term) + 1;
  /// Bytes of the arena the kernel was asked to map with transparent huge
  /// pages (0 where it maps none, or holds too few free), and their size.
  uint64_t hugePageBytes() const { return hugeBytes; }
  uint64_t hugePageSize() const { return hugePage; }

  /// Writes to nodes [begin, end) so the kernel maps their pages now.
  void touch(Loc begin, Loc end);
  /// Asks the kernel to map the pages of nodes [begin, end) in one call
  /// (MADV_POPULATE_WRITE) rather than one page fault per page. Any thread
  /// may call it; where the kernel cannot, it is not asked again and the
  /// pages fault in as they are used.
  void populate(Loc begin, Loc end);

private:
  Term *slots = nullptr;
  uint8_t *dead = nullptr;
  Loc nodes = 0;
  std::atomic<bool> populates{true};
  size_t slotBytes = 0, deadBytes = 0;
  uint64_t hugeBytes = 0, hugePage = 0;
};

} // namespace bendc::rt
