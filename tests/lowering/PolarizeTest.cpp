// Polarity inference: the node tags it chooses, the runtime book it lays out,
// how it substitutes variables at roots and redex sides, and what it rejects.
#include "lowering/Polarize.h"
#include "PolarizedBook.h"
#include "frontend/hvm/HvmReader.h"
#include "runtime/common/Interact.h"
#include "runtime/common/Numeric.h"

#include "llvm/Support/MemoryBuffer.h"

#include <doctest/doctest.h>

#include <string>

using namespace bendc;
using namespace bendc::rt;
using bendc::test::Polarized;

namespace {

/// The only diagnostics of a book that must not polarize.
/// Reads `text` as a book in `diags`' source manager.
std::optional<net::Book> readBook(llvm::StringRef text, DiagnosticEngine &diags) {
  return hvm::readBook(diags.sourceMgr(),
                     diags.sourceMgr().AddNewSourceBuffer(
                         llvm::MemoryBuffer::getMemBufferCopy(text, "t.hvm"), llvm::SMLoc()),
                     diags);
}

std::string rejection(llvm::StringRef text) {
  Polarized p(text);
  REQUIRE_MESSAGE(p.net, p.messages());
  CHECK_FALSE(p.book);
  return p.messages();
}

Term u24(uint32_t n) { return numTerm(num::makeU24(n)); }

std::pair<Term, Term> pair(Term neg, Term pos) { return {neg, pos}; }

} // namespace

TEST_CASE("the identity is a LAM whose variable slot waits for its argument") {
  Polarized p("@main = (a a)");
  REQUIRE_MESSAGE(p.book, p.messages());
  CHECK(p.def().nodeCount == 1);
  CHECK(p.root() == nodeTerm(tag::Lam, 0));
  CHECK(p.slot(0, 0) == subTerm());
  CHECK(p.slot(0, 1) == varTerm(0));
  CHECK(p.def().safe);
}

TEST_CASE("an application is an APP against a reference, the root a variable") {
  Polarized p("@main = r & @id ~ (1 r)\n@id = (a a)");
  REQUIRE_MESSAGE(p.book, p.messages());
  CHECK(p.redex(0) == pair(nodeTerm(tag::App, 0), refTerm(p.id("id"))));
  CHECK(p.slot(0, 0) == u24(1));
  CHECK(p.slot(0, 1) == subTerm());
  CHECK(p.root() == varTerm(1));
}

TEST_CASE("a pair built from numbers is a TUP") {
  Polarized p("@main = (1 (2 *))");
  REQUIRE_MESSAGE(p.book, p.messages());
  CHECK(p.root() == nodeTerm(tag::Tup, 0));
  CHECK(p.slot(0, 0) == u24(1));
  CHECK(p.slot(0, 1) == nodeTerm(tag::Tup, 1));
  CHECK(p.slot(1, 0) == u24(2));
  CHECK(p.slot(1, 1) == nulTerm());
}

TEST_CASE("a pair taken apart into negative variables is an UNT") {
  Polarized p("@main = {a b} & (1 2) ~ (a b)");
  REQUIRE_MESSAGE(p.book, p.messages());
  CHECK(p.root() == nodeTerm(tag::Sup, 0));
  CHECK(p.redex(0) == pair(nodeTerm(tag::Unt, 2), nodeTerm(tag::Tup, 1)));
  CHECK(p.slot(2, 0) == subTerm());
  CHECK(p.slot(0, 0) == varTerm(4));
}

TEST_CASE("a duplication of a variable is a DUP, a superposition a SUP") {
  Polarized p("@main = (x (a b))\n  & {a b} ~ x");
  REQUIRE_MESSAGE(p.book, p.messages());
  // x is the λ's variable, so the DUP sits in the λ's variable slot.
  CHECK(p.root() == nodeTerm(tag::Lam, 0));
  CHECK(p.slot(0, 0) == nodeTerm(tag::Dup, 2));
  CHECK(p.slot(0, 1) == nodeTerm(tag::Tup, 1));
  CHECK(p.slot(1, 0) == varTerm(4));
  CHECK(p.slot(1, 1) == varTerm(5));
  CHECK(p.slot(2, 0) == subTerm());
  CHECK(p.slot(2, 1) == subTerm());
  CHECK(p.def().redexCount == 0);
}

TEST_CASE("a switch is SWI, its branches a TUP, the successor case a LAM") {
  Polarized p("@main = x & 0 ~ ?((1 (* 2)) x)");
  REQUIRE_MESSAGE(p.book, p.messages());
  CHECK(p.redex(0) == pair(nodeTerm(tag::Swi, 0), u24(0)));
  CHECK(p.slot(0, 0) == nodeTerm(tag::Tup, 1));
  CHECK(p.slot(0, 1) == subTerm());
  CHECK(p.root() == varTerm(1));
  CHECK(p.slot(1, 0) == u24(1));
  CHECK(p.slot(1, 1) == nodeTerm(tag::Lam, 2));
  CHECK(p.slot(2, 0) == eraTerm());
  CHECK(p.slot(2, 1) == u24(2));
}

TEST_CASE("a switch's zero case is positive even when it is a variable") {
  Polarized p("@main = (z x) & 0 ~ ?((z @main) x)");
  REQUIRE_MESSAGE(p.book, p.messages());
  CHECK(p.root() == nodeTerm(tag::Lam, 0));
  CHECK(p.slot(2, 0) == varTerm(0));
  CHECK(p.slot(1, 0) == nodeTerm(tag::Tup, 2));
}

TEST_CASE("an operator is OPR with a positive operand and a negative result") {
  Polarized p("@main = x & 1 ~ $(2 x)");
  REQUIRE_MESSAGE(p.book, p.messages());
  CHECK(p.redex(0) == pair(nodeTerm(tag::Opr, 0), u24(1)));
  CHECK(p.slot(0, 0) == u24(2));
  CHECK(p.slot(0, 1) == subTerm());
  CHECK(p.root() == varTerm(1));
}

TEST_CASE("operator symbols and partial operators are positive numbers") {
  Polarized p("@main = x & [+1] ~ $([*] x)");
  REQUIRE_MESSAGE(p.book, p.messages());
  CHECK(p.redex(0).second == numTerm(num::partial(num::makeSym(num::OpAdd), num::makeU24(1))));
  CHECK(p.slot(0, 0) == numTerm(num::makeSym(num::OpMul)));
}

TEST_CASE("numbers and references at the root") {
  Polarized p("@main = @five\n@five = 5");
  REQUIRE_MESSAGE(p.book, p.messages());
  CHECK(p.root() == refTerm(p.id("five")));
  CHECK(p.root("five") == u24(5));
  CHECK(p.def("five").nodeCount == 0);
}

TEST_CASE("an eraser is ERA where negative and NUL where positive") {
  Polarized p("@main = (* *)\n@e = *\n@r = * & * ~ (1 *)");
  REQUIRE_MESSAGE(p.book, p.messages());
  CHECK(p.slot(0, 0) == eraTerm());
  CHECK(p.slot(0, 1) == nulTerm());
  CHECK(p.root("e") == nulTerm());
  // `(1 *)` is read as an application (the λ-calculus default), so the
  // eraser against it is positive.
  CHECK(p.redex(0, "r") == pair(nodeTerm(tag::App, 0), nulTerm()));
  CHECK(p.slot(0, 1, "r") == eraTerm());
}

TEST_CASE("erasers on both sides of a redex: the left one is negative") {
  Polarized p("@main = * & * ~ *");
  REQUIRE_MESSAGE(p.book, p.messages());
  CHECK(p.redex(0) == pair(eraTerm(), nulTerm()));
}

TEST_CASE("a redex with no constraint stores its left side as negative") {
  Polarized p("@main = * & (a b) ~ (b a)");
  REQUIRE_MESSAGE(p.book, p.messages());
  CHECK(p.redex(0) == pair(nodeTerm(tag::Unt, 0), nodeTerm(tag::Tup, 1)));
  CHECK(p.slot(0, 0) == subTerm());
  CHECK(p.slot(0, 1) == subTerm());
  CHECK(p.slot(1, 0) == varTerm(1));
  CHECK(p.slot(1, 1) == varTerm(0));
}

TEST_CASE("a negative variable on a redex side is replaced by the other side") {
  Polarized p("@main = a & a ~ 5");
  REQUIRE_MESSAGE(p.book, p.messages());
  CHECK(p.root() == u24(5));
  CHECK(p.def().nodeCount == 0);
  CHECK(p.def().redexCount == 0);
}

TEST_CASE("a positive variable on a redex side puts the other side in its slot") {
  Polarized p("@main = (f r) & (1 r) ~ f");
  REQUIRE_MESSAGE(p.book, p.messages());
  CHECK(p.root() == nodeTerm(tag::Lam, 0));
  CHECK(p.slot(0, 0) == nodeTerm(tag::App, 1));
  CHECK(p.slot(0, 1) == varTerm(3));
  CHECK(p.slot(1, 0) == u24(1));
  CHECK(p.slot(1, 1) == subTerm());
  CHECK(p.def().redexCount == 0);
}

TEST_CASE("two variables joined by a redex become one wire") {
  Polarized p("@main = (a b) & a ~ b");
  REQUIRE_MESSAGE(p.book, p.messages());
  CHECK(p.root() == nodeTerm(tag::Lam, 0));
  CHECK(p.slot(0, 0) == subTerm());
  CHECK(p.slot(0, 1) == varTerm(0));
  CHECK(p.def().redexCount == 0);
}

TEST_CASE("a chain of variable redexes joins the trees at its ends") {
  Polarized p("@main = * & @f ~ x & x ~ y & y ~ (1 *)\n@f = (a a)");
  REQUIRE_MESSAGE(p.book, p.messages());
  CHECK(p.def().redexCount == 1);
  CHECK(p.redex(0) == pair(nodeTerm(tag::App, 0), refTerm(p.id("f"))));
}

TEST_CASE("a root variable erased by a redex becomes an eraser") {
  Polarized p("@main = a & a ~ *");
  REQUIRE_MESSAGE(p.book, p.messages());
  CHECK(p.root() == nulTerm());
  CHECK(p.def().redexCount == 0);
}

TEST_CASE("a variable loop through redexes is rejected") {
  CHECK(rejection("@main = * & a ~ a") ==
        "1:13: cannot polarize @main: variable 'a' only links redexes into a closed loop "
        "[HvmPolarity]\n");
  CHECK(rejection("@main = * & a ~ b & b ~ a") ==
        "1:13: cannot polarize @main: variable 'a' only links redexes into a closed loop "
        "[HvmPolarity]\n");
}

TEST_CASE("definitions keep their order and @main its id") {
  Polarized p("@a = 1\n@main = (x x)\n@b = x & @main ~ (@a x)");
  REQUIRE_MESSAGE(p.book, p.messages());
  CHECK(p.book->names == std::vector<std::string>{"a", "main", "b"});
  CHECK(p.book->mainId == 1);
  CHECK(p.def("a").nodeCount == 0);
  CHECK(p.def("main").firstSlot == 0);
  CHECK(p.def("b").firstSlot == 2);
  CHECK(p.def("b").firstRedex == 0);
  CHECK(p.def("b").redexCount == 1);
  CHECK(p.book->slots.size() == 4);
  CHECK(p.book->redexes.size() == 2);
}

TEST_CASE("a {} node makes its definition and those that use it unsafe") {
  Polarized p("@main = x & @user ~ (1 x)\n"
              "@dup = ({a b} (a b))\n"
              "@sup = {1 2}\n"
              "@user = (x y) & @dup ~ (x y)\n"
              "@pure = (a a)\n"
              "@callsPure = @pure");
  REQUIRE_MESSAGE(p.book, p.messages());
  CHECK_FALSE(p.def("dup").safe);
  CHECK_FALSE(p.def("sup").safe);
  CHECK_FALSE(p.def("user").safe);
  CHECK_FALSE(p.def("main").safe);
  CHECK(p.def("pure").safe);
  CHECK(p.def("callsPure").safe);
}

TEST_CASE("deeply nested trees polarize without the call stack") {
  constexpr int depth = 100000;
  std::string text = "@main = ";
  for (int i = 0; i < depth; ++i)
    text += "(* ";
  text += "*";
  text += std::string(depth, ')');
  text += "\n@fst = ";
  text += std::string(depth, '(');
  text += "*";
  for (int i = 0; i < depth; ++i)
    text += " *)";
  Polarized p(text);
  REQUIRE_MESSAGE(p.book, p.messages());
  CHECK(p.def().nodeCount == depth);
  CHECK(p.root() == nodeTerm(tag::Lam, 0));
  CHECK(p.def("fst").nodeCount == depth);
}

TEST_CASE("a variable with positive ends is a contradiction") {
  CHECK(rejection("@main = {a a}") ==
        "1:12: cannot polarize @main: variable 'a' would be positive at both ends "
        "[HvmPolarity]\n");
  CHECK(rejection("@main = x & 1 ~ $(x 2)") ==
        "1:19: cannot polarize @main: variable 'x' would be positive at both ends "
        "[HvmPolarity]\n");
}

TEST_CASE("a variable with negative ends is a contradiction") {
  CHECK(rejection("@main = * & 1 ~ {a a}") ==
        "1:20: cannot polarize @main: variable 'a' would be negative at both ends "
        "[HvmPolarity]\n");
}

TEST_CASE("a variable whose ends agree before anything fixes them") {
  CHECK(rejection("@main = * & {a a} ~ 1") ==
        "1:16: cannot polarize @main: variable 'a' would have the same polarity at both ends "
        "[HvmPolarity]\n");
}

TEST_CASE("numbers and references cannot be negative") {
  CHECK(rejection("@main = * & 1 ~ 2") ==
        "1:17: cannot polarize @main: number 2 would be negative [HvmPolarity]\n");
  CHECK(rejection("@main = * & @main ~ @main") ==
        "1:21: cannot polarize @main: reference @main would be negative [HvmPolarity]\n");
}

TEST_CASE("switch nodes cannot be positive") {
  CHECK(rejection("@main = (* ?(a a))") ==
        "1:12: cannot polarize @main: switch node would be positive [HvmPolarity]\n");
}

TEST_CASE("an operator node is negative unless the net makes it the positive twin") {
  // Two operator nodes meet (HVM2 annihilates them): one is +(-operand +result).
  Polarized p("@main = a & $(1 a) ~ $(b b)");
  REQUIRE_MESSAGE(p.book, p.messages());
  REQUIRE(p.def().redexCount == 1);
  auto [neg, pos] = p.redex(0);
  CHECK(tagOf(neg) == tag::Opr);
  CHECK(tagOf(pos) == twinTag(tag::Opr));
  // At the root an operator node is positive.
  Polarized root("@main = $(a a)");
  REQUIRE_MESSAGE(root.book, root.messages());
  CHECK(tagOf(root.root()) == twinTag(tag::Opr));
  // Undecided, it is negative.
  Polarized free("@main = * & (a a) ~ $(b c) & b ~ c");
  REQUIRE_MESSAGE(free.book, free.messages());
  REQUIRE(free.def().redexCount == 1);
  CHECK(tagOf(free.redex(0).first) == tag::Opr);
}

TEST_CASE("every definition is checked, each reporting its first contradiction") {
  CHECK(rejection("@main = {a a}\n@ok = (a a)\n@bad = * & 1 ~ 2") ==
        "1:12: cannot polarize @main: variable 'a' would be positive at both ends "
        "[HvmPolarity]\n"
        "3:16: cannot polarize @bad: number 2 would be negative [HvmPolarity]\n");
}

TEST_CASE("books built without the reader are checked too") {
  net::Book b;
  auto add = [&b](net::TreeKind kind, uint32_t value, net::TreeId fst = {}, net::TreeId snd = {}) {
    return b.add(net::Tree{kind, value, fst, snd});
  };
  uint32_t main = b.intern("main");
  net::TreeId x1 = add(net::TreeKind::Var, b.intern("x"));
  net::TreeId ref = add(net::TreeKind::Ref, b.intern("nope"));
  net::TreeId root = add(net::TreeKind::Con, 0, x1, ref);
  b.defs.push_back({main, root, {}, {}});
  llvm::SourceMgr sm;
  DiagnosticEngine diags(sm);
  CHECK_FALSE(lowering::polarize(b, diags));
  REQUIRE(diags.diagnostics().size() == 1);
  CHECK(diags.diagnostics()[0].kind == DiagKind::HvmUnboundReference);

  b.defs.clear();
  b.defs.push_back({main, x1, {}, {}});
  // A variable that occurs once: its wire ends in a free port, a slot of
  // a node of its own that nothing fills.
  DiagnosticEngine counts(sm);
  std::optional<Book> free = lowering::polarize(b, counts);
  REQUIRE(free);
  REQUIRE(counts.diagnostics().size() == 1);
  CHECK(counts.diagnostics()[0].kind == DiagKind::HvmUnpairedVariable);
  CHECK(counts.diagnostics()[0].message ==
        "variable 'x' occurs once in @main: its other end is left as a free port");
  const DefInfo &freeMain = free->defs[free->mainId];
  REQUIRE(freeMain.nodeCount == 1);
  CHECK(freeMain.root == varTerm(0));
  CHECK(free->slots[freeMain.firstSlot] == subTerm());

  b.defs.clear();
  DiagnosticEngine noMain(sm);
  CHECK_FALSE(lowering::polarize(b, noMain));
  REQUIRE(noMain.diagnostics().size() == 1);
  CHECK(noMain.diagnostics()[0].kind == DiagKind::HvmMissingMain);

  net::TreeId era = add(net::TreeKind::Era, 0);
  b.defs.push_back({main, era, {}, {}});
  b.defs.push_back({main, era, {}, {}});
  DiagnosticEngine twice(sm);
  CHECK_FALSE(lowering::polarize(b, twice));
  REQUIRE_FALSE(twice.diagnostics().empty());
  CHECK(twice.diagnostics()[0].kind == DiagKind::HvmDuplicateDefinition);
}

TEST_CASE("a (a b) a compiler says is a function or a pair is taken at its word") {
  // Reads `text`, gives @main's root `(a b)` `role`, and polarizes it.
  auto withRole = [](llvm::StringRef text, net::ConRole role, DiagnosticEngine &diags) {
    std::optional<net::Book> book = readBook(text, diags);
    REQUIRE(book);
    net::Tree &root = (*book)[book->defs[0].root];
    REQUIRE(root.kind == net::TreeKind::Con);
    root.role = role;
    return lowering::polarize(*book, diags);
  };
  llvm::SourceMgr sm;
  DiagnosticEngine asFunction(sm), asPair(sm), numbers(sm);
  std::optional<Book> lam = withRole("@main = (a a)", net::ConRole::Function, asFunction);
  REQUIRE(lam);
  CHECK(lam->defs[0].root == nodeTerm(tag::Lam, 0));
  // A pair whose two halves are one wire: both ends would be positive.
  CHECK_FALSE(withRole("@main = (a a)", net::ConRole::Pair, asPair));
  REQUIRE(asPair.diagnostics().size() == 1);
  CHECK(asPair.diagnostics()[0].message ==
        "cannot polarize @main: variable 'a' would be positive at both ends");
  // A λ whose binder is a number: what guessing would make a pair.
  CHECK_FALSE(withRole("@main = (1 2)", net::ConRole::Function, numbers));
  REQUIRE(numbers.diagnostics().size() == 1);
  CHECK(numbers.diagnostics()[0].message == "cannot polarize @main: number 1 would be negative");
}

TEST_CASE("a polarized definition's polarities come from its parents, checked as inferred ones") {
  // Reads `text`, says every `(a b)` is a function and each redex's positive
  // side is `side`, and marks the definitions named in `given` polarized.
  auto given = [](llvm::StringRef text, net::PositiveSide side,
                  llvm::ArrayRef<llvm::StringRef> names, DiagnosticEngine &diags,
                  bool thirdUse = false) {
    std::optional<net::Book> book = readBook(text, diags);
    REQUIRE(book);
    // The last eraser made a third use of the last variable (the reader
    // would not have it).
    if (thirdUse) {
      size_t var = book->trees.size(), era = book->trees.size();
      for (size_t k = book->trees.size(); k-- > 0;) {
        if (var == book->trees.size() && book->trees[k].kind == net::TreeKind::Var)
          var = k;
        if (era == book->trees.size() && book->trees[k].kind == net::TreeKind::Era)
          era = k;
      }
      REQUIRE(var < book->trees.size());
      REQUIRE(era < book->trees.size());
      book->trees[era].kind = net::TreeKind::Var;
      book->trees[era].value = book->trees[var].value;
    }
    for (net::Tree &t : book->trees)
      if (t.kind == net::TreeKind::Con)
        t.role = net::ConRole::Function;
    for (net::Def &d : book->defs) {
      for (net::Redex &r : d.redexes)
        r.positive = side;
      for (llvm::StringRef name : names)
        d.polarized |= book->names[d.name] == name;
    }
    return lowering::polarize(*book, diags);
  };
  llvm::SourceMgr sm;
  const char *program = "@main = r & @id ~ (x r) & @two ~ x\n@id = (a a)\n@two = 2\n";
  DiagnosticEngine inferred(sm), all(sm), some(sm);
  std::optional<Book> expected = given(program, net::PositiveSide::Lhs, {}, inferred);
  REQUIRE(expected);
  const std::vector<llvm::StringRef> allNames{"main", "id", "two"}, someNames{"id"};
  for (auto [diags, names] : {std::pair<DiagnosticEngine *, llvm::ArrayRef<llvm::StringRef>>{
                                  &all, allNames},
                              {&some, someNames}}) {
    std::optional<Book> book = given(program, net::PositiveSide::Lhs, names, *diags);
    REQUIRE(book);
    // Each definition the same (where their slots lie in the book may not be).
    REQUIRE(book->defs.size() == expected->defs.size());
    for (size_t d = 0; d < book->defs.size(); ++d) {
      const DefInfo &got = book->defs[d], &want = expected->defs[d];
      CHECK(got.root == want.root);
      REQUIRE(got.nodeCount == want.nodeCount);
      REQUIRE(got.redexCount == want.redexCount);
      for (uint32_t k = 0; k < 2 * got.nodeCount; ++k)
        CHECK(book->slots[got.firstSlot + k] == expected->slots[want.firstSlot + k]);
      for (uint32_t k = 0; k < 2 * got.redexCount; ++k)
        CHECK(book->redexes[got.firstRedex + k] == expected->redexes[want.firstRedex + k]);
    }
  }
  // What contradicts the rules is reported as inference reports it, whether
  // @main alone says its polarities (the rest inferred) or every definition
  // does (each laid out in one walk). The calls' sides the other way round:
  // a negative reference; a redex that does not say; a positive operator; a
  // variable positive at both ends; one that occurs once; a loop of
  // variables through redexes.
  struct Case {
    const char *text;
    net::PositiveSide side;
    const char *message;
    bool thirdUse = false;
  };
  const Case cases[] = {
      {program, net::PositiveSide::Rhs, "cannot polarize @main: reference @id would be negative"},
      {program, net::PositiveSide::Unknown,
       "cannot polarize @main: a redex does not say which side is positive"},
      {"@main = (a $(1 a))\n@id = (a a)\n@two = 2\n", net::PositiveSide::Lhs,
       "cannot polarize @main: operator node would be positive"},
      {"@main = {a a}\n@id = (a a)\n@two = 2\n", net::PositiveSide::Lhs,
       "cannot polarize @main: variable 'a' would be positive at both ends"},
      {"@id = (a a)\n@two = 2\n@main = ((a a) *)\n", net::PositiveSide::Lhs,
       "variable 'a' occurs 3 times in @main, but a variable must occur exactly twice", true},
      {"@main = * & a ~ b & b ~ a\n@id = (a a)\n@two = 2\n", net::PositiveSide::Lhs,
       "cannot polarize @main: variable 'a' only links redexes into a closed loop"},
  };
  const std::vector<llvm::StringRef> mainName{"main"};
  for (const Case &c : cases)
    for (llvm::ArrayRef<llvm::StringRef> names : {llvm::ArrayRef<llvm::StringRef>(mainName),
                                                 llvm::ArrayRef<llvm::StringRef>(allNames)}) {
      INFO(std::string(c.text) << " given for " << names.size() << " definitions");
      DiagnosticEngine diags(sm);
      CHECK_FALSE(given(c.text, c.side, names, diags, c.thirdUse));
      REQUIRE(diags.diagnostics().size() == 1);
      CHECK(diags.diagnostics()[0].message == c.message);
    }
  // Every definition is checked, each reporting its first contradiction.
  DiagnosticEngine each(sm);
  CHECK_FALSE(given("@main = {a a}\n@two = 2\n@id = ((a a) *)\n", net::PositiveSide::Lhs,
                    allNames, each, true));
  REQUIRE(each.diagnostics().size() == 2);
  CHECK(each.diagnostics()[1].message ==
        "variable 'a' occurs 3 times in @id, but a variable must occur exactly twice");
}

TEST_CASE("what a polarized definition's (a b) is flows to the definitions inferred") {
  // @mk alone does not say whether `(* *)` is a λ or a pair, nor does @main
  // whether it applies @mk (and returns a λ) or takes it apart (and returns
  // a pair). Polarized, @mk says a pair, and @main, inferred, takes it apart
  // as one (UNT), where inference alone guesses an application.
  auto mainTakesApart = [](bool polarized) {
    llvm::SourceMgr sm;
    DiagnosticEngine diags(sm);
    std::optional<net::Book> book = readBook("@main = (a b) & @mk ~ (a b)\n@mk = (* *)\n", diags);
    REQUIRE(book);
    net::Def &mk = book->defs[1];
    if (polarized) {
      (*book)[mk.root].role = net::ConRole::Pair;
      mk.polarized = true;
    }
    std::optional<Book> out = lowering::polarize(*book, diags);
    REQUIRE(out);
    const DefInfo &main = out->defs[0];
    REQUIRE(main.redexCount == 1);
    return tagOf(out->redexes[main.firstRedex]); // the negative side
  };
  CHECK(mainTakesApart(true) == tag::Unt);
  CHECK(mainTakesApart(false) == tag::App);
}

TEST_CASE("a binder comes before its uses: (b (a (a b))) is λb.λa.(a, b)") {
  Polarized p("@main = (b (a (a b)))");
  REQUIRE_MESSAGE(p.book, p.messages());
  CHECK(tagOf(p.root()) == tag::Lam);
  CHECK(tagOf(p.slot(0, 1)) == tag::Lam);
  CHECK(tagOf(p.slot(1, 1)) == tag::Tup);
}

TEST_CASE("a pattern in a binder takes apart what a call passes (UNT, not APP)") {
  // @f's second parameter is taken apart; the call passes it a number as the
  // first argument, so the pattern's parts are bound variables.
  Polarized p("@main = r & @f ~ (1 (x r)) & @mk ~ x\n"
              "@mk = (2 3)\n"
              "@f = (a ((b c) d)) & @g ~ (a (b (c d)))\n"
              "@g = (a (b (c (a (b c)))))\n");
  REQUIRE_MESSAGE(p.book, p.messages());
  // @f = LAM(a, LAM((b c), d)): node 1 is the inner LAM, node 2 the pattern.
  CHECK(tagOf(p.slot(1, 0, "f")) == tag::Unt);
}

TEST_CASE("shapes flow between definitions: a returned pair is taken apart as a pair") {
  // @swap returns a pair built by @mk in one of its cases; its caller takes the
  // result apart. Inside @swap alone `(a b)` could be a function.
  Polarized p("@main = r & @swap ~ (1 (5 (6 (a b)))) & (a b) ~ (r *)\n"
              "@swap = (?((@keep @flip) (x (y z))) (x (y z)))\n"
              "@keep = (a (b (a b)))\n"
              "@flip = (* (a (b (b a))))\n");
  REQUIRE_MESSAGE(p.book, p.messages());
  // In @keep, the innermost (a b) is the pair, not a third lambda.
  CHECK(tagOf(p.slot(1, 1, "keep")) == tag::Tup);
  CHECK(tagOf(p.slot(2, 1, "flip")) == tag::Tup);
}

TEST_CASE("numeric switches are recognised for direct calls, with what erasing an arm counts") {
  Polarized p(R"(
@main = r & @leaves ~ (1 r)
@leaves = (?((7 @leaves) f) f)
@lambda = (?(((x x) @leaves) f) f)
@erasers = (?(((* 1) (* (* 2))) f) f)
@crossing = (?(((a *) (* a)) f) f)
@redex = (?((@leaves @leaves) f) f) & @leaves ~ (0 *)
@notswitch = (x x)
@elsewhere = (?((1 2) f) (f *))
)");
  REQUIRE(p.book);
  const DefInfo &leaves = p.def("leaves");
  CHECK(leaves.switchArm[0] == numTerm(num::makeU24(7)));
  CHECK(leaves.switchArm[1] == refTerm(p.id("leaves")));
  CHECK(leaves.armNodes[0] == 0);
  CHECK(leaves.armVoids[0] == 1);
  CHECK(leaves.armVoids[1] == 1);
  // (x x): one node and one wire.
  const DefInfo &lambda = p.def("lambda");
  CHECK(tagOf(lambda.switchArm[0]) == tag::Lam);
  CHECK(lambda.armNodes[0] == 1);
  CHECK(lambda.armVoids[0] == 1);
  // (* 1): a node with two leaves; (* (* 2)): two nodes and three leaves.
  const DefInfo &erasers = p.def("erasers");
  CHECK(erasers.armNodes[0] == 1);
  CHECK(erasers.armVoids[0] == 2);
  CHECK(erasers.armNodes[1] == 2);
  CHECK(erasers.armVoids[1] == 3);
  // A wire between the arms, a redex, another shape: built as written.
  for (const char *name : {"crossing", "redex", "notswitch", "elsewhere", "main"}) {
    CAPTURE(name);
    CHECK(p.def(name).switchArm[0] == 0);
    CHECK(p.def(name).switchArm[1] == 0);
  }
  // An arm of more nodes than a direct call builds.
  auto chain = [](unsigned n) {
    std::string arm = "1";
    for (unsigned k = 0; k < n; ++k)
      arm = "(* " + arm + ")";
    return "@main = @big\n@big = (?((" + arm + " 2) f) f)\n";
  };
  Polarized most(chain(MaxArmNodes)), over(chain(MaxArmNodes + 1));
  REQUIRE(most.book);
  REQUIRE(over.book);
  CHECK(most.def("big").armNodes[0] == MaxArmNodes);
  CHECK(over.def("big").switchArm[0] == 0);
}
