// The simulator of one net over several ranks (runtime/dist/DistSim.h): it
// reduces as the runtime does, counts the same interactions, and its
// accounting of what crosses ranks holds its invariants.
#include "runtime/dist/DistSim.h"
#include "tests/runtime/RunText.h"
#include "tests/runtime/TestNets.h"

#include <doctest/doctest.h>

#include <set>

using namespace bendc;
namespace dist = rt::dist;
namespace nets = testing::nets;

namespace {

/// The runtime's run of `text` on one thread, and the book it ran.
struct Reference {
  testing::Outcome outcome;
  rt::Book book;
};

Reference runReference(const std::string &text) {
  rt::RunOptions options;
  options.backend = rt::Backend::Cpu;
  options.threads = 1;
  options.memBytes = 64 << 20;
  Reference ref;
  ref.outcome = testing::runText(text, options, [&](rt::Book &book) { ref.book = book; });
  return ref;
}

dist::SimStats simulate(const rt::Book &book, unsigned ranks, dist::Partition partition, dist::Scheme scheme,
                        uint64_t budget = 64) {
  dist::SimOptions options;
  options.ranks = ranks;
  options.partition = partition;
  options.scheme = scheme;
  options.roundBudget = budget; // small: many rounds, much work sharing
  return dist::simulate(book, options);
}

constexpr dist::Partition partitions[] = {dist::Partition::Worker, dist::Partition::Hash};
constexpr dist::Scheme schemes[] = {dist::Scheme::OneSided, dist::Scheme::Rounds};

} // namespace

TEST_CASE("simulated ranks count the interactions the runtime counts, with its result") {
  std::vector<std::string> texts = {nets::sum(8), nets::tree(6), nets::loop(300)};
  for (const nets::RuleNet &r : nets::rules)
    texts.push_back(r.text);
  for (const std::string &text : texts) {
    Reference ref = runReference(text);
    CAPTURE(text);
    CHECK_RESULT(ref.outcome, ref.outcome.result);
    for (dist::Partition partition : partitions)
      for (dist::Scheme scheme : schemes)
        for (unsigned ranks : {1u, 2u, 4u, 16u, 64u}) {
          CAPTURE(ranks);
          CAPTURE(dist::partitionName(partition));
          CAPTURE(dist::schemeName(scheme));
          dist::SimStats s = simulate(ref.book, ranks, partition, scheme);
          REQUIRE(s.status == rt::RunStatus::Ok);
          CHECK(s.interactions == ref.outcome.run.stats.interactions);
          CHECK(s.byRule == ref.outcome.run.stats.byRule);
          CHECK(net::resultText(s.normalForm, ref.book.names) == ref.outcome.result);
        }
  }
}

TEST_CASE("on one rank nothing crosses and the prediction is the local time") {
  Reference ref = runReference(nets::tree(6));
  for (dist::Partition partition : partitions)
    for (dist::Scheme scheme : schemes) {
      dist::SimStats s = simulate(ref.book, 1, partition, scheme);
      CHECK(s.redexes > 0);
      CHECK(s.crossRedexes == 0);
      CHECK(s.networkRedexes == 0);
      CHECK(s.bytes == 0);
      CHECK(s.roundTrips == 0);
      CHECK(s.remoteReads + s.remoteSwaps + s.remoteWrites + s.remoteFrees + s.sentRedexes == 0);
      CHECK(s.predictedSeconds == doctest::Approx(s.oneRankSeconds));
    }
}

TEST_CASE("a parallel net spreads over the ranks, and some redexes then cross") {
  Reference ref = runReference(nets::tree(8));
  for (dist::Scheme scheme : schemes) {
    dist::SimStats s = simulate(ref.book, 4, dist::Partition::Worker, scheme);
    CHECK(s.sharedRedexes > 0);
    CHECK(s.networkRedexes > 0);
    CHECK(s.networkRedexes <= s.redexes);
    CHECK(s.crossRedexes <= s.redexes);
    CHECK(s.bytes > 0);
  }
}

TEST_CASE("without locality most redexes need the network") {
  Reference ref = runReference(nets::tree(8));
  for (dist::Scheme scheme : schemes) {
    dist::SimStats worker = simulate(ref.book, 16, dist::Partition::Worker, scheme);
    dist::SimStats hashed = simulate(ref.book, 16, dist::Partition::Hash, scheme);
    CHECK(hashed.networkRedexes * 2 > hashed.redexes);
    CHECK(hashed.networkRedexes > worker.networkRedexes);
    CHECK(hashed.bytes > worker.bytes);
  }
}

TEST_CASE("the hash partition is deterministic and spreads the nodes") {
  CHECK(dist::hashOwner(0, 64) == 0); // the root is rank 0's
  std::set<unsigned> owners;
  for (rt::Loc n = 1; n < 4096; ++n) {
    unsigned o = dist::hashOwner(n, 64);
    CHECK(o < 64);
    CHECK(o == dist::hashOwner(n, 64));
    CHECK(dist::hashOwner(n, 1) == 0);
    owners.insert(o);
  }
  CHECK(owners.size() == 64);
  Reference ref = runReference(nets::sum(8));
  dist::SimStats a = simulate(ref.book, 16, dist::Partition::Hash, dist::Scheme::Rounds);
  dist::SimStats b = simulate(ref.book, 16, dist::Partition::Hash, dist::Scheme::Rounds);
  CHECK(a.crossRedexes == b.crossRedexes);
  CHECK(a.bytes == b.bytes);
  CHECK(a.rounds == b.rounds);
  CHECK(a.predictedSeconds == b.predictedSeconds);
}
