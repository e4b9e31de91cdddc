// Readback of normal forms to Bend text: every expectation is what Bend
// 0.2.38's `bend run` prints after `Result: ` for the same HVM2 result.
#include "readback/Readback.h"

#include "frontend/hvm/HvmReader.h"

#include "llvm/Support/MemoryBuffer.h"

#include "tests/lowering/ReadBookText.h"

#include <doctest/doctest.h>

#include <string>
#include <vector>

using namespace bendc;
using ReadbackResult = readback::Result;

namespace {

/// Reads `normalForm` back against `compiled` (by default an empty book).
ReadbackResult readBack(const std::string &normalForm,
                        core::AdtEncoding encoding = core::AdtEncoding::NumScott,
                        const net::Book &compiled = net::Book()) {
  core::Program program;
  program.encoding = encoding;
  return readback::toBend(test::readNetText(normalForm), compiled, program);
}

/// The printed term of a readback that must raise no warning.
std::string show(const std::string &normalForm,
                 core::AdtEncoding encoding = core::AdtEncoding::NumScott,
                 const net::Book &compiled = net::Book()) {
  ReadbackResult r = readBack(normalForm, encoding, compiled);
  CHECK(r.warnings.empty());
  return r.text;
}

net::Book book(llvm::StringRef text) { return test::readBookText(text); }

/// A prefix for a chain's variables that no other chain uses: a net names
/// each wire once, and chains nest.
std::string chainPrefix() {
  static unsigned chains = 0;
  return "c" + std::to_string(chains++) + "_";
}

/// The HVM2 tree of a NumScott-encoded cons chain: each element is
/// `λx (x <tag> head tail)`, i.e. `((@<tag> (head (tail x))) x)`.

std::string numScottChain(llvm::StringRef tag, llvm::StringRef nil,
                          const std::vector<std::string> &heads) {
  std::string out, prefix = chainPrefix();
  for (const std::string &h : heads)
    out.append("((@").append(tag.str()).append(" (").append(h).append(" (");
  out.append("@").append(nil.str());
  for (size_t i = heads.size(); i-- > 0;) {
    std::string x = prefix + std::to_string(i);
    out.append(" x").append(x).append("))) x").append(x).append(")");
  }
  return out;
}

/// The same under Scott: each element is `λ* λx (x head tail)`, i.e.
/// `(* ((head (tail x)) x))`.
std::string scottChain(llvm::StringRef nil, const std::vector<std::string> &heads) {
  std::string out, prefix = chainPrefix();
  for (const std::string &h : heads)
    out.append("(* ((").append(h).append(" (");
  out.append("@").append(nil.str());
  for (size_t i = heads.size(); i-- > 0;) {
    std::string x = prefix + std::to_string(i);
    out.append(" x").append(x).append(")) x").append(x).append("))");
  }
  return out;
}

std::string numScottList(const std::vector<std::string> &heads) {
  return numScottChain("List/Cons/tag", "List/Nil", heads);
}

std::string numScottString(const std::vector<unsigned> &chars) {
  std::vector<std::string> heads;
  for (unsigned c : chars)
    heads.push_back(std::to_string(c));
  return numScottChain("String/Cons/tag", "String/Nil", heads);
}

} // namespace

TEST_CASE("u24 numbers print as plain decimals") {
  CHECK(show("42") == "42");
  CHECK(show("0") == "0");
  CHECK(show("16777215") == "16777215");
}

TEST_CASE("i24 numbers always carry a sign") {
  CHECK(show("+3") == "+3");
  CHECK(show("-3") == "-3");
  CHECK(show("+0") == "+0");
  CHECK(show("-8388608") == "-8388608");
}

TEST_CASE("f24 numbers print with three decimals, rounding ties to even") {
  CHECK(show("1.5") == "1.500");
  CHECK(show("0.1") == "0.100");
  CHECK(show("16775936.0") == "16775936.000");
  // 1/16 lies exactly between 0.062 and 0.063.
  CHECK(show("0.0625") == "0.062");
  CHECK(show("-2.5") == "-2.500");
}

TEST_CASE("f24 negative zero, infinities and NaN print as Rust prints them") {
  CHECK(show("-0.0") == "-0.000");
  CHECK(show("+inf") == "inf");
  CHECK(show("-inf") == "-inf");
  CHECK(show("+NaN") == "NaN");
}

TEST_CASE("a large f24 prints all its digits") {
  // 1e16 rounds to the f24 36380 * 2^38.
  CHECK(show("10000000000000000.0") == "10000058254622720.000");
}

TEST_CASE("a symbol alone reads as its u24 code") {
  // `[+]` is the operator word with code 4.
  CHECK(show("[+]") == "4");
}

TEST_CASE("a numeric operation on two numbers reads as a prefix operation") {
  CHECK(show("a\n& [+2] ~ $(1 a)") == "(+ 2 1)");
  CHECK(show("a & {b c} ~ {1 2} & [+] ~ $(b $(c a))") == "(+ 1 2)");
}

TEST_CASE("a flipped operator puts its operands back in order") {
  CHECK(show("a & [:-2] ~ $(1 a)") == "(- 1 2)");
}

TEST_CASE("xor on f24 reads as a power") {
  CHECK(show("a & [^2.0] ~ $(3.0 a)") == "(** 2.000 3.000)");
}

TEST_CASE("an operation inside a lambda reads its variable operand") {
  CHECK(show("(a b) & [+2] ~ $(a b)") == "λa (+ 2 a)");
}

TEST_CASE("an operation waiting on a variable reads its operands in place") {
  // λx (+ 1 x): the partial operator sits on the operand port (flipped).
  CHECK(show("($([+1] r) r)") == "λa (+ 1 a)");
}

TEST_CASE("names run on through list cells and their elements") {
  // Each cell binds a name before its head is read, as in Bend's results.
  CHECK(show(numScottList({"($([+1] r) r)", "($([+1] s) s)"})) == "[λb (+ 1 b), λd (+ 1 d)]");
}

TEST_CASE("NumScott lists resugar to list literals") {
  CHECK(show(numScottList({"1", "2", "3"})) == "[1, 2, 3]");
  CHECK(show("@List/Nil") == "[]");
}

TEST_CASE("nested lists resugar at every level") {
  std::string inner1 = numScottList({"1", "2"});
  std::string inner2 = numScottList({});
  std::string inner3 = numScottList({"3"});
  CHECK(show(numScottList({inner1, inner2, inner3})) == "[[1, 2], [], [3]]");
}

TEST_CASE("a cons chain not ending in List/Nil stays a constructor value") {
  CHECK(show("((@List/Cons/tag (1 (5 r))) r)") == "λa (a List/Cons/tag 1 5)");
}

TEST_CASE("NumScott strings resugar to string literals") {
  CHECK(show(numScottString({'h', 'i'})) == "\"hi\"");
  CHECK(show("@String/Nil") == "\"\"");
}

TEST_CASE("strings escape as Rust's Debug writes them") {
  std::vector<unsigned> chars = {'a', '"', '\\', '\n', '\t', '\r', 0, '\'', 0xE9, 0x7F, 0xAFE};
  CHECK(show(numScottString(chars)) == "\"a\\\"\\\\\\n\\t\\r\\0'\xC3\xA9\\u{7f}\\u{afe}\"");
}

TEST_CASE("string code points outside Unicode become the replacement character") {
  CHECK(show(numScottString({0xD800, 0x110000})) == "\"\xEF\xBF\xBD\xEF\xBF\xBD\"");
}

TEST_CASE("a string cell whose head is not a u24 stays a constructor value") {
  CHECK(show(numScottChain("String/Cons/tag", "String/Nil", {"+1"})) ==
        "λa (a String/Cons/tag +1 \"\")");
}

TEST_CASE("lists of strings resugar both") {
  std::string s = numScottString({'o', 'k'});
  CHECK(show(numScottList({s, "7"})) == "[\"ok\", 7]");
}

TEST_CASE("a CON whose first port holds a closed tree is a tuple") {
  CHECK(show("(1 2)") == "(1, 2)");
  CHECK(show("(1 (2 3))") == "(1, (2, 3))");
  CHECK(show("((a a) 1)") == "(λa a, 1)");
}

TEST_CASE("superpositions print in braces") {
  CHECK(show("{0 42}") == "{0 42}");
  CHECK(show("{{1 2} {4 {3 5}}}") == "{{1 2} {4 {3 5}}}");
}

TEST_CASE("erasers print as stars, also as erased binders") {
  CHECK(show("*") == "*");
  CHECK(show("(* 1)") == "λ* 1");
  CHECK(show("{2 *}") == "{2 *}");
}

TEST_CASE("lambda binders get fresh names a, b, ...") {
  CHECK(show("(a a)") == "λa a");
  CHECK(show("(a (* a))") == "λa λ* a");
}

TEST_CASE("fresh names go on past z as ab, bb, ...") {
  // λx0 ... λx27 {x0 {x1 ... {x26 x27}}}
  std::string text, body = "x27";
  for (int i = 0; i < 28; ++i)
    text += "(x" + std::to_string(i) + " ";
  for (int i = 26; i >= 0; --i)
    body = "{x" + std::to_string(i) + " " + body + "}";
  text += body + std::string(28, ')');
  CHECK(show(text) == "λa λb λc λd λe λf λg λh λi λj λk λl λm λn λo λp λq λr λs λt λu λv λw "
                      "λx λy λz λab λbb {a {b {c {d {e {f {g {h {i {j {k {l {m {n {o {p {q {r "
                      "{s {t {u {v {w {x {y {z {ab bb}}}}}}}}}}}}}}}}}}}}}}}}}}}");
}

TEST_CASE("NumScott constructor values read as a lambda applying the tag") {
  CHECK(show("((@Opt/Some/tag (2 a)) a)") == "λa (a Opt/Some/tag 2)");
  CHECK(show("((@Opt/None/tag a) a)") == "λa (a Opt/None/tag)");
}

TEST_CASE("Scott constructor values read as one lambda per constructor") {
  CHECK(show("((2 a) (* a))", core::AdtEncoding::Scott) == "λa λ* (a 2)");
}

TEST_CASE("Scott lists and strings resugar") {
  CHECK(show(scottChain("List/Nil", {"1", "2"}), core::AdtEncoding::Scott) == "[1, 2]");
  CHECK(show(scottChain("String/Nil", {"104", "105"}), core::AdtEncoding::Scott) == "\"hi\"");
}

TEST_CASE("the encoding decides which lambdas are list cells") {
  // A NumScott cell is no list under Scott; its List/Nil still is.
  CHECK(show(numScottList({"1"}), core::AdtEncoding::Scott) == "λa (a List/Cons/tag 1 [])");
  // A Scott cell is no list under NumScott.
  CHECK(show(scottChain("List/Nil", {"1"})) == "λ* λa (a 1 [])");
}

TEST_CASE("constructor calls left in the result resugar too") {
  CHECK(show("a & @List/Cons ~ (1 (@List/Nil a))") == "[1]");
  CHECK(show("a & @String/Cons ~ (104 (@String/Nil a))") == "\"h\"");
}

TEST_CASE("a numeric switch reads back with its predecessor named <name>-1") {
  CHECK(show("a & 1 ~ ?(((b b) (c c)) a)") == "switch a = 1 { 0: λb b; _: a-1; }");
}

TEST_CASE("duplications are read through, pairing superpositions on the path") {
  CHECK(show("a & {{* *} {a *}} ~ {{2 4} {3 6}}") == "3");
  CHECK(show("a & (b a) ~ ({* c} c) & ({{1 3} 2} b) ~ ({d *} d)") ==
        "(λa a (λb b {{1 3} 2}))");
  CHECK(show("(a b) & {c b} ~ (c a)") == "λa λb a");
  CHECK(show("({a b} (b a))") == "λa λb a");
}

TEST_CASE("variables used outside their binder become unscoped") {
  CHECK(show("({(a b) (c d)} e) & ((f {a c}) b) ~ ((f d) e)") ==
        "λa (λ$b (a ($b $c)) λ$c (a ($b $c)))");
}

TEST_CASE("generated non-recursive definitions are expanded") {
  net::Book compiled = book("@main = *\n"
                            "@id__C0 = (a a)\n"
                            "@f__C1 = (a b) & @id__C0 ~ (a b)\n");
  CHECK(show("{@id__C0 5}", core::AdtEncoding::NumScott, compiled) == "{λa a 5}");
  // Expanded bodies are expanded in turn; each reads with its own names.
  CHECK(show("@f__C1", core::AdtEncoding::NumScott, compiled) == "λa (λa a a)");
}

TEST_CASE("recursive and user definitions are not expanded") {
  net::Book compiled = book("@main = *\n"
                            "@foo = (a a)\n"
                            "@loop__C0 = (a b) & @loop__C0 ~ (a b)\n"
                            "@even__C0 = (a b) & @odd__C0 ~ (a b)\n"
                            "@odd__C0 = (a b) & @even__C0 ~ (a b)\n");
  CHECK(show("{@foo @loop__C0}", core::AdtEncoding::NumScott, compiled) == "{foo loop__C0}");
  CHECK(show("@even__C0", core::AdtEncoding::NumScott, compiled) == "even__C0");
}

TEST_CASE("an expanded definition shows its duplications as lets") {
  net::Book compiled = book("@main = *\n@dup__C0 = ({(b c) b} c)\n");
  CHECK(show("@dup__C0", core::AdtEncoding::NumScott, compiled) == "λa let {b c} = a; (b c)");
}

TEST_CASE("a switch arm behind a generated definition is expanded") {
  net::Book compiled = book("@main = *\n@succ__C0 = (a {a 7})\n");
  CHECK(show("a & 3 ~ ?((5 @succ__C0) a)", core::AdtEncoding::NumScott, compiled) ==
        "switch a = 3 { 0: 5; _: {a-1 7}; }");
}

TEST_CASE("a net that reaches its own root reads as invalid, with a warning") {
  ReadbackResult r = readBack("b");
  CHECK(r.text == "<Invalid>");
  REQUIRE(r.warnings.size() == 1);
  CHECK(r.warnings[0] ==
        "Unable to interpret the HVM result as a valid Bend term. (Reached Root)");
}

TEST_CASE("repeated readback problems are counted in one warning") {
  ReadbackResult r = readBack("(a b) & 1 ~ (c d) & $([+1] $(d b)) ~ $(c a)");
  CHECK(r.text == "λa <Invalid>");
  REQUIRE(r.warnings.size() == 1);
  CHECK(r.warnings[0] == "Encountered an invalid numeric operation. (3 occurrences)");
}

TEST_CASE("a net that reads itself again stops with a cyclic-term warning") {
  // λx (x (x (x ...))) as a loop through a duplication: Bend would read it
  // forever. Each turn goes through the duplication once more, so the read
  // is cut where the path of duplications grows too long, with Bend's
  // placeholder variable `...`, which no binder binds.
  ReadbackResult r = readBack("((v0 {v0 v1}) v1)");
  CHECK(llvm::StringRef(r.text).startswith("λa (a (a (a (a "));
  CHECK(llvm::StringRef(r.text).count("(a $...)") == 1);
  CHECK(llvm::StringRef(r.text).endswith(")))))"));
  REQUIRE(r.warnings.size() == 1);
  CHECK(r.warnings[0] == "Unable to interpret the HVM result as a valid Bend term. (Cyclic Term)");
}

TEST_CASE("a Church numeral's duplications are read through once per application") {
  // (2 * 3) as a Church numeral: the same ports are read again along other
  // paths of duplications, six times, as Bend reads them.
  ReadbackResult r = readBack("({(x0 {x1 {x2 x3}}) ({x2 {x3 x4}} x0)} (x4 x1))");
  CHECK(r.text == "λa λb (a (a (a (a (a (a b))))))");
  CHECK(r.warnings.empty());
}

TEST_CASE("a normal form with no net gives Bend's invalid-net warning and no term") {
  core::Program program;
  ReadbackResult r = readback::toBend(net::Book(), net::Book(), program);
  CHECK(r.text.empty());
  REQUIRE(r.warnings.size() == 1);
  CHECK(r.warnings[0] == "Failed to parse result from HVM (invalid net).");
}

TEST_CASE("a list of a million elements reads back and prints") {
  constexpr int n = 1000000;
  std::vector<std::string> heads;
  std::string expected = "[";
  for (int i = 0; i < n; ++i) {
    heads.push_back(std::to_string(i));
    expected += (i != 0 ? ", " : "") + heads.back();
  }
  expected += "]";
  CHECK(show(numScottList(heads)) == expected);
}

TEST_CASE("deeply nested tuples read back and print") {
  constexpr int n = 300000;
  std::string text, expected;
  for (int i = 0; i < n; ++i) {
    std::string digits = std::to_string(i);
    text.append("(").append(digits).append(" ");
    expected.append("(").append(digits).append(", ");
  }
  text += "0" + std::string(n, ')');
  expected += "0" + std::string(n, ')');
  CHECK(show(text) == expected);
}
