// The CPU runtime on small nets: every rule, counts as HVM2 counts them, the
// result read back, and the same answer for every thread count.
#include "runtime/cpu/Arena.h"
#include "tests/runtime/RunText.h"
#include "tests/runtime/TestNets.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <fstream>
#include <string>
#include <vector>

using namespace bendc;
using testing::Outcome;
namespace nets = testing::nets;

namespace {

Outcome runText(const char *text, unsigned threads = 1, uint64_t mem = 64 << 20) {
  rt::RunOptions options;
  options.backend = rt::Backend::Cpu;
  options.threads = threads;
  options.memBytes = mem;
  return testing::runText(text, options);
}

uint64_t rule(const Outcome &o, rt::Rule r) { return o.run.stats.byRule[unsigned(r)]; }

} // namespace

TEST_CASE("a reference expands into its definition (call)") {
  auto o = runText("@main = r & @id ~ (5 r)\n@id = (x x)\n");
  CHECK_RESULT(o, "5");
  CHECK(rule(o, rt::Rule::Call) == 2); // @main, @id
  CHECK(rule(o, rt::Rule::Anni) == 1);
  CHECK(o.run.stats.interactions == 3);
}

TEST_CASE("application meets abstraction (beta, annihilation)") {
  auto o = runText("@main = r & (a a) ~ (7 r)\n");
  CHECK_RESULT(o, "7");
  CHECK(rule(o, rt::Rule::Anni) == 1);
  CHECK(o.run.stats.interactions == 2);
}

TEST_CASE("a tuple taken apart (annihilation of built and taken-apart pairs)") {
  auto o = runText("@main = (b a) & (1 2) ~ (a b)\n");
  CHECK_RESULT(o, "(2 1)");
  CHECK(rule(o, rt::Rule::Anni) == 1);
}

TEST_CASE("superposition meets duplication (annihilation)") {
  auto o = runText("@main = (a b) & {a b} ~ {1 2}\n");
  CHECK_RESULT(o, "(1 2)");
  CHECK(rule(o, rt::Rule::Anni) == 1);
}

TEST_CASE("a duplicated lambda (commutation)") {
  auto o = runText("@main = (a b) & {a b} ~ (x x)\n");
  CHECK_RESULT(o, "((x0 x0) (x1 x1))");
  CHECK(rule(o, rt::Rule::Comm) == 1);
  CHECK(rule(o, rt::Rule::Anni) == 1);
  CHECK(o.run.stats.interactions == 3);
}

TEST_CASE("a duplicated tuple and a duplicated application") {
  auto o = runText("@main = (a b) & {a b} ~ (1 2)\n");
  CHECK_RESULT(o, "((1 2) (1 2))");
  CHECK(rule(o, rt::Rule::Comm) == 1);
  auto p = runText("@main = (a b) & {a b} ~ (x (y (x y)))\n");
  CHECK_RESULT(p, "((x0 (x1 (x0 x1))) (x2 (x3 (x2 x3))))");
}

TEST_CASE("erasers: leaves vanish (void)") {
  auto o = runText("@main = 1 & * ~ 2\n");
  CHECK_RESULT(o, "1");
  CHECK(rule(o, rt::Rule::Void) == 1);
  auto r = runText("@main = 1 & * ~ @k\n@k = 9\n");
  CHECK_RESULT(r, "1");
  CHECK(rule(r, rt::Rule::Void) == 1);
  CHECK(rule(r, rt::Rule::Call) == 1); // an eraser deletes a reference unexpanded
}

TEST_CASE("erasers: a node is erased port by port") {
  auto o = runText("@main = 1 & * ~ (a a)\n");
  CHECK_RESULT(o, "1");
  CHECK(rule(o, rt::Rule::Eras) == 1);
  CHECK(rule(o, rt::Rule::Void) == 1);
  CHECK(o.run.stats.interactions == 3);
  auto n = runText("@main = r & (* r) ~ (* 4)\n");
  CHECK_RESULT(n, "4");
}

TEST_CASE("numbers are duplicated and erased") {
  auto o = runText("@main = (a b) & {a b} ~ 5\n");
  CHECK_RESULT(o, "(5 5)");
  CHECK(rule(o, rt::Rule::Eras) == 1);
}

TEST_CASE("a duplicator copies a definition without duplicators") {
  // The result starts with a number, so reading it expands nothing (see
  // "the result is looked at as HVM2 does").
  auto o = runText("@main = (1 (a b)) & {a b} ~ @k\n@k = (x x)\n");
  CHECK_RESULT(o, "(1 (@k @k))");
  CHECK(rule(o, rt::Rule::Call) == 1);
  CHECK(rule(o, rt::Rule::Eras) == 1);
}

TEST_CASE("the result is looked at as HVM2 does: references on its spine expanded and counted") {
  // After reducing, HVM2 looks whether the result is an IO call: it expands
  // a reference at the root, at the first port of a constructor node there,
  // at the tag, and in the first port of each next node along the chain (one
  // level: not inside the fields). Each expansion is a call plus the
  // reduction of the copy; the copies are left alone, so the result prints
  // with its references.
  const char *list = "@List/Cons = (a (b ((@List/Cons/tag (a (b c))) c)))\n@List/Cons/tag = 1\n"
                     "@List/Nil = ((@List/Nil/tag a) a)\n@List/Nil/tag = 0\n";
  struct Case {
    std::string text;
    const char *result;
    uint64_t calls, total;
  } cases[] = {
      // The number at the root: nothing to expand.
      {"@main = 42\n", "42", 1, 1},
      // A reference at the root, and a chain of them: one call each.
      {"@main = @f\n@f = 42\n", "@f", 2, 2},
      {"@main = @g\n@g = @f\n@f = 42\n", "@g", 3, 3},
      // A nullary constructor by name: itself, then its tag.
      {std::string(list) + "@main = @List/Nil\n", "@List/Nil", 3, 3},
      // [1]: @main, @List/Cons and its two λs meeting their applications;
      // then the tag, and the tail field. The tail's own tag is not read.
      {std::string(list) + "@main = a & @List/Cons ~ (1 (@List/Nil a))\n",
       "((@List/Cons/tag (1 (@List/Nil x0))) x0)", 4, 6},
      // A field that is a reference is expanded with all its work (a call
      // of @heavy, a call of @List/Cons and two annihilations), but what it
      // becomes is not read further.
      {std::string(list) + "@Box = (a ((@Box/tag (a b)) b))\n@Box/tag = 0\n"
                           "@heavy = b & @List/Cons ~ (1 (@List/Nil b))\n"
                           "@main = a & @Box ~ (@heavy a)\n",
       "((@Box/tag (@heavy x0)) x0)", 5, 8},
      // A pair is a constructor node too: its first port is expanded...
      {"@main = (@f 2)\n@f = 42\n", "(@f 2)", 2, 2},
      // ...and reading stops where that port holds no node.
      {"@main = (5 (@f 3))\n@f = 7\n", "(5 (@f 3))", 1, 1},
  };
  for (const Case &c : cases) {
    CAPTURE(c.text);
    for (unsigned threads : {1u, 2u}) {
      auto o = runText(c.text.c_str(), threads);
      CHECK_RESULT(o, c.result);
      CHECK(rule(o, rt::Rule::Call) == c.calls);
      CHECK(o.run.stats.interactions == c.total);
    }
  }
}

TEST_CASE("every rule's test net gives HVM2's result, on one thread and on four") {
  for (const nets::RuleNet &r : nets::rules)
    for (unsigned threads : {1u, 4u}) {
      CAPTURE(r.name);
      CAPTURE(threads);
      CHECK_RESULT(runText(r.text, threads), r.result);
    }
}

TEST_CASE("a duplicator expands a definition that duplicates") {
  auto o = runText(nets::rule("duplicator expands a definition that duplicates").text);
  REQUIRE(o.run.status == rt::RunStatus::Ok);
  CHECK(rule(o, rt::Rule::Call) == 2);
}

TEST_CASE("operators: immediate, partial and waiting for the operand") {
  CHECK(rule(runText(nets::rule("operator: immediate").text), rt::Rule::Oper) == 1);
  CHECK(rule(runText(nets::rule("operator: partial").text), rt::Rule::Oper) == 2);
  // The operand arrives later through a variable: the operator waits in a new node.
  CHECK(rule(runText(nets::rule("operator: waiting for the operand").text), rt::Rule::Oper) == 3);
}

TEST_CASE("switch: zero and successor") {
  for (const char *name : {"switch: zero", "switch: successor"}) {
    const nets::RuleNet &r = nets::rule(name);
    auto o = runText(r.text);
    CHECK_RESULT(o, r.result);
    CHECK(rule(o, rt::Rule::Swit) == 1);
  }
}

TEST_CASE("switch: the cases arrive later, through a reference") {
  // The switch cannot take the pair apart at once; a node does it on arrival,
  // with the same interactions counted.
  auto z = runText("@main = r & 0 ~ ?(@cases r)\n@cases = (10 (p p))\n");
  CHECK_RESULT(z, "10");
  CHECK(rule(z, rt::Rule::Swit) == 1);
  CHECK(rule(z, rt::Rule::Anni) == 1);
  auto s = runText("@main = r & 6 ~ ?(@cases r)\n@cases = (10 (p p))\n");
  CHECK_RESULT(s, "5");
  CHECK(rule(s, rt::Rule::Anni) == 2); // the pair, then the successor case applied
}

TEST_CASE("running out of memory is reported, not a crash") {
  // An infinite loop that keeps allocating.
  auto o = runText("@main = r & @grow ~ (1 r)\n@grow = ({a b} (c d)) & @grow ~ (a c) & @grow ~ (b d)\n", 1,
                   1 << 20);
  CHECK(o.run.status == rt::RunStatus::OutOfMemory);
  CHECK(o.run.message.find("out of memory") == 0);
  CHECK(o.run.message.find("--mem") != std::string::npos);
  // With several threads the others stop too: no hang, the same report.
  auto many = runText("@main = r & @grow ~ (1 r)\n@grow = ({a b} (c d)) & @grow ~ (a c) & @grow ~ (b d)\n",
                      3, 4 << 20);
  CHECK(many.run.status == rt::RunStatus::OutOfMemory);
}

TEST_CASE("nodes that meet with clashing polarities reduce as in HVM2") {
  // Each net with the result and interaction count that HVM2 2.0.22 gives,
  // on one thread and on four.
  struct Case {
    const char *net, *result;
    uint64_t interactions;
  };
  const Case cases[] = {
      // A pair applied: its first field meets the argument, two numbers.
      {"@main = r & @t ~ (1 r)\n@t = (2 3)\n", "3", 4},
      // A number applied: the number is copied into the application's ports.
      {"@main = a & 5 ~ ((b b) a)\n", "5", 4},
      // A λ and a superposition meet as values: they commute through cells.
      {"@main = a & ((b b) 2) ~ ({(c c) 3} a)\n", "2", 7},
      // A duplicated pair applied to its copy: values wait in variables.
      {"@main = a & (1 2) ~ {(b a) b}\n", "2", 8},
      // A λ taken apart as a pair; its parts joined to each other.
      {"@main = a & (b b) ~ ((c a) c)\n", "x0", 2},
      // An operator pushed into a λ: a number meets the operator's twin.
      {"@main = a & [+0x0000001] ~ $(((2 b) b) a)\n", "((3 x0) x0)", 10},
      // A switch whose branches are a pair meeting a pair.
      {"@main = a & 3 ~ ?((b c) a) & (1 2) ~ (b c)\n", "2", 7},
      // A pair of numbers where an operator waits for one number.
      {"@main = a & (x (y z)) ~ $(1 a) & (10 (20 30)) ~ (x (y z))\n", "(0 (0 0))", 13},
      // A reference meeting a pair in a clash is expanded first.
      {"@main = r & @u ~ ((1 2) r)\n@u = *\n", "*", 6},
      {"@main = r & (@f 7) ~ ((x x) r)\n@f = (a (b a))\n", "7", 4},
      // Pairs nested deeper than one clash follows at once (MaxClashDepth).
      {"@main = r & @t ~ (((((((((((((5 0) 1) 2) 3) 4) 5) 6) 7) 8) 9) 10) 11) r)\n"
       "@t = (((((((((((((6 100) 101) 102) 103) 104) 105) 106) 107) 108) 109) 110) 111) 3)\n",
       "3", 28},
      // References meeting λs at every level.
      {"@main = r & @t ~ (((((((((((x @n) @n) @n) @n) @n) @n) @n) @n) @n) @n) (x r))\n"
       "@t = (((((((((((@n (y0 y0)) (y1 y1)) (y2 y2)) (y3 y3)) (y4 y4)) (y5 y5)) (y6 y6)) (y7 y7)) "
       "(y8 y8)) (y9 y9)) 3)\n@n = (a a)\n",
       "3", 35},
  };
  for (const Case &k : cases)
    for (unsigned threads : {1u, 4u}) {
      CAPTURE(k.net);
      CAPTURE(threads);
      auto o = runText(k.net, threads);
      CHECK_RESULT(o, k.result);
      CHECK(o.run.stats.interactions == k.interactions);
    }
}

TEST_CASE("parallel programs give the same result and count on every thread count") {
  for (const std::string &text : {nets::sum(14), nets::tree(12)}) {
    const char *program = text.c_str();
    auto one = runText(program, 1);
    REQUIRE(one.run.status == rt::RunStatus::Ok);
    for (unsigned threads : {2u, 3u, 4u}) {
      CAPTURE(threads);
      auto many = runText(program, threads);
      REQUIRE(many.run.status == rt::RunStatus::Ok);
      CHECK(many.result == one.result);
      CHECK(many.run.stats.interactions == one.run.stats.interactions);
      CHECK(many.run.stats.byRule == one.run.stats.byRule);
    }
  }
  CHECK(runText(nets::sum(14).c_str()).result == nets::sumResult(14));
  CHECK(runText(nets::tree(12).c_str()).result == nets::sumResult(12));
}

TEST_CASE("a recursion whose every level waits for the one below runs on several threads") {
  // g switches on what the call of f below returns: every level's g is
  // marked, and every share while the other thread waits gives some away.
  const char *program = R"(
@main = r & @f ~ (100000 r)
@f = (?((0 @f/s) r) r)
@f/s = (p r) & @g ~ (x r) & @f ~ (p x)
@g = (?((1 (* 2)) r) r)
)";
  auto one = runText(program, 1);
  REQUIRE(one.run.status == rt::RunStatus::Ok);
  CHECK(one.result == "2");
  for (unsigned threads : {2u, 4u}) {
    CAPTURE(threads);
    auto many = runText(program, threads);
    REQUIRE(many.run.status == rt::RunStatus::Ok);
    CHECK(many.result == one.result);
    CHECK(many.run.stats.byRule == one.run.stats.byRule);
  }
}

TEST_CASE("calls given to other threads before the work they need is done: the same result and count") {
  // A bitonic sort (nets::bitonic): which thread runs what changes from run
  // to run; the result and counts do not.
  const std::string text = nets::bitonic(9);
  const char *program = text.c_str();
  auto one = runText(program, 1);
  REQUIRE(one.run.status == rt::RunStatus::Ok);
  // The sum of (i + 1) * value over the sorted values, 24-bit.
  std::vector<uint32_t> values;
  for (uint32_t x = 0; x < 512; ++x)
    values.push_back(x * 40503 & 65535);
  std::sort(values.begin(), values.end());
  uint32_t sum = 0;
  for (uint32_t i = 0; i < values.size(); ++i)
    sum = (sum + (i + 1) * values[i]) & 0xFFFFFF;
  CHECK(one.result == std::to_string(sum));
  for (unsigned threads : {2u, 3u, 4u})
    for (int again = 0; again < 4; ++again) {
      CAPTURE(threads);
      auto many = runText(program, threads);
      REQUIRE(many.run.status == rt::RunStatus::Ok);
      CHECK(many.result == one.result);
      CHECK(many.run.stats.byRule == one.run.stats.byRule);
    }
}

namespace {

/// Runs `text` as it loads and with `change` made to its book, and checks
/// that both print the same result and count the same interactions, rule by
/// rule. Returns the first run; `look` sees its book before it runs.
Outcome sameWithout(const char *text, unsigned threads, llvm::function_ref<void(rt::Book &)> change,
                    llvm::function_ref<void(rt::Book &)> look = nullptr) {
  rt::RunOptions options;
  options.backend = rt::Backend::Cpu;
  options.threads = threads;
  options.memBytes = 64 << 20;
  Outcome as = testing::runText(text, options, look);
  Outcome changed = testing::runText(text, options, change);
  INFO(as.diagnostics);
  INFO(as.run.message);
  INFO(std::string(text));
  REQUIRE(as.run.status == rt::RunStatus::Ok);
  REQUIRE(changed.run.status == rt::RunStatus::Ok);
  CHECK(as.result == changed.result);
  for (unsigned r = 0; r < rt::RuleCount; ++r) {
    INFO("rule " << r);
    CHECK(as.run.stats.byRule[r] == changed.run.stats.byRule[r]);
  }
  return as;
}

/// The same with numeric switches called directly (the default) and with
/// every definition expanded. Returns the direct run.
Outcome sameWithoutSwitchCalls(const char *text, unsigned threads) {
  return sameWithout(text, threads, [](rt::Book &book) {
    for (rt::DefInfo &d : book.defs)
      d.switchArm[0] = d.switchArm[1] = 0;
  });
}

} // namespace

TEST_CASE("a numeric switch called with its number: the same result and counts as expanding it") {
  const char *programs[] = {
      // A countdown whose zero arm is a number and successor arm a reference.
      "@main = r & @loop ~ (1000 r)\n@loop = (?((7 @loop) f) f)\n",
      // A zero arm that is a λ (erased on every step: ERAS and VOID counted).
      "@main = r & @loop ~ (500 (3 r))\n@loop = (?(((x x) @step) f) f)\n"
      "@step = (p ($([+1] b) r)) & @loop ~ (p (b r))\n",
      // Arms that hold erasers and numbers; a λ chosen at zero.
      "@main = r & @pick ~ (0 (5 r))\n@pick = (?(((* 1) (* (* 2))) f) f)\n",
      "@main = r & @pick ~ (4 (5 r))\n@pick = (?(((* 1) (* (* 2))) f) f)\n",
      // A tree recursion: the depth reaches each call through a duplication.
      "@main = r & @sum ~ (10 (1 r))\n@sum = (?(((x x) @sum/node) f) f)\n"
      "@sum/node = ({d1 d2} ({a b} r)) & @sum ~ (d1 (a $([+] $(s r)))) & @sum ~ (d2 (b s))\n",
      // The number computed by an operator before the call, and after it.
      "@main = r & @f ~ (a r) & 3 ~ $([*] $(2 a))\n@f = (?((10 @g) f) f)\n@g = (p p)\n",
      "@main = r & @f ~ (a r) & @three ~ $([*] $(2 a))\n@three = 3\n@f = (?((10 @g) f) f)\n@g = (p p)\n",
      // Constructor tags as Bend writes them: references to numbers; and a
      // reference to something else, which goes the general way.
      "@main = (r s) & @f ~ (@one r) & @f ~ (@zero s)\n@one = 1\n@zero = 0\n"
      "@f = (?((10 @g) f) f)\n@g = (p p)\n",
      "@main = r & @f ~ (@two r)\n@two = @one\n@one = 1\n@f = (?((10 @g) f) f)\n@g = (p p)\n",
      // The call comes first and its number later: it is put off, then run.
      "@main = r & 3 ~ $([*] $(2 a)) & @f ~ (a r)\n@f = (?((10 @g) f) f)\n@g = (p p)\n",
      // The number reaches two calls through a duplication.
      "@main = (r s) & {a b} ~ 4 & @f ~ (a r) & @f ~ (b s)\n@f = (?((10 @g) f) f)\n@g = (p p)\n",
      // A tree whose every node calls on the sum of its two subtrees: the
      // call waits for numbers that another thread may be computing.
      "@main = r & @go ~ (12 (1 r))\n@go = (?(((x x) @go/node) f) f)\n"
      "@go/node = ({d1 d2} ({a b} r)) & @go ~ (d1 (a x)) & @go ~ (d2 (b y))"
      " & x ~ $([+] $(y s)) & @pick ~ (s r)\n@pick = (?((1 @pick/s) f) f)\n@pick/s = (p p)\n",
  };
  for (const char *text : programs)
    for (unsigned threads : {1u, 2u}) {
      CAPTURE(threads);
      sameWithoutSwitchCalls(text, threads);
    }
  // CHECK_RESULT evaluates its argument more than once: keep each outcome.
  const std::pair<unsigned, const char *> expected[] = {
      {0, "7"}, {1, "503"}, {2, "1"}, {3, "2"}, {4, "1024"}, {5, "5"}, {7, "(0 10)"}, {8, "0"},
      {9, "5"}, {10, "(3 3)"}, {11, "1"}};
  for (auto [index, result] : expected) {
    Outcome o = sameWithoutSwitchCalls(programs[index], 1);
    CHECK_RESULT(o, result);
  }
}

namespace {

/// The same with the definitions' plans (arithmetic while copying) and
/// without. Returns the run with plans; `plans` is set to how many
/// definitions have one.
Outcome sameWithoutPlans(const char *text, unsigned threads, size_t &plans) {
  return sameWithout(
      text, threads,
      [](rt::Book &book) {
        for (rt::DefInfo &d : book.defs)
          d.plan = 0;
      },
      [&](rt::Book &book) { plans = book.plans.size(); });
}

} // namespace

TEST_CASE("arithmetic done while copying a call: the same result and counts as building it") {
  struct Case {
    const char *text, *result;
  } cases[] = {
      // A square: the argument duplicated into an operator whose operand is
      // the other copy, reached through a variable (two OPERs).
      {"@main = r & @sq ~ (7 r)\n@sq = ({$([*] $(b r)) b} r)\n", "49"},
      // The operand is the argument itself (one OPER), and a literal.
      {"@main = r & @f ~ (3 (4 r))\n@f = (a ($([+] $(a r)) r))\n", "7"},
      {"@main = r & @f ~ (3 r)\n@f = ($([*10] $([+1] r)) r)\n", "31"},
      // A loop: the accumulator computed while copying reaches the next
      // call's operator as a number where the built net has a variable.
      {"@main = r & @loop ~ (100 (0 r))\n@loop = (?(((a a) @loop/step) f) f)\n"
       "@loop/step = ({p1 p2} ($([+] $(p1 a2)) r)) & @loop ~ (p2 (a2 r))\n",
       "4950"},
      // Copies that leave the plan are marked as reached through a variable:
      // an operator in the next call, planned or built, counts what it
      // would have counted reading them through one.
      {"@main = r & @g ~ (3 r)\n@g = ({x y} r) & @f ~ (x (y r))\n@f = (a ($([+] $(a r)) r))\n", "6"},
      {"@main = r & @g ~ (5 r)\n@g = ({x y} r) & @b ~ (x (y r))\n"
       "@b = (p (q r)) & @id ~ (q $([+] $(p r)))\n@id = (x x)\n",
       "10"},
      // An operand from a slot evaluated later (the operator waits in the
      // plan), a result reaching an eraser, a duplication with an eraser.
      {"@main = r & @w ~ (5 (9 (2 r)))\n"
       "@w = (s ({$([>] $(b1 $([^] $(s k)))) *} ({b1 *} k)))\n",
       "4"},
      // Copies reaching nodes of other kinds: built, then linked.
      {"@main = r & @f ~ (6 r)\n@f = ({(x x) $([+1] r)} r)\n", "7"},
      {"@main = (r s) & @f ~ (6 (r s))\n@f = ({?((1 (p p)) r) $([+1] s)} (r s))\n", "(5 7)"},
      // An argument that is not a number yet: no plan runs; and a number
      // that arrives later through a variable.
      {"@main = r & @sq ~ (a r) & 3 ~ $([*] $(2 a))\n@sq = ({$([*] $(b r)) b} r)\n", "36"},
      // Arguments that are variables whose numbers arrived first (read
      // through the variable, as the built net would) or later.
      {"@main = r & @f ~ (a (b r)) & {a b} ~ 3\n@f = (a ($([+] $(a r)) r))\n", "6"},
      {"@main = r & {a b} ~ 3 & @f ~ (a (b r))\n@f = (a ($([+] $(a r)) r))\n", "6"},
      // A call that fuses fewer levels than the plan's chain (no plan
      // runs), or all of them once the second application is linked.
      {"@main = r & @f ~ (3 r)\n@f = (a ($([+] $(a r)) r))\n", nullptr},
      {"@main = s & @f ~ (3 r) & r ~ (4 s)\n@f = (a ($([+] $(a r)) r))\n", "7"},
  };
  for (const Case &k : cases)
    for (unsigned threads : {1u, 2u, 4u}) {
      CAPTURE(k.text);
      CAPTURE(threads);
      size_t plans = 0;
      Outcome o = sameWithoutPlans(k.text, threads, plans);
      CHECK(plans > 0);
      if (k.result)
        CHECK(o.result == std::string(k.result));
    }
  // Larger: a parallel sum and tree, on several threads.
  for (const std::string &text : {nets::sum(12), nets::tree(10)})
    for (unsigned threads : {1u, 3u}) {
      size_t plans = 0;
      sameWithoutPlans(text.c_str(), threads, plans);
    }
}

TEST_CASE("memory is reused: a long loop runs in little memory") {
  // 200 000 iterations allocate 3 nodes each (600 000 in all); 4 MiB holds
  // 246 723 nodes. The result's wire runs through every iteration and keeps one
  // node per iteration alive, as HVM2 keeps one variable per iteration.
  auto o = runText(R"(
@main = r & @loop ~ (200000 r)
@loop = (?((0 @loop/go) f) f)
@loop/go = f & @loop ~ f
)", 1, 4 << 20);
  CHECK_RESULT(o, "0");
  CHECK(o.run.stats.peakNodes < 300000);
  CHECK(rule(o, rt::Rule::Swit) == 200001);
}

namespace {
/// 3^11 successor steps through shared Church numerals.
const char *const ChurchPow11 = R"(
@main = r & @pow ~ (11 (@succ t)) & t ~ (0 r)
@pow = (?(((f f) @pow/more) g) g)
@pow/more = (p (f r)) & @pow ~ (p (f g)) & @three ~ (g r)
@three = ({(x y) {(y z) (z r)}} (x r))
@succ = ($([+1] r) r)
)";
} // namespace

TEST_CASE("a shared function's copies for its first use are built last") {
  // 3^11 successor steps through shared Church numerals: the successor
  // meets superpositions of each numeral's three uses, and a commutation
  // builds the copies for a use that the number needs first last, so the
  // number goes through them as they are built. Built first, 5/6 of the
  // 177 147 copies were in the net at once (163 841 nodes at the peak);
  // this order alone brings it to two thirds (see the next test for less).
  auto o = runText(ChurchPow11, 1, 64 << 20);
  CHECK_RESULT(o, "177147");
  CHECK(rule(o, rt::Rule::Comm) == 177164);
  CHECK(o.run.stats.peakNodes * 4 < 177147 * 3);
}

TEST_CASE("a leaf a commutation copies goes into both copies, and no duplication is built") {
  // A pair of numbers, a λ returning one, and a pair of a definition and
  // an eraser, copied: each leaf is an interaction with the duplication that
  // would have taken it (Rule::Eras; the λ's erased variable is one more),
  // and the copies read back as the originals.
  auto small = runText(R"(
@main = (a (b (f (g (h k))))) & (1 2) ~ {a b} & (* 5) ~ {f g} & (@id *) ~ {h k}
@id = (x x)
)");
  CHECK_RESULT(small, "((1 2) ((1 2) ((* 5) ((* 5) ((@id *) (@id *))))))");
  CHECK(rule(small, rt::Rule::Comm) == 3);
  CHECK(rule(small, rt::Rule::Eras) == 6);
  // Church numerals: every commutation copies the successor's operand. Built
  // as a duplication, each such operand kept a node alive until both copies
  // had read it through their variables: 131 073 nodes at the peak, against
  // 65 537 now, under half of the 177 147 steps. Every count stays the same
  // (an operator finding a copied number counts what it counted reading it
  // through the variable), at every thread count.
  auto one = runText(ChurchPow11, 1);
  CHECK_RESULT(one, "177147");
  CHECK(rule(one, rt::Rule::Comm) == 177164);
  CHECK(rule(one, rt::Rule::Eras) == 177157);
  CHECK(rule(one, rt::Rule::Oper) == 2 * 177147);
  CHECK(one.run.stats.peakNodes * 2 < 177147);
  for (unsigned threads : {2u, 3u}) {
    CAPTURE(threads);
    auto o = runText(ChurchPow11, threads);
    CHECK_RESULT(o, "177147");
    CHECK(o.run.stats.byRule == one.run.stats.byRule);
  }
}

TEST_CASE("a value that arrives at a call's result goes into the field that waits for it") {
  // A tree of 2^16 leaves whose every pair holds the results of two calls.
  // Each result arrives in its call's application, dead otherwise, and is
  // written into the pair's field, and the application is freed. Left
  // there, the applications were twice as many nodes as the pairs (360 449
  // nodes at the peak); now 163 841 at one thread. Several threads write
  // them too (the reader of a field claims it, see detail::take), count the
  // same and agree on the result; their peak is a few chunks more.
  std::string text = nets::tree(16);
  auto one = runText(text.c_str(), 1, 64 << 20);
  CHECK_RESULT(one, nets::sumResult(16));
  CHECK(one.run.stats.peakNodes < 200000);
  for (unsigned threads : {2u, 3u}) {
    CAPTURE(threads);
    auto o = runText(text.c_str(), threads, 64 << 20);
    CHECK_RESULT(o, nets::sumResult(16));
    CHECK(o.run.stats.byRule == one.run.stats.byRule);
    CHECK(o.run.stats.peakNodes < 280000);
  }
}

TEST_CASE("an arena asks for huge pages only from a huge page's boundary, and reads as zero") {
  rt::Arena arena(uint64_t(64) << 20);
  REQUIRE(arena.ok());
  const uint64_t reserved = arena.nodeCount() * rt::Arena::bytesPerNode;
  CHECK(arena.hugePageBytes() <= reserved);
  if (arena.hugePageBytes() != 0) {
    REQUIRE(arena.hugePageSize() != 0);
    CHECK(arena.hugePageBytes() % arena.hugePageSize() == 0);
    CHECK(reinterpret_cast<uintptr_t>(arena.slotData()) % arena.hugePageSize() == 0);
    CHECK(reinterpret_cast<uintptr_t>(arena.deadData()) % arena.hugePageSize() == 0);
  }
  // Every node, first to last, is there to be written.
  const rt::Loc last = arena.nodeCount() - 1;
  for (rt::Loc n : {rt::Loc(0), last / 2, last}) {
    CHECK(arena.slotData()[2 * n + 1] == 0);
    CHECK(arena.deadData()[n] == 0);
    arena.slotData()[2 * n + 1] = 7;
    arena.deadData()[n] = 1;
  }
  // Far more than the machine holds: huge pages are asked for only as far
  // as half of what it holds free (so at most half of all it has).
  std::ifstream meminfo("/proc/meminfo");
  std::string key;
  uint64_t totalKiB = 0;
  while (meminfo >> key && key != "MemTotal:")
    meminfo.ignore(1 << 10, '\n');
  meminfo >> totalKiB;
  rt::Arena big(uint64_t(1) << 42);
  if (big.ok() && totalKiB != 0)
    CHECK(big.hugePageBytes() <= totalKiB * 1024 / 2);
}

TEST_CASE("a net past the first 32 MiB, mapped a window at a time or ahead by an idle thread, reduces and "
          "runs out as before") {
  // Chunks past the first 32 MiB of the arena are mapped in windows (see
  // WindowNodes in CpuRuntime.cpp); this tree peaks at about 35 MiB at one
  // thread (its fields written where they wait), 85 MiB at two.
  std::string text = nets::tree(20);
  auto one = runText(text.c_str(), 1, 256 << 20);
  REQUIRE(one.run.status == rt::RunStatus::Ok);
  CHECK(one.result == nets::sumResult(20));
  CHECK(one.run.stats.peakNodes * rt::Arena::bytesPerNode > (uint64_t(32) << 20));
  auto two = runText(text.c_str(), 2, 256 << 20);
  REQUIRE(two.run.status == rt::RunStatus::Ok);
  CHECK(two.result == one.result);
  CHECK(two.run.stats.byRule == one.run.stats.byRule);
  // One chain that grows a list past the first 32 MiB: the second thread has
  // nothing to do and maps the pages the first will need (Worker::mapAhead).
  const char *list = "@main = r & @mk ~ (2097152 (0 (r *)))\n"
                     "@mk = (?(((a a) @mk/go) f) f)\n"
                     "@mk/go = ({p q} (acc r)) & @mk ~ (p ((q acc) r))\n";
  auto alone = runText(list, 1, 256 << 20);
  REQUIRE(alone.run.status == rt::RunStatus::Ok);
  CHECK(alone.result == "0");
  CHECK(alone.run.stats.peakNodes * rt::Arena::bytesPerNode > (uint64_t(32) << 20));
  auto helped = runText(list, 2, 256 << 20);
  REQUIRE(helped.run.status == rt::RunStatus::Ok);
  CHECK(helped.result == alone.result);
  CHECK(helped.run.stats.byRule == alone.run.stats.byRule);
  // An arena used up past its windows is reported as before.
  const char *grow = "@main = r & @grow ~ (1 r)\n@grow = ({a b} (c d)) & @grow ~ (a c) & @grow ~ (b d)\n";
  for (unsigned threads : {1u, 2u}) {
    CAPTURE(threads);
    auto o = runText(grow, threads, 40 << 20);
    CHECK(o.run.status == rt::RunStatus::OutOfMemory);
  }
}

TEST_CASE("a curried call meets its applications level by level, counted as HVM2 counts") {
  // Full application: call, two annihilations, the unused argument erased.
  auto full = runText("@main = r & @k ~ (1 (2 r))\n@k = (a (* a))\n");
  CHECK_RESULT(full, "1");
  CHECK(rule(full, rt::Rule::Call) == 2);
  CHECK(rule(full, rt::Rule::Anni) == 2);
  CHECK(rule(full, rt::Rule::Void) == 1);
  CHECK(full.run.stats.interactions == 5);
  // Partial application: the result is the inner function.
  auto part = runText("@main = r & @k ~ (1 r)\n@k = (a (* a))\n");
  CHECK_RESULT(part, "(* 1)");
  CHECK(part.run.stats.interactions == 3);
  // The result meets a duplicator instead of a second application.
  auto dup = runText("@main = (x y) & @k ~ (1 {x y})\n@k = (a (* a))\n");
  CHECK_RESULT(dup, "((* 1) (* 1))");
  // A pattern in the binder takes the argument apart.
  auto pat = runText("@main = r & @fst ~ (@pair r)\n@pair = (1 2)\n@fst = ((a *) a)\n");
  CHECK_RESULT(pat, "1");
  CHECK(rule(pat, rt::Rule::Anni) == 2); // λ with application, pattern with pair
}

// An IO call by hand: IO/Call(magic, "X", *, λa a), a name no host function
// has. The answer, Result/Err(IOError/Name), is what the identity
// continuation returns.
static const char *const UnknownIoCall =
    "@magic = (13683217 16719857)\n"
    "@main = ((1 (@magic (((1 (88 (((0 y) y) x))) x) (* ((a a) r))))) r)\n";

TEST_CASE("an IO call runs on the host and its continuation gets the answer") {
  for (unsigned threads : {1u, 4u}) {
    auto o = runText(UnknownIoCall, threads);
    CHECK_RESULT(o, "((1 (((1 x0) x0) x1)) x1)");
    CHECK(o.run.stats.ioCalls == 1);
    CHECK_FALSE(o.run.ioPending);
  }
}

TEST_CASE("without IO the call is the result, and it is recognised as pending") {
  rt::RunOptions options;
  options.backend = rt::Backend::Cpu;
  options.threads = 1;
  options.memBytes = 64 << 20;
  options.io = false;
  auto o = testing::runText(UnknownIoCall, options);
  REQUIRE(o.run.status == rt::RunStatus::Ok);
  CHECK(o.run.stats.ioCalls == 0);
  CHECK(o.run.ioPending);
  // A value that is not a call (wrong magic) is a plain result either way.
  auto plain = testing::runText("@main = ((1 ((1 2) (((0 y) y) (* ((a a) r))))) r)\n", options);
  REQUIRE(plain.run.status == rt::RunStatus::Ok);
  CHECK_FALSE(plain.run.ioPending);
  options.io = true;
  auto plainIo = testing::runText("@main = ((1 ((1 2) (((0 y) y) (* ((a a) r))))) r)\n", options);
  CHECK(plainIo.result == plain.result);
  CHECK(plainIo.run.stats.ioCalls == 0);
}

TEST_CASE("a run stops at its interaction limit, with a status of its own") {
  // A loop without end in constant memory: a call and an annihilation a turn.
  const char *endless = "@main = r & @loop ~ (0 r)\n@loop = (a b) & @loop ~ (a b)\n";
  rt::RunOptions options;
  options.backend = rt::Backend::Cpu;
  options.memBytes = 4 << 20;
  options.maxInteractions = 10000;
  for (unsigned threads : {1u, 4u}) {
    options.threads = threads;
    auto o = testing::runText(endless, options);
    INFO(o.diagnostics);
    REQUIRE(o.run.status == rt::RunStatus::InteractionLimit);
    // Workers add up their counts every 128 redexes: a little past the limit.
    CHECK(o.run.stats.interactions >= 10000);
    CHECK(o.run.stats.interactions < 10000 + 2 * 128 * threads);
    CHECK(o.run.message.find("stopped after") == 0);
  }
  // A run that ends before the limit ends as it would without one.
  options.threads = 1;
  auto o = testing::runText("@main = r & @id ~ (5 r)\n@id = (x x)\n", options);
  CHECK_RESULT(o, "5");
}

TEST_CASE("the span: the longest chain of interactions that each need the one before") {
  rt::RunOptions options;
  options.backend = rt::Backend::Cpu;
  options.memBytes = 16 << 20;
  auto measured = [&](const std::string &text) {
    options.span = true;
    auto o = testing::runText(text, options);
    INFO(o.diagnostics);
    REQUIRE(o.run.status == rt::RunStatus::Ok);
    // Measuring changes nothing in the run: the same result and counts.
    options.span = false;
    auto plain = testing::runText(text, options);
    CHECK(plain.result == o.result);
    CHECK(plain.run.stats.byRule == o.run.stats.byRule);
    CHECK(plain.run.stats.span == 0);
    CHECK(o.run.stats.threads == 1);
    CHECK(o.run.stats.span <= o.run.stats.interactions);
    return o;
  };
  SUBCASE("one interaction after the expansion of @main") {
    auto o = measured("@main = r & (a a) ~ (7 r)\n");
    CHECK_RESULT(o, "7");
    CHECK(o.run.stats.span == 2);
  }
  // A countdown: each turn needs the number the turn before computed.
  const std::string loop = "@loop = (?(((a a) @loop/step) f) f)\n"
                           "@loop/step = ({p q} ($([+] $(p a)) r)) & @loop ~ (q (a r))\n";
  auto one = measured("@main = r & @loop ~ (300 (0 r))\n" + loop);
  CHECK_RESULT(one, "44850");
  SUBCASE("a loop is one chain") { CHECK(one.run.stats.span * 2 > one.run.stats.interactions); }
  SUBCASE("two loops side by side: twice the work, the same span") {
    auto two = measured("@main = (r s) & @loop ~ (300 (0 r)) & @loop ~ (300 (0 s))\n" + loop);
    CHECK_RESULT(two, "(44850 44850)");
    CHECK(two.run.stats.interactions == 2 * one.run.stats.interactions - 1); // one @main
    CHECK(two.run.stats.span == one.run.stats.span);
  }
  SUBCASE("a sum split in halves: a span as long as the tree is deep") {
    auto o = measured("@main = r & @sum ~ (12 (0 r))\n"
                      "@sum = (?(((x x) @sum/go) f) f)\n"
                      "@sum/go = ({p q} ({$([*2] a) $([*2] $([+1] b))} r))\n"
                      "  &! @sum ~ (p (a $([+] $(s r))))\n"
                      "  &! @sum ~ (q (b s))\n");
    CHECK_RESULT(o, "8386560");
    CHECK(o.run.stats.span * 100 < o.run.stats.interactions);
  }
}

TEST_CASE("readback takes the tree out of memory, numbering variables as they first appear") {
  using Kind = rt::ResultTree::Kind;
  // λx x at node 2 (slots 4 and 5): the variable waits in slot 4.
  std::vector<rt::Term> slots(6, rt::eraTerm());
  slots[rt::RootSlot] = rt::nodeTerm(rt::tag::Lam, 2);
  slots[4] = rt::subTerm();
  slots[5] = rt::varTerm(4);
  rt::ResultTree tree = rt::readback(slots.data());
  REQUIRE(tree.nodes.size() == 3);
  CHECK(tree.nodes[0].kind == Kind::Con);
  CHECK(tree.nodes[0].fst == 1);
  CHECK(tree.nodes[0].snd == 2);
  CHECK(tree.nodes[1].kind == Kind::Var);
  CHECK(tree.nodes[2].kind == Kind::Var);
  CHECK(tree.nodes[1].value == 0);
  CHECK(tree.nodes[2].value == 0);
  CHECK(tree.vars == 1);
  CHECK(tree.broken == ~rt::Loc(0));
  // A slot holding what no tree holds is reported, not read as a tree.
  slots[5] = rt::makeTerm(rt::tag::Mark, 0);
  tree = rt::readback(slots.data());
  CHECK(tree.broken == 5);
}
