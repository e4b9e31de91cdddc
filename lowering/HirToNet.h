// HIR to the net IR: each instruction becomes one node (a switch also gets
// the pair holding its two cases and one application per argument it passes
// to its arms; an operator with an immediate gets that number as a leaf),
// each wire a net variable, and the nodes are then nested into trees the way
// HVM2 books write them: a node whose principal port meets an auxiliary port
// sits inside that node; two principal ports that meet make a redex.
#pragma once

#include "frontend/Diagnostic.h"
#include "ir/Hir.h"
#include "ir/Net.h"

#include <optional>

namespace bendc::lowering {

struct NetOptions {
  /// Bend's net eta reduction: a pair of same-kind nodes joined port to
  /// port by both auxiliary wires disappears (`λx (f x)` is `f`, and the
  /// same for pairs and superpositions), and a node with two erased
  /// auxiliary ports becomes an eraser.
  bool eta = true;
};

/// Lowers every function to a definition of `book` (in module order, the
/// entry point named `main`). A net whose nodes cannot all be reached from
/// its root or its redexes (a vicious cycle) is reported.
bool lowerToNet(const hir::Module &module, const NetOptions &options, net::Book &book,
                DiagnosticEngine &diags);

/// Copies the tree `id` of `from` into `to`, interning names there.
net::TreeId copyTree(const net::Book &from, net::TreeId id, net::Book &to);

} // namespace bendc::lowering
