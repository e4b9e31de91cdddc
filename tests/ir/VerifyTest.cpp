// The Core and net IR verifiers: what they accept of what the frontend and
// lowering made, and each rule they check.
#include "../frontend/FrontendTestUtil.h"
#include "ir/Core.h"
#include "ir/Net.h"
#include "lowering/Compile.h"
#include "lowering/CoreToHir.h"
#include "runtime/common/Numeric.h"

#include <doctest/doctest.h>

#include <algorithm>

using namespace bendc;
using namespace bendc::net;

namespace {

bool mentions(const std::vector<std::string> &problems, const std::string &text) {
  return std::any_of(problems.begin(), problems.end(),
                     [&](const std::string &p) { return p.find(text) != std::string::npos; });
}

/// `@main = (a a)`, made as a compiler makes it (its nodes counted).
Book identityBook() {
  Book book;
  uint32_t a = book.intern("a");
  Def main;
  main.name = book.intern("main");
  TreeId x = book.add(Tree(TreeKind::Var, a, {}, {}));
  TreeId y = book.add(Tree(TreeKind::Var, a, {}, {}));
  main.root = book.add(Tree(TreeKind::Con, 0, x, y));
  main.nodeCount = 1;
  book.defs.push_back(main);
  return book;
}

} // namespace

TEST_CASE("a book lowering made passes the net verifier") {
  auto front = test::runOn("type L = (C h t) | N\n"
                           "len = λl match l { L/C: (+ 1 (len l.t)); L/N: 0 }\n"
                           "main = ((len (L/C 1 (L/C 2 L/N))), λx (x 1), {2 3})");
  REQUIRE(front->result.program);
  lowering::CompileOptions options;
  lowering::CompileResult r = lowering::compileToBook(*front->result.program, options, *front->diags);
  REQUIRE(r.book);
  CHECK(verify(r.net).empty());
  CHECK(verify(identityBook()).empty());
}

TEST_CASE("the net verifier reports each broken rule") {
  SUBCASE("a variable used once in a compiled definition") {
    Book book = identityBook();
    book[book.defs[0].root].snd = book.add(Tree(TreeKind::Var, book.intern("b"), {}, {}));
    auto problems = verify(book);
    CHECK(mentions(problems, "variable 'a' occurs 1 times in @main"));
    CHECK(mentions(problems, "variable 'b' occurs 1 times in @main"));
    // Read from text (nodes not counted), a free port is allowed.
    book.defs[0].nodeCount = Def::UnknownSize;
    CHECK(verify(book).empty());
  }
  SUBCASE("a reference to no definition") {
    Book book = identityBook();
    book[book.defs[0].root].fst = book.add(Tree(TreeKind::Ref, book.intern("nowhere"), {}, {}));
    CHECK(mentions(verify(book), "reference to @nowhere, which the book does not define"));
  }
  SUBCASE("a child outside the book") {
    Book book = identityBook();
    book[book.defs[0].root].snd = TreeId{9999};
    CHECK(mentions(verify(book), "a node's child lies outside the book in @main"));
  }
  SUBCASE("a number HVM2 does not know") {
    Book book = identityBook();
    TreeId root = book.defs[0].root;
    book.defs[0].root = book.add(Tree(TreeKind::Con, 0, root, book.add(Tree(TreeKind::Num, 0x1F, {}, {}))));
    book.defs[0].nodeCount = 2;
    CHECK(mentions(verify(book), "a number with an unknown tag in @main"));
  }
  SUBCASE("a node count that is not the definition's") {
    Book book = identityBook();
    book.defs[0].nodeCount = 3;
    CHECK(mentions(verify(book), "counts 3 nodes and has 1"));
  }
  SUBCASE("a polarized definition whose node says no role, and a redex no side") {
    Book book = identityBook();
    book.defs[0].polarized = true;
    Redex r;
    r.lhs = book.add(Tree(TreeKind::Era, 0, {}, {}));
    r.rhs = book.add(Tree(TreeKind::Era, 0, {}, {}));
    book.defs[0].redexes.push_back(r);
    auto problems = verify(book);
    CHECK(mentions(problems, "says no role in a polarized definition"));
    CHECK(mentions(problems, "a redex says no positive side"));
  }
  SUBCASE("a definition twice") {
    Book book = identityBook();
    Def again = book.defs[0];
    book.defs.push_back(again);
    CHECK(mentions(verify(book), "@main is defined twice"));
  }
}

TEST_CASE("the Core verifier accepts what the frontend and sharing recovery made") {
  frontend::FrontendOptions opts;
  opts.verify = true;
  auto front = test::runOn("type L = (C h t) | N\n"
                           "len = λl match l { L/C: (+ 1 (len l.t)); L/N: 0 }\n"
                           "main = let f = λ$x 1; ((len (L/C 1 L/N)), (f $x), (+ (len (L/C 2 L/N)) (len (L/C 2 L/N))))",
                           opts);
  REQUIRE_MESSAGE(front->result.program, front->text());
  CHECK(front->result.internalErrors.empty());
  CHECK(front->result.shared > 0); // sharing recovery ran, and was verified after
  CHECK(core::verify(*front->result.program).empty());
}

TEST_CASE("the Core verifier reports each broken rule") {
  auto front = test::runOn("id = λx x\nmain = (id 1)");
  REQUIRE(front->result.program);
  core::Program &p = *front->result.program;
  core::Definition *main = nullptr;
  for (core::Definition &d : p.defs)
    if (d.name == "main")
      main = &d;
  REQUIRE(main);
  SUBCASE("an unbound variable") {
    main->body = p.make<core::LamTerm>(llvm::SMLoc(), "y", false, p.make<core::VarTerm>(llvm::SMLoc(), "z"));
    CHECK(mentions(core::verify(p), "unbound variable 'z' in main"));
  }
  SUBCASE("a variable used outside its let") {
    auto *let = p.make<core::LetTerm>(llvm::SMLoc(), "v", false, p.make<core::EraTerm>(llvm::SMLoc()),
                                      p.make<core::VarTerm>(llvm::SMLoc(), "v"));
    main->body = p.make<core::PairTerm>(core::TermKind::Tup, llvm::SMLoc(), let,
                                         p.make<core::VarTerm>(llvm::SMLoc(), "v"));
    auto problems = core::verify(p);
    REQUIRE(problems.size() == 1);
    CHECK(mentions(problems, "unbound variable 'v' in main"));
  }
  SUBCASE("a reference to no definition") {
    main->body = p.make<core::RefTerm>(llvm::SMLoc(), p.save("nowhere"));
    CHECK(mentions(core::verify(p), "reference to unknown definition 'nowhere' in main"));
  }
  SUBCASE("an unscoped variable bound nowhere") {
    main->body = p.make<core::LinkTerm>(llvm::SMLoc(), "k");
    CHECK(mentions(core::verify(p), "unscoped variable '$k' is bound nowhere in main"));
  }
  SUBCASE("a missing child") {
    main->body = p.make<core::AppTerm>(llvm::SMLoc(), p.make<core::EraTerm>(llvm::SMLoc()), nullptr);
    CHECK(mentions(core::verify(p), "a term is missing a child in main"));
  }
}

TEST_CASE("Core to HIR reports a variable bound nowhere as a bug in bendc, not as the program's error") {
  auto front = test::runOn("main = λx x");
  REQUIRE(front->result.program);
  core::Program &p = *front->result.program;
  for (core::Definition &d : p.defs)
    if (d.name == "main")
      d.body = p.make<core::LamTerm>(llvm::SMLoc(), "y", false, p.make<core::VarTerm>(llvm::SMLoc(), "z"));
  lowering::CompileOptions options;
  lowering::CompileResult r = lowering::compileToBook(p, options, *front->diags);
  CHECK_FALSE(r.book);
  CHECK(mentions(r.internalErrors, "core-to-hir: variable 'z' in @main is bound nowhere"));
  CHECK_FALSE(front->diags->hasErrors());
  std::vector<std::string> problems;
  CHECK_FALSE(lowering::coreToHir(p, nullptr, &problems));
  CHECK(mentions(problems, "variable 'z' in @main is bound nowhere"));
}
