// The pool workers give one another redexes through (runtime/cpu/WorkPool.h):
// a call given away with the work it needs still running is not taken until
// that work is done, wherever it runs, and only that work holds it back.
#include "runtime/cpu/WorkPool.h"

#include <doctest/doctest.h>

#include <vector>

using namespace bendc::rt;

namespace {

/// A redex told apart from the others by its number.
Redex item(unsigned k) { return {Term(k), Term(k)}; }
unsigned which(const Redex &r) { return unsigned(r.neg); }

std::vector<Redex> stackOf(std::initializer_list<unsigned> ks) {
  std::vector<Redex> s;
  for (unsigned k : ks)
    s.push_back(item(k));
  return s;
}

std::vector<unsigned> names(const std::vector<Redex> &s) {
  std::vector<unsigned> out;
  for (const Redex &r : s)
    out.push_back(which(r));
  return out;
}

using Names = std::vector<unsigned>;

} // namespace

TEST_CASE("redexes with nothing to wait for go youngest first, half at a time") {
  WorkPool pool;
  std::vector<Redex> giver = stackOf({1, 2, 3, 4, 5, 6});
  Join *owe = nullptr;
  pool.give(giver.data(), 4, nullptr, 0, owe);
  CHECK(owe == nullptr);
  CHECK(pool.open() == 4);
  std::vector<Redex> taker;
  Join *took = nullptr;
  REQUIRE(pool.take(taker, took));
  CHECK(names(taker) == Names{3, 4}); // the youngest on top, as they were
  CHECK(took == nullptr);
  CHECK(pool.size() == 2);
  taker.clear();
  REQUIRE(pool.take(taker, took));
  CHECK(names(taker) == Names{2});
  taker.clear();
  REQUIRE(pool.take(taker, took));
  CHECK(names(taker) == Names{1});
  taker.clear();
  CHECK_FALSE(pool.take(taker, took));
  CHECK(pool.empty());
}

TEST_CASE("a merge given away waits for both sorts, wherever they run") {
  // sort/node's redexes: the merge, linked first, then the two sorts it
  // needs. The worker gives the merge and the first sort, keeps the second.
  WorkPool pool;
  std::vector<Redex> giver = stackOf({10, 11, 12});
  const Consumer merge{0, 1};
  Join *owe = nullptr;
  pool.give(giver.data(), 2, &merge, 1, owe);
  REQUIRE(owe != nullptr);
  CHECK(pool.open() == 1);
  std::vector<Redex> taker;
  Join *took = nullptr;
  REQUIRE(pool.take(taker, took));
  CHECK(names(taker) == Names{11});
  CHECK(took == owe); // both sorts count in the merge's gate
  CHECK(pool.open() == 0);
  CHECK_FALSE(pool.take(taker, took));
  CHECK_FALSE(pool.pay(took)); // one sort done: the merge still waits
  CHECK(pool.open() == 0);
  CHECK(pool.pay(owe)); // the other: it goes
  CHECK(owe == nullptr);
  taker.clear();
  REQUIRE(pool.take(taker, took));
  CHECK(names(taker) == Names{10});
  CHECK(took == nullptr);
}

TEST_CASE("two merges of the same comparisons wait for them, not for each other") {
  // flow/node's redexes: two merges, then the comparisons both need. The
  // worker gives all three and keeps what the comparisons pushed since.
  WorkPool pool;
  std::vector<Redex> giver = stackOf({20, 21, 22, 23, 24});
  const Consumer merges[] = {{0, 2}, {1, 2}};
  Join *owe = nullptr;
  pool.give(giver.data(), 3, merges, 2, owe);
  REQUIRE(owe != nullptr);
  CHECK(pool.open() == 1);
  std::vector<Redex> taker;
  Join *took = nullptr;
  REQUIRE(pool.take(taker, took));
  CHECK(names(taker) == Names{22});
  CHECK(took == owe);
  CHECK_FALSE(pool.pay(owe));
  CHECK(pool.open() == 0);
  CHECK(pool.pay(took)); // the comparisons are done: both merges go
  CHECK(pool.open() == 2);
  taker.clear();
  REQUIRE(pool.take(taker, took));
  CHECK(names(taker) == Names{21});
  // The first merge does not wait for the second's work.
  CHECK(pool.open() == 1);
  taker.clear();
  Join *other = nullptr;
  REQUIRE(pool.take(taker, other));
  CHECK(names(taker) == Names{20});
  CHECK(pool.empty());
}

TEST_CASE("a call whose work has run goes at once; one whose work the giver kept waits for it") {
  WorkPool pool;
  std::vector<Redex> giver = stackOf({30, 31, 32, 33});
  // 31 needed work that has run; 32's work starts above what is given.
  const Consumer calls[] = {{1, Consumer::NoWork}, {2, 3}};
  Join *owe = nullptr;
  pool.give(giver.data(), 3, calls, 2, owe);
  REQUIRE(owe != nullptr);
  CHECK(pool.open() == 2); // 30 and 31
  std::vector<Redex> taker;
  Join *took = nullptr;
  REQUIRE(pool.take(taker, took));
  CHECK(names(taker) == Names{31}); // 32, younger, is held back
  CHECK(took == nullptr);
  CHECK(pool.open() == 1);
  CHECK(pool.pay(owe)); // the giver's stack, 32's work, is done
  CHECK(pool.open() == 2);
}

TEST_CASE("what a taker owes is paid into the join of the call below it") {
  // A merge given away; the sort above it taken, then given again by its
  // taker with a merge of its own: the first merge waits for all of it.
  WorkPool pool;
  std::vector<Redex> a = stackOf({40, 41, 42});
  const Consumer merge{0, 1};
  Join *oweA = nullptr;
  pool.give(a.data(), 2, &merge, 1, oweA);
  std::vector<Redex> b;
  Join *oweB = nullptr;
  REQUIRE(pool.take(b, oweB));
  CHECK(names(b) == Names{41});
  // b's sort expanded into a merge and two sorts; it gives the merge and a sort.
  b = stackOf({50, 51, 52});
  const Consumer inner{0, 1};
  pool.give(b.data(), 2, &inner, 1, oweB);
  CHECK(pool.open() == 1);
  std::vector<Redex> c;
  Join *oweC = nullptr;
  REQUIRE(pool.take(c, oweC));
  CHECK(names(c) == Names{51});
  CHECK_FALSE(pool.pay(oweA));
  CHECK_FALSE(pool.pay(oweC));
  CHECK(pool.pay(oweB)); // the inner merge's sorts are done: it goes
  CHECK(pool.open() == 1);
  std::vector<Redex> d;
  Join *oweD = nullptr;
  REQUIRE(pool.take(d, oweD));
  CHECK(names(d) == Names{50});
  CHECK(pool.open() == 0); // the outer merge waits for the inner one
  CHECK(pool.pay(oweD));
  CHECK(pool.open() == 1);
}

TEST_CASE("when every worker is idle, a call still held back goes anyway") {
  WorkPool pool;
  std::vector<Redex> giver = stackOf({60, 61});
  const Consumer call{0, 1};
  Join *owe = nullptr;
  pool.give(giver.data(), 1, &call, 1, owe);
  std::vector<Redex> taker;
  Join *took = nullptr;
  CHECK_FALSE(pool.take(taker, took));
  CHECK(pool.size() == 1);
  REQUIRE(pool.releaseAll());
  REQUIRE(pool.take(taker, took));
  CHECK(names(taker) == Names{60});
  CHECK(pool.empty());
}

TEST_CASE("a recursion whose every level waits for the one below: its calls go back youngest first") {
  // Each share gives one call that needs everything above it, and keeps
  // the rest: the pool holds them all, and lets each go once the one
  // above it has run.
  WorkPool pool;
  Join *owe = nullptr;
  constexpr unsigned Depth = 1000;
  for (unsigned k = 0; k < Depth; ++k) {
    std::vector<Redex> s = stackOf({k, 100000 + k});
    const Consumer call{0, 1};
    CHECK_FALSE(pool.give(s.data(), 1, &call, 1, owe)); // nothing to take yet
  }
  CHECK(pool.open() == 0);
  CHECK(pool.size() == Depth);
  for (unsigned k = Depth; k-- > 0;) {
    CAPTURE(k);
    REQUIRE(pool.pay(owe)); // the work above call k is done
    std::vector<Redex> s;
    REQUIRE(pool.take(s, owe));
    CHECK(names(s) == Names{k});
    CHECK(pool.open() == 0);
  }
  CHECK(pool.empty());
  CHECK_FALSE(pool.pay(owe));
}

TEST_CASE("a shallow stack gives its oldest redex that may run, with the calls under it that wait") {
  // Nothing marked: the oldest redex alone, the sibling of all the rest.
  CHECK(oldestToGive(10, nullptr, 0) == 1);
  CHECK(oldestToGive(ShallowStack, nullptr, 0) == 1);
  // The two oldest are calls that need work above them; the third may run.
  const Consumer waiting[] = {{0, 5}, {1, 5}};
  CHECK(oldestToGive(10, waiting, 2) == 3);
  // A call whose work has run may go at once; one higher up changes nothing.
  const Consumer ran[] = {{0, Consumer::NoWork}, {4, 5}};
  CHECK(oldestToGive(10, ran, 2) == 1);
  const Consumer above[] = {{0, 3}, {2, 3}};
  CHECK(oldestToGive(10, above, 2) == 2);
  // Everything under the top waits for it: nothing is given.
  const Consumer all[] = {{0, 2}, {1, 2}};
  CHECK(oldestToGive(3, all, 2) == 0);
  CHECK(oldestToGive(1, nullptr, 0) == 0);
}

TEST_CASE("a deep stack gives its older half, whatever waits in it") {
  CHECK(oldestToGive(ShallowStack + 1, nullptr, 0) == (ShallowStack + 1) / 2);
  std::vector<Consumer> calls;
  for (uint32_t p = 0; p + 1 < 1000; ++p)
    calls.push_back({p, 999});
  CHECK(oldestToGive(1000, calls.data(), calls.size()) == 500);
}
