// The redexes workers give one another, and what each given call waits for.
//
// A worker runs its stack last in, first out, and a definition links a call
// that needs another redex's result before that redex (DefInfo::consumers):
// on one thread the producer's whole work is done before the call runs.
// When a worker gives away the bottom of its stack, such a call leaves the
// work above it behind: another thread that took it at once would build the
// call's whole net while the producer still runs, to wait there for its
// numbers (a bitonic sort's merges, built before the leaves exist).
//
// So a given call is gated: a Join counts the pieces of the work that was
// above it when it was given (redexes in the pool, or a worker's whole
// stack), and the call is taken only once that count is zero. A piece is
// counted in exactly one join, the gate of the nearest call below it. The
// work above a gated call that is itself gated is counted in its own gate,
// which that call waits for: a gate is open only when everything above its
// call is done, however deep. A worker owes the join its stack belongs to
// and pays it when the stack is empty. Joins only hold back; when every
// worker is idle, whatever is left is taken anyway, so nothing waits for
// ever whatever the counts say.
//
// Not thread-safe: the caller holds the pool's mutex.
#pragma once

#include "runtime/common/Term.h"

#include "llvm/ADT/SmallVector.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <vector>

namespace bendc::rt {

struct Redex {
  Term neg, pos;
};

/// Pieces of work still to finish before a gated call may run. A join that
/// reaches zero counts as one piece done of its parent, if any.
struct Join {
  uint32_t count = 0;
  Join *parent = nullptr;
};

/// A call that needs work above it, at stack position `at`: the redexes
/// from position `from` on (all above it, up to the top of the stack) are
/// that work; the ones between are not (a sibling call with producers of
/// its own). NoWork: what it needed is done.
struct Consumer {
  static constexpr uint32_t NoWork = ~0u;
  uint32_t at, from;
};

class WorkPool {
public:
  /// Gives the `n` oldest redexes of a stack (oldest first); `calls` are
  /// the ones that need work above them (by increasing position, each below
  /// `n`). `owe` is the join the giver's stack is counted in; it becomes the
  /// one the rest of the stack, kept by the giver, is counted in.
  ///
  /// A redex is counted in the gate of the nearest call below it whose work
  /// it is part of, else where that call is counted. A call that sits
  /// between another and the other's work (two merges waiting for the same
  /// comparisons) has the other's gate as its gate's parent: the work above
  /// both is counted in the upper one's gate, which the lower one's waits
  /// for. The rest of the stack is counted in the gate of the topmost call.
  void give(const Redex *items, size_t n, const Consumer *calls, size_t callCount, Join *&owe) {
    struct Open {
      uint32_t from;
      Join *gate;
    };
    llvm::SmallVector<Open, 16> open; // the calls given so far with work, lowest first
    auto memberAt = [&](size_t p) {
      for (size_t k = open.size(); k-- > 0;)
        if (open[k].from <= p)
          return open[k].gate;
      return owe;
    };
    size_t m = 0;
    for (size_t p = 0; p < n; ++p) {
      Item it{items[p], memberAt(p), nullptr};
      if (it.member)
        ++it.member->count;
      if (m < callCount && calls[m].at == p) {
        if (calls[m].from != Consumer::NoWork) {
          Join &gate = joins.emplace_back();
          if (!open.empty() && p < open.back().from) { // between that call and its work
            gate.parent = open.back().gate;
            ++gate.parent->count;
          }
          open.push_back({std::max<uint32_t>(calls[m].from, uint32_t(p + 1)), &gate});
          it.gate = &gate;
        }
        ++m;
      }
      pool.push_back(it);
    }
    if (open.empty())
      return;
    Join *kept = open.back().gate;
    ++kept->count; // the giver's stack
    if (owe)
      --owe->count; // its part is now counted in a call given now, which owe counts
    owe = kept;
  }

  /// Moves up to half the redexes that may go (at least one) onto `stack`,
  /// the youngest on top, all counted in one join, which `owe` becomes (the
  /// taker's stack is empty and owes nothing). `force`: gates are ignored.
  /// False when none may go.
  bool take(std::vector<Redex> &stack, Join *&owe, bool force = false) {
    size_t want = std::max<size_t>(1, (force ? pool.size() : open()) / 2);
    size_t first = stack.size();
    Join *member = nullptr;
    size_t k = pool.size();
    size_t got = 0;
    while (k-- > 0 && got < want) {
      Item &it = pool[k];
      if (!force && !mayGo(it))
        continue;
      if (got != 0 && it.member != member)
        break;
      member = it.member;
      stack.push_back(it.redex);
      it.taken = true;
      ++got;
    }
    if (got == 0)
      return false;
    std::reverse(stack.begin() + ptrdiff_t(first), stack.end());
    std::erase_if(pool, [](const Item &it) { return it.taken; });
    if (member)
      member->count = member->count + 1 - uint32_t(got);
    owe = member;
    return true;
  }

  /// The stack that owed `owe` is empty. True when that opened a gate.
  static bool pay(Join *&owe) {
    Join *j = owe;
    owe = nullptr;
    bool opened = false;
    while (j && --j->count == 0) {
      opened = true;
      j = j->parent;
    }
    return opened;
  }

  /// Redexes that may be taken now.
  size_t open() const {
    size_t n = 0;
    for (const Item &it : pool)
      n += mayGo(it);
    return n;
  }
  bool empty() const { return pool.empty(); }
  size_t size() const { return pool.size(); }
  /// Forgets every join; the pool is empty between rounds.
  void reset() {
    pool.clear();
    joins.clear();
  }

private:
  struct Item {
    Redex redex;
    Join *member; // the join this redex is counted in; null: none
    Join *gate;   // the call waits for it to be zero; null: goes at once
    bool taken = false;
  };
  static bool mayGo(const Item &it) { return !it.gate || it.gate->count == 0; }

  std::vector<Item> pool; // oldest first
  std::deque<Join> joins; // stable addresses
};

} // namespace bendc::rt
