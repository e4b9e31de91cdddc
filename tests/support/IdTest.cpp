// Typed indices and the tables they index.
#include "support/Id.h"

#include "llvm/ADT/DenseMap.h"

#include <doctest/doctest.h>

#include <type_traits>

using namespace bendc;

namespace {
using AppleId = Id<struct AppleTag>;
using PearId = Id<struct PearTag>;
} // namespace

// An id of one kind is neither a number nor an id of another kind.
static_assert(!std::is_convertible_v<uint32_t, AppleId>);
static_assert(!std::is_convertible_v<AppleId, uint32_t>);
static_assert(!std::is_convertible_v<AppleId, PearId>);
static_assert(sizeof(AppleId) == sizeof(uint32_t));

TEST_CASE("a default id is no place, and ids compare by place") {
  CHECK(!AppleId().valid());
  CHECK(AppleId(0).valid());
  CHECK(AppleId(3) == AppleId(3));
  CHECK(AppleId(3) != AppleId(4));
  CHECK(AppleId(3) < AppleId(4));
}

TEST_CASE("a table answers each new row's id and is indexed by it") {
  IdTable<AppleId, int> apples;
  CHECK(apples.empty());
  CHECK(apples.next() == AppleId(0));
  AppleId a = apples.push_back(10);
  AppleId b = apples.emplace_back(20);
  CHECK(a == AppleId(0));
  CHECK(b == AppleId(1));
  CHECK(apples[b] == 20);
  apples[a] = 11;
  CHECK(apples[a] == 11);
  CHECK(apples.contains(b));
  CHECK(!apples.contains(AppleId(2)));
  CHECK(!apples.contains(AppleId()));
  std::vector<AppleId> ids;
  for (AppleId id : apples.ids())
    ids.push_back(id);
  CHECK(ids == std::vector<AppleId>{a, b});
  apples.resize(4, -1);
  CHECK(apples[AppleId(3)] == -1);
  apples.release();
  CHECK(apples.size() == 0);
}

TEST_CASE("ids are keys of LLVM's hash maps") {
  llvm::DenseMap<AppleId, int> m;
  m[AppleId(0)] = 1;
  m[AppleId(7)] = 2;
  CHECK(m.lookup(AppleId(7)) == 2);
  CHECK(m.count(AppleId(1)) == 0);
}
