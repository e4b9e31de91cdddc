#include "frontend/hvm/HvmReader.h"

#include "frontend/hvm/HvmLexer.h"
#include "runtime/common/NumericText.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MemoryBuffer.h"

namespace bendc::hvm {

namespace {

using hvm::Tok;
using hvm::Token;
using net::TreeId;
using net::TreeKind;

/// Long names in messages are cut, so that one message stays one line.
std::string quoted(llvm::StringRef text) {
  constexpr size_t limit = 40;
  if (text.size() <= limit)
    return ("'" + text + "'").str();
  return ("'" + text.take_front(limit) + "...'").str();
}

std::string describeByte(const char *p, const char *bufferEnd) {
  unsigned char c = static_cast<unsigned char>(*p);
  if (c == 0 && p == bufferEnd)
    return "end of file";
  if (c == '\n')
    return "end of line";
  if (llvm::isPrint(c))
    return std::string("'") + char(c) + "'";
  return std::string("byte 0x") + llvm::hexdigit(c >> 4, true) + llvm::hexdigit(c & 15, true);
}

std::string describe(const Token &t, const char *bufferEnd) {
  switch (t.kind) {
  case Tok::Eof: return "end of file";
  case Tok::Name: return "name " + quoted(t.text());
  case Tok::Number: return "number " + quoted(t.text());
  case Tok::Symbol: return "operator symbol " + quoted(t.text());
  case Tok::OpenSymbol: return "'['";
  case Tok::Invalid: return describeByte(t.begin, bufferEnd);
  default: return quoted(t.text());
  }
}

/// How often a variable occurs in the definition being read.
struct VarUse {
  unsigned count = 0;
  llvm::SMLoc first; // reported when the variable occurs once
  llvm::SMLoc third; // reported when it occurs more than twice
};

/// A node whose children are being read; the explicit stack keeps deeply
/// nested trees off the call stack.
struct OpenNode {
  TreeKind kind;
  llvm::SMLoc loc;
  Tok closer;
  TreeId fst;
  bool hasFst = false;
};

class Reader {
public:
  Reader(llvm::StringRef text, DiagnosticEngine &diags,
         llvm::function_ref<bool(llvm::StringRef)> definedOutside = nullptr)
      : lexer(text), bufferStart(text.begin()), bufferEnd(text.end()), diags(diags),
        definedOutside(definedOutside) {}

  std::optional<net::Book> read();

private:
  void advance() { shift(lexer.next()); }
  void advanceToName() { shift(lexer.nextName()); }
  void shift(Token t) {
    prev2 = prev1;
    prev1 = cur;
    cur = t;
  }

  void errorExpected(llvm::StringRef what);
  void errorExpectedAt(llvm::StringRef what, const Token &found) {
    diags.report(DiagKind::HvmSyntax, found.loc(),
                 ("expected " + what + " but found " + describe(found, bufferEnd)).str());
  }
  bool expect(Tok kind, llvm::StringRef what) {
    if (cur.kind != kind) {
      errorExpected(what);
      return false;
    }
    advance();
    return true;
  }

  bool parseDefinition();
  bool parseRedexes(net::Def &def);
  TreeId parseTree();
  bool openNode();
  TreeId parseLeaf();
  TreeId parseNumber();
  TreeId parseSymbol();
  TreeId parseVar();
  TreeId parseRef();

  bool registerDefinition(uint32_t name, llvm::SMLoc loc);
  void checkVariables(llvm::StringRef defName);
  void checkReferences();
  void checkMain();
  void recover(const char *defStart);
  bool atDefinitionStart();
  std::optional<Token> definitionNameAhead();

  hvm::HvmLexer lexer;
  const char *bufferStart;
  const char *bufferEnd;
  DiagnosticEngine &diags;
  /// For definitions that are part of a larger book: the names defined in
  /// the rest of it (and @main need not be here). Null for a whole book.
  llvm::function_ref<bool(llvm::StringRef)> definedOutside;
  Token cur, prev1, prev2;

  net::Book book;
  /// Every definition name read, even of definitions with syntax errors, so
  /// that a broken definition does not also make its references unbound.
  llvm::DenseMap<uint32_t, llvm::SMLoc> defined;
  std::vector<std::pair<uint32_t, llvm::SMLoc>> references;
  llvm::DenseMap<uint32_t, VarUse> vars;
  std::vector<uint32_t> varOrder; // first-occurrence order, for stable messages
  std::vector<OpenNode> openNodes;
};

std::optional<net::Book> Reader::read() {
  unsigned errorsBefore = diags.errors();
  advance();
  while (cur.kind != Tok::Eof) {
    const char *defStart = cur.begin;
    if (!parseDefinition())
      recover(defStart);
  }
  checkReferences();
  if (!definedOutside)
    checkMain();
  if (diags.errors() != errorsBefore)
    return std::nullopt;
  return std::move(book);
}

void Reader::errorExpected(llvm::StringRef what) {
  // A definition left open runs into the next one; say so rather than
  // "found '@'" or, when `@name` was already read as a reference, "found '='".
  llvm::SMLoc at;
  llvm::StringRef name;
  if (cur.kind == Tok::Equals && prev1.kind == Tok::Name && prev2.kind == Tok::At) {
    at = prev2.loc();
    name = prev1.text();
  } else if (cur.kind == Tok::At) {
    if (std::optional<Token> ahead = definitionNameAhead()) {
      at = cur.loc();
      name = ahead->text();
    }
  }
  if (at.isValid()) {
    diags.report(DiagKind::HvmSyntax, at,
                 ("expected " + what + " before the definition of @" + name).str());
    return;
  }
  errorExpectedAt(what, cur);
}

bool Reader::parseDefinition() {
  if (cur.kind != Tok::At) {
    errorExpected("a definition '@name = ...'");
    return false;
  }
  llvm::SMLoc loc = cur.loc();
  advanceToName();
  if (cur.kind != Tok::Name) {
    errorExpected("a definition name after '@'");
    return false;
  }
  uint32_t name = book.intern(cur.text());
  bool first = registerDefinition(name, loc);
  advance();
  if (!expect(Tok::Equals, "'='"))
    return false;

  vars.clear();
  varOrder.clear();
  net::Def def{name, parseTree(), {}, loc};
  if (!def.root.valid())
    return false;
  // `@a =` with nothing after it reads the next definition's `@b` as its root.
  if (cur.kind == Tok::Equals && book.loc(def.root) == prev2.loc()) {
    errorExpected("a tree");
    return false;
  }
  if (!parseRedexes(def))
    return false;
  if (cur.kind != Tok::At && cur.kind != Tok::Eof) {
    errorExpected("'&' or a new definition");
    return false;
  }
  checkVariables(book.names[name]);
  // The first of two same-named definitions is the one kept.
  if (first)
    book.defs.push_back(std::move(def));
  return true;
}

bool Reader::parseRedexes(net::Def &def) {
  while (cur.kind == Tok::Amp || cur.kind == Tok::AmpBang) {
    net::Redex redex;
    redex.parallel = cur.kind == Tok::AmpBang;
    redex.loc = cur.loc();
    advance();
    redex.lhs = parseTree();
    if (!redex.lhs.valid() || !expect(Tok::Tilde, "'~'"))
      return false;
    redex.rhs = parseTree();
    if (!redex.rhs.valid())
      return false;
    def.redexes.push_back(redex);
  }
  return true;
}

/// Records a definition's name; false (and an error) when it is taken.
bool Reader::registerDefinition(uint32_t name, llvm::SMLoc loc) {
  auto [it, inserted] = defined.try_emplace(name, loc);
  if (inserted)
    return true;
  Diagnostic &d = diags.report(DiagKind::HvmDuplicateDefinition, loc,
                               "duplicate definition of @" + book.names[name].str());
  d.notes.push_back({llvm::SMRange(it->second, it->second), "previous definition is here"});
  return false;
}

TreeId Reader::parseTree() {
  openNodes.clear();
  for (;;) {
    while (cur.kind == Tok::LParen || cur.kind == Tok::LBrace || cur.kind == Tok::Dollar ||
           cur.kind == Tok::Question)
      if (!openNode())
        return TreeId{};
    TreeId done = parseLeaf();
    if (!done.valid())
      return done;
    // Close every node whose second child `done` completes.
    while (!openNodes.empty()) {
      OpenNode &top = openNodes.back();
      if (!top.hasFst) {
        top.fst = done;
        top.hasFst = true;
        break;
      }
      if (!expect(top.closer, top.closer == Tok::RParen ? "')'" : "'}'"))
        return TreeId{};
      done = book.add(net::Tree{top.kind, 0, top.fst, done}, top.loc);
      openNodes.pop_back();
    }
    if (openNodes.empty())
      return done;
  }
}

bool Reader::openNode() {
  llvm::SMLoc loc = cur.loc();
  Tok opener = cur.kind;
  advance();
  switch (opener) {
  case Tok::LParen: openNodes.push_back({TreeKind::Con, loc, Tok::RParen, {}}); return true;
  case Tok::LBrace: openNodes.push_back({TreeKind::Dup, loc, Tok::RBrace, {}}); return true;
  case Tok::Dollar:
    if (!expect(Tok::LParen, "'(' after '$'"))
      return false;
    openNodes.push_back({TreeKind::Opr, loc, Tok::RParen, {}});
    return true;
  case Tok::Question:
    if (!expect(Tok::LParen, "'(' after '?'"))
      return false;
    openNodes.push_back({TreeKind::Swi, loc, Tok::RParen, {}});
    return true;
  default: llvm_unreachable("not a node opener");
  }
}

TreeId Reader::parseLeaf() {
  switch (cur.kind) {
  case Tok::Star: {
    TreeId era = book.add(net::Tree{TreeKind::Era, 0, {}, {}}, cur.loc());
    advance();
    return era;
  }
  case Tok::At: return parseRef();
  case Tok::Name: return parseVar();
  case Tok::Number: return parseNumber();
  case Tok::Symbol: return parseSymbol();
  case Tok::OpenSymbol: {
    Token end{Tok::Invalid, cur.end, cur.end + 1};
    errorExpectedAt("']'", end);
    return TreeId{};
  }
  default: errorExpected("a tree"); return TreeId{};
  }
}

TreeId Reader::parseNumber() {
  std::optional<rt::Numb> value = rt::num::parseNumbLiteral(cur.text());
  if (!value)
    diags.report(DiagKind::HvmBadNumber, cur.loc(),
                 "malformed number literal " + quoted(cur.text()));
  TreeId num = book.add(net::Tree{TreeKind::Num, value.value_or(0), {}, {}}, cur.loc());
  advance();
  return num;
}

TreeId Reader::parseSymbol() {
  llvm::StringRef inside = cur.text().drop_front().drop_back();
  std::optional<rt::Numb> value = rt::num::parseNumbSymbol(inside);
  if (!value)
    diags.report(DiagKind::HvmBadNumber, cur.loc(),
                 "malformed operator symbol " + quoted(cur.text()));
  TreeId num = book.add(net::Tree{TreeKind::Num, value.value_or(0), {}, {}}, cur.loc());
  advance();
  return num;
}

TreeId Reader::parseVar() {
  uint32_t name = book.intern(cur.text());
  auto [it, inserted] = vars.try_emplace(name);
  VarUse &use = it->second;
  if (inserted) {
    varOrder.push_back(name);
    use.first = cur.loc();
  }
  if (++use.count == 3)
    use.third = cur.loc();
  TreeId var = book.add(net::Tree{TreeKind::Var, name, {}, {}}, cur.loc());
  advance();
  return var;
}

TreeId Reader::parseRef() {
  llvm::SMLoc loc = cur.loc();
  advanceToName();
  if (cur.kind != Tok::Name) {
    errorExpected("a name after '@'");
    return TreeId{};
  }
  uint32_t name = book.intern(cur.text());
  references.push_back({name, loc});
  TreeId ref = book.add(net::Tree{TreeKind::Ref, name, {}, {}}, loc);
  advance();
  return ref;
}

void Reader::checkVariables(llvm::StringRef defName) {
  for (uint32_t name : varOrder) {
    const VarUse &use = vars.find(name)->second;
    if (use.count == 2)
      continue;
    if (use.count == 1) {
      // HVM2 runs such a net: the wire's other end is a free port.
      diags.report(DiagKind::HvmUnpairedVariable, use.first,
                   net::unpairedVariableMessage(book.names[name], defName));
      continue;
    }
    diags.report(DiagKind::HvmVariableCount, use.third,
                 "variable " + quoted(book.names[name]) + " occurs " +
                     std::to_string(use.count) + " times in @" + defName.str() +
                     ", but a variable must occur exactly twice");
  }
}

void Reader::checkReferences() {
  for (auto [name, loc] : references)
    if (!defined.count(name) && !(definedOutside && definedOutside(book.names[name])))
      diags.report(DiagKind::HvmUnboundReference, loc,
                   "reference to undefined definition @" + book.names[name].str());
}

void Reader::checkMain() {
  auto it = book.nameIds.find("main");
  if (it != book.nameIds.end() && defined.count(it->second))
    return;
  // Point at the start of the file: the whole book lacks it.
  diags.report(DiagKind::HvmMissingMain, llvm::SMLoc::getFromPointer(bufferStart),
               "the book has no @main definition");
}

/// After a syntax error: skip to the next `@name =`, where a definition starts.
void Reader::recover(const char *defStart) {
  // `@a = (x @b = ...`: the error is reported at '=' and the definition it
  // starts has already been read as a reference; read it again.
  if (cur.kind == Tok::Equals && prev1.kind == Tok::Name && prev2.kind == Tok::At &&
      prev2.begin > defStart) {
    lexer.rewind(prev2.end);
    cur = prev2;
    return;
  }
  while (cur.kind != Tok::Eof) {
    if (cur.kind == Tok::At && cur.begin > defStart && atDefinitionStart())
      return;
    advance();
  }
}

bool Reader::atDefinitionStart() { return definitionNameAhead().has_value(); }

/// With `cur` at '@': the name token when `@name =` follows, without moving on.
std::optional<Token> Reader::definitionNameAhead() {
  const char *saved = lexer.position();
  Token name = lexer.nextName();
  bool found = name.kind == Tok::Name && lexer.next().kind == Tok::Equals;
  lexer.rewind(saved);
  if (!found)
    return std::nullopt;
  return name;
}

} // namespace

std::optional<net::Book> readBook(llvm::SourceMgr &sm, unsigned bufferId,
                                     DiagnosticEngine &diags) {
  const llvm::MemoryBuffer *buffer = sm.getMemoryBuffer(bufferId);
  return Reader(buffer->getBuffer(), diags).read();
}

std::optional<net::Book>
readDefinitions(llvm::SourceMgr &sm, unsigned bufferId, DiagnosticEngine &diags,
                   llvm::function_ref<bool(llvm::StringRef)> definedOutside) {
  const llvm::MemoryBuffer *buffer = sm.getMemoryBuffer(bufferId);
  return Reader(buffer->getBuffer(), diags, definedOutside).read();
}

} // namespace bendc::hvm
