// The .hvm reader and printer: every tree and number form, names, trivia,
// exact error messages, recovery, deep nesting and print/read round trips.
#include "frontend/hvm/HvmReader.h"
#include "ir/NetPrinter.h"
#include "runtime/common/Operate.h"

#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <doctest/doctest.h>

#include <cmath>
#include <string>

using namespace bendc;
namespace num = bendc::rt::num;

namespace {

/// Reads `text` as a file named test.hvm and keeps what came out.
struct Read {
  llvm::SourceMgr sm;
  DiagnosticEngine diags{sm};
  std::optional<net::Book> book;

  explicit Read(llvm::StringRef text) {
    unsigned id = sm.AddNewSourceBuffer(llvm::MemoryBuffer::getMemBufferCopy(text, "test.hvm"),
                                        llvm::SMLoc());
    book = hvm::readBook(sm, id, diags);
  }

  /// Every diagnostic as `line:col: message [Kind]`, one per line.
  std::string messages() const {
    std::string out;
    for (const Diagnostic &d : diags.diagnostics()) {
      auto [line, col] = sm.getLineAndColumn(d.range.Start);
      out += std::to_string(line) + ":" + std::to_string(col) + ": " + d.message + " [" +
             diagKindName(d.kind).str() + "]\n";
    }
    return out;
  }

  const net::Def &def(llvm::StringRef name) const {
    for (const net::Def &d : book->defs)
      if (book->names[d.name] == name)
        return d;
    FAIL("no definition named " << name.str());
    return book->defs.front();
  }
  const net::Tree &root(llvm::StringRef name = "main") const { return (*book)[def(name).root]; }
};

std::string printBook(const net::Book &book) {
  std::string text;
  llvm::raw_string_ostream os(text);
  net::printBook(os, book);
  return os.str();
}

std::string printTree(const net::Book &book, net::TreeId tree) {
  std::string text;
  llvm::raw_string_ostream os(text);
  net::printTree(os, book, tree);
  return os.str();
}

/// The number a book `@main = <literal>` reads to.
rt::Numb numberOf(const std::string &literal) {
  Read r("@main = " + literal);
  REQUIRE_MESSAGE(r.book, r.messages());
  REQUIRE(r.root().kind == net::TreeKind::Num);
  return r.root().value;
}

/// The only diagnostic of reading `text`, as `line:col: message [Kind]`.
std::string errorOf(llvm::StringRef text) {
  Read r(text);
  CHECK_FALSE(r.book);
  return r.messages();
}

} // namespace

TEST_CASE("every tree form reads to its kind") {
  Read r("@main = (a {b $(c ?(d (* (@main (1 [+])))))}) & (a b) ~ $(c d)");
  REQUIRE_MESSAGE(r.book, r.messages());
  const net::Book &b = *r.book;
  const net::Tree &con = r.root();
  CHECK(con.kind == net::TreeKind::Con);
  CHECK(b[con.fst].kind == net::TreeKind::Var);
  CHECK(b.names[b[con.fst].value] == "a");
  const net::Tree &dup = b[con.snd];
  CHECK(dup.kind == net::TreeKind::Dup);
  const net::Tree &opr = b[dup.snd];
  CHECK(opr.kind == net::TreeKind::Opr);
  const net::Tree &swi = b[opr.snd];
  CHECK(swi.kind == net::TreeKind::Swi);
  const net::Tree &inner = b[swi.snd];
  CHECK(b[inner.fst].kind == net::TreeKind::Era);
  CHECK(b[b[inner.snd].fst].kind == net::TreeKind::Ref);
  CHECK(b.names[b[b[inner.snd].fst].value] == "main");
  CHECK(printTree(b, r.def("main").root) == "(a {b $(c ?(d (* (@main (1 [+])))))})");
}

TEST_CASE("redexes keep their order and their parallel flag") {
  Read r("@main = x\n  & @f ~ (1 y)\n  &! @f ~ (y x)\n@f = (a a)");
  REQUIRE_MESSAGE(r.book, r.messages());
  const net::Def &main = r.def("main");
  REQUIRE(main.redexes.size() == 2);
  CHECK_FALSE(main.redexes[0].parallel);
  CHECK(main.redexes[1].parallel);
  CHECK(printTree(*r.book, main.redexes[1].rhs) == "(y x)");
}

TEST_CASE("u24 literals in decimal, hexadecimal and binary") {
  CHECK(numberOf("0") == num::makeU24(0));
  CHECK(numberOf("42") == num::makeU24(42));
  CHECK(numberOf("0x2A") == num::makeU24(42));
  CHECK(numberOf("0b101") == num::makeU24(5));
  CHECK(numberOf("16777215") == num::makeU24(0xFFFFFF));
}

TEST_CASE("i24 literals carry a sign") {
  CHECK(numberOf("+5") == num::makeI24(5));
  CHECK(numberOf("-5") == num::normalize(num::makeI24(-5)));
  CHECK(numberOf("+0") == num::makeI24(0));
  CHECK(numberOf("-0x10") == num::normalize(num::makeI24(-16)));
}

TEST_CASE("f24 literals, infinities and NaN") {
  CHECK(numberOf("1.5") == num::makeF24(1.5f));
  CHECK(numberOf("-1.5") == num::makeF24(-1.5f));
  CHECK(numberOf("+2.25") == num::makeF24(2.25f));
  CHECK(numberOf("+inf") == num::makeF24(INFINITY));
  CHECK(numberOf("-inf") == num::makeF24(-INFINITY));
  rt::Numb nan = numberOf("+NaN");
  CHECK(num::typeOf(nan) == num::TyF24);
  CHECK(std::isnan(num::f24Of(nan)));
}

TEST_CASE("operator symbols, casts and partial operators") {
  CHECK(numberOf("[u24]") == num::makeSym(num::TyU24));
  CHECK(numberOf("[i24]") == num::makeSym(num::TyI24));
  CHECK(numberOf("[f24]") == num::makeSym(num::TyF24));
  CHECK(numberOf("[+]") == num::makeSym(num::OpAdd));
  CHECK(numberOf("[<<]") == num::makeSym(num::OpShl));
  CHECK(numberOf("[:>>]") == num::makeSym(num::FpShr));
  CHECK(numberOf("[+1]") == num::partial(num::makeSym(num::OpAdd), num::makeU24(1)));
  CHECK(numberOf("[*2]") == num::partial(num::makeSym(num::OpMul), num::makeU24(2)));
  CHECK(numberOf("[:-1]") == num::partial(num::makeSym(num::FpSub), num::makeU24(1)));
  CHECK(numberOf("[-1]") == num::partial(num::makeSym(num::OpSub), num::makeU24(1)));
}

TEST_CASE("names take letters, digits and _ . - /") {
  Read r("@IO/Call/tag = 1\n@main__C0 = 2\n@test-io = 3\n@1.x = 4\n"
         "@main = (a.b/c_d-e (a.b/c_d-e (@IO/Call/tag (@main__C0 (@test-io @1.x)))))");
  REQUIRE_MESSAGE(r.book, r.messages());
  CHECK(r.book->defs.size() == 5);
  CHECK(r.book->names[(*r.book)[r.root().fst].value] == "a.b/c_d-e");
}

TEST_CASE("a leading digit or sign makes a number, not a name") {
  Read r("@main = (a -1) & (a *) ~ @f\n@f = (* *)");
  REQUIRE_MESSAGE(r.book, r.messages());
  CHECK((*r.book)[r.root().snd].kind == net::TreeKind::Num);
}

TEST_CASE("comments and whitespace go anywhere between tokens") {
  Read r("// a book\n@main // name\n =\t// tree\n (\n a // first\n a ) // end\n\n  &  @f~@f\n"
         "@ f = { * * }");
  REQUIRE_MESSAGE(r.book, r.messages());
  CHECK(printBook(*r.book) == "@main = (a a)\n  & @f ~ @f\n@f = {* *}\n");
}

TEST_CASE("print and read round trip") {
  const char *text =
      "@main = x\n"
      "  & @fold ~ (@list (0 x))\n"
      "  &! 1.5 ~ $([*] $(-2.0 *))\n"
      "@fold = (?((@nil @cons) a) a)\n"
      "@nil = (* (a a))\n"
      "@cons = ({a b} ((c d) (e f)))\n"
      "  & $([+1] c) ~ @fold\n"
      "  & {a b} ~ (e (d f))\n"
      "@list = [+0x0000003]\n"
      "@nums = (+5 (-5 (0x10 (0b11 (+inf (-inf (+NaN ([u24] ([:-7] ([>>] *))))))))))\n";
  Read first(text);
  REQUIRE_MESSAGE(first.book, first.messages());
  std::string printed = printBook(*first.book);
  CHECK(printed == "@main = x\n"
                   "  & @fold ~ (@list (0 x))\n"
                   "  &! 1.5 ~ $([*] $(-2.0 *))\n"
                   "@fold = (?((@nil @cons) a) a)\n"
                   "@nil = (* (a a))\n"
                   "@cons = ({a b} ((c d) (e f)))\n"
                   "  & $([+0x0000001] c) ~ @fold\n"
                   "  & {a b} ~ (e (d f))\n"
                   "@list = [+0x0000003]\n"
                   "@nums = (+5 (-5 (16 (3 (+inf (-inf (+NaN ([u24] ([:-0x0000007] ([>>] "
                   "*))))))))))\n");
  Read second(printed);
  REQUIRE_MESSAGE(second.book, second.messages());
  CHECK(printBook(*second.book) == printed);
}

TEST_CASE("deeply nested trees do not use the call stack") {
  constexpr int depth = 100000;
  std::string left, right;
  for (int i = 0; i < depth; ++i) {
    left += "(";
    right += "(* ";
  }
  left += "*";
  right += "*";
  for (int i = 0; i < depth; ++i) {
    left += " *)";
    right += ")";
  }
  Read r("@main = (" + left + " " + right + ")");
  REQUIRE_MESSAGE(r.book, r.messages());
  CHECK(r.book->trees.size() == 4 * depth + 3);
  std::string printed = printBook(*r.book);
  Read again(printed);
  REQUIRE(again.book);
  CHECK(printBook(*again.book) == printed);
}

TEST_CASE("a missing closing parenthesis is reported at the end of the file") {
  CHECK(errorOf("@main = (a b") == "1:13: expected ')' but found end of file [HvmSyntax]\n");
}

TEST_CASE("a token that cannot start a tree names the token") {
  CHECK(errorOf("@main = (a ~ b)") == "1:12: expected a tree but found '~' [HvmSyntax]\n");
  CHECK(errorOf("@main = %") == "1:9: expected a tree but found '%' [HvmSyntax]\n");
  CHECK(errorOf("@main = )") == "1:9: expected a tree but found ')' [HvmSyntax]\n");
}

TEST_CASE("syntax errors name what was expected") {
  CHECK(errorOf("@main * ") == "1:7: expected '=' but found '*' [HvmSyntax]\n");
  CHECK(errorOf("main = *") ==
        "1:1: expected a definition '@name = ...' but found name 'main' [HvmSyntax]\n"
        "1:1: the book has no @main definition [HvmMissingMain]\n");
  CHECK(errorOf("@main =\n@f = *") ==
        "2:1: expected a tree before the definition of @f [HvmSyntax]\n");
  CHECK(errorOf("@main = (* *) & * *") == "1:19: expected '~' but found '*' [HvmSyntax]\n");
  CHECK(errorOf("@main = $ *") == "1:11: expected '(' after '$' but found '*' [HvmSyntax]\n");
  CHECK(errorOf("@main = ?[+]") ==
        "1:10: expected '(' after '?' but found operator symbol '[+]' [HvmSyntax]\n");
  CHECK(errorOf("@main = {* *)") == "1:13: expected '}' but found ')' [HvmSyntax]\n");
  CHECK(errorOf("@main = (* * *)") == "1:14: expected ')' but found '*' [HvmSyntax]\n");
  CHECK(errorOf("@main = * *") ==
        "1:11: expected '&' or a new definition but found '*' [HvmSyntax]\n");
  CHECK(errorOf("@main = @(") == "1:10: expected a name after '@' but found '(' [HvmSyntax]\n");
  CHECK(errorOf("@ = *\n@main = *") ==
        "1:3: expected a definition name after '@' but found '=' [HvmSyntax]\n");
  CHECK(errorOf("@main = & ! * ~ *") == "1:9: expected a tree but found '&' [HvmSyntax]\n");
}

TEST_CASE("an unclosed operator symbol is reported where the line ends") {
  CHECK(errorOf("@main = [+1") == "1:12: expected ']' but found end of file [HvmSyntax]\n");
  CHECK(errorOf("@main = ([+1\n *)") == "1:13: expected ']' but found end of line [HvmSyntax]\n");
}

TEST_CASE("stray bytes are shown in hexadecimal") {
  CHECK(errorOf(llvm::StringRef("@main = \x01", 9)) ==
        "1:9: expected a tree but found byte 0x01 [HvmSyntax]\n");
  CHECK(errorOf(llvm::StringRef("@main = \0 *", 11)) ==
        "1:9: expected a tree but found byte 0x00 [HvmSyntax]\n");
}

TEST_CASE("reading goes on at the next definition after a syntax error") {
  Read r("@main = (a\n@foo = ~\n@bar = (x y\n@baz = (* *) & *\n@ok = *\n");
  CHECK_FALSE(r.book);
  CHECK(r.messages() == "2:1: expected ')' before the definition of @foo [HvmSyntax]\n"
                        "2:8: expected a tree but found '~' [HvmSyntax]\n"
                        "4:1: expected ')' before the definition of @baz [HvmSyntax]\n"
                        "5:1: expected '~' before the definition of @ok [HvmSyntax]\n");
}

TEST_CASE("malformed numbers are reported and reading goes on") {
  Read r("@main = (1x (0x (1.2.3 ([?] ([+1x] (- *))))))");
  CHECK_FALSE(r.book);
  CHECK(r.messages() == "1:10: malformed number literal '1x' [HvmBadNumber]\n"
                        "1:14: malformed number literal '0x' [HvmBadNumber]\n"
                        "1:18: malformed number literal '1.2.3' [HvmBadNumber]\n"
                        "1:25: malformed operator symbol '[?]' [HvmBadNumber]\n"
                        "1:30: malformed operator symbol '[+1x]' [HvmBadNumber]\n"
                        "1:37: malformed number literal '-' [HvmBadNumber]\n");
}

TEST_CASE("a variable used three times is an error, one used once a warning") {
  CHECK(errorOf("@main = (a (a a))") ==
        "1:15: variable 'a' occurs 3 times in @main, but a variable must occur exactly twice "
        "[HvmVariableCount]\n");
  // HVM2 runs a net whose wire ends in a free port: the book is read.
  Read once("@main = (a b) & b ~ *");
  CHECK(once.book);
  CHECK(once.messages() ==
        "1:10: variable 'a' occurs once in @main: its other end is left as a free port "
        "[HvmUnpairedVariable]\n");
}

TEST_CASE("variables are local to their definition") {
  Read r("@main = (a a)\n@f = (a a)");
  CHECK_MESSAGE(r.book, r.messages());
}

TEST_CASE("references must name a definition") {
  CHECK(errorOf("@main = (@nope @main)") ==
        "1:10: reference to undefined definition @nope [HvmUnboundReference]\n");
}

TEST_CASE("a definition with a syntax error still counts as defined") {
  Read r("@main = @f\n@f = (");
  CHECK(r.messages() == "2:7: expected a tree but found end of file [HvmSyntax]\n");
}

TEST_CASE("a book needs @main") {
  CHECK(errorOf("@foo = *") == "1:1: the book has no @main definition [HvmMissingMain]\n");
  CHECK(errorOf("") == "1:1: the book has no @main definition [HvmMissingMain]\n");
  CHECK(errorOf("// nothing\n") == "1:1: the book has no @main definition [HvmMissingMain]\n");
}

TEST_CASE("a name defined twice is reported at the second definition") {
  Read r("@main = *\n@f = *\n@f = 1");
  CHECK_FALSE(r.book);
  CHECK(r.messages() == "3:1: duplicate definition of @f [HvmDuplicateDefinition]\n");
  REQUIRE(r.diags.diagnostics().size() == 1);
  const Diagnostic &d = r.diags.diagnostics()[0];
  REQUIRE(d.notes.size() == 1);
  CHECK(d.notes[0].message == "previous definition is here");
  CHECK(r.sm.getLineAndColumn(d.notes[0].range.Start).first == 2);
}
