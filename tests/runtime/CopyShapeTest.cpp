// Calls copied by their definition's shape (runtime/common/CopyShape.h): the
// steps worked out for a definition, and runs of the CPU runtime, which
// copies by shape, against the rank simulator, which copies every call the
// general way (its context does not copy by shape).
#include "runtime/common/CopyShape.h"
#include "runtime/dist/DistSim.h"
#include "tests/runtime/RunText.h"
#include "tests/runtime/TestNets.h"

#include <doctest/doctest.h>

#include <algorithm>

using namespace bendc;
namespace nets = testing::nets;

namespace {

/// The polarized book of `text`, as the runtime would run it.
rt::Book bookOf(const std::string &text) {
  rt::RunOptions options;
  options.backend = rt::Backend::Cpu;
  options.threads = 1;
  options.memBytes = 16 << 20;
  rt::Book book;
  testing::runText(text, options, [&](rt::Book &b) { book = b; });
  REQUIRE(!book.defs.empty());
  return book;
}

uint32_t defId(const rt::Book &book, llvm::StringRef name) {
  for (uint32_t id = 0; id < book.names.size(); ++id)
    if (book.names[id] == name)
      return id;
  FAIL("no definition named " << name.str());
  return 0;
}

/// A radix sort of 2^depth keys over Scott-encoded tries (samples/bench's
/// sort_radix at a small size): full and partial applications, definitions
/// applied as data, plans and late links.
std::string radixSort(unsigned depth) {
  return "@main = r & @gen ~ (" + std::to_string(depth) + " (0 t)) & @walk ~ (16 (t (0 (0 r))))\n" + R"(
@empty = (e (* e))
@gen = (?((@gen/leaf @gen/node) f) f)
@gen/leaf = ($([*2654435] $([:>>8] v)) r) & @single ~ (16 (v r))
@gen/node = ({d1 d2} ({$([*2] a) $([*2] $([+1] b))} r))
  &! @gen ~ (d1 (a l))
  &! @gen ~ (d2 (b m))
  & @merge ~ (16 (l (m r)))
@single = (?(((* 1) @single/bit) f) f)
@single/bit = ({p1 p2} ({$([>>] $(p1 $([&1] bit))) v} r))
  & @single/pick ~ (bit (p2 (v r)))
@single/pick = (?((@single/lo @single/hi) f) f)
@single/lo = ({p1 p2} (v (* ((l (e k)) k)))) & @single ~ (p1 (v l)) & @hole ~ (p2 e)
@single/hi = (* ({p1 p2} (v (* ((e (h k)) k))))) & @single ~ (p1 (v h)) & @hole ~ (p2 e)
@hole = (?((0 (* @empty)) r) r)
@merge = (?((@merge/add @merge/node) f) f)
@merge/add = ($([+] $(b r)) (b r))
@merge/node = (p (((* (x x)) (@merge/left (p (t2 r)))) (t2 r)))
@merge/left = (a (b (p (t2 r)))) & t2 ~ (@merge/keep (@merge/both (a (b (p r)))))
@merge/keep = (a (b (* (* ((a (b k)) k)))))
@merge/both = (c (e (a (b ({p1 p2} (* ((x (y k)) k)))))))
  &! @merge ~ (p1 (a (c x)))
  &! @merge ~ (p2 (b (e y)))
@walk = (?((@rep @walk/node) f) f)
@walk/node = (p (((* (* (g g))) (@walk/both (p (v (h r))))) (v (h r))))
@walk/both = (l (m ({p1 p2} ({$([*2] v0) $([*2] $([+1] v1))} (h r)))))
  &! @walk ~ (p1 (l (v0 (h s))))
  &! @walk ~ (p2 (m (v1 (s r))))
@rep = (?(((* (h h)) @rep/more) f) f)
@rep/more = (p ({v1 v2} ($([*31] $([+] $(v1 h2))) r))) & @rep ~ (p (v2 (h2 r)))
)";
}

} // namespace

TEST_CASE("a definition's shapes: one per fused prefix of its chain, and one with its plan") {
  rt::Book book = bookOf("@main = r & @k ~ (1 (2 r))\n@k = (a (* a))\n");
  rt::CopyShapes shapes = rt::buildCopyShapes(book);
  REQUIRE(shapes.byDef.size() == book.defs.size());
  const rt::CopyShape &k = shapes.byDef[defId(book, "k")];
  REQUIRE(k.shaped);
  // λa λ* a: two levels, the first continuing through its body (slot 1).
  CHECK(k.levels == 2);
  CHECK(k.nextBits == 1);
  // Nothing fused: both λs built; one level: the inner one; both: none.
  const rt::CopyVariant *v = &shapes.variants[k.first];
  CHECK(v[0].built == 2);
  CHECK(v[1].built == 1);
  CHECK(v[2].built == 0);
  // Fused whole, the copy only finishes the two applications: at the first,
  // the binder's slot waits (nothing) and the body is the next level; at the
  // second, the eraser meets the argument and the body, the first
  // argument, moves into the result.
  const rt::CopyStep *s = &shapes.steps[v[2].firstStep];
  CHECK(s[0].finish == rt::Finish::Dead);
  CHECK(s[1].finish == rt::Finish::Dead);
  CHECK(s[2].finish == rt::Finish::Link);
  CHECK(s[2].base == rt::eraTerm());
  CHECK(s[2].from == rt::shape::Zero);
  CHECK(s[3].finish == rt::Finish::Move);
  CHECK(s[3].base == 0);
  CHECK(s[3].from == rt::shape::Args + 0);
  CHECK(s[3].shift == 0);
  // Not fused: the outer λ's body is the inner λ (a node term), whose body
  // is the variable of the outer one's binder (a slot of a built node).
  s = &shapes.steps[v[0].firstStep];
  CHECK(s[1].base == rt::tag::Lam);
  CHECK(s[1].from == rt::shape::Nodes + 1);
  CHECK(s[1].shift == 8);
  // That variable is a VARAT (values may be written in its place), and the
  // binder's SUB says where it is: slot 1 of the inner λ.
  CHECK(s[3].base == rt::makeTerm(rt::tag::VarAt, 0));
  CHECK(s[3].from == rt::shape::Nodes + 0);
  CHECK(s[3].shift == 9);
  CHECK(s[0].base == rt::makeTerm(rt::tag::Sub, 1));
  CHECK(s[0].from == rt::shape::Nodes + 1);
  CHECK(s[0].shift == 9);
  CHECK(s[4].base == rt::tag::Lam); // the root, after the (no) redexes
  CHECK(s[4].from == rt::shape::Nodes + 0);

  // A definition with a plan has the plan's variant too, where the numbers
  // the plan computes stand for the evaluated nodes' slots.
  rt::Book sq = bookOf("@main = r & @sq ~ (7 r)\n@sq = ({$([*] $(b r)) b} r)\n");
  REQUIRE(!sq.plans.empty());
  rt::CopyShapes sqShapes = rt::buildCopyShapes(sq);
  const rt::CopyShape &s2 = sqShapes.byDef[defId(sq, "sq")];
  REQUIRE(s2.shaped);
  CHECK(s2.planned == s2.first + s2.levels + 1);
  CHECK(sqShapes.variants[s2.planned].built < sqShapes.variants[s2.first + s2.levels].built);
}

TEST_CASE("a definition larger than MaxShapedNodes is copied the general way") {
  // A list of pairs one node longer than the bound, applied: λx (x, (1, (2, ...))).
  std::string list = "0";
  for (uint32_t k = rt::MaxShapedNodes; k >= 1; --k)
    list = "(" + std::to_string(k) + " " + list + ")";
  std::string text = "@main = r & @big ~ (7 r)\n@big = (x (x " + list + "))\n";
  rt::Book book = bookOf(text);
  REQUIRE(book.defs[defId(book, "big")].nodeCount > rt::MaxShapedNodes);
  rt::CopyShapes shapes = rt::buildCopyShapes(book);
  CHECK_FALSE(shapes.byDef[defId(book, "big")].shaped);
  CHECK(shapes.byDef[defId(book, "main")].shaped);
  rt::RunOptions options;
  options.backend = rt::Backend::Cpu;
  options.threads = 1;
  options.memBytes = 16 << 20;
  testing::Outcome o = testing::runText(text, options);
  REQUIRE(o.run.status == rt::RunStatus::Ok);
  CHECK(o.result.rfind("(7 (1 (2 ", 0) == 0);
}

TEST_CASE("calls copied by shape: the same result and counts as copied the general way") {
  std::vector<std::string> texts = {
      // Full and partial applications, one reaching a duplication instead.
      "@main = r & @k ~ (1 (2 r))\n@k = (a (* a))\n",
      "@main = r & @k ~ (1 r)\n@k = (a (* a))\n",
      "@main = (x y) & @k ~ (1 {x y})\n@k = (a (* a))\n",
      // A definition that duplicates, copied for a duplication (not fused).
      "@main = (a b) & {a b} ~ @d\n@d = ({x y} (x y))\n",
      // Plans: a square, a loop, copies reaching other kinds (late links),
      // an argument that is not a number yet, a chain fused only in part.
      "@main = r & @sq ~ (7 r)\n@sq = ({$([*] $(b r)) b} r)\n",
      "@main = r & @loop ~ (100 (0 r))\n@loop = (?(((a a) @loop/step) f) f)\n"
      "@loop/step = ({p1 p2} ($([+] $(p1 a2)) r)) & @loop ~ (p2 (a2 r))\n",
      "@main = r & @f ~ (6 r)\n@f = ({(x x) $([+1] r)} r)\n",
      "@main = (r s) & @f ~ (6 (r s))\n@f = ({?((1 (p p)) r) $([+1] s)} (r s))\n",
      "@main = r & @sq ~ (a r) & 3 ~ $([*] $(2 a))\n@sq = ({$([*] $(b r)) b} r)\n",
      "@main = s & @f ~ (3 r) & r ~ (4 s)\n@f = (a ($([+] $(a r)) r))\n",
      nets::sum(8),
      nets::tree(6),
      nets::loop(300),
      radixSort(4),
  };
  for (const nets::RuleNet &r : nets::rules)
    texts.push_back(r.text);
  for (const std::string &text : texts) {
    CAPTURE(text);
    for (unsigned threads : {1u, 2u}) {
      CAPTURE(threads);
      rt::RunOptions options;
      options.backend = rt::Backend::Cpu;
      options.threads = threads;
      options.memBytes = 64 << 20;
      rt::Book book;
      testing::Outcome shaped = testing::runText(text, options, [&](rt::Book &b) { book = b; });
      REQUIRE(shaped.run.status == rt::RunStatus::Ok);
      rt::dist::SimOptions sim;
      sim.ranks = 1;
      rt::dist::SimStats general = rt::dist::simulate(book, sim);
      REQUIRE(general.status == rt::RunStatus::Ok);
      CHECK(shaped.run.stats.byRule == general.byRule);
      CHECK(net::resultText(general.normalForm, book.names) == shaped.result);
    }
  }
  // The radix sort's result, as samples/bench's header works it out for
  // 2^14 keys, here for 16: the keys folded in ascending order.
  rt::RunOptions options;
  options.backend = rt::Backend::Cpu;
  options.threads = 1;
  options.memBytes = 64 << 20;
  testing::Outcome radix = testing::runText(radixSort(4), options);
  REQUIRE(radix.run.status == rt::RunStatus::Ok);
  uint32_t keys[16], h = 0;
  for (uint32_t x = 0; x < 16; ++x)
    keys[x] = ((x * 2654435u) & 0xFFFFFF) >> 8;
  std::sort(keys, keys + 16);
  for (uint32_t key : keys)
    h = (h * 31 + key) & 0xFFFFFF;
  CHECK(radix.result == std::to_string(h));
}
