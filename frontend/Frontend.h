// The .bend frontend's one entry: a file in, Core (or a stage dump) out.
#pragma once

#include "support/Diagnostic.h"
#include "frontend/Index.h"
#include "ir/Core.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"

#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace llvm {
class SourceMgr;
}

namespace bendc::frontend {

enum class EmitStage { None, Tokens, Ast, Core };

struct FrontendOptions {
  EmitStage emit = EmitStage::None;
  core::AdtEncoding encoding = core::AdtEncoding::NumScott;
  /// `-W/-A/-D NAME` in command-line order; later ones win.
  std::vector<std::pair<std::string, WarningAction>> warnings;
  bool prelude = true;       // link the builtin prelude (off in some tests)
  bool typeCheck = true;     // infer and check the types of checked definitions
  bool emitBuiltins = false; // --emit=core also prints the prelude's definitions
  /// Terms (fun syntax) that main is applied to, as `bend run prog ARG...` does.
  std::vector<std::string> mainArgs;
  /// Sharing recovery (ir/Sharing.h) on the finished Core: -Osharing.
  bool sharing = true;
  /// Run the Core verifier after desugaring and after sharing recovery.
  bool verify = false;
  /// Build a ProgramIndex of the main file (for editors).
  bool index = false;
  /// The entry point's name (-e), when it is not `main` (or `Main`).
  std::string entryPoint;
  /// A file without an entry point is an error (not for an editor, which
  /// also opens the files a program imports).
  bool requireMain = true;
  /// Files read from here instead of the disk, by path as imports spell it
  /// after `.`/`..` are removed (an editor's unsaved documents).
  const llvm::StringMap<std::string> *unsavedFiles = nullptr;
  /// Called once every file is parsed, with the bytes their syntax trees
  /// take: a driver may prepare memory for what follows.
  std::function<void(size_t syntaxBytes)> parsed;
};

struct FrontendResult {
  std::string emitted;                  // the text for --emit, if any
  std::unique_ptr<core::Program> program; // null when there were errors or only tokens/ast were asked
  unsigned shared = 0;                    // subterms sharing recovery let-bound
  /// With FrontendOptions::verify: what the Core verifier found after
  /// desugaring and after sharing recovery (a bug in bendc, not in the
  /// program), each naming the phase.
  std::vector<std::string> internalErrors;
  std::unique_ptr<ProgramIndex> index;    // when FrontendOptions::index; also after errors
};

/// Reads `path` into `sm`, then lexes, parses, resolves and desugars it (and
/// what it imports) to Core. Every problem goes to `diags`.
FrontendResult runFrontend(llvm::SourceMgr &sm, llvm::StringRef path, const FrontendOptions &opts,
                           DiagnosticEngine &diags);

/// The same for a buffer already in `sm` (tests, fuzzing, benchmarks).
FrontendResult runFrontendOnBuffer(llvm::SourceMgr &sm, unsigned bufferId,
                                   const FrontendOptions &opts, DiagnosticEngine &diags);

/// Applies `opts.warnings` to `diags`; returns the unknown names.
std::vector<std::string> applyWarningOptions(const FrontendOptions &opts, DiagnosticEngine &diags);

} // namespace bendc::frontend
