#include "FrontendTestUtil.h"

#include <doctest/doctest.h>

using namespace bendc;
using namespace bendc::test;
using frontend::EmitStage;

TEST_CASE("names may contain dots, slashes and dashes") {
  auto r = runOn("main = x-1/a.b", emitting(EmitStage::Tokens));
  CHECK(r->result.emitted == "1:1 name main\n1:6 '=' =\n1:8 name x-1/a.b\n1:15 end of file\n");
}

TEST_CASE("a sign glued to a number makes a signed literal") {
  auto r = runOn("(- 1 -2)", emitting(EmitStage::Tokens));
  CHECK(r->result.emitted.find("'-' -") != std::string::npos);
  CHECK(r->result.emitted.find("signed number -2") != std::string::npos);
}

TEST_CASE("imp blocks get indentation tokens and fun syntax does not") {
  auto r = runOn("def f():\n  return 1\nmain =\n  1\n", emitting(EmitStage::Tokens));
  const std::string &t = r->result.emitted;
  CHECK(t.find("indentation") != std::string::npos);
  CHECK(t.find("end of block") != std::string::npos);
  // The fun definition after the block has no line tokens.
  CHECK(t.rfind("end of line") < t.find("name main"));
}

TEST_CASE("escapes and unicode in strings") {
  auto r = runOn("main = \"a\\u{3bb}\\n\"", emitting(EmitStage::Ast, false));
  CHECK(r->result.emitted.find("StrExpr \"aλ\n\"") != std::string::npos);
}

TEST_CASE("invalid UTF-8 is a diagnostic, not a crash") {
  auto r = runOn("main = \"\xff\xfe\"", emitting(EmitStage::Core));
  CHECK(r->diags->hasErrors());
  CHECK(r->text().find("[InvalidUtf8]") != std::string::npos);
}

TEST_CASE("UTF-8 is checked wherever the first non-ASCII byte falls") {
  // The check skips ASCII eight bytes at a time: put the first byte with
  // its high bit set at each offset within such a stretch, after a prefix
  // long enough to be skipped.
  for (size_t pad = 0; pad < 9; ++pad) {
    CAPTURE(pad);
    std::string prefix = "# " + std::string(20 + pad, 'x') + "\nmain = \"";
    auto good = runOn(prefix + "h\xc3\xa9 \xe2\x82\xac\"", emitting(EmitStage::Core, false));
    CHECK_FALSE(good->diags->hasErrors());
    auto bad = runOn(prefix + "h\xc3\"", emitting(EmitStage::Core, false));
    REQUIRE(bad->diags->hasErrors());
    // The first byte that is not UTF-8: the lone lead byte \xc3.
    std::string where = "test.bend:2:" + std::to_string(10) + ": error: the file is not valid UTF-8";
    CHECK(bad->text().rfind(where, 0) == 0);
    // A bad byte after valid characters and more ASCII is found too.
    auto later = runOn(prefix + "\xce\xbb " + std::string(pad + 9, 'y') + "\xe2\x82\"",
                       emitting(EmitStage::Core, false));
    REQUIRE(later->diags->hasErrors());
    where = "test.bend:2:" + std::to_string(9 + 2 + 1 + pad + 9) + ": error: the file is not valid UTF-8";
    CHECK(later->text().rfind(where, 0) == 0);
  }
}

TEST_CASE("syntax errors name the expected and found tokens") {
  auto r = runOn("main = (+ 1 2", emitting(EmitStage::Core, false));
  CHECK(r->text().rfind("test.bend:1:14: error: expected ')' but found end of file [SyntaxError]",
                        0) == 0);
}

TEST_CASE("one run reports an error in each broken definition") {
  auto r = runOn("a = (1 2]\nb = ]\nc = 3\nmain = c\n", emitting(EmitStage::Core, false));
  CHECK(r->diags->errors() == 2);
}

// The tokens of a dump that fall on line `line`, without positions or values.
static std::string tokensOnLine(const std::string &dump, int line) {
  std::string out, prefix = std::to_string(line) + ":";
  size_t at = 0;
  while (at < dump.size()) {
    size_t end = dump.find('\n', at);
    std::string l = dump.substr(at, end - at);
    at = end == std::string::npos ? dump.size() : end + 1;
    if (l.rfind(prefix, 0) != 0)
      continue;
    size_t sp = l.find(' ');
    l = l.substr(sp + 1);
    l = l.substr(0, l.find(" = "));
    out += (out.empty() ? "" : " | ") + l;
  }
  return out;
}

TEST_CASE("after an operand of an imp expression, a glued / or - is an operator") {
  auto r = runOn("def f(l, r):\n  return (l+r)/2 + 0.0/0.0 + l -1 + a/b\n", emitting(EmitStage::Tokens));
  CHECK(tokensOnLine(r->result.emitted, 2) ==
        "'return' return | '(' ( | name l | '+' + | name r | ')' ) | '/' / | number 2 | '+' + | "
        "number 0.0 | '/' / | number 0.0 | '+' + | name l | '-' - | number 1 | '+' + | name a/b | "
        "end of line | end of block");
}

TEST_CASE("in fun syntax, an operator glued to what follows it is one only right after (") {
  auto r = runOn("main = (-x (/10 2) -1 List/Cons /a (-1 2))", emitting(EmitStage::Tokens));
  CHECK(tokensOnLine(r->result.emitted, 1) ==
        "name main | '=' = | '(' ( | '-' - | name x | '(' ( | '/' / | number 10 | number 2 | ')' ) | "
        "signed number -1 | name List/Cons | name /a | '(' ( | signed number -1 | number 2 | ')' ) | "
        "')' ) | end of file");
}

TEST_CASE("in fun syntax ** is two erasers, except as the operator after (") {
  auto r = runOn("main = (2 ** (** 2 3))", emitting(EmitStage::Tokens));
  CHECK(tokensOnLine(r->result.emitted, 1) ==
        "name main | '=' = | '(' ( | number 2 | '*' * | '*' * | '(' ( | '**' ** | number 2 | "
        "number 3 | ')' ) | ')' ) | end of file");
  auto imp = runOn("def main:\n  return 2 ** 3\n", emitting(EmitStage::Tokens));
  CHECK(imp->result.emitted.find("'**' **") != std::string::npos);
}

TEST_CASE("words that are keywords only where a term or statement starts name things elsewhere") {
  auto fun = runOn("type Bool = T | F\nIf Bool/T then else = then\nIf Bool/F then else = else\n"
                   "main = let case = 1; (If Bool/F case (λwhen when for))\nfor = 2\n",
                   emitting(EmitStage::Core));
  CHECK_FALSE(fun->diags->hasErrors());
  CHECK(fun->text() == "");
  auto imp = runOn("def main:\n  in = 1\n  lambda = 2\n  f = lambda return: return + in\n"
                   "  return [f(else) for else in [in] if else]\n",
                   emitting(EmitStage::Core));
  CHECK_FALSE(imp->diags->hasErrors());
  // Where a statement starts, `if` is the keyword, as in Bend.
  auto kw = runOn("def main:\n  if = 1\n  return 0\n", emitting(EmitStage::Core, false));
  CHECK(kw->text().find("[SyntaxError]") != std::string::npos);
  // And in fun syntax `lambda` is a name, not a lambda.
  auto lam = runOn("main = lambda x x", emitting(EmitStage::Core, false));
  CHECK(lam->diags->hasErrors());
}

TEST_CASE("constructors may be named by digits") {
  auto r = runOn("type R = A | 2 | (3 x)\nmain = (R/3 R/2)\n", emitting(EmitStage::Core));
  CHECK(r->text() == "");
}

TEST_CASE("a digit of a larger radix right after a number makes it malformed") {
  auto r = runOn("main = (+ 1e10 0b12)", emitting(EmitStage::Core, false));
  CHECK(r->text().find("test.bend:1:11: error: invalid number literal '1e10': 'e' is not a decimal "
                       "digit [InvalidNumber]") == 0);
  CHECK(r->text().find("'2' is not a binary digit") != std::string::npos);
  // The rest of the word is not read as a variable.
  CHECK(r->text().find("e10'") == r->text().find("1e10'") + 1);
  CHECK(r->text().find("UnboundVariable") == std::string::npos);
  auto hex = runOn("main = (+ 0x1F 1.5)", emitting(EmitStage::Core, false));
  CHECK(hex->text() == "");
}

TEST_CASE("a bracket left open is named where the parse stops") {
  auto eof = runOn("f x = x\nmain = (f 1\n", emitting(EmitStage::Core, false));
  CHECK(eof->text().rfind("test.bend:2:12: error: expected ')' but found end of file [SyntaxError]", 0) ==
        0);
  CHECK(eof->text().find("test.bend:2:8: note: this '(' is left open") != std::string::npos);
  // The next definition's `=` is where Bend stops too.
  auto next = runOn("f x = x\nmain = (f 1\n\ng = 2\n", emitting(EmitStage::Core, false));
  CHECK(next->text().rfind("test.bend:4:3: error: expected ')' but found '='", 0) == 0);
  auto list = runOn("main = [1, (f 2), ![1 [2", emitting(EmitStage::Core, false));
  CHECK(list->text().find("expected ']' but found end of file") != std::string::npos);
  CHECK(list->text().find("test.bend:1:23: note: this '[' is left open") != std::string::npos);
  // Within the item, a token that cannot continue is named as before.
  auto comma = runOn("main = (f 1, 2)", emitting(EmitStage::Core, false));
  CHECK(comma->text().rfind("test.bend:1:12: error: unexpected ',' [SyntaxError]", 0) == 0);
}

TEST_CASE("imp blocks are indented two spaces a level, as in Bend") {
  auto four = runOn("def main:\n    return 1\n", emitting(EmitStage::Core, false));
  CHECK(four->text().rfind("test.bend:2:1: error: indentation error: expected 2 spaces, got 4 "
                           "[BadIndentation]",
                           0) == 0);
  // One error per item: the rest of a block keeps the column written.
  auto once = runOn("def f:\n    x = 1\n    return x\ndef main:\n   return f\n",
                    emitting(EmitStage::Core, false));
  CHECK(once->diags->errors() == 2);
  CHECK(once->text().find("test.bend:5:1: error: indentation error: expected 2 spaces, got 3") !=
        std::string::npos);
  // A tab is its own error, not an indentation one too.
  auto tab = runOn("def main:\n\treturn 1\n", emitting(EmitStage::Core, false));
  CHECK(tab->text().find("tabs are not accepted") != std::string::npos);
  CHECK(tab->text().find("BadIndentation") == std::string::npos);
  // Comments may sit at any column, and so may a fun definition after an
  // imp one.
  auto ok = runOn("def f:\n        # note\n  return 1\n   main = f\n", emitting(EmitStage::Core, false));
  CHECK(ok->text() == "");
}
