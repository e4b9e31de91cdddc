// The order of each definition's redexes: what each definition does with its
// arguments (ArgumentUse), and which calls move so that the redexes whose
// results they switch on run first.
#include "lowering/RedexOrder.h"
#include "PolarizedBook.h"
#include "runtime/common/Numeric.h"
#include "runtime/common/Term.h"
#include "tests/runtime/TestNets.h"

#include <doctest/doctest.h>

#include <string>
#include <vector>

using namespace bendc;
using namespace bendc::rt;

namespace {

/// A book read and polarized (which orders the redexes), with what its
/// redexes call.
struct Ordered : test::Polarized {
  explicit Ordered(llvm::StringRef text) : Polarized(text) { REQUIRE_MESSAGE(book, messages()); }
  /// The definitions each redex of `name` calls, in the order they are linked.
  std::vector<std::string> callees(llvm::StringRef name) const {
    std::vector<std::string> out;
    for (uint32_t r = 0; r < def(name).redexCount; ++r) {
      Term pos = redex(r, name).second;
      out.push_back(tagOf(pos) == tag::Ref ? book->names[refOf(pos)] : "?");
    }
    return out;
  }
  /// The first argument of redex `r` of `name`, when it is a number.
  Numb firstNumber(llvm::StringRef name, uint32_t r) const {
    Term neg = redex(r, name).first;
    REQUIRE(tagOf(neg) == tag::App);
    Term arg = slot(unsigned(payloadOf(neg)), 0, name);
    REQUIRE(tagOf(arg) == tag::Num);
    return numOf(arg);
  }
};

using Names = std::vector<std::string>;

// A sort whose merge switches on the leaves the two sorts before it produce.
const std::string Bitonic = testing::nets::bitonic(3);

TEST_CASE("a call that switches on another redex's result is linked before it, so it runs after") {
  Ordered o(Bitonic);
  // The merge switches (through warp and swap) on the sorted leaves: the
  // sorts run first. The sort needs the generated leaves: gen runs before
  // it. The check only adds: it keeps its place, linked last, run first.
  CHECK(o.callees("sort/node") == Names{"flow", "sort", "sort"});
  CHECK(o.callees("flow/node") == Names{"flow", "flow", "warp"});
  CHECK(o.callees("main") == Names{"sort", "gen", "check"});
  // Redexes with nothing between them keep the written order.
  CHECK(o.callees("gen/node") == Names{"gen", "gen"});
  CHECK(o.callees("check/node") == Names{"check", "check"});
  CHECK(o.callees("warp/node") == Names{"warp", "warp"});
}

TEST_CASE("the calls that need the redexes linked after them are marked, and where that work starts") {
  Ordered o(Bitonic);
  // sort/node: the merge needs both sorts, the first of which follows it.
  CHECK(o.def("sort/node").consumers == 0b001);
  CHECK(o.def("sort/node").producers == 0b010);
  // flow/node: both merges need the comparisons, linked last.
  CHECK(o.def("flow/node").consumers == 0b011);
  CHECK(o.def("flow/node").producers == 0b100);
  // main: the sort needs the leaves; the check, which only adds, is not marked.
  CHECK(o.def("main").consumers == 0b001);
  CHECK(o.def("main").producers == 0b010);
  // Redexes that need nothing of one another.
  for (const char *name : {"gen/node", "check/node", "warp/node", "warp/leaf"}) {
    CHECK_MESSAGE(o.def(name).consumers == 0, name);
    CHECK_MESSAGE(o.def(name).producers == 0, name);
  }
}

TEST_CASE("a call is not marked for a switch in its own redex that waits for another's result") {
  // The first count's result is compared with the second's by a switch in
  // its redex. The second runs first, as written; but the first count needs
  // nothing of it to go on, so another thread may run it meanwhile.
  Ordered o(R"(
@main = r
  & @count ~ (10 $([>] $(h ?((1 (* 2)) r))))
  & @count ~ (20 h)
@count = (?((0 @count/s) f) f)
@count/s = (p r) & @count ~ (p $([+1] r))
)");
  CHECK(o.callees("main") == Names{"count", "count"});
  CHECK(o.def("main").consumers == 0);
  CHECK(o.def("main").producers == 0);
}

TEST_CASE("what each definition does with its arguments") {
  Ordered o(Bitonic);
  lowering::RedexOrderReport again = lowering::orderRedexes(*o.book);
  CHECK(again.reorderedDefs == 0); // already in order: nothing moves twice
  auto use = [&](const char *name) { return again.uses[o.id(name)]; };
  // swap(flag, a, b) switches on its flag and returns a and b.
  CHECK(use("swap").demanded == 0b1);
  CHECK(use("swap").returned == 0b110);
  // warp/leaf(s, a, b) compares a with b, and their copies are returned.
  CHECK(use("warp/leaf").demanded == 0b111);
  CHECK((use("warp/leaf").returned & 0b110) == 0b110);
  // warp(depth, s, a, b): the leaf arm's arguments are one further on.
  CHECK((use("warp").demanded & 0b1111) == 0b1111);
  // flow and sort switch on their depth and on the tree's leaves.
  CHECK((use("flow").demanded & 0b101) == 0b101);
  CHECK((use("sort").demanded & 0b101) == 0b101);
  CHECK((use("sort").returned & 0b100) == 0b100); // the sorted tree holds the leaves
  // check only computes with the leaves: its tree is not demanded.
  CHECK(use("check").demanded == 0b1);
  CHECK(use("check/leaf").demanded == 0);
  // gen switches on its depth alone.
  CHECK(use("gen").demanded == 0b1);
}

TEST_CASE("a consumer that only computes with a result keeps its place") {
  // sum adds the leaves as they come: it goes first and waits, as written.
  Ordered o(R"(
@main = r & @gen ~ (4 (0 t)) & @sum ~ (4 (t r))
@gen = (?((@gen/leaf @gen/node) f) f)
@gen/leaf = ($([+1] r) r)
@gen/node = ({d1 d2} ({$([*2] a) $([*2] $([+1] b))} (l m)))
  &! @gen ~ (d1 (a l))
  &! @gen ~ (d2 (b m))
@sum = (?(((x x) @sum/node) f) f)
@sum/node = ({d1 d2} ((l m) r))
  &! @sum ~ (d1 (l $([+] $(s r))))
  &! @sum ~ (d2 (m s))
)");
  CHECK(o.callees("main") == Names{"gen", "sum"});
  lowering::RedexOrderReport again = lowering::orderRedexes(*o.book);
  CHECK(again.uses[o.id("sum")].demanded == 0b1);
  CHECK((again.uses[o.id("sum")].returned & 0b10) == 0b10);
}

TEST_CASE("a consumer that applies the value to walk it keeps its place") {
  // walk switches on the numbers at the tree's leaves (rep), but it walks
  // the tree by applying it: it cannot run ahead of gen, so it goes first
  // and follows gen's work as written.
  Ordered o(R"(
@main = r & @gen ~ (2 t) & @walk ~ (2 (t (0 r)))
@gen = (?((5 @gen/node) f) f)
@gen/node = ({d1 d2} r) & @gen ~ (d1 l) & @gen ~ (d2 m) & @node ~ (l (m r))
@node = (l (m (* ((l (m k)) k))))
@walk = (?((@rep @walk/node) f) f)
@walk/node = (p ((* (@walk/both (p (h r)))) (h r)))
@walk/both = (l (m ({p1 p2} (h r)))) & @walk ~ (p1 (l (h s))) & @walk ~ (p2 (m (s r)))
@rep = (?(((h h) @rep/more) f) f)
@rep/more = (p ($([+1] h2) r)) & @rep ~ (p (h2 r))
)");
  CHECK(o.callees("main") == Names{"gen", "walk"});
  lowering::RedexOrderReport again = lowering::orderRedexes(*o.book);
  const lowering::ArgumentUse &walk = again.uses[o.id("walk")];
  CHECK(walk.applied == 0b10);
  CHECK(walk.demanded == 0b1);
  // rep switches on its count: a rep called before its count exists waits.
  CHECK(again.uses[o.id("rep")].demanded == 0b1);
  // walk/both hands its subtrees to walk, which applies them: of its
  // arguments only the depth is demanded.
  CHECK(again.uses[o.id("walk/both")].demanded == 0b100);
}

TEST_CASE("a result reaches a switch through operators and a returned argument") {
  // pass returns its second argument, make's result; pick switches on
  // pass's result plus one. Both calls that produce it are linked after
  // pick, so they run before it.
  Ordered o(R"(
@main = r & @make ~ (7 m) & @pass ~ (0 (m $([+1] n))) & @pick ~ (n (5 r))
@pass = (* (x x))
@make = ($([*2] r) r)
@pick = (?(((a a) (* (b b))) f) f)
)");
  CHECK(o.callees("main") == Names{"pick", "make", "pass"});
}

TEST_CASE("calls that each switch on the other's result keep the written order") {
  // Each pick's result is the other's flag: no order makes either first.
  Ordered o(R"(
@main = * & @pick ~ (x (5 y)) & @pick ~ (y (7 x)) & @pick ~ (2 (1 z)) & @keep ~ (z *)
@keep = (a (* a))
@pick = (?(((a a) (* (b b))) f) f)
)");
  CHECK(o.callees("main") == Names{"pick", "pick", "pick", "keep"});
  CHECK(o.firstNumber("main", 2) == num::makeU24(2)); // the third stayed third
}

} // namespace
