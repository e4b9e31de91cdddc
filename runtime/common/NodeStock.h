// A thread's supply of nodes: the ones it freed, on a list threaded through
// slot 0 of each (a MARK term, so that a free node is told from one in
// use), then a range of nodes never used. Each CPU worker, each device
// thread and the host between reductions keeps one; only its owner touches
// it, so nothing here is atomic.
#pragma once

#include "runtime/common/HostDevice.h"
#include "runtime/common/Term.h"

#include <stdint.h>

namespace bendc::rt {

struct NodeStock {
  Loc freeHead = 0; // 0: none (node 0 holds the root and is never freed)
  uint64_t freeCount = 0;
  Loc bump = 0, bumpEnd = 0;

  BENDC_HD uint64_t available() const { return freeCount + (bumpEnd - bump); }

  /// Slot 0 of a free node: the link to the next one on its list.
  static BENDC_HD constexpr Term link(Loc next) { return makeTerm(tag::Mark, next); }
  static BENDC_HD constexpr Loc next(Term link) { return payloadOf(link); }
  /// Whether slot 0 of a node says it is free (on some thread's list).
  static BENDC_HD constexpr bool isFree(Term slot0) { return tagOf(slot0) == tag::Mark; }

  /// A node; the caller made sure one is available. `c.load` reads the list.
  template <class Ctx> BENDC_HD Loc take(Ctx &c) {
    if (freeHead != 0) {
      Loc n = freeHead;
      freeHead = next(c.load(slotOf(n, 0)));
      --freeCount;
      return n;
    }
    return bump++;
  }

  /// Puts a garbage node on the list. `c.store` writes the link.
  template <class Ctx> BENDC_HD void give(Ctx &c, Loc node) {
    c.store(slotOf(node, 0), link(freeHead));
    freeHead = node;
    ++freeCount;
  }

  /// Moves what is left of the range onto the list, before a new range.
  template <class Ctx> BENDC_HD void retireRange(Ctx &c) {
    while (bump < bumpEnd)
      give(c, bump++);
  }
};

} // namespace bendc::rt
