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
