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
// So a given call is gated: a Join counts the pieces of the work it needs
// (redexes in the pool, or a worker's whole stack), and the call is held in
// its join until that count is zero. A piece is counted in exactly one
// join, the gate of the nearest call below it whose work it is; a gated
// call is itself a piece of the join below it, so a gate opens only when
// everything it stands for is done, however deep. A worker owes the join
// its stack belongs to and pays it when the stack is empty. Joins only hold
// back; when every worker is idle, whatever is held is let go anyway, so
// nothing waits for ever whatever the counts say.
//
// Every operation costs in proportion to the redexes it moves, never to
// the size of the pool: a deep recursion whose every level waits for the
// one below gives a held call at every share.
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
/// reaches zero counts as one piece done of its parent, if any, and lets go
/// of the call it holds.
struct Join {
  uint32_t count = 0;
  Join *parent = nullptr;
  bool holds = false; // `call` waits here
  Redex call{};
  Join *member = nullptr; // the join `call` is counted in
};

/// A call that needs work above it, at stack position `at`: the redexes
/// from position `from` on (all above it, up to the top of the stack) are
/// that work; the ones between are not (a sibling call with producers of
/// its own). NoWork: what it needed is done.
struct Consumer {
  static constexpr uint32_t NoWork = ~0u;
  uint32_t at, from;
};

/// Stacks up to this deep are taken for a divide and conquer's (see
/// oldestToGive).
inline constexpr size_t ShallowStack = 64;

/// How many of a stack's oldest redexes a worker gives to a hungry one.
/// `calls` are the marked calls still in place, by increasing position;
/// one whose `from` is not NoWork would wait in the pool for work above it.
///
/// A divide and conquer's stack holds about two redexes a level of its
/// recursion, a few dozen at most, and its oldest redex stands for about
/// half of the work left (the sibling of everything above it). Such a stack
/// gives the oldest redex that may run at once, with the calls under it
/// that wait for work. Its older half would be nearly all of the work, in
/// pieces of every size that both threads then fetch from the pool one
/// after the other, each running where its data is not: the sorts of
/// samples/bench read 1.6 to 2.2 times as many cache lines written by the
/// other thread that way (PERF.md). A deeper stack is a chain, or a run of
/// many small pieces of about one size, where one redex stands for little:
/// it gives its older half. 0: nothing under the top may run at once.
inline size_t oldestToGive(size_t stackSize, const Consumer *calls, size_t callCount) {
  if (stackSize > ShallowStack)
    return stackSize / 2;
  size_t m = 0;
  for (size_t p = 0; p + 1 < stackSize; ++p) {
    while (m < callCount && calls[m].at < p)
      ++m;
    if (m == callCount || calls[m].at != p || calls[m].from == Consumer::NoWork)
      return p + 1;
  }
  return 0;
}

class WorkPool {
public:
  /// Gives the `n` oldest redexes of a stack (oldest first); `calls` are
  /// the ones that need work above them (by increasing position, each below
  /// `n`). `owe` is the join the giver's stack is counted in; it becomes the
  /// one the rest of the stack, kept by the giver, is counted in. True when
  /// some of them may be taken now.
  ///
  /// A redex is counted in the gate of the nearest call below it whose work
  /// it is part of, else where that call is counted. A call that sits
  /// between another and the other's work (two merges waiting for the same
  /// comparisons) has the other's gate as its gate's parent: the work above
  /// both is counted in the upper one's gate, which the lower one's waits
  /// for. The rest of the stack is counted in the gate of the topmost call.
  bool give(const Redex *items, size_t n, const Consumer *calls, size_t callCount, Join *&owe) {
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
    const size_t first = ready.size();
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
      ready.push_back(it); // held ones leave below, once every count is known
    }
    if (!open.empty()) {
      Join *kept = open.back().gate;
      ++kept->count; // the giver's stack
      Join *was = owe;
      owe = kept;
      settle(was); // its part is now counted in a call given now, which it counts
    }
    // The calls whose work is still to do wait in their gates.
    size_t to = first;
    for (size_t k = first; k < ready.size(); ++k) {
      Item &it = ready[k];
      if (it.gate && it.gate->count != 0) {
        it.gate->holds = true;
        it.gate->call = it.redex;
        it.gate->member = it.member;
        ++held;
      } else {
        ready[to++] = it;
      }
    }
    ready.resize(to);
    return to != first;
  }

  /// Moves up to half the redexes that may go (at least one) onto `stack`,
  /// the youngest on top, all counted in one join, which `owe` becomes (the
  /// taker's stack is empty and owes nothing). False when none may go.
  bool take(std::vector<Redex> &stack, Join *&owe) {
    if (ready.empty())
      return false;
    size_t want = std::max<size_t>(1, ready.size() / 2);
    Join *member = ready.back().member;
    size_t from = ready.size();
    while (from > 0 && ready.size() - from < want && ready[from - 1].member == member)
      --from;
    for (size_t k = from; k < ready.size(); ++k)
      stack.push_back(ready[k].redex);
    const size_t got = ready.size() - from;
    ready.resize(from);
    if (member)
      member->count = member->count + 1 - uint32_t(got);
    owe = member;
    return true;
  }

  /// The stack that owed `owe` is empty. True when that let a call go.
  bool pay(Join *&owe) {
    Join *j = owe;
    owe = nullptr;
    return settle(j);
  }

  /// Lets every held call go, whatever its gate says: for when no worker
  /// has anything left to do. True when there was one.
  bool releaseAll() {
    if (held == 0)
      return false;
    for (Join &j : joins)
      if (j.holds)
        letGo(j);
    return true;
  }

  /// Redexes that may be taken now.
  size_t open() const { return ready.size(); }
  bool empty() const { return ready.empty() && held == 0; }
  size_t size() const { return ready.size() + held; }
  /// Forgets every join; only when the pool is empty (between rounds).
  void reset() {
    if (empty())
      joins.clear();
  }

private:
  struct Item {
    Redex redex;
    Join *member; // the join this redex is counted in; null: none
    Join *gate;   // while giving: the call's gate, if it has one
  };

  /// One piece of `j`'s work is done; a join that reaches zero lets its
  /// call go and counts as a piece done of its parent. True when a call
  /// was let go.
  bool settle(Join *j) {
    llvm::SmallVector<Join *, 4> go; // youngest call first
    for (; j && --j->count == 0; j = j->parent)
      if (j->holds)
        go.push_back(j);
    // The youngest goes on top, as it would have run first on one stack.
    for (size_t k = go.size(); k-- > 0;)
      letGo(*go[k]);
    return !go.empty();
  }
  void letGo(Join &j) {
    j.holds = false;
    --held;
    ready.push_back({j.call, j.member, nullptr});
  }

  std::vector<Item> ready; // may be taken, oldest first
  size_t held = 0;         // calls held in their gates
  std::deque<Join> joins;  // stable addresses
};

} // namespace bendc::rt
