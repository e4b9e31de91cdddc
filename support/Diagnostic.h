// Diagnostics: every phase reports through one DiagnosticEngine; only the
// driver decides how (and whether) to print them.
#pragma once

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/SMLoc.h"
#include "llvm/Support/SourceMgr.h"

#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace bendc {

enum class DiagKind : uint16_t {
#define DIAG(Name, Severity, Summary) Name,
#include "support/DiagnosticKinds.def"
};

enum class Severity : uint8_t { Error, Warning, Note };

llvm::StringRef diagKindName(DiagKind kind);
Severity diagKindSeverity(DiagKind kind);
llvm::ArrayRef<DiagKind> allDiagKinds();

struct DiagNote {
  llvm::SMRange range;
  std::string message;
};

struct Diagnostic {
  DiagKind kind;
  Severity severity;
  llvm::SMRange range; // begin == end for a point
  std::string message; // lowercase, no trailing period
  std::vector<DiagNote> notes;
};

/// What to do with a warning kind: Bend's `-A` (allow), `-W` (warn), `-D` (deny).
enum class WarningAction : uint8_t { Allow, Warn, Deny };

/// The name a warning kind has on the command line (`unused-definition`), or
/// an empty string for kinds that are not controllable.
llvm::StringRef warningName(DiagKind kind);
/// Finds the kinds a command-line name controls; "all" names Bend's warnings
/// (not missing-main, nor bendc's own lints).
llvm::SmallVector<DiagKind, 4> warningKindsNamed(llvm::StringRef name);
/// Every name `-W/-A/-D` take, `all` first.
std::vector<llvm::StringRef> warningNames();

class DiagnosticEngine {
public:
  explicit DiagnosticEngine(llvm::SourceMgr &sources);

  Diagnostic &report(DiagKind kind, llvm::SMRange range, std::string message);
  Diagnostic &report(DiagKind kind, llvm::SMLoc loc, std::string message) {
    return report(kind, llvm::SMRange(loc, loc), std::move(message));
  }

  bool hasErrors() const { return errorCount != 0; }
  unsigned errors() const { return errorCount; }
  const std::vector<Diagnostic> &diagnostics() const { return diags; }
  llvm::SourceMgr &sourceMgr() { return sources; }

  /// `file:line:col: error: message [Kind]`, the source line and a caret.
  void renderText(llvm::raw_ostream &os, bool color = false) const;
  /// One JSON object per line in the shape of an LSP Diagnostic, plus the file
  /// and byte offsets; nothing else is written.
  void renderJson(llvm::raw_ostream &os) const;

  void setWarningAction(DiagKind kind, WarningAction action);
  WarningAction warningAction(DiagKind kind) const { return actions[unsigned(kind)]; }

  /// While muted, reports are dropped and counted nowhere: a phase that
  /// walks code it gave up on only to learn its names (for an editor)
  /// reports nothing there. Returns whether it was muted before.
  bool setMuted(bool m) { return std::exchange(muted, m); }

private:
  llvm::SourceMgr &sources;
  std::vector<Diagnostic> diags;
  std::vector<WarningAction> actions;
  Diagnostic discarded; // what report() returns for an allowed warning
  // Past this many, diagnostics are counted but not kept: a hostile input
  // must not make rendering quadratic.
  static constexpr size_t kMaxDiagnostics = 1000;
  // A phase may visit one piece of source twice (a rule body copied into
  // several match arms); each diagnostic is still reported once.
  std::set<std::tuple<unsigned, const char *, std::string>> seen;
  unsigned errorCount = 0;
  bool muted = false;
};

} // namespace bendc
