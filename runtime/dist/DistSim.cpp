#include "runtime/dist/DistSim.h"
#include "runtime/Io.h"
#include "runtime/NetHost.h"
#include "runtime/common/Interact.h"
#include "runtime/common/NodeStock.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace bendc::rt::dist {

const char *partitionName(Partition p) { return p == Partition::Worker ? "worker" : "hash"; }
const char *schemeName(Scheme s) { return s == Scheme::OneSided ? "one-sided" : "rounds"; }

unsigned hashOwner(Loc node, unsigned ranks) {
  if (node == 0 || ranks <= 1)
    return 0;
  // A 64-bit finalizer (multiply and xor-shift): neighbouring indices land
  // on unrelated ranks, and every run places every node the same way.
  uint64_t x = node;
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ULL;
  x ^= x >> 33;
  return unsigned(x % ranks);
}

namespace {

constexpr RuleTable ruleTable;

/// Ranks take nodes in chunks of 2^ChunkShift; under the worker partition a
/// chunk belongs to the rank that took it.
constexpr unsigned ChunkShift = 12;
constexpr Loc ChunkNodes = Loc(1) << ChunkShift;
constexpr uint64_t DefaultMaxNodes = uint64_t(1) << 31;

struct Redex {
  Term neg, pos;
};

/// A redex sent to a rank, reduced there from round `at` on.
struct Arrival {
  uint64_t at;
  Term neg, pos;
};

struct Rank {
  NodeStock nodes;
  std::vector<Redex> stack;
  std::vector<Arrival> inbox; // scheme B
  // This round's tallies.
  uint64_t work = 0, bytesOut = 0, bytesIn = 0, trips = 0;
  double busy = 0; // over the whole run
};

/// Net memory without accounting: what a rank's free list reads and writes.
struct RawMemory {
  std::vector<Term> &slots;
  Term load(Loc slot) const { return slots[slot]; }
  void store(Loc slot, Term t) { slots[slot] = t; }
};

/// The context of runtime/common/Interact.h for every rank at once: `cur` is
/// the rank that reduces now, and every access is checked against the owner
/// of its node.
class Sim {
public:
  // --- the context interface of runtime/common/Interact.h ---
  const Term *bookSlots;
  const Term *bookRedexes;
  const DefInfo *defs;
  const Plan *plans;
  Loc *scratch;

  Term load(Loc slot) {
    if (ranks.size() > 1)
      noteRead(slot);
    return slots[slot];
  }
  void store(Loc slot, Term t) {
    slots[slot] = t;
    if (ranks.size() > 1)
      noteWrite(slot);
  }
  Term exchange(Loc slot, Term t) {
    Term got = slots[slot];
    slots[slot] = t;
    if (ranks.size() > 1)
      noteSwap(slot, got);
    return got;
  }
  uint32_t addDead(Loc node, uint32_t n) {
    uint32_t old = dead[node];
    dead[node] = uint8_t(old + n);
    if (ranks.size() > 1 && scheme == Scheme::OneSided) {
      unsigned o = ownerOf(node);
      if (o != cur) {
        ++stats.remoteCounts;
        touched = true;
        roundTrip(o, SwapBytes);
      }
    }
    return old;
  }
  void clearDead(Loc node) { dead[node] = 0; }
  Loc alloc() { return ranks[cur].nodes.take(memory); }
  bool reserve(uint64_t n);
  void release(Loc node);
  void push(Term neg, Term pos);
  bool deferCall(Term, Term) { return false; }
  void count(Rule rule) {
    ++stats.byRule[unsigned(rule)];
    ++ranks[cur].work;
  }
  void fault(Fault f, Term neg, Term pos);

  // --- the simulation ---
  Sim(const Book &book, const SimOptions &options, SimStats &stats);

  bool failed() const { return stats.status != RunStatus::Ok; }
  void boot(uint32_t mainId);
  /// Rounds until no rank holds a redex; false when the run failed.
  bool reduce();
  const Term *slotData() const { return slots.data(); }
  void finish();

private:
  unsigned ownerOf(Loc node) const {
    if (partition == Partition::Hash)
      return hashOwner(node, unsigned(ranks.size()));
    return chunkOwner[node >> ChunkShift];
  }
  void noteRead(Loc slot);
  void noteWrite(Loc slot);
  void noteSwap(Loc slot, Term got);
  /// What the chain of steps now running waits for: a message that arrives
  /// at rank `rank` in round `at`.
  void waitFor(uint64_t at, unsigned rank) {
    if (!tainted || at > taintAt) {
      tainted = true;
      taintAt = at;
      taintRank = rank;
    }
  }
  void send(unsigned from, unsigned to, uint64_t bytes) {
    ranks[from].bytesOut += bytes;
    ranks[to].bytesIn += bytes;
    stats.bytes += bytes;
  }
  /// The reducing rank asks `owner` and waits for the answer.
  void roundTrip(unsigned owner, uint64_t bytes) {
    ++ranks[cur].trips;
    ++stats.roundTrips;
    send(cur, owner, bytes / 2);
    send(owner, cur, bytes - bytes / 2);
  }
  bool takeChunks(uint64_t n);
  void reduceRedex(Redex r);
  void endRound(bool budgetHit);
  void shareWork();

  SimStats &stats;
  Scheme scheme;
  Partition partition;
  uint64_t budget;
  uint64_t maxNodes;
  NetworkModel net;
  uint32_t need;
  std::vector<Term> slots;
  std::vector<uint8_t> dead;
  /// Scheme B: the round from which the last remote write into a slot is
  /// there to be read (0: written locally).
  std::vector<uint32_t> stamp;
  std::vector<uint16_t> chunkOwner;
  Loc nextChunk = 1; // chunk 0 is rank 0's from the start
  std::vector<Rank> ranks;
  std::vector<Loc> scratchSpace;
  RawMemory memory{slots};
  unsigned cur = 0;
  uint64_t round = 0;
  // The redex being reduced: the remote nodes it read, and the latest
  // message the steps since the last push waited for.
  llvm::SmallVector<Loc, 8> readNodes;
  bool touched = false;
  bool tainted = false;
  uint64_t taintAt = 0;
  unsigned taintRank = 0;
};

Sim::Sim(const Book &book, const SimOptions &options, SimStats &stats)
    : bookSlots(book.slots.data()), bookRedexes(book.redexes.data()), defs(book.defs.data()),
      plans(book.plans.data()), stats(stats), scheme(options.scheme), partition(options.partition),
      budget(std::max<uint64_t>(options.roundBudget, 1)),
      maxNodes(options.maxNodes ? options.maxNodes : DefaultMaxNodes), net(options.network),
      need(maxNodesPerInteraction(book)), ranks(std::max(options.ranks, 1u)) {
  scratchSpace.resize(need);
  scratch = scratchSpace.data();
  slots.resize(2 * ChunkNodes, 0);
  dead.resize(ChunkNodes, 0);
  if (scheme == Scheme::Rounds)
    stamp.resize(2 * ChunkNodes, 0);
  chunkOwner.push_back(0);
  ranks[0].nodes.bump = FirstNode;
  ranks[0].nodes.bumpEnd = ChunkNodes;
}

void Sim::fault(Fault f, Term, Term) {
  if (failed())
    return;
  stats.status = f == Fault::NoMemory ? RunStatus::OutOfMemory : RunStatus::Fault;
  stats.message = f == Fault::NoMemory ? "out of memory" : "a redex joined two terms of the same polarity";
}

bool Sim::takeChunks(uint64_t n) {
  Loc chunks = (n + ChunkNodes - 1) / ChunkNodes;
  Loc begin = nextChunk * ChunkNodes, end = (nextChunk + chunks) * ChunkNodes;
  if (end > maxNodes) {
    stats.status = RunStatus::OutOfMemory;
    stats.message = "out of memory: the simulated net needed more than " + std::to_string(maxNodes) + " nodes";
    return false;
  }
  nextChunk += chunks;
  slots.resize(2 * end, 0);
  dead.resize(end, 0);
  if (scheme == Scheme::Rounds)
    stamp.resize(2 * end, 0);
  chunkOwner.resize(end >> ChunkShift, uint16_t(cur));
  NodeStock &stock = ranks[cur].nodes;
  stock.retireRange(memory);
  stock.bump = begin;
  stock.bumpEnd = end;
  return true;
}

bool Sim::reserve(uint64_t n) {
  if (failed())
    return false;
  NodeStock &stock = ranks[cur].nodes;
  if (stock.available() >= n)
    return true;
  return takeChunks(n);
}

void Sim::release(Loc node) {
  if (partition == Partition::Hash) {
    // Where a node is allocated says nothing of its owner: any rank may
    // reuse it.
    ranks[cur].nodes.give(memory, node);
    return;
  }
  unsigned o = ownerOf(node);
  ranks[o].nodes.give(memory, node);
  if (o != cur) {
    ++stats.remoteFrees;
    send(cur, o, FreeBytes);
  }
}

void Sim::noteRead(Loc slot) {
  Loc node = slot >> 1;
  unsigned o = ownerOf(node);
  if (scheme == Scheme::Rounds && stamp[slot] > round)
    waitFor(stamp[slot], o);
  if (o == cur || llvm::is_contained(readNodes, node))
    return;
  readNodes.push_back(node);
  ++stats.remoteReads;
  touched = true;
  if (scheme == Scheme::OneSided) {
    roundTrip(o, GetBytes);
    return;
  }
  send(o, cur, GetBytes); // the node travels with its redex
}

void Sim::noteWrite(Loc slot) {
  unsigned o = ownerOf(slot >> 1);
  if (o == cur) {
    if (scheme == Scheme::Rounds)
      stamp[slot] = 0;
    return;
  }
  ++stats.remoteWrites;
  touched = true;
  if (scheme == Scheme::OneSided) {
    send(cur, o, PutBytes);
    return;
  }
  send(cur, o, MessageBytes);
  stamp[slot] = uint32_t(round + 1);
}

void Sim::noteSwap(Loc slot, Term got) {
  unsigned o = ownerOf(slot >> 1);
  if (o == cur) {
    if (scheme == Scheme::Rounds) {
      // A value that came in a message is there from its round on.
      if (stamp[slot] > round && !isSub(got))
        waitFor(stamp[slot], cur);
      stamp[slot] = 0;
    }
    return;
  }
  ++stats.remoteSwaps;
  touched = true;
  if (scheme == Scheme::OneSided) {
    roundTrip(o, SwapBytes);
    return;
  }
  // The swap is a message that the owner applies in the next round; what it
  // finds there is handled there.
  send(cur, o, MessageBytes);
  uint64_t at = std::max<uint64_t>(round + 1, stamp[slot]);
  stamp[slot] = uint32_t(at);
  if (!isSub(got))
    waitFor(at, o);
}

void Sim::push(Term neg, Term pos) {
  if (scheme == Scheme::OneSided || ranks.size() == 1) {
    ranks[cur].stack.push_back({neg, pos});
    return;
  }
  unsigned to = isNode(pos) ? ownerOf(nodeOf(pos)) : isNode(neg) ? ownerOf(nodeOf(neg)) : cur;
  unsigned from = tainted ? taintRank : cur;
  uint64_t at = tainted ? taintAt : round;
  tainted = false;
  if (to != from) {
    ++stats.sentRedexes;
    touched = true;
    send(from, to, MessageBytes);
    at = std::max(at, round) + 1;
  }
  if (to == cur && at <= round)
    ranks[cur].stack.push_back({neg, pos});
  else
    ranks[to].inbox.push_back({at, neg, pos});
}

void Sim::boot(uint32_t mainId) {
  cur = 0;
  if (!reserve(defs[mainId].nodeCount))
    return;
  store(RootSlot, subTerm());
  count(Rule::Call); // as the CPU runtime counts the expansion of @main
  Term root = expand(*this, mainId);
  move(*this, RootSlot, root);
}

void Sim::reduceRedex(Redex r) {
  ++stats.redexes;
  if (isNode(r.neg) && isNode(r.pos) && ownerOf(nodeOf(r.neg)) != ownerOf(nodeOf(r.pos)))
    ++stats.crossRedexes;
  readNodes.clear();
  tainted = false;
  touched = false;
  interact(*this, r.neg, r.pos, ruleTable.rules[tagOf(r.neg)][tagOf(r.pos)]);
  stats.networkRedexes += touched;
}

bool Sim::reduce() {
  for (;;) {
    bool budgetHit = false, left = false;
    for (unsigned r = 0; r < ranks.size() && !failed(); ++r) {
      cur = r;
      Rank &rank = ranks[r];
      if (!rank.inbox.empty()) {
        // Arrivals in the order they were sent; later ones wait.
        auto later = std::stable_partition(rank.inbox.begin(), rank.inbox.end(),
                                           [&](const Arrival &a) { return a.at <= round; });
        for (auto it = rank.inbox.begin(); it != later; ++it)
          rank.stack.push_back({it->neg, it->pos});
        rank.inbox.erase(rank.inbox.begin(), later);
      }
      while (!rank.stack.empty() && rank.work < budget) {
        if (!reserve(need))
          break;
        Redex x = rank.stack.back();
        rank.stack.pop_back();
        reduceRedex(x);
      }
      budgetHit |= !rank.stack.empty();
    }
    cur = 0;
    if (failed())
      return false;
    for (const Rank &rank : ranks)
      left |= !rank.stack.empty() || !rank.inbox.empty();
    endRound(budgetHit);
    if (!left)
      return true;
    shareWork();
  }
}

void Sim::endRound(bool budgetHit) {
  double longest = 0;
  for (Rank &rank : ranks) {
    double t = double(rank.work) * net.secondsPerInteraction +
               double(std::max(rank.bytesOut, rank.bytesIn)) / net.bandwidth;
    if (scheme == Scheme::OneSided)
      t += double(rank.trips) * 2 * net.latency;
    longest = std::max(longest, t);
    rank.busy += t;
    rank.work = rank.bytesOut = rank.bytesIn = rank.trips = 0;
  }
  // Scheme B's exchange at the end of the round: MPI_Alltoallv with small
  // messages takes about log2(P) steps (with the counts that decide the end
  // of the run in the same exchange).
  if (scheme == Scheme::Rounds && ranks.size() > 1)
    longest += std::ceil(std::log2(double(ranks.size()))) * net.latency;
  stats.predictedSeconds += longest;
  ++stats.rounds;
  stats.dryRounds += !budgetHit;
  ++round;
}

/// Each rank with nothing to do takes the older half of the redexes of the
/// rank that holds the most, as a hungry CPU worker takes from the pool.
void Sim::shareWork() {
  if (ranks.size() == 1)
    return;
  for (unsigned r = 0; r < ranks.size(); ++r) {
    Rank &thief = ranks[r];
    if (!thief.stack.empty() ||
        llvm::any_of(thief.inbox, [&](const Arrival &a) { return a.at <= round; }))
      continue;
    unsigned victim = r;
    size_t most = 1;
    for (unsigned v = 0; v < ranks.size(); ++v)
      if (ranks[v].stack.size() > most) {
        most = ranks[v].stack.size();
        victim = v;
      }
    if (victim == r)
      return; // nobody has two redexes to spare
    std::vector<Redex> &from = ranks[victim].stack;
    size_t give = from.size() / 2;
    thief.stack.assign(from.begin(), from.begin() + ptrdiff_t(give));
    from.erase(from.begin(), from.begin() + ptrdiff_t(give));
    stats.sharedRedexes += give;
    send(victim, r, give * MessageBytes);
    if (scheme == Scheme::OneSided) {
      ++thief.trips; // the request
      ++stats.roundTrips;
    }
  }
}

void Sim::finish() {
  for (uint64_t c : stats.byRule)
    stats.interactions += c;
  stats.oneRankSeconds = double(stats.interactions) * net.secondsPerInteraction;
  for (const Rank &rank : ranks)
    stats.asyncSeconds = std::max(stats.asyncSeconds, rank.busy);
}

/// The net between reductions, for the IO protocol: rank 0 is the host.
using SimNet = ReducingNetHost<Sim, &Sim::reduce>;

} // namespace

SimStats simulate(const Book &book, const SimOptions &options) {
  SimStats stats;
  Sim sim(book, options, stats);
  sim.boot(book.mainId);
  if (sim.reduce() && options.io) {
    SimNet net(book, sim);
    IoSession io(options.streams);
    io.run(net, RootSlot);
    io.flushOutput();
  }
  sim.finish();
  if (stats.status == RunStatus::Ok)
    stats.normalForm = readback(sim.slotData());
  return stats;
}

} // namespace bendc::rt::dist
