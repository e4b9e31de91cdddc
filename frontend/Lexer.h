// The lexer: both Bend syntaxes in one token stream. Fun syntax ignores line
// breaks; inside imp blocks (opened by a `:` that ends a line outside any
// bracket) line breaks and indentation become NEWLINE, INDENT and DEDENT.
#pragma once

#include "frontend/Ast.h"
#include "support/Diagnostic.h"
#include "frontend/Parser.hpp"

#include "llvm/ADT/SmallVector.h"


namespace bendc::parse {

/// A token: its kind, its value (for names, numbers, strings and
/// characters) and where it is.
struct Token {
  Parser::token_kind_type kind;
  Value value;
  SourceRange location;

  /// The grammar symbol it is.
  Parser::symbol_kind_type symbol() const { return Parser::by_kind(kind).kind(); }
};

/// Tokens made before they are asked for (layout tokens, mostly): a queue
/// that keeps its storage, so that pushing and taking do not allocate once
/// it has grown.
class TokenQueue {
public:
  bool empty() const { return head == items.size(); }
  void push_back(const Token &t) { items.push_back(t); }
  void push_front(const Token &t) {
    if (head > 0)
      items[--head] = t;
    else
      items.insert(items.begin(), t);
  }
  /// The first token, taken out; the queue must not be empty.
  Token take() {
    Token t = items[head++];
    if (head == items.size())
      clear();
    return t;
  }
  void clear() {
    items.clear();
    head = 0;
  }

private:
  llvm::SmallVector<Token, 8> items;
  size_t head = 0; // items before it are taken
};

class Lexer {
public:
  Lexer(DiagnosticEngine &diags, ast::AstContext &ctx, llvm::StringRef buffer);

  /// The next token; the end of the buffer gives END forever.
  Token next();
  /// The same for the parser: the token's kind, its value and place in
  /// `value` and `location`.
  int next(Value &value, SourceRange &location) {
    Token t = next();
    value = t.value;
    location = t.location;
    return t.kind;
  }
  /// Hands out `tok` before the buffer's first token (it selects what the
  /// parser reads: a term instead of a file).
  void startWith(Token tok) { pending.push_front(tok); }
  /// Where the innermost bracket still open starts (`skip` more skips that
  /// many of the innermost ones), or null.
  const char *openBracket(unsigned skip = 0) const;
  /// Just past the last character before `at` that is not white space (the
  /// place to point at for something missing at the end of the file).
  llvm::SMLoc endOfTextBefore(llvm::SMLoc at) const;
  /// Whether a syntax error at `at` follows a line off its imp block's
  /// column (Bend reads such a line as a new top-level item); if so, the
  /// indentation to report instead and where.
  bool offLevelAt(llvm::SMLoc at, SourceRange &line, std::string &msg) const;
  /// After a syntax error: drop the rest of the current top-level item.
  void resync(llvm::SMLoc errorAt);

private:
  static Token tok(Parser::token_kind_type kind, SourceRange at) {
    Token t;
    t.kind = kind;
    t.location = at;
    return t;
  }
  template <typename T> static Token tok(Parser::token_kind_type kind, SourceRange at, T value) {
    Token t = tok(kind, at);
    t.value.as<T>() = value;
    return t;
  }
  Token takePending();
  Token scanned();
  Token scan();
  Token lexToken();
  void skipTrivia(bool &sawNewline);
  void layoutAfterNewline();
  void badIndent(unsigned want, unsigned got);
  void leaveLayout(SourceRange here, unsigned want, unsigned got);
  bool colonEndsLine() const;
  Token hvmBody(const char *colon);
  Token number(const char *start, bool isSigned);
  Token quoted(const char *start, char quote);
  Token symbol(const char *start);
  bool operatorFirst() const;
  bool escape(const char *&p, uint32_t &out);
  unsigned columnOf(const char *p) const;
  unsigned lineIndent(const char *p) const;
  const char *lineStartOf(const char *p) const;
  SourceRange range(const char *b, const char *e) const {
    return SourceRange(llvm::SMLoc::getFromPointer(b), llvm::SMLoc::getFromPointer(e));
  }
  void open(const char *b, const char *e);
  void close();
  void error(DiagKind kind, const char *b, const char *e, std::string msg);

  DiagnosticEngine &diags;
  ast::AstContext &ctx;
  const char *bufStart, *cur, *limit;
  mutable const char *scanPos, *scanLine; // line-start cache for lineStartOf
  TokenQueue pending;
  llvm::SmallVector<unsigned, 8> indents; // empty: fun syntax, no layout
  int depth = 0;                          // open brackets
  llvm::SmallVector<const char *, 16> opens; // where each open bracket starts
  bool openBlock = false;                 // a line ended with `:`
  bool indentReported = false;            // this item has a bad indentation
  // The last line off its block's column: where the line break before it
  // is, where the line starts, the column expected and the one written.
  const char *offFrom = nullptr, *offLine = nullptr;
  unsigned offWant = 0, offGot = 0;
  bool hvmHeader = false;                 // between `hvm` and its `:`
  bool importLine = false;                // `as` is a keyword here
  bool resyncPending = false;
  const char *restartAt = nullptr; // where the next item starts after an error
  const char *resumedAt = nullptr; // where parsing last resumed (null: the start)
  const char *lastEnd = nullptr;   // end of the last token handed out
  Parser::token_kind_type lastKind = Parser::token::END; // the last token handed out
  bool tooDeep = false; // stop lexing: the input is nested too deeply
  static constexpr int kMaxDepth = 20000;
  struct LocalDef {
    unsigned column; // of the `def`
    int depth;       // brackets open at the `def`
  };
  llvm::SmallVector<LocalDef, 4> localDefs; // open fun-syntax local `def`s
};

} // namespace bendc::parse
