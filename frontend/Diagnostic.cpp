#include "frontend/Diagnostic.h"

#include "llvm/Support/ConvertUTF.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

namespace bendc {

namespace {
struct KindInfo {
  llvm::StringRef name;
  Severity severity;
};
constexpr KindInfo kindInfos[] = {
#define DIAG(Name, Sev, Summary) {#Name, Severity::Sev},
#include "frontend/DiagnosticKinds.def"
};
constexpr DiagKind kindList[] = {
#define DIAG(Name, Sev, Summary) DiagKind::Name,
#include "frontend/DiagnosticKinds.def"
};

/// Kinds that `-W/-A/-D NAME` control, with their default action (Bend's
/// command-line defaults: warnings, except a missing main and a recursion
/// cycle) and whether `all` names them. As in Bend, `all` leaves out a
/// missing main; it also leaves out bendc's own lints, so that `-Dall`
/// rejects only what Bend would.
struct WarningInfo {
  DiagKind kind;
  llvm::StringRef name;
  WarningAction byDefault;
  bool inAll;
};
constexpr WarningInfo warningInfos[] = {
    {DiagKind::UnusedDefinition, "unused-definition", WarningAction::Warn, true},
    {DiagKind::UnusedVariable, "unused-variable", WarningAction::Allow, false},
    {DiagKind::UnreachableCase, "unreachable-match", WarningAction::Warn, true},
    {DiagKind::RedundantCase, "redundant-match", WarningAction::Warn, true},
    {DiagKind::RepeatedBind, "repeated-bind", WarningAction::Warn, true},
    {DiagKind::IrrefutableMatch, "irrefutable-match", WarningAction::Warn, true},
    {DiagKind::ImportShadow, "import-shadow", WarningAction::Warn, true},
    {DiagKind::RecursionCycle, "recursion-cycle", WarningAction::Deny, true},
    {DiagKind::MissingMain, "missing-main", WarningAction::Deny, false},
};
} // namespace

llvm::StringRef diagKindName(DiagKind kind) { return kindInfos[unsigned(kind)].name; }
Severity diagKindSeverity(DiagKind kind) { return kindInfos[unsigned(kind)].severity; }
llvm::ArrayRef<DiagKind> allDiagKinds() { return kindList; }

llvm::StringRef warningName(DiagKind kind) {
  for (const WarningInfo &w : warningInfos)
    if (w.kind == kind)
      return w.name;
  return {};
}

llvm::SmallVector<DiagKind, 4> warningKindsNamed(llvm::StringRef name) {
  llvm::SmallVector<DiagKind, 4> out;
  for (const WarningInfo &w : warningInfos)
    if (name == "all" ? w.inAll : w.name == name)
      out.push_back(w.kind);
  return out;
}

std::vector<llvm::StringRef> warningNames() {
  std::vector<llvm::StringRef> names{"all"};
  for (const WarningInfo &w : warningInfos)
    names.push_back(w.name);
  return names;
}

DiagnosticEngine::DiagnosticEngine(llvm::SourceMgr &sources)
    : sources(sources), actions(std::size(kindInfos), WarningAction::Deny) {
  for (DiagKind k : kindList)
    if (diagKindSeverity(k) == Severity::Warning)
      actions[unsigned(k)] = WarningAction::Warn;
  for (const WarningInfo &w : warningInfos)
    actions[unsigned(w.kind)] = w.byDefault;
}

void DiagnosticEngine::setWarningAction(DiagKind kind, WarningAction action) {
  actions[unsigned(kind)] = action;
}

Diagnostic &DiagnosticEngine::report(DiagKind kind, llvm::SMRange range, std::string message) {
  Severity severity = diagKindSeverity(kind);
  if (!warningName(kind).empty()) {
    switch (actions[unsigned(kind)]) {
    case WarningAction::Allow:
      discarded = Diagnostic{kind, Severity::Warning, range, std::move(message), {}};
      return discarded;
    case WarningAction::Warn:
      severity = Severity::Warning;
      break;
    case WarningAction::Deny:
      severity = Severity::Error;
      break;
    }
  }
  if (!seen.emplace(unsigned(kind), range.Start.getPointer(), message).second) {
    discarded = Diagnostic{kind, severity, range, std::move(message), {}};
    return discarded;
  }
  if (severity == Severity::Error)
    ++errorCount;
  if (diags.size() >= kMaxDiagnostics) {
    if (diags.size() == kMaxDiagnostics)
      diags.push_back(Diagnostic{kind, Severity::Note, llvm::SMRange(),
                                 "too many diagnostics; the rest are not shown", {}});
    discarded = Diagnostic{kind, severity, range, std::move(message), {}};
    return discarded;
  }
  diags.push_back(Diagnostic{kind, severity, range, std::move(message), {}});
  return diags.back();
}

static llvm::SourceMgr::DiagKind toLLVM(Severity s) {
  switch (s) {
  case Severity::Error: return llvm::SourceMgr::DK_Error;
  case Severity::Warning: return llvm::SourceMgr::DK_Warning;
  case Severity::Note: return llvm::SourceMgr::DK_Note;
  }
  return llvm::SourceMgr::DK_Error;
}

void DiagnosticEngine::renderText(llvm::raw_ostream &os, bool color) const {
  for (const Diagnostic &d : diags) {
    std::string msg = d.message + " [" + diagKindName(d.kind).str() + "]";
    llvm::ArrayRef<llvm::SMRange> ranges;
    if (d.range.Start != d.range.End)
      ranges = d.range;
    if (d.range.Start.isValid())
      sources.PrintMessage(os, d.range.Start, toLLVM(d.severity), msg, ranges, {}, color);
    else
      os << (d.severity == Severity::Error ? "error: " : "warning: ") << msg << "\n";
    for (const DiagNote &n : d.notes)
      if (n.range.Start.isValid()) {
        llvm::ArrayRef<llvm::SMRange> noteRanges;
        if (n.range.Start != n.range.End)
          noteRanges = n.range;
        sources.PrintMessage(os, n.range.Start, llvm::SourceMgr::DK_Note, n.message, noteRanges, {},
                             color);
      } else
        os << "note: " << n.message << "\n";
  }
}

namespace {
/// An LSP position: 0-based line and a column in UTF-16 code units.
struct Position {
  unsigned line = 0, character = 0;
  size_t offset = 0;
  llvm::StringRef file;
  bool valid = false;
};

Position locate(const llvm::SourceMgr &sm, llvm::SMLoc loc) {
  Position p;
  if (!loc.isValid())
    return p;
  unsigned id = sm.FindBufferContainingLoc(loc);
  if (id == 0)
    return p;
  const llvm::MemoryBuffer *buf = sm.getMemoryBuffer(id);
  const char *ptr = loc.getPointer();
  p.valid = true;
  p.file = buf->getBufferIdentifier();
  p.offset = size_t(ptr - buf->getBufferStart());
  p.line = sm.getLineAndColumn(loc, id).first - 1;
  const char *lineStart = ptr;
  while (lineStart > buf->getBufferStart() && lineStart[-1] != '\n')
    --lineStart;
  // UTF-16 units: one per code point below U+10000, two above.
  for (const char *c = lineStart; c < ptr;) {
    unsigned len = llvm::getNumBytesForUTF8(static_cast<unsigned char>(*c));
    if (len == 0 || c + len > ptr)
      len = 1;
    p.character += len == 4 ? 2 : 1;
    c += len;
  }
  return p;
}

void writeRange(llvm::json::OStream &j, const Position &b, const Position &e) {
  j.attributeObject("range", [&] {
    j.attributeObject("start", [&] {
      j.attribute("line", int64_t(b.line));
      j.attribute("character", int64_t(b.character));
    });
    j.attributeObject("end", [&] {
      j.attribute("line", int64_t(e.line));
      j.attribute("character", int64_t(e.character));
    });
  });
  j.attributeObject("byteRange", [&] {
    j.attribute("start", int64_t(b.offset));
    j.attribute("end", int64_t(e.offset));
  });
}

std::string utf8(llvm::StringRef s) {
  return llvm::json::isUTF8(s) ? s.str() : llvm::json::fixUTF8(s);
}

int lspSeverity(Severity s) {
  switch (s) {
  case Severity::Error: return 1;
  case Severity::Warning: return 2;
  case Severity::Note: return 3;
  }
  return 1;
}
} // namespace

void DiagnosticEngine::renderJson(llvm::raw_ostream &os) const {
  for (const Diagnostic &d : diags) {
    Position b = locate(sources, d.range.Start);
    Position e = d.range.End.isValid() ? locate(sources, d.range.End) : b;
    if (!e.valid)
      e = b;
    llvm::json::OStream j(os);
    j.object([&] {
      if (b.valid)
        j.attribute("file", utf8(b.file));
      writeRange(j, b, e);
      j.attribute("severity", lspSeverity(d.severity));
      j.attribute("code", diagKindName(d.kind));
      j.attribute("source", "bendc");
      j.attribute("message", utf8(d.message));
      j.attributeArray("relatedInformation", [&] {
        for (const DiagNote &n : d.notes) {
          Position nb = locate(sources, n.range.Start);
          Position ne = n.range.End.isValid() ? locate(sources, n.range.End) : nb;
          if (!ne.valid)
            ne = nb;
          j.object([&] {
            j.attributeObject("location", [&] {
              if (nb.valid)
                j.attribute("file", utf8(nb.file));
              writeRange(j, nb, ne);
            });
            j.attribute("message", utf8(n.message));
          });
        }
      });
    });
    os << '\n';
  }
}

} // namespace bendc
