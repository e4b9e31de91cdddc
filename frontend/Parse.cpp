#include "frontend/Parse.h"

#include "frontend/Lexer.h"
#include "frontend/ParseContext.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

namespace bendc::parse {

void parseBuffer(llvm::StringRef buffer, ast::AstContext &ctx, DiagnosticEngine &diags,
                 ast::Module &module) {
  Lexer lexer(diags, ctx, buffer);
  ParseContext pc(ctx, diags, module);
  Parser parser(lexer, pc);
  parser.parse();
  pc.flush();
}

ast::Expr *parseTerm(llvm::StringRef buffer, ast::AstContext &ctx, DiagnosticEngine &diags) {
  Lexer lexer(diags, ctx, buffer);
  SourceRange start(llvm::SMLoc::getFromPointer(buffer.begin()),
                    llvm::SMLoc::getFromPointer(buffer.begin()));
  lexer.startWith(Token{Parser::token::TERM_START, Value(), start});
  ast::Module unused;
  ParseContext pc(ctx, diags, unused);
  pc.termOnly = true;
  Parser parser(lexer, pc);
  if (parser.parse() != 0)
    return nullptr;
  return pc.term;
}

/// The value a literal token decodes to, after ` = `.
static void printValue(llvm::raw_ostream &os, const Token &tok) {
  using K = Parser::symbol_kind;
  switch (tok.symbol()) {
  case K::S_NUMBER:
  case K::S_SNUMBER: {
    core::Number n = tok.value.as<core::Number>();
    os << " = ";
    if (n.kind == core::NumKind::F24)
      os << llvm::format("%g", n.asFloat()) << " f24";
    else if (n.kind == core::NumKind::I24)
      os << n.asInt() << " i24";
    else
      os << n.bits << " u24";
    return;
  }
  case K::S_CHAR:
  case K::S_SYMBOL:
    os << " = " << tok.value.as<uint32_t>();
    return;
  case K::S_STRING:
    os << " = ";
    os.write_escaped(tok.value.as<llvm::StringRef>(), /*UseHexEscapes=*/true);
    return;
  default:
    return;
  }
}

std::string dumpTokens(llvm::StringRef buffer, const llvm::SourceMgr &sm, DiagnosticEngine &diags) {
  ast::AstContext ctx;
  Lexer lexer(diags, ctx, buffer);
  std::string out;
  llvm::raw_string_ostream os(out);
  for (;;) {
    Token tok = lexer.next();
    auto lc = sm.getLineAndColumn(tok.location.begin);
    os << lc.first << ':' << lc.second << ' ' << Parser::symbol_name(tok.symbol());
    const char *b = tok.location.begin.getPointer();
    const char *e = tok.location.end.getPointer();
    if (e > b)
      os << ' ' << llvm::StringRef(b, e - b).take_front(60);
    printValue(os, tok);
    os << '\n';
    if (tok.symbol() == Parser::symbol_kind::S_YYEOF)
      break;
  }
  return out;
}

} // namespace bendc::parse
