#include "FrontendTestUtil.h"

#include <doctest/doctest.h>

#include <string>

using namespace bendc;
using namespace bendc::test;
using frontend::EmitStage;

TEST_CASE("equations become a match on constructor tags") {
  auto r = runOn("type B = T | F\nnot (B/T) = B/F\nnot (B/F) = B/T\nmain = (not B/T)\n",
                 emitting(EmitStage::Core, false));
  CHECK(!r->diags->hasErrors());
  CHECK(r->result.emitted.find(
            "not = λ%arg0 (%arg0 λ%tag1 switch %tag1 { 0: B/F; _: λ* B/T })") != std::string::npos);
}

TEST_CASE("the Scott encoding applies the value to one function per constructor") {
  frontend::FrontendOptions o = emitting(EmitStage::Core, false);
  o.encoding = core::AdtEncoding::Scott;
  auto r = runOn("type B = T | F\nnot (B/T) = B/F\nnot (B/F) = B/T\nmain = (not B/T)\n", o);
  CHECK(r->result.emitted.find("not = λ%arg0 (%arg0 B/F B/T)") != std::string::npos);
}

TEST_CASE("a missing constructor case is reported") {
  auto r = runOn("type C = A | B | D\nf (C/A) = 1\nf (C/B) = 2\nmain = (f C/A)\n",
                 emitting(EmitStage::None, false));
  CHECK(r->text().find("[NonExhaustiveMatch]") != std::string::npos);
}

TEST_CASE("a program is Core when it has no errors") {
  auto r = runOn("main = [1, 2, 3]\n");
  CHECK(!r->diags->hasErrors());
  REQUIRE(r->result.program);
  CHECK(r->result.program->entry == "main");
}

TEST_CASE("a 100000-element list literal does not exhaust the stack") {
  std::string src = "main = [";
  for (int i = 0; i < 100000; ++i)
    src += "1, ";
  src += "2]\n";
  auto r = runOn(src, emitting(EmitStage::Core));
  CHECK(!r->diags->hasErrors());
  CHECK(r->result.program);
}

TEST_CASE("a 10000-deep expression does not exhaust the stack") {
  std::string src = "main = ";
  for (int i = 0; i < 10000; ++i)
    src += "(+ 1 ";
  src += "1";
  for (int i = 0; i < 10000; ++i)
    src += ")";
  src += "\n";
  auto r = runOn(src, emitting(EmitStage::Core));
  CHECK(!r->diags->hasErrors());
  std::string imp = "def main():\n  return ";
  for (int i = 0; i < 10000; ++i)
    imp += "(1 + ";
  imp += "1";
  for (int i = 0; i < 10000; ++i)
    imp += ")";
  imp += "\n";
  auto r2 = runOn(imp, emitting(EmitStage::Ast));
  CHECK(!r2->diags->hasErrors());
}

TEST_CASE("nesting beyond the limit is a diagnostic") {
  std::string src = "main = " + std::string(30000, '[');
  auto r = runOn(src, emitting(EmitStage::Core, false));
  CHECK(r->text().find("[TooDeep]") != std::string::npos);
}

TEST_CASE("fold captures the variables it uses") {
  auto r = runOn("type L = (C h ~t) | N\n"
                 "def sum(xs, k):\n  fold xs:\n    case L/C:\n      return xs.h * k + xs.t\n"
                 "    case L/N:\n      return 0\n"
                 "main = (sum (L/C 1 L/N) 2)\n",
                 emitting(EmitStage::Core, false));
  CHECK(!r->diags->hasErrors());
  CHECK(r->result.emitted.find("sum__fold0 = λk λxs") != std::string::npos);
  CHECK(r->result.emitted.find("(sum__fold0 k xs.t)") != std::string::npos);
}

static frontend::FrontendOptions withArguments(std::vector<std::string> args) {
  frontend::FrontendOptions o = emitting(EmitStage::Core);
  o.mainArgs = std::move(args);
  return o;
}

TEST_CASE("command-line arguments are applied to main's body") {
  auto r = runOn("main x ys = (x, ys)\n", withArguments({"3", "[1]"}));
  CHECK(r->text() == "");
  CHECK(r->result.emitted.find("main = (λx λys (x, ys) 3 (List/Cons 1 List/Nil))") !=
        std::string::npos);
}

TEST_CASE("an argument is parsed from its own buffer") {
  auto r = runOn("main x = x\n", withArguments({"1", "(+ 1"}));
  CHECK(r->text().find("<argument 2>:1:5: error: unexpected end of argument") != std::string::npos);
  CHECK(!r->result.program);
}

TEST_CASE("a definition lifted out of an argument is named after the argument") {
  auto r = runOn("main f = (f bend x = 0 { when (< x 3): (fork (+ x 1)) else: x })\n",
                 withArguments({"λy bend x = 0 { when (< x y): (fork (+ x 1)) else: x }"}));
  CHECK(r->text() == "");
  CHECK(r->result.emitted.find("main__bend0 = ") != std::string::npos);
  CHECK(r->result.emitted.find("main__arg1__bend0 = ") != std::string::npos);
}

TEST_CASE("an unscoped variable may be bound in one argument and used in another") {
  auto r = runOn("main a b = (a, b)\n", withArguments({"λ$x 1", "$x"}));
  CHECK(r->text() == "");
}

TEST_CASE("local definitions are named as in Bend, so that equal names do not collide") {
  auto r = runOn("def main:\n  y = 1\n"
                 "  def aux(x):\n    def aux(x):\n      return x + y\n    return aux(x)\n"
                 "  def two():\n    def aux(z):\n      return z\n    return aux(2)\n"
                 "  return (aux(1), two())\n",
                 emitting(EmitStage::Core, false));
  CHECK(!r->diags->hasErrors());
  const std::string &out = r->result.emitted;
  CHECK(out.find("main__local_0_aux__local_0_aux = λy λx (+ x y)") != std::string::npos);
  CHECK(out.find("main__local_0_aux = λy λx (main__local_0_aux__local_0_aux y x)") !=
        std::string::npos);
  // The first one finished before the second began.
  CHECK(out.find("main__local_1_two__local_1_aux = ") != std::string::npos);
  CHECK(out.find("main__local_1_two = ") != std::string::npos);
}

TEST_CASE("a local definition takes its captures in name order") {
  auto r = runOn("def f(zz, aa):\n  def g(x):\n    return x + zz * aa\n  return g\n"
                 "main = (f 1 2 3)\n",
                 emitting(EmitStage::Core, false));
  CHECK(!r->diags->hasErrors());
  CHECK(r->result.emitted.find("f__local_0_g = λaa λzz λx") != std::string::npos);
  CHECK(r->result.emitted.find("(f__local_0_g aa zz)") != std::string::npos);
}

TEST_CASE("a use value copied under a binder of the same name is not captured") {
  auto r = runOn("main = @a use b = (a a) @a (b a)\n", emitting(EmitStage::Core, false));
  CHECK(!r->diags->hasErrors());
  CHECK(r->result.emitted.find("main = λa λ%a0 (a a %a0)") != std::string::npos);
}

TEST_CASE("a use variable in a local definition is passed to it, its value meaning the outer variable") {
  // As Bend does it: local definitions are lifted before `use` values are
  // substituted, so the local definition takes `y` as a variable, and the
  // call passes the value, where `x` is the outer one.
  auto r = runOn("def main:\n  x = 1\n  use y = x + 10\n  def g(x):\n    return x * y\n  return g(2)\n",
                 emitting(EmitStage::Core, false));
  CHECK(!r->diags->hasErrors());
  CHECK(r->result.emitted.find("main__local_0_g = λ%y1 λ%x0 (* %x0 %y1)") != std::string::npos);
  CHECK(r->result.emitted.find("main = let x = 1; (main__local_0_g (+ x 10) 2)") != std::string::npos);
}

TEST_CASE("an irrefutable match binds its with variables") {
  auto r = runOn("main = match p = 4004 with b = 5005 { x: (+ b p) }\n",
                 emitting(EmitStage::Core, false));
  CHECK(r->result.emitted.find("main = let b = 5005; (+ b 4004)") != std::string::npos);
}

TEST_CASE("a default case binds the fields of each constructor it stands for") {
  auto r = runOn("type Kx = (A k) | (B k o)\n"
                 "main = @t match t { Kx/A: t.k; _: (+ t.k 100) }\n",
                 emitting(EmitStage::Core, false));
  CHECK(!r->diags->hasErrors());
  CHECK(r->result.emitted.find("main = λt (t λ%tag0 switch %tag0 { 0: λt.k t.k; _: λ* λt.k λt.o "
                               "(+ t.k 100) })") != std::string::npos);
}
