// re2c source of the lexer; the C++ is generated in the build tree.
#include "frontend/Lexer.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/ConvertUTF.h"

#include <cmath>
#include <cstdio>
#include <cstring>

namespace bendc::parse {

using P = Parser;

Lexer::Lexer(DiagnosticEngine &diags, ast::AstContext &ctx, llvm::StringRef buffer)
    : diags(diags), ctx(ctx), bufStart(buffer.begin()), cur(buffer.begin()), limit(buffer.end()),
      scanPos(buffer.begin()), scanLine(buffer.begin()) {
  // Runs of ASCII need no decoding: they are skipped eight bytes at a time,
  // and only the characters between them are checked.
  const char *p = buffer.begin(), *end = buffer.end();
  while (p < end) {
    for (uint64_t word; end - p >= 8; p += 8) {
      std::memcpy(&word, p, 8);
      if (word & 0x8080808080808080ull)
        break;
    }
    if (p == end)
      break;
    if (static_cast<unsigned char>(*p) < 0x80) {
      ++p;
      continue;
    }
    auto *at = reinterpret_cast<const llvm::UTF8 *>(p);
    if (!llvm::isLegalUTF8Sequence(at, reinterpret_cast<const llvm::UTF8 *>(end))) {
      // A file that is not text (a binary, say) would give an error for
      // every other byte: this one says it all, and nothing is read.
      error(DiagKind::InvalidUtf8, p, p + 1, "the file is not valid UTF-8");
      cur = limit;
      break;
    }
    p += llvm::getNumBytesForUTF8(*at);
  }
}

void Lexer::error(DiagKind kind, const char *b, const char *e, std::string msg) {
  diags.report(kind, range(b, e).toSM(), std::move(msg));
}

const char *Lexer::lineStartOf(const char *p) const {
  // Queries mostly move forward; scanning on from the last one keeps the
  // lexer linear even on one enormous line.
  if (p >= scanPos) {
    for (const char *q = scanPos; q < p; ++q)
      if (*q == '\n')
        scanLine = q + 1;
    scanPos = p;
    return scanLine;
  }
  const char *line = p;
  while (line > bufStart && line[-1] != '\n')
    --line;
  return line;
}

unsigned Lexer::lineIndent(const char *p) const {
  const char *line = lineStartOf(p);
  const char *q = line;
  while (q < p && (*q == ' ' || *q == '\t'))
    ++q;
  return unsigned(q - line);
}

unsigned Lexer::columnOf(const char *p) const { return unsigned(p - lineStartOf(p)); }

// Whitespace and comments; reports whether a line break was crossed.
void Lexer::skipTrivia(bool &sawNewline) {
  for (;;) {
    if (cur >= limit)
      return;
    char c = *cur;
    if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
      ++cur;
      continue;
    }
    if (c == '\n') {
      ++cur;
      sawNewline = true;
      importLine = false;
      continue;
    }
    // As in Bend 0.2.38, `#` always starts a comment: `#3` too, although
    // Bend's syntax guide lists it as a Nat literal (Bend never lexes one).
    if (c != '#')
      return;
    if (cur + 1 < limit && cur[1] == '{') {
      const char *start = cur;
      cur += 2;
      while (cur < limit && !(cur[0] == '#' && cur + 1 < limit && cur[1] == '}'))
        ++cur;
      if (cur >= limit) {
        error(DiagKind::UnterminatedComment, start, start + 2, "unterminated block comment");
        return;
      }
      cur += 2;
      continue;
    }
    while (cur < limit && *cur != '\n')
      ++cur;
  }
}

bool Lexer::colonEndsLine() const {
  const char *p = cur;
  while (p < limit && (*p == ' ' || *p == '\t' || *p == '\r'))
    ++p;
  if (p < limit && *p == '#' && !(p + 1 < limit && p[1] == '{'))
    while (p < limit && *p != '\n')
      ++p;
  return p >= limit || *p == '\n';
}

// Decides NEWLINE/INDENT/DEDENT for the line that starts at `cur`.
// As in Bend, each imp block is indented exactly two spaces more than the
// line that opens it; the first line of a block indented otherwise is an
// error, once per top-level item (past it the block keeps the column
// written).
void Lexer::badIndent(unsigned want, unsigned got) {
  if (indentReported)
    return;
  indentReported = true;
  const char *line = lineStartOf(cur);
  error(DiagKind::BadIndentation, line, cur,
        "indentation error: expected " + std::to_string(want) + " spaces, got " +
            std::to_string(got));
}

// A later line off its block's column ends the imp item there, as in Bend,
// which then reads the line as the start of a top-level item: a fun
// definition may start at any column. Should the parse fail from there on,
// the parser reports the indentation instead (see offLevelAt).
void Lexer::leaveLayout(SourceRange here, unsigned want, unsigned got) {
  offFrom = here.begin.getPointer();
  offLine = lineStartOf(cur);
  offWant = want;
  offGot = got;
  while (indents.size() > 1) {
    indents.pop_back();
    pending.push_back(tok(P::token::DEDENT, here));
  }
  indents.clear();
  indentReported = false;
}

bool Lexer::offLevelAt(llvm::SMLoc at, SourceRange &line, std::string &msg) const {
  const char *p = at.getPointer();
  if (!offLine || !p || p < offFrom)
    return false;
  // Up to where the next line at column 0 starts the next item.
  const char *next = offLine;
  for (;;) {
    while (next < limit && *next != '\n')
      ++next;
    if (next >= limit)
      break;
    ++next;
    if (next < limit && *next != ' ' && *next != '\t' && *next != '\r' && *next != '\n' &&
        *next != '#')
      break;
  }
  if (p > next)
    return false;
  line = range(offLine, offLine + offGot);
  msg = "indentation error: expected " + std::to_string(offWant) + " spaces, got " +
        std::to_string(offGot);
  return true;
}

void Lexer::layoutAfterNewline() {
  unsigned col = cur >= limit ? 0 : columnOf(cur);
  // Line ends sit right after the line's last token, where an error about a
  // missing continuation points.
  llvm::SMLoc at = llvm::SMLoc::getFromPointer(lastEnd ? lastEnd : cur);
  SourceRange here(at, at);
  // Indentation decides structure here; a tab has no agreed width.
  if (cur < limit)
    for (const char *q = lineStartOf(cur); q < cur; ++q)
      if (*q == '\t') {
        error(DiagKind::SyntaxError, q, q + 1, "tabs are not accepted for indentation");
        indentReported = true;
        break;
      }
  if (openBlock) {
    openBlock = false;
    if (cur < limit && col > indents.back()) {
      if (col != indents.back() + 2)
        badIndent(indents.back() + 2, col);
      indents.push_back(col);
      pending.push_back(tok(P::token::INDENT, here));
      return;
    }
    // An empty block: the parser reports the missing statement.
    pending.push_back(tok(P::token::INDENT, here));
    pending.push_back(tok(P::token::DEDENT, here));
  }
  if (cur >= limit)
    col = 0;
  // A list of bindings may go on to the next line after `with` or a comma
  // (`bend a = 0,` then `b = 1:`); no other statement does.
  if (col > indents.back() && (lastKind == P::token::COMMA || lastKind == P::token::WITH))
    return;
  pending.push_back(tok(P::token::NEWLINE, here));
  unsigned level = indents.back();
  while (indents.size() > 1 && col < indents.back()) {
    indents.pop_back();
    level = indents.back();
    pending.push_back(tok(P::token::DEDENT, here));
  }
  if (indents.size() == 1) {
    // Back to fun syntax, where a definition may start at any column.
    indents.clear();
    indentReported = false;
  } else if (col != level) {
    leaveLayout(here, level, col);
  }
}

// Each path returns one token made in place (two named tokens in one
// function would be copied on the way out, once per token of the file).
Token Lexer::next() { return pending.empty() ? scanned() : takePending(); }

Token Lexer::takePending() {
  Token t = pending.take();
  lastKind = t.kind;
  return t;
}

Token Lexer::scanned() {
  Token t = scan();
  if (t.location.end.getPointer() > lastEnd)
    lastEnd = t.location.end.getPointer();
  lastKind = t.kind;
  return t;
}

void Lexer::open(const char *b, const char *e) {
  // Every later phase recurses over the tree; bound the nesting so that a
  // hostile input gets a diagnostic instead of exhausting the stack.
  opens.push_back(b);
  if (++depth == kMaxDepth)
    error(DiagKind::TooDeep, b, e,
          "brackets nested more than " + std::to_string(kMaxDepth) + " deep");
  if (depth >= kMaxDepth)
    tooDeep = true;
}

void Lexer::close() {
  if (depth > 0) {
    --depth;
    opens.pop_back();
  }
}

const char *Lexer::openBracket(unsigned skip) const {
  return skip < opens.size() ? opens[opens.size() - 1 - skip] : nullptr;
}

llvm::SMLoc Lexer::endOfTextBefore(llvm::SMLoc at) const {
  const char *p = at.getPointer();
  if (!p || p < bufStart || p > limit)
    return at;
  while (p > bufStart && (p[-1] == ' ' || p[-1] == '\t' || p[-1] == '\r' || p[-1] == '\n'))
    --p;
  return llvm::SMLoc::getFromPointer(p);
}

void Lexer::resync(llvm::SMLoc errorAt) {
  resyncPending = true;
  pending.clear();
  // An error found at the first token of a later item (say, a missing ')'
  // noticed at the next definition's name) restarts at that item.
  const char *e = errorAt.getPointer();
  restartAt = nullptr;
  if (e && e > resumedAt && e <= limit && columnOf(e) == 0 && e < cur)
    restartAt = e;
}

Token Lexer::scan() {
  if (resyncPending) {
    resyncPending = false;
    if (restartAt)
      cur = restartAt;
    // Skip to the next line that starts at column 0 with something.
    while (!restartAt && cur < limit) {
      while (cur < limit && *cur != '\n')
        ++cur;
      if (cur < limit)
        ++cur;
      if (cur < limit && *cur != ' ' && *cur != '\t' && *cur != '\r' && *cur != '\n' && *cur != '#')
        break;
    }
    indents.clear();
    indentReported = false;
    localDefs.clear();
    depth = 0;
    opens.clear();
    openBlock = hvmHeader = importLine = false;
    resumedAt = cur;
    restartAt = nullptr;
    llvm::SMLoc at = llvm::SMLoc::getFromPointer(cur);
    return tok(P::token::RESYNC, SourceRange(at, at));
  }
  bool sawNewline = false;
  skipTrivia(sawNewline);
  if (!localDefs.empty() && indents.empty() && (sawNewline || cur >= limit)) {
    unsigned col = cur >= limit ? 0 : columnOf(cur);
    llvm::SMLoc at = llvm::SMLoc::getFromPointer(cur);
    // A bracket opened in a rule's body keeps it going onto later lines.
    while (!localDefs.empty() && col <= localDefs.back().column && depth <= localDefs.back().depth) {
      localDefs.pop_back();
      pending.push_back(tok(P::token::DEF_END, SourceRange(at, at)));
    }
    if (!pending.empty())
      return next();
  }
  bool layout = !indents.empty() && depth == 0;
  if (layout && (sawNewline || cur >= limit)) {
    layoutAfterNewline();
    if (!pending.empty())
      return next();
  }
  if (cur >= limit || tooDeep) {
    llvm::SMLoc at = llvm::SMLoc::getFromPointer(cur >= limit ? limit : cur);
    return tok(P::token::END, SourceRange(at, at));
  }
  return lexToken();
}

Token Lexer::hvmBody(const char *colon) {
  // The body is every following line that is blank or indented.
  const char *start = cur;
  while (start < limit && *start != '\n')
    ++start;
  const char *p = start;
  const char *end = start;
  while (p < limit) {
    const char *line = p + 1;
    const char *q = line;
    while (q < limit && (*q == ' ' || *q == '\t' || *q == '\r'))
      ++q;
    bool blank = q >= limit || *q == '\n';
    if (!blank && q == line)
      break; // column 0: the next top-level item
    p = q;
    while (p < limit && *p != '\n')
      ++p;
    if (!blank)
      end = p;
  }
  cur = end;
  (void)colon;
  return tok(P::token::HVM_BODY, range(start, end), llvm::StringRef(start, end - start).trim());
}

static bool isNameChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '.' || c == '-' || c == '/';
}

static int digitValue(char c) {
  if (c >= '0' && c <= '9')
    return c - '0';
  if (c >= 'a' && c <= 'f')
    return c - 'a' + 10;
  if (c >= 'A' && c <= 'F')
    return c - 'A' + 10;
  return 99;
}

Token Lexer::number(const char *start, bool isSigned) {
  const char *p = start;
  int sign = 1;
  if (*p == '+' || *p == '-')
    sign = *p++ == '-' ? -1 : 1;
  unsigned radix = 10;
  if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
    radix = 16;
    p += 2;
  } else if (p[0] == '0' && (p[1] == 'b' || p[1] == 'B')) {
    radix = 2;
    p += 2;
  }
  uint64_t whole = 0;
  bool overflow = false;
  for (; p < cur && *p != '.'; ++p) {
    if (*p == '_')
      continue;
    whole = whole * radix + digitValue(*p);
    overflow |= whole > 0xffffffffu;
  }
  SourceRange r = range(start, cur);
  if (p < cur && *p == '.') {
    // As Bend computes it, in single precision: the fraction's digits as one
    // integer over radix^digits, added to the whole part.
    uint64_t fracDigits = 0;
    int digits = 0;
    for (++p; p < cur; ++p) {
      if (*p == '_')
        continue;
      fracDigits = fracDigits * radix + digitValue(*p);
      ++digits;
    }
    float frac = float(fracDigits) / std::pow(float(radix), float(digits));
    float v = float(sign) * (float(whole) + frac);
    auto n = core::Number::f24(v);
    return isSigned ? tok(P::token::SNUMBER, r, n) : tok(P::token::NUMBER, r, n);
  }
  // As in Bend, a digit of a larger radix right after an integer (`1e10`,
  // `0b102`) makes the literal malformed; Bend has no exponent notation.
  if (cur < limit && digitValue(*cur) < 16 && unsigned(digitValue(*cur)) >= radix) {
    const char *bad = cur;
    while (cur < limit && isNameChar(*cur))
      ++cur;
    const char *what = radix == 16 ? "hexadecimal" : radix == 2 ? "binary" : "decimal";
    error(DiagKind::InvalidNumber, start, cur,
          "invalid number literal '" + std::string(start, cur) + "': '" + std::string(1, *bad) +
              "' is not a " + what + " digit");
  }
  if (isSigned) {
    int64_t v = sign * int64_t(whole);
    if (overflow || v < -0x800000 || v > 0x7fffff)
      error(DiagKind::NumberOutOfRange, start, cur, "number literal outside of the i24 range");
    return tok(P::token::SNUMBER, r, core::Number::i24(int32_t(v)));
  }
  if (overflow || whole >= (1u << 24))
    error(DiagKind::NumberOutOfRange, start, cur, "number literal outside of the u24 range");
  return tok(P::token::NUMBER, r, core::Number::u24(uint32_t(whole)));
}

static void appendUtf8(llvm::SmallVectorImpl<char> &out, uint32_t cp) {
  char buf[4];
  char *p = buf;
  if (!llvm::ConvertCodePointToUTF8(cp, p)) {
    llvm::StringRef replacement("\xEF\xBF\xBD");
    out.append(replacement.begin(), replacement.end());
    return;
  }
  out.append(buf, p);
}

// Decodes one escape after a backslash at `p`; advances `p`.
bool Lexer::escape(const char *&p, uint32_t &out) {
  const char *start = p;
  ++p; // the backslash
  char c = p < limit ? *p++ : 0;
  switch (c) {
  case 'n': out = '\n'; return true;
  case 't': out = '\t'; return true;
  case 'r': out = '\r'; return true;
  case '0': out = 0; return true;
  case '\\': out = '\\'; return true;
  case '"': out = '"'; return true;
  case '\'': out = '\''; return true;
  case '`': out = '`'; return true;
  case 'x': {
    uint32_t v = 0;
    for (int i = 0; i < 2; ++i) {
      int d = p < limit ? digitValue(*p) : 99;
      if (d >= 16)
        break;
      v = v * 16 + d;
      ++p;
    }
    out = v;
    return true;
  }
  case 'u': {
    if (p >= limit || *p != '{')
      break;
    ++p;
    uint64_t v = 0;
    int n = 0;
    while (p < limit && digitValue(*p) < 16) {
      v = v * 16 + digitValue(*p++);
      ++n;
      if (v > 0xffffff)
        break;
    }
    if (p >= limit || *p != '}' || n == 0 || v > 0xffffff)
      break;
    ++p;
    out = uint32_t(v);
    return true;
  }
  default:
    break;
  }
  error(DiagKind::InvalidEscape, start, p, "invalid escape sequence");
  out = 0xFFFD;
  return false;
}

// A string or char literal starting at `start` (the quote).
Token Lexer::quoted(const char *start, char quote) {
  // (Most literals fit: no allocation but the copy the AST keeps.)
  llvm::SmallString<64> text;
  size_t count = 0;   // code points
  uint32_t first = 0; // the first one
  const char *p = start + 1;
  for (;;) {
    if (p >= limit || *p == '\n') {
      error(DiagKind::UnterminatedLiteral, start, p,
            quote == '"' ? "unterminated string literal" : "unterminated character literal");
      break;
    }
    if (*p == quote) {
      ++p;
      break;
    }
    uint32_t cp;
    if (*p == '\\') {
      escape(p, cp);
    } else {
      const llvm::UTF8 *s = reinterpret_cast<const llvm::UTF8 *>(p);
      llvm::UTF32 c32 = 0;
      unsigned len = llvm::getNumBytesForUTF8(*s);
      if (p + len > limit ||
          llvm::convertUTF8Sequence(&s, s + len, &c32, llvm::strictConversion) != llvm::conversionOK) {
        c32 = 0xFFFD;
        s = reinterpret_cast<const llvm::UTF8 *>(p + 1);
      }
      cp = c32;
      p = reinterpret_cast<const char *>(s);
    }
    if (count++ == 0)
      first = cp;
    appendUtf8(text, cp);
  }
  cur = p;
  SourceRange r = range(start, cur);
  if (quote == '"')
    return tok(P::token::STRING, r, ctx.save(text.str()));
  if (count != 1) {
    error(DiagKind::InvalidCharLiteral, start, cur, "a character literal holds exactly one character");
    return tok(P::token::CHAR, r, uint32_t(0));
  }
  return tok(P::token::CHAR, r, uint32_t(first & 0xffffff));
}

Token Lexer::symbol(const char *start) {
  const char *p = start + 1;
  uint32_t value = 0;
  unsigned count = 0;
  while (p < limit && *p != '`' && *p != '\n') {
    char c = *p;
    int v = -1;
    if (c >= 'A' && c <= 'Z')
      v = c - 'A';
    else if (c >= 'a' && c <= 'z')
      v = c - 'a' + 26;
    else if (c >= '0' && c <= '9')
      v = c - '0' + 52;
    else if (c == '+')
      v = 62;
    else if (c == '/')
      v = 63;
    if (v < 0)
      error(DiagKind::InvalidSymbol, p, p + 1, "a symbol holds only base64 characters");
    value = (value << 6) | uint32_t(v < 0 ? 0 : v);
    ++count;
    ++p;
  }
  if (p >= limit || *p != '`')
    error(DiagKind::UnterminatedLiteral, start, p, "unterminated symbol literal");
  else
    ++p;
  if (count > 4)
    error(DiagKind::InvalidSymbol, start, p, "a symbol holds at most 4 characters");
  cur = p;
  return tok(P::token::SYMBOL, range(start, cur), uint32_t(value & 0xffffff));
}

// Whether Bend reads an operator at this point, so that `-x`, `/2` or `+1`
// is an operator and an operand rather than a name or a signed number. In an
// imp expression that is right after an operand (`(l+r)/2`, `n -1`); in fun
// syntax right after `(`, where `(-x 1)` and `(/a b)` are operations (a
// number after `(-` stays signed).
bool Lexer::operatorFirst() const {
  if (indents.empty())
    return lastKind == P::token::LPAREN && (cur[0] == '/' || !(cur[1] >= '0' && cur[1] <= '9'));
  switch (lastKind) {
  case P::token::NAME:
  case P::token::NUMBER:
  case P::token::SNUMBER:
  case P::token::STRING:
  case P::token::CHAR:
  case P::token::SYMBOL:
  case P::token::RPAREN:
  case P::token::RBRACKET:
  case P::token::RBRACE:
    return true;
  default:
    return false;
  }
}

Token Lexer::lexToken() {
  const char *start = cur;
  const char *p = cur;
  const char *m = p;
  (void)m;
#define TOK(Name) (cur = p, tok(P::token::Name, range(start, p)))
  if (limit - cur >= 2) {
    char c = cur[0];
    if ((c == '-' || c == '/' || c == '+') && isNameChar(cur[1]) && operatorFirst()) {
      p = cur + 1;
      return c == '-' ? TOK(MINUS) : c == '/' ? TOK(SLASH) : TOK(PLUS);
    }
    // In fun syntax `**` is the power operator only right after `(`;
    // elsewhere it is two erasers, as `(2 ** 3)` is in Bend.
    if (c == '*' && cur[1] == '*' && indents.empty() && lastKind != P::token::LPAREN) {
      p = cur + 1;
      return TOK(STAR);
    }
  }
  /*!re2c
    re2c:define:YYCTYPE = "unsigned char";
    re2c:define:YYCURSOR = p;
    re2c:define:YYMARKER = m;
    re2c:yyfill:enable = 0;
    re2c:encoding:utf8 = 1;

    dec = [0-9][0-9_]*;
    hex = "0" [xX] [0-9a-fA-F_]+;
    bin = "0" [bB] [01_]+;
    num = dec ("." [0-9_]+)? | hex ("." [0-9a-fA-F_]+)? | bin ("." [01_]+)?;
    namechar = [A-Za-z0-9_.\-/];
    name = [A-Za-z_] namechar* | [.\-/] namechar+;

    "def" {
      cur = p;
      // A `def` inside a fun-syntax term: its rules end at a line that is
      // indented no further than the `def` itself, outside any bracket
      // opened since.
      if (indents.empty() && (depth > 0 || columnOf(start) > 0))
        localDefs.push_back({columnOf(start), depth});
      return tok(P::token::DEF, range(start, p));
    }
    // Keywords that only start top-level items are names elsewhere.
    "type"     { if (columnOf(start) != 0) goto name; return TOK(TYPE); }
    "object"   { if (columnOf(start) != 0) goto name; return TOK(OBJECT); }
    "hvm" {
      if (columnOf(start) != 0) goto name;
      cur = p;
      hvmHeader = depth == 0;
      return tok(P::token::HVM, range(start, p));
    }
    "from" {
      if (columnOf(start) != 0) goto name;
      cur = p;
      importLine = true;
      return tok(P::token::FROM, range(start, p));
    }
    "import" {
      if (columnOf(start) != 0 && !importLine) goto name;
      cur = p;
      importLine = true;
      return tok(P::token::IMPORT, range(start, p));
    }
    "lambda"   { return TOK(LAMBDA_WORD); }
    "let"      { return TOK(LET); }
    "use"      { return TOK(USE); }
    "ask"      { return TOK(ASK); }
    "match"    { return TOK(MATCH); }
    "switch"   { return TOK(SWITCH); }
    "fold"     { return TOK(FOLD); }
    "bend"     { return TOK(BEND); }
    "when"     { return TOK(WHEN); }
    "if"       { return TOK(IF); }
    "elif"     { return TOK(ELIF); }
    "else"     { return TOK(ELSE); }
    "case"     { return TOK(CASE); }
    "return"   { return TOK(RETURN); }
    "with"     { return TOK(WITH); }
    "open"     { return TOK(OPEN); }
    "for"      { return TOK(FOR); }
    "in"       { return TOK(IN); }

    "(" { open(start, p); return TOK(LPAREN); }
    ")" { close(); return TOK(RPAREN); }
    "[" { open(start, p); return TOK(LBRACKET); }
    "![" { open(start, p); return TOK(TREE_OPEN); }
    "]" { close(); return TOK(RBRACKET); }
    "{" { open(start, p); return TOK(LBRACE); }
    "}" { close(); return TOK(RBRACE); }
    "," { return TOK(COMMA); }
    ";" { return TOK(SEMI); }
    ":" {
      cur = p;
      SourceRange r = range(start, p);
      if (depth == 0 && colonEndsLine()) {
        if (hvmHeader) {
          hvmHeader = false;
          pending.push_back(hvmBody(start));
          return tok(P::token::COLON, r);
        }
        if (indents.empty())
          indents.push_back(lineIndent(start));
        openBlock = true;
      }
      return tok(P::token::COLON, r);
    }
    "="  { return TOK(EQ); }
    "==" { return TOK(EQEQ); }
    "!=" { return TOK(NE); }
    "<"  { return TOK(LT); }
    ">"  { return TOK(GT); }
    "<=" { return TOK(LE); }
    ">=" { return TOK(GE); }
    "<<" { return TOK(SHL); }
    ">>" { return TOK(SHR); }
    "+"  { return TOK(PLUS); }
    "-"  { return TOK(MINUS); }
    "*"  { return TOK(STAR); }
    "**" { return TOK(POW); }
    "/"  { return TOK(SLASH); }
    "%"  { return TOK(PERCENT); }
    "&"  { return TOK(AMP); }
    "|"  { return TOK(PIPE); }
    "^"  { return TOK(CARET); }
    "!"  { return TOK(BANG); }
    "~"  { return TOK(TILDE); }
    "$"  { return TOK(DOLLAR); }
    "->" { return TOK(ARROW); }
    "<-" { return TOK(LARROW); }
    "+=" { return TOK(PLUS_EQ); }
    "-=" { return TOK(MINUS_EQ); }
    "*=" { return TOK(STAR_EQ); }
    "/=" { return TOK(SLASH_EQ); }
    "&=" { return TOK(AMP_EQ); }
    "|=" { return TOK(PIPE_EQ); }
    "^=" { return TOK(CARET_EQ); }
    "@=" { return TOK(AT_EQ); }
    "\u03bb" | "@" { return TOK(LAMBDA); }

    num { cur = p; return number(start, false); }
    [+-] num { cur = p; return number(start, true); }
    "\"" { return quoted(start, '"'); }
    "'"  { return quoted(start, '\''); }
    "`"  { return symbol(start); }

    name {
    name:
      cur = p;
      llvm::StringRef text(start, p - start);
      if (importLine && text == "as")
        return tok(P::token::AS, range(start, p));
      return tok(P::token::NAME, range(start, p), text);
    }

    * {
      // One code point at a time, so a stray multi-byte character is one error.
      const char *q = start + 1;
      while (q < limit && (static_cast<unsigned char>(*q) & 0xC0) == 0x80)
        ++q;
      cur = q;
      unsigned char c0 = static_cast<unsigned char>(*start);
      std::string shown(start, q);
      if (c0 < 0x20 || c0 == 0x7F) {
        char hex[8];
        std::snprintf(hex, sizeof hex, "\\x%02x", unsigned(c0));
        shown = hex;
      }
      error(DiagKind::InvalidCharacter, start, q, "unexpected character '" + shown + "'");
      return scan();
    }
  */
#undef TOK
}

} // namespace bendc::parse
