// The order in which a definition's redexes are linked when it is expanded.
#pragma once

#include "runtime/common/Book.h"

#include <cstdint>
#include <vector>

namespace bendc::lowering {

/// What a definition does with its arguments, as far as a look at the book
/// can tell (bit k: argument k, counted along the chain of λs of its root;
/// arguments past the 64th are not followed).
struct ArgumentUse {
  /// The argument's value, or something computed from it, reaches a numeric
  /// switch's scrutinee: a call made before the value exists is put off.
  uint64_t demanded = 0;
  /// The argument's value, or something computed from it, may be part of
  /// the definition's result.
  uint64_t returned = 0;
  /// The argument is applied as a function (a tree walked by calling it):
  /// the definition cannot go on before the value is there, so it does not
  /// run ahead of it, and its `demanded` bit is left clear.
  uint64_t applied = 0;
  friend bool operator==(ArgumentUse a, ArgumentUse b) {
    return a.demanded == b.demanded && a.returned == b.returned && a.applied == b.applied;
  }
};

/// The result of orderRedexes.
struct RedexOrderReport {
  std::vector<ArgumentUse> uses; // by definition id
  uint32_t reorderedDefs = 0;    // definitions whose redexes moved
};

/// Reorders each definition's redexes so that a call that needs another
/// redex's result as a number, to choose a switch's arm, is linked before
/// that redex. Expansion links a definition's redexes in order and the last
/// one linked runs first, so the producer then runs first, and the call
/// finds its number rather than waiting for it while the producer's whole
/// work is still to do (a bitonic sort's merge, run before the sorts that
/// feed it, waits on every comparison of the whole first pass). Calls that
/// consume a result without a switch (a sum over a tree) keep their place:
/// they can go on while it is made. Redexes with no such dependence keep
/// the order they were written in. Neither results nor interaction counts
/// depend on the order; only the shape of the work does.
///
/// It also marks, for the CPU runtime's work sharing, each call that needs
/// redexes linked after it and the first of those (DefInfo::consumers,
/// DefInfo::producers), whether or not the order moved.
RedexOrderReport orderRedexes(rt::Book &book);

} // namespace bendc::lowering
