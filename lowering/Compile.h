// The middle end's one entry: Core in, HIR and net books out.
//
//   Core ─to HIR─► HIR ─prune, linearize matches, linearize variables,
//   float combinators, merge, expand main─► HIR ─lower, eta─► net book
//   ─recursion cycles, inline, net sizes (BookChecks.h)─► net book
//   ─polarize─► runtime book
//
// One pipeline: after prune (a module pass), translating to HIR,
// linearizing, floating and lowering go function by function (floating
// drives them; without it, they go in module order). -Omerge, which compares
// whole functions, runs between floating and lowering, and then lowering
// waits for it. With verifyEachPass the verifier runs after each pass on each
// function it changed (after a module pass, on the module), in that same
// pipeline.
#pragma once

#include "support/Diagnostic.h"
#include "ir/Core.h"
#include "ir/Hir.h"
#include "ir/Net.h"
#include "ir/Passes.h"
#include "runtime/common/Book.h"

#include <memory>
#include <optional>

namespace bendc::lowering {

/// Bend's -O switches, with Bend's defaults.
struct CompileOptions {
  hir::MatchLinearization linearizeMatches = hir::MatchLinearization::Enabled;
  bool floatCombinators = true;
  bool merge = false;
  bool prune = false; // drop every definition main does not reach (builtins always are)
  bool eta = true;
  /// -Oinline: references to definitions that are one leaf become the leaf.
  bool inlineDefinitions = false;
  /// -Ocheck-net-size: a definition larger than HVM2's C runtime loads is an
  /// error (bendc's own runtime has no such limit).
  bool checkNetSize = false;
  /// The entry point's name in the book: `main`, or the name -e gives.
  std::string entryName = "main";
  /// Run the HIR verifier after every pass; a failure is an internal error.
  bool verifyEachPass = false;
  /// Keep every function's instructions in the result's HIR. Otherwise
  /// those of most functions are let go once they are lowered, and the
  /// result's HIR holds them only for the entry point and what it inlines.
  bool keepFunctions = false;
};

struct CompileResult {
  std::unique_ptr<hir::Module> hir;
  net::Book net;
  std::optional<rt::Book> book; // null when there were errors, or there is no entry point
  /// Verifier failures: a pass broke the HIR or lowering the net (a bug in bendc, not in the
  /// program). Each names the pass.
  std::vector<std::string> internalErrors;
  /// With verifyEachPass: the passes after which the verifier ran, in the
  /// order each first ran.
  std::vector<std::string> verifiedPasses;
};

/// Compiles `program` (whose diagnostics are in `diags`) down to a runtime
/// book. Runs on a thread with a large stack: deep programs recurse deeply.
CompileResult compileToBook(const core::Program &program, const CompileOptions &options,
                            DiagnosticEngine &diags);

} // namespace bendc::lowering
