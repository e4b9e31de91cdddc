// Whole-book passes over the net book, after lowering and before
// polarizing, as Bend runs them on the book it hands to HVM2:
//
//   book ─check recursion cycles─► ─inline leaf definitions (-Oinline)─►
//   ─check net sizes (-Ocheck-net-size)─► book
//
// The two checks share one walk (checkBook) unless pruning after inlining
// comes between them.
//
// Each reports through the DiagnosticEngine and points at the definition
// in the source. None of them prints or exits.
#pragma once

#include "support/Diagnostic.h"
#include "ir/Net.h"

#include "llvm/ADT/StringRef.h"

#include <cstddef>

namespace bendc::lowering {

/// HVM2's C runtime refuses to load a definition of more nodes than this.
constexpr size_t MaxNetSizeForHvmC = 4095;

struct BookCheckOptions {
  /// Report every cycle of definitions that HVM2's eager reduction unfolds
  /// forever: a reference is eager where a redex holds it, or where the root
  /// tree holds it outside a λ's variable side (a call, or a reference that
  /// is duplicated). Each cycle is one RecursionCycle diagnostic (a warning
  /// kind, an error unless -A/-W say otherwise), at the first definition of
  /// the cycle that comes from the source.
  bool recursionCycles = true;
  /// Report each definition of more nodes (trees with children, in its root
  /// and redexes, as HVM2 counts them) than this (NetTooLarge); 0: no limit.
  size_t maxNetSize = 0;
  llvm::StringRef runtimeName = "HVM2's C runtime"; // whose limit it is
};

/// Both checks in one walk over the book. Returns false after an error.
bool checkBook(const net::Book &book, const BookCheckOptions &options, DiagnosticEngine &diags);

/// Replaces every reference to a definition whose whole net is one leaf (a
/// number, an eraser or another reference, with no redexes) by that leaf,
/// as Bend's -Oinline does. A chain of such references that loops is an
/// error. Returns false after an error.
bool inlineLeafDefinitions(net::Book &book, DiagnosticEngine &diags);

/// Drops the definitions that `entry` no longer reaches through references
/// (after inlining, as Bend prunes after it). Definitions are kept in order.
void pruneUnreachableDefinitions(net::Book &book, llvm::StringRef entry);

} // namespace bendc::lowering
