#include "readback/Printer.h"

#include "runtime/common/Numeric.h"
#include "runtime/common/NumericText.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/ConvertUTF.h"
#include "llvm/Support/Unicode.h"

#include <cmath>
#include <cstdio>
#include <cstring>

namespace bendc::readback {

namespace num = rt::num;

namespace {

/// Whether Rust's `{:?}` for strings writes `c` as `\u{...}`: control,
/// format, separator (but ' '), private-use and unassigned characters, and
/// combining marks. LLVM's Unicode tables stand in for Rust's, which may be
/// newer: a character assigned since then is escaped here and not by Bend.
bool escapesAsUnicode(char32_t c) {
  if (c < 0x20 || c == 0x7F)
    return true;
  if (c < 0x7F)
    return false;
  if (c == 0xA0 || c == 0xAD || c == 0x1680 || (c >= 0x2000 && c <= 0x200F) ||
      (c >= 0x2028 && c <= 0x202F) || (c >= 0x205F && c <= 0x206F) || c == 0x3000 ||
      c == 0xFEFF || (c >= 0xE000 && c <= 0xF8FF) || c >= 0xF0000)
    return true;
  if (!llvm::sys::unicode::isPrintable(int(c)))
    return true;
  char buf[8];
  char *end = buf;
  if (!llvm::ConvertCodePointToUTF8(unsigned(c), end))
    return true;
  return llvm::sys::unicode::columnWidthUTF8(llvm::StringRef(buf, size_t(end - buf))) == 0;
}

void appendStringLiteral(std::string &out, const std::u32string &s) {
  out += '"';
  for (char32_t c : s) {
    switch (c) {
    case U'\t': out += "\\t"; continue;
    case U'\r': out += "\\r"; continue;
    case U'\n': out += "\\n"; continue;
    case U'\\': out += "\\\\"; continue;
    case U'"': out += "\\\""; continue;
    case U'\0': out += "\\0"; continue;
    default: break;
    }
    if (escapesAsUnicode(c)) {
      char buf[16];
      std::snprintf(buf, sizeof buf, "\\u{%x}", unsigned(c));
      out += buf;
      continue;
    }
    char buf[8];
    char *end = buf;
    if (llvm::ConvertCodePointToUTF8(unsigned(c), end))
      out.append(buf, size_t(end - buf));
  }
  out += '"';
}

/// u24 plain, i24 always signed, f24 with three decimals (Rust's `{:.3}`:
/// exact, ties to even, `-0.000`, `NaN`, `inf`).
void appendNumber(std::string &out, core::NumKind kind, uint32_t value) {
  switch (kind) {
  case core::NumKind::U24: out += std::to_string(value); return;
  case core::NumKind::I24: {
    int64_t v = int32_t(value);
    out += v < 0 ? '-' : '+';
    out += std::to_string(v < 0 ? -v : v);
    return;
  }
  case core::NumKind::F24: {
    float f = num::bitsFloat(value);
    if (std::isnan(f)) {
      out += "NaN";
      return;
    }
    if (std::isinf(f)) {
      out += f < 0 ? "-inf" : "inf";
      return;
    }
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.3f", double(f));
    out += buf;
    return;
  }
  }
}

} // namespace

std::string print(const Terms &terms, TermId root, bool pretty) {
  struct Item {
    enum Kind : uint8_t { Term, AppHead, Text, Indent } kind;
    TermId t;
    const char *text;
    unsigned tab = 0; // pretty: the indentation of the term's lines
  };
  std::string out;
  auto pattern = [&](Pat p, NameId n) {
    if (p == Pat::Erased) {
      out += '*';
      return;
    }
    if (p == Pat::Chn)
      out += '$';
    terms.names.append(out, n);
  };
  std::vector<Item> stack{{Item::Term, root, nullptr, 0}};
  unsigned tab = 0;
  auto term = [&](TermId t, unsigned extra = 0) { stack.push_back({Item::Term, t, nullptr, tab + extra}); };
  auto text = [&](const char *s) { stack.push_back({Item::Text, NoTerm, s}); };
  auto newline = [&](unsigned extra) { // pretty: a line break, then the indentation
    stack.push_back({Item::Indent, NoTerm, nullptr, tab + extra});
    text("\n");
  };
  while (!stack.empty()) {
    Item it = stack.back();
    stack.pop_back();
    if (it.kind == Item::Text) {
      out += it.text;
      continue;
    }
    if (it.kind == Item::Indent) {
      out.append(it.tab, ' ');
      continue;
    }
    tab = it.tab;
    const TermNode &n = terms[it.t];
    if (it.kind == Item::AppHead && n.kind == TK::App) {
      // `((f a) b)` prints as `(f a b)`.
      term(n.b);
      text(" ");
      stack.push_back({Item::AppHead, n.a, nullptr, tab});
      continue;
    }
    switch (n.kind) {
    case TK::Var: terms.names.append(out, n.name1); break;
    case TK::Link:
      out += '$';
      terms.names.append(out, n.name1);
      break;
    case TK::Ref: terms.names.append(out, n.name1); break;
    case TK::Era: out += '*'; break;
    case TK::Err: out += pretty ? "<Error>" : "<Invalid>"; break; // as Bend's two displays
    case TK::Num: appendNumber(out, core::NumKind(n.sub), n.a); break;
    case TK::Str: appendStringLiteral(out, terms.strs[n.a]); break;
    case TK::Lam:
      out += "λ";
      pattern(n.pat1, n.name1);
      out += ' ';
      term(n.a);
      break;
    case TK::App:
      out += '(';
      text(")");
      term(n.b);
      text(" ");
      stack.push_back({Item::AppHead, n.a, nullptr, tab});
      break;
    case TK::Let: {
      bool dup = FanKind(n.sub) == FanKind::Dup;
      out += "let ";
      out += dup ? '{' : '(';
      pattern(n.pat1, n.name1);
      out += dup ? " " : ", ";
      pattern(n.pat2, n.name2);
      out += dup ? '}' : ')';
      out += " = ";
      term(n.b);
      if (pretty)
        newline(0);
      text(pretty ? ";" : "; ");
      term(n.a);
      break;
    }
    case TK::Fan: {
      bool dup = FanKind(n.sub) == FanKind::Dup;
      out += dup ? '{' : '(';
      text(dup ? "}" : ")");
      term(n.b);
      text(dup ? " " : ", ");
      term(n.a);
      break;
    }
    case TK::List: {
      const std::vector<TermId> &els = terms.lists[n.a];
      out += '[';
      text("]");
      for (size_t i = els.size(); i-- > 0;) {
        term(els[i]);
        if (i != 0)
          text(pretty ? " " : ", ");
      }
      break;
    }
    case TK::Oper:
      out += '(';
      out += core::opSymbol(core::Op(n.sub));
      out += ' ';
      text(")");
      term(n.b);
      text(" ");
      term(n.a);
      break;
    case TK::Swt:
      out += "switch ";
      if (n.name1 != NoName) { // a generated definition's switch names no variable
        terms.names.append(out, n.name1);
        out += " = ";
      }
      if (pretty) {
        stack.push_back({Item::Text, NoTerm, "}"});
        stack.push_back({Item::Indent, NoTerm, nullptr, tab});
        text(";\n");
        term(n.c, 4);
        text("_: ");
        stack.push_back({Item::Indent, NoTerm, nullptr, tab + 2});
        text(";\n");
        term(n.b, 4);
        text("0: ");
        stack.push_back({Item::Indent, NoTerm, nullptr, tab + 2});
        text(" {\n");
        term(n.a);
        break;
      }
      text("; }");
      term(n.c);
      text("; _: ");
      term(n.b);
      text(" { 0: ");
      term(n.a);
      break;
    }
  }
  return out;
}

} // namespace bendc::readback
