// HIR to the net IR: each instruction becomes one node (a switch also gets
// the pair holding its two cases and one application per argument it passes
// to its arms; an operator with an immediate gets that number as a leaf),
// each wire a net variable, and the nodes are then nested into trees the way
// HVM2 books write them: a node whose principal port meets an auxiliary port
// sits inside that node; two principal ports that meet make a redex.
#pragma once

#include "support/Diagnostic.h"
#include "ir/Hir.h"
#include "ir/Net.h"

#include <memory>
#include <optional>

namespace bendc::lowering {

struct NetOptions {
  /// Bend's net eta reduction: a pair of same-kind nodes joined port to
  /// port by both auxiliary wires disappears (`λx (f x)` is `f`, and the
  /// same for pairs and superpositions), and a node with two erased
  /// auxiliary ports becomes an eraser.
  bool eta = true;
  /// The name the entry point's definition takes in the book.
  llvm::StringRef entryName = "main";
};

/// Lowers every function to a definition of `book` (in module order, the
/// entry point named `main`). A net whose nodes cannot all be reached from
/// its root or its redexes (a vicious cycle) is reported.
bool lowerToNet(const hir::Module &module, const NetOptions &options, net::Book &book,
                DiagnosticEngine &diags);

/// The same one function at a time, as passes finish with them, so that
/// each is lowered while its instructions are in cache. The book ends up
/// as lowerToNet makes it for the module as it is at `finish`: the
/// functions the module has now keep their places, and those a pass adds
/// to its end follow in the order they are handed over.
class NetLowering {
public:
  /// `expectedWires`: about how many wires the module's functions will
  /// have in all, when their bodies are not made yet (0: count them now).
  NetLowering(const hir::Module &module, const NetOptions &options, net::Book &book,
              DiagnosticEngine &diags, size_t expectedWires = 0);
  ~NetLowering();
  NetLowering(const NetLowering &) = delete;
  NetLowering &operator=(const NetLowering &) = delete;

  /// Lowers the function with id `id`, one the module had at the start,
  /// as it is now.
  void lowerAt(hir::FunctionId id);
  /// Lowers `fn`, not in the module yet: it will follow its functions.
  void lowerNew(const hir::Function &fn);
  /// Lowers the functions of the start not handed over yet, then puts the
  /// new ones after them. False when some net has a vicious cycle.
  bool finish();

private:
  struct State;
  std::unique_ptr<State> state;
};

/// Copies the tree `id` of `from` into `to`, interning names there.
net::TreeId copyTree(const net::Book &from, net::TreeId id, net::Book &to);

} // namespace bendc::lowering
