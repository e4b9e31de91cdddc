#include "support/Diagnostic.h"

#include "llvm/Support/ConvertUTF.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>

namespace bendc {

namespace {
struct KindInfo {
  llvm::StringRef name;
  Severity severity;
};
constexpr KindInfo kindInfos[] = {
#define DIAG(Name, Sev, Summary) {#Name, Severity::Sev},
#include "support/DiagnosticKinds.def"
};
constexpr DiagKind kindList[] = {
#define DIAG(Name, Sev, Summary) DiagKind::Name,
#include "support/DiagnosticKinds.def"
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
    {DiagKind::DivisionByZero, "division-by-zero", WarningAction::Warn, false},
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
  if (muted) {
    discarded = Diagnostic{kind, severity, range, std::move(message), {}};
    return discarded;
  }
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

namespace {
/// The longest source line shown in full under a message; a longer one is
/// shown around the caret, its cut ends marked `...`.
constexpr size_t MaxShownLine = 240, ShownAroundCaret = 100;

/// Prints a message with its source line as SourceMgr does, except that a
/// long line is clipped around the caret and bytes a terminal would not
/// show as text (control characters, bytes that are not UTF-8) are shown
/// as '?'.
void printMessage(const llvm::SourceMgr &sm, llvm::raw_ostream &os, llvm::SMLoc loc,
                  llvm::SourceMgr::DiagKind kind, const std::string &msg,
                  llvm::ArrayRef<llvm::SMRange> ranges, bool color) {
  llvm::SMDiagnostic d = sm.GetMessage(loc, kind, msg, ranges, {});
  std::string line = d.getLineContents().str();
  size_t col = d.getColumnNo() < 0 ? 0 : size_t(d.getColumnNo());
  size_t begin = 0, end = line.size();
  if (line.size() > MaxShownLine) {
    begin = col > ShownAroundCaret ? col - ShownAroundCaret : 0;
    while (begin > 0 && (static_cast<unsigned char>(line[begin]) & 0xC0) == 0x80)
      --begin; // not in the middle of a character
    end = std::min(line.size(), begin + 2 * ShownAroundCaret);
    while (end < line.size() && (static_cast<unsigned char>(line[end]) & 0xC0) == 0x80)
      ++end;
  }
  std::string shown = line.substr(begin, end - begin);
  bool sanitized = false;
  for (size_t i = 0; i < shown.size();) {
    unsigned char c = static_cast<unsigned char>(shown[i]);
    if (c < 0x80) {
      if ((c < 0x20 && c != '\t') || c == 0x7F) {
        shown[i] = '?';
        sanitized = true;
      }
      ++i;
      continue;
    }
    auto *p = reinterpret_cast<const llvm::UTF8 *>(shown.data() + i);
    if (llvm::isLegalUTF8Sequence(p, p + (shown.size() - i))) {
      i += llvm::getNumBytesForUTF8(c);
      continue;
    }
    shown[i++] = '?';
    sanitized = true;
  }
  bool whole = begin == 0 && end == line.size();
  if (whole && !sanitized) {
    sm.PrintMessage(os, loc, kind, msg, ranges, {}, color);
    return;
  }
  // As SourceMgr prints it: the imports that led to this file.
  unsigned buffer = sm.FindBufferContainingLoc(loc);
  for (llvm::SMLoc at = buffer ? sm.getParentIncludeLoc(buffer) : llvm::SMLoc(); at.isValid();) {
    unsigned parent = sm.FindBufferContainingLoc(at);
    os << "Included from " << sm.getMemoryBuffer(parent)->getBufferIdentifier() << ':'
       << sm.FindLineNumber(at, parent) << ":\n";
    at = sm.getParentIncludeLoc(parent);
  }
  size_t lead = begin > 0 ? 3 : 0;
  if (begin > 0)
    shown = "..." + shown;
  if (end < line.size())
    shown += "...";
  auto place = [&](size_t c) { return unsigned(std::clamp(c, begin, end) - begin + lead); };
  std::vector<std::pair<unsigned, unsigned>> columns;
  for (const auto &[from, to] : d.getRanges())
    if (to > begin && from < end)
      columns.emplace_back(place(from), place(to));
  // A clipped line: the place is printed here with the true column, and the
  // message (made without a file name, so without a place) puts the caret
  // in the clipped line.
  if (!whole) {
    llvm::WithColor bold(os, llvm::raw_ostream::SAVEDCOLOR, /*Bold=*/true, /*BG=*/false,
                         color ? llvm::ColorMode::Enable : llvm::ColorMode::Disable);
    os << d.getFilename() << ':' << d.getLineNo() << ':' << (d.getColumnNo() + 1) << ": ";
  }
  llvm::SMDiagnostic shownDiag(sm, d.getLoc(), whole ? d.getFilename() : llvm::StringRef(),
                               d.getLineNo(), d.getColumnNo() < 0 ? -1 : int(place(col)), kind,
                               d.getMessage(), shown, columns);
  shownDiag.print(nullptr, os, color);
}
} // namespace

void DiagnosticEngine::renderText(llvm::raw_ostream &os, bool color) const {
  for (const Diagnostic &d : diags) {
    std::string msg = d.message + " [" + diagKindName(d.kind).str() + "]";
    llvm::ArrayRef<llvm::SMRange> ranges;
    if (d.range.Start != d.range.End)
      ranges = d.range;
    if (d.range.Start.isValid())
      printMessage(sources, os, d.range.Start, toLLVM(d.severity), msg, ranges, color);
    else
      os << (d.severity == Severity::Error ? "error: " : "warning: ") << msg << "\n";
    for (const DiagNote &n : d.notes)
      if (n.range.Start.isValid()) {
        llvm::ArrayRef<llvm::SMRange> noteRanges;
        if (n.range.Start != n.range.End)
          noteRanges = n.range;
        printMessage(sources, os, n.range.Start, llvm::SourceMgr::DK_Note, n.message, noteRanges,
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
