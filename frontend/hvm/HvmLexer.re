// The HVM2 text format's tokens (HVM2 2.0.22, src/ast.rs with TSPL's trivia
// and name rules). re2c turns this file into HvmLexer.cpp in the build tree.
#include "frontend/hvm/HvmLexer.h"

namespace bendc::hvm {

using Cursor = const unsigned char *;

static const char *fromCursor(Cursor c) { return reinterpret_cast<const char *>(c); }
static Cursor toCursor(const char *c) { return reinterpret_cast<Cursor>(c); }

/*!re2c
  re2c:define:YYCTYPE = "unsigned char";
  re2c:yyfill:enable = 0;

  nul        = "\x00";
  space      = [ \t\n\r\f\v]+;
  // A `//` comment runs to the end of the line; the newline itself is space.
  comment    = "//" [^\n\x00]*;
  nonascii   = [\u0080-\U0010FFFF];
  // TSPL names: alphanumerics and `_ . - /`. Any non-ASCII character is
  // accepted as well (TSPL accepts Unicode alphanumerics).
  namechar   = [a-zA-Z0-9_.\-/] | nonascii;
  // In a tree, a leading digit, '+' or '-' makes a number instead.
  namestart  = [a-zA-Z_./] | nonascii;
  // HVM2 takes alphanumerics, '+', '-' and '.' as one literal and checks it
  // afterwards, so `1x` is one malformed number rather than `1` and `x`.
  number     = [0-9+\-] [a-zA-Z0-9+\-.]*;
  symbolbody = [^\]\n\x00]*;
*/

Token HvmLexer::endOrInvalid(const char *begin) {
  // The NUL that ends the buffer is the end of file; any other is a stray byte.
  if (begin == limit) {
    cursor = begin;
    return make(Tok::Eof, begin);
  }
  cursor = begin + 1;
  return make(Tok::Invalid, begin);
}

Token HvmLexer::next() {
  for (;;) {
    const char *begin = cursor;
    Cursor YYCURSOR = toCursor(cursor);
    Cursor YYMARKER = YYCURSOR;
    (void)YYMARKER;
#define TOKEN(kind)                                                                                \
  do {                                                                                             \
    cursor = fromCursor(YYCURSOR);                                                                 \
    return make(Tok::kind, begin);                                                                 \
  } while (0)
    /*!re2c
      nul               { return endOrInvalid(begin); }
      space | comment   { cursor = fromCursor(YYCURSOR); continue; }
      "@"               { TOKEN(At); }
      "="               { TOKEN(Equals); }
      "&!"              { TOKEN(AmpBang); }
      "&"               { TOKEN(Amp); }
      "~"               { TOKEN(Tilde); }
      "("               { TOKEN(LParen); }
      ")"               { TOKEN(RParen); }
      "{"               { TOKEN(LBrace); }
      "}"               { TOKEN(RBrace); }
      "$"               { TOKEN(Dollar); }
      "?"               { TOKEN(Question); }
      "*"               { TOKEN(Star); }
      "[" symbolbody "]" { TOKEN(Symbol); }
      "[" symbolbody    { TOKEN(OpenSymbol); }
      number            { TOKEN(Number); }
      namestart namechar* { TOKEN(Name); }
      *                 { TOKEN(Invalid); }
    */
  }
}

Token HvmLexer::nextName() {
  for (;;) {
    const char *begin = cursor;
    Cursor YYCURSOR = toCursor(cursor);
    Cursor YYMARKER = YYCURSOR;
    (void)YYMARKER;
    /*!re2c
      nul               { return endOrInvalid(begin); }
      space | comment   { cursor = fromCursor(YYCURSOR); continue; }
      namechar+         { TOKEN(Name); }
      // Not a name: report whatever token is there instead.
      *                 { cursor = begin; return next(); }
    */
  }
}
#undef TOKEN

} // namespace bendc::hvm
