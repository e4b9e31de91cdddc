// The distributed runtime: one net over the processes of an MPI job, reduced
// in bulk-synchronous rounds (scheme B of DESIGN.md).
//
// Memory. Rank r owns the nodes [r·N, (r+1)·N); a term names a node or a slot
// by its global index, so no term changes when it crosses processes. A rank
// allocates only its own nodes and reads and writes only its own slots while
// it reduces.
//
// Rules. The rules of runtime/common/Interact.h run unchanged, with this file's
// `Rank` as their context (a SplitNet): a wire into another rank's slot is a
// message that its owner links there; a redex goes to the owner of its
// positive node (the work follows the data); a redex (or a clash's join) that
// still holds a node of another rank waits while the node is brought over:
// this rank takes a fresh node of its own and asks the owner for the node's
// contents; the owner puts a variable pointing at the fresh node's slot into
// each negative slot still waiting for its wire's other end (a forwarding
// entry, as a substitution entry forwards), and sends the rest. A node has
// one consumer, so nothing else holds it while it moves.
//
// Rounds. Each rank reduces up to a round's redexes (16 384 unless the run
// says); then every rank tells every other how much work it holds
// (MPI_Allgather); the run ends when no rank holds work and no message is on
// its way; idle ranks take the older half of the busiest ranks' redexes; then
// the messages of the round are swapped (MPI_Alltoallv) and applied at the
// start of the next.
//
// The host. Between reductions rank 0 is the host (IO calls, readback) and the
// other ranks serve its reads and writes of their memory, one message each
// way, until it asks them to reduce again or to finish.
#include "runtime/dist/Mpi.h"
#include "runtime/Io.h"
#include "runtime/NetHost.h"
#include "runtime/common/Interact.h"
#include "runtime/common/NodeStock.h"
#include "runtime/cpu/Arena.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"

// The C interface only: the C++ bindings are deprecated and need a library of their own.
#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <vector>

namespace bendc::rt::dist {

namespace {

void finishMpi() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized)
    MPI_Finalize();
}

} // namespace

Process joinJob(char **) {
  Process p;
  int started = 0;
  MPI_Initialized(&started);
  if (!started) {
    if (MPI_Init(nullptr, nullptr) != MPI_SUCCESS) {
      p.error = "cannot start MPI (MPI_Init failed)";
      return p;
    }
    std::atexit(finishMpi);
  }
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  p.rank = unsigned(rank);
  p.ranks = unsigned(size);
  return p;
}

namespace {

constexpr RuleTable ruleTable;

/// A rank takes this many more of its nodes at a time.
constexpr Loc GrowNodes = Loc(1) << 16;
/// The most redexes a rank reduces in one round, unless the run says.
constexpr uint64_t DefaultRoundRedexes = uint64_t(1) << 14;

/// What waits to run once its nodes are here.
struct Task {
  enum Kind : uint8_t { Redex, JoinNodes, JoinConsumers };
  Term a, b; // Redex: negative, positive
  uint8_t kind;
  uint8_t depth; // a clash's level
};

/// A message between ranks, applied by the receiver at the start of a round.
struct Msg {
  enum Kind : uint64_t {
    Link,  // link(a, b): b is a variable whose slot the receiver owns
    Join,  // joinValues(a, b, c): a is a variable whose slot the receiver owns
    Route, // a task (a, b; c = kind | depth << 8) for the owner of its positive node
    Share, // a task handed to an idle rank, to run there
    Fetch, // send node a's contents to rank c, for its fresh node b
    Moved, // fresh node a receives slot values b and c (SUB: keep what is there)
  };
  uint64_t kind, a, b, c;
};
static_assert(sizeof(Msg) == 32);

/// What rank 0 asks of another rank between reductions.
struct Request {
  enum Op : uint64_t { Load, LoadPage, Store, Exchange, AddDead, ClearDead, Release, Reduce, Finish };
  uint64_t op, loc, term;
};
constexpr int RequestTag = 1, ReplyTag = 2;
/// Readback fetches another rank's slots this many at a time (32 KiB).
constexpr Loc PageSlots = 4096;

/// Each rank's state at the end of a round.
struct Census {
  uint64_t ready, parked, sent, status;
};

/// The traffic counted on this rank.
struct Traffic {
  uint64_t messages = 0, bytes = 0, links = 0, nodesMoved = 0, redexesShared = 0, redexesRouted = 0;
};

class Rank {
public:
  // --- the context of runtime/common/Interact.h ---
  static constexpr bool Distributed = true;
  const Term *bookSlots;
  const Term *bookRedexes;
  const DefInfo *defs;
  const Plan *plans;
  Loc *scratch;

  bool ownsNode(Loc node) const { return node - base < perRank; }
  bool ownsSlot(Loc slot) const { return host || ownsNode(slot >> 1); }

  Term load(Loc slot) {
    if (ownsNode(slot >> 1))
      return slots[slot - 2 * base];
    return ask(Request::Load, slot, 0);
  }
  void store(Loc slot, Term t) {
    if (ownsNode(slot >> 1))
      slots[slot - 2 * base] = t;
    else
      ask(Request::Store, slot, t);
  }
  Term exchange(Loc slot, Term t) {
    if (!ownsNode(slot >> 1))
      return ask(Request::Exchange, slot, t);
    Term &s = slots[slot - 2 * base];
    Term got = s;
    s = t;
    return got;
  }
  uint32_t addDead(Loc node, uint32_t n) {
    if (!ownsNode(node))
      return uint32_t(ask(Request::AddDead, node, n));
    uint8_t &d = dead[node - base];
    uint32_t old = d;
    d = uint8_t(old + n);
    return old;
  }
  void clearDead(Loc node) {
    if (ownsNode(node))
      dead[node - base] = 0;
    else
      ask(Request::ClearDead, node, 0);
  }
  Loc alloc() { return stock.take(*this); }
  bool reserve(uint64_t n) {
    if (BENDC_RARE(failure != RunStatus::Ok))
      return false;
    return stock.available() >= n || grow(n);
  }
  void release(Loc node) {
    if (ownsNode(node))
      stock.give(*this, node);
    else
      ask(Request::Release, node, 0);
  }
  void push(Term neg, Term pos) {
    // The common case inline: both nodes here.
    if (BENDC_RARE(!here(neg) || !here(pos)))
      return submit({neg, pos, Task::Redex, 0});
    ready.push_back({neg, pos, Task::Redex, 0});
  }
  bool deferCall(Term, Term) { return false; }
  void count(Rule rule) { ++byRule[unsigned(rule)]; }
  void fault(Fault f, Term neg, Term pos);
  // --- and of a SplitNet ---
  void sendLink(Term neg, Term var) {
    ++traffic.links;
    post(ownerOf(payloadOf(var) >> 1), {Msg::Link, neg, var, 0});
  }
  void sendJoin(Term var, Term b, unsigned depth) {
    post(ownerOf(payloadOf(var) >> 1), {Msg::Join, var, b, depth});
  }
  void putOffJoin(Term a, Term b, unsigned depth, bool consumers) {
    submit({a, b, consumers ? Task::JoinConsumers : Task::JoinNodes, uint8_t(depth)});
  }

  // --- the run ---
  /// `memory` holds this rank's nodes; every rank's holds as many.
  Rank(const Book &book, unsigned rank, unsigned ranks, Arena &memory, uint64_t roundRedexes,
       MPI_Comm comm, const std::atomic<bool> *cancel);

  unsigned rank() const { return me; }
  RunStatus status() const { return failure; }
  void boot(uint32_t mainId);
  /// Rounds until no rank holds work; every rank calls it. False when the
  /// run failed on any rank.
  bool reduce();
  /// Rank 0, as the host: the other ranks reduce with it.
  bool reduceAll();
  /// The other ranks: serve the host until it says Finish.
  void serve();
  /// Rank 0: the other ranks may stop serving.
  void finishServing();
  /// Sums the counts of every rank into `stats` (every rank calls it).
  void gatherStats(RunStats &stats);
  /// Whether rank 0 is the host (between reductions).
  void setHost(bool on) { host = on; }
  /// Rank 0, reading the normal form of a quiescent net that no one writes
  /// any more: another rank's slots come a page at a time, kept here.
  Term readFinal(Loc slot);

private:
  unsigned ownerOf(Loc node) const { return unsigned(node / perRank); }
  /// A term that is not a node of another rank.
  bool here(Term t) const { return !isNode(t) || ownsNode(nodeOf(t)); }
  /// Hands more of this rank's nodes to its stock (false: none left).
  __attribute__((noinline)) bool grow(uint64_t n);
  void fail(RunStatus s) {
    if (failure == RunStatus::Ok)
      failure = s;
  }
  __attribute__((noinline)) Term ask(Request::Op op, Loc loc, Term t);
  void post(unsigned to, Msg m) {
    outbox[to].push_back(m);
    ++sentThisRound;
  }
  __attribute__((noinline)) void submit(Task t, bool stay = false);
  void park(Task t);
  uint32_t parkSlot(Task t);
  /// Asks the owner of `node` for it, for parked task `id`; the node's term
  /// here (a fresh node that fills when the answer comes).
  Term bringOver(Term node, uint32_t id);
  void run(const Task &t);
  void apply(const Msg &m);
  void sendNode(Term node, Loc fresh, unsigned to);
  void receiveNode(Loc fresh, Term v0, Term v1);
  void share(const std::vector<Census> &all);
  void swapMessages();

  unsigned me, ranks;
  Loc perRank, base;
  uint64_t roundRedexes;
  MPI_Comm comm;
  const std::atomic<bool> *cancel;
  uint32_t need;
  bool host = false;
  RunStatus failure = RunStatus::Ok;

  Term *slots;   // the slots of nodes base .. base + perRank
  uint8_t *dead; // each node's count of dead slots
  Loc top = 0;   // nodes base .. base + top have been handed to the stock
  NodeStock stock;
  std::vector<Loc> scratchSpace;

  std::vector<Task> ready;
  struct Parked {
    Task task;
    unsigned waiting;
  };
  std::vector<Parked> parked;
  std::vector<uint32_t> freeParked;
  uint64_t parkedCount = 0;
  llvm::DenseMap<Loc, uint32_t> awaiting; // a fresh node: the parked task it is for
  llvm::DenseMap<Loc, std::vector<Term>> pages; // readFinal's, by first slot

  std::vector<std::vector<Msg>> outbox;
  std::vector<Msg> inbox;
  uint64_t sentThisRound = 0;

  std::array<uint64_t, RuleCount> byRule{};
  Traffic traffic;
  uint64_t rounds = 0;
};

Rank::Rank(const Book &book, unsigned rank, unsigned ranks, Arena &memory, uint64_t roundRedexes,
           MPI_Comm comm, const std::atomic<bool> *cancel)
    : bookSlots(book.slots.data()), bookRedexes(book.redexes.data()), defs(book.defs.data()),
      plans(book.plans.data()), me(rank), ranks(ranks), perRank(memory.nodeCount()), base(Loc(rank) * perRank),
      roundRedexes(roundRedexes), comm(comm), cancel(cancel), need(maxNodesPerInteraction(book)),
      slots(memory.slotData()), dead(memory.deadData()), outbox(ranks) {
  scratchSpace.resize(need);
  scratch = scratchSpace.data();
  // Node 0 is the root's, on rank 0.
  if (me == 0)
    top = stock.bump = stock.bumpEnd = FirstNode;
}

bool Rank::grow(uint64_t n) {
  Loc more = std::max<Loc>(GrowNodes, n);
  if (top + more > perRank) {
    more = perRank - top;
    if (stock.available() + more < n) {
      fault(Fault::NoMemory, 0, 0);
      return false;
    }
  }
  stock.retireRange(*this);
  stock.bump = base + top;
  top += more;
  stock.bumpEnd = base + top;
  return true;
}

void Rank::fault(Fault f, Term, Term) { fail(f == Fault::NoMemory ? RunStatus::OutOfMemory : RunStatus::Fault); }

Term Rank::ask(Request::Op op, Loc loc, Term t) {
  if (!host || me != 0) {
    // Only the host reaches into another rank's memory; a rule never does.
    fail(RunStatus::Fault);
    return subTerm();
  }
  Request req{op, loc, t};
  unsigned owner = ownerOf(op == Request::AddDead || op == Request::ClearDead || op == Request::Release
                               ? loc
                               : loc >> 1);
  MPI_Send(&req, 3, MPI_UINT64_T, int(owner), RequestTag, comm);
  if (op != Request::Load && op != Request::Exchange && op != Request::AddDead)
    return 0;
  Term reply = 0;
  MPI_Recv(&reply, 1, MPI_UINT64_T, int(owner), ReplyTag, comm, MPI_STATUS_IGNORE);
  return reply;
}

void Rank::submit(Task t, bool stay) {
  bool negHere = here(t.a), posHere = here(t.b);
  if (negHere && posHere) {
    ready.push_back(t);
    return;
  }
  // A redex goes to the owner of its positive node (of its negative node
  // when the positive side is a leaf): the work follows the data, and only
  // the consumer's node moves. One handed over to share work stays.
  if (!stay && t.kind == Task::Redex && (!posHere || !isNode(t.b))) {
    ++traffic.redexesRouted;
    post(ownerOf(nodeOf(posHere ? t.a : t.b)),
         {Msg::Route, t.a, t.b, uint64_t(t.kind) | uint64_t(t.depth) << 8});
    return;
  }
  park(t);
}

uint32_t Rank::parkSlot(Task t) {
  uint32_t id;
  if (!freeParked.empty()) {
    id = freeParked.back();
    freeParked.pop_back();
  } else {
    id = uint32_t(parked.size());
    parked.push_back({});
  }
  parked[id] = {t, 0};
  ++parkedCount;
  return id;
}

Term Rank::bringOver(Term node, uint32_t id) {
  if (!reserve(1))
    return node;
  Loc fresh = alloc();
  // Waiting slots: what the owner forwards comes here before the node does.
  store(slotOf(fresh, 0), subTerm());
  store(slotOf(fresh, 1), subTerm());
  post(ownerOf(nodeOf(node)), {Msg::Fetch, node, fresh, me});
  awaiting[fresh] = id;
  ++parked[id].waiting;
  ++traffic.nodesMoved;
  return nodeTerm(tagOf(node), fresh);
}

void Rank::park(Task t) {
  uint32_t id = parkSlot(t);
  for (Term *x : {&parked[id].task.a, &parked[id].task.b})
    if (isNode(*x) && !ownsNode(nodeOf(*x)))
      *x = bringOver(*x, id);
}

/// The owner's side of moving `node` to rank `to`'s `fresh`: each positive
/// slot is read (its node's consumer reads it once), each negative slot
/// still waiting forwards to the fresh node's, and what already came to a
/// negative slot goes with the rest. A positive slot that holds the variable
/// of the node's own negative slot is a wire inside the node: it moves whole.
void Rank::sendNode(Term node, Loc fresh, unsigned to) {
  Loc n = nodeOf(node);
  uint8_t t = tagOf(node);
  Term v[2] = {0, 0};
  bool inside[2] = {false, false};
  unsigned deadSlots = 0;
  for (unsigned i = 0; i < 2; ++i)
    if (auxPositive(t, i)) {
      v[i] = load(slotOf(n, i));
      ++deadSlots;
      unsigned j = 1 - i;
      if (!auxPositive(t, j) && v[i] == varTerm(slotOf(n, j))) {
        inside[j] = true;
        v[i] = varTerm(slotOf(fresh, j));
      }
    }
  for (unsigned i = 0; i < 2; ++i) {
    if (auxPositive(t, i))
      continue;
    Loc s = slotOf(n, i);
    if (inside[i]) {
      v[i] = load(s); // no one else holds its variable
      ++deadSlots;
      continue;
    }
    Term got = exchange(s, varTerm(slotOf(fresh, i)));
    v[i] = got;
    if (!isSub(got))
      ++deadSlots; // the wire's other end came already: nothing will read the forward
  }
  detail::finishNode(*this, n, deadSlots);
  post(to, {Msg::Moved, fresh, v[0], v[1]});
}

void Rank::receiveNode(Loc fresh, Term v0, Term v1) {
  if (!isSub(v0))
    store(slotOf(fresh, 0), v0);
  if (!isSub(v1))
    store(slotOf(fresh, 1), v1);
  auto it = awaiting.find(fresh);
  if (it == awaiting.end())
    return fail(RunStatus::Fault);
  uint32_t id = it->second;
  awaiting.erase(it);
  if (--parked[id].waiting == 0) {
    ready.push_back(parked[id].task);
    freeParked.push_back(id);
    --parkedCount;
  }
}

void Rank::run(const Task &t) {
  switch (t.kind) {
  case Task::Redex: {
    Rule rule = ruleTable.rules[tagOf(t.a)][tagOf(t.b)];
    // A call fuses with the chain of nodes waiting in its argument as it
    // would in one process: the ones elsewhere come here first.
    if (Loc s = rule == Rule::Call ? unfusedSlot(*this, t.a, t.b) : ~Loc(0); s != ~Loc(0)) {
      uint32_t id = parkSlot(t);
      store(s, bringOver(load(s), id));
      return;
    }
    interact(*this, t.a, t.b, rule);
    return;
  }
  case Task::JoinNodes:
    detail::joinNodes(*this, t.a, t.b, t.depth);
    return;
  case Task::JoinConsumers:
    joinConsumers(*this, t.a, t.b, t.depth);
    return;
  }
}

void Rank::apply(const Msg &m) {
  switch (m.kind) {
  case Msg::Link:
    link(*this, m.a, m.b);
    return;
  case Msg::Join:
    joinValues(*this, m.a, m.b, unsigned(m.c));
    return;
  case Msg::Route:
  case Msg::Share:
    submit({m.a, m.b, uint8_t(m.c & 0xFF), uint8_t(m.c >> 8)}, /*stay=*/m.kind == Msg::Share);
    return;
  case Msg::Fetch:
    sendNode(m.a, m.b, unsigned(m.c));
    return;
  case Msg::Moved:
    receiveNode(m.a, m.b, m.c);
    return;
  }
  fail(RunStatus::Fault);
}

void Rank::boot(uint32_t mainId) {
  if (!reserve(std::max<uint64_t>(defs[mainId].nodeCount, need)))
    return;
  store(RootSlot, subTerm());
  count(Rule::Call); // as the CPU runtime counts the expansion of @main
  Term root = expand(*this, mainId);
  move(*this, RootSlot, root);
}

bool Rank::reduce() {
  std::vector<Census> all(ranks);
  for (;;) {
    std::vector<Msg> arrived;
    arrived.swap(inbox);
    for (const Msg &m : arrived) {
      if (failure != RunStatus::Ok || !reserve(need))
        break;
      apply(m);
    }
    for (uint64_t done = 0; done < roundRedexes && !ready.empty() && failure == RunStatus::Ok; ++done) {
      if (!reserve(need))
        break;
      Task t = ready.back();
      ready.pop_back();
      run(t);
    }
    if (cancel && cancel->load(std::memory_order_relaxed))
      fail(RunStatus::Interrupted);
    Census mine{ready.size(), parkedCount, sentThisRound, uint64_t(failure)};
    MPI_Allgather(&mine, 4, MPI_UINT64_T, all.data(), 4, MPI_UINT64_T, comm);
    bool busy = false;
    for (const Census &c : all) {
      if (RunStatus(c.status) != RunStatus::Ok) {
        failure = RunStatus(c.status); // the first failing rank's
        return false;
      }
      busy |= c.ready || c.parked || c.sent;
    }
    if (!busy)
      return true;
    share(all);
    swapMessages();
    ++rounds;
  }
}

/// Idle ranks take the older half of the redexes of the busiest ones, one
/// busy rank each, as hungry CPU workers take from the pool. Every rank
/// computes the same pairs from the census.
void Rank::share(const std::vector<Census> &all) {
  std::vector<unsigned> idle, busy;
  for (unsigned r = 0; r < ranks; ++r) {
    if (!all[r].ready && !all[r].parked)
      idle.push_back(r);
    else if (all[r].ready >= 2)
      busy.push_back(r);
  }
  llvm::stable_sort(busy, [&](unsigned x, unsigned y) { return all[x].ready > all[y].ready; });
  for (size_t k = 0; k < std::min(idle.size(), busy.size()); ++k) {
    if (busy[k] != me)
      continue;
    size_t give = ready.size() / 2;
    for (size_t i = 0; i < give; ++i) {
      const Task &t = ready[i];
      post(idle[k], {Msg::Share, t.a, t.b, uint64_t(t.kind) | uint64_t(t.depth) << 8});
    }
    ready.erase(ready.begin(), ready.begin() + ptrdiff_t(give));
    traffic.redexesShared += give;
  }
}

void Rank::swapMessages() {
  std::vector<int> sendCounts(ranks), recvCounts(ranks), sendAt(ranks), recvAt(ranks);
  std::vector<Msg> sendBuf;
  for (unsigned r = 0; r < ranks; ++r) {
    sendAt[r] = int(sendBuf.size() * sizeof(Msg));
    sendCounts[r] = int(outbox[r].size() * sizeof(Msg));
    sendBuf.insert(sendBuf.end(), outbox[r].begin(), outbox[r].end());
    outbox[r].clear();
  }
  MPI_Alltoall(sendCounts.data(), 1, MPI_INT, recvCounts.data(), 1, MPI_INT, comm);
  size_t total = 0;
  for (unsigned r = 0; r < ranks; ++r) {
    recvAt[r] = int(total);
    total += size_t(recvCounts[r]);
  }
  inbox.resize(total / sizeof(Msg));
  MPI_Alltoallv(sendBuf.data(), sendCounts.data(), sendAt.data(), MPI_BYTE, inbox.data(),
                recvCounts.data(), recvAt.data(), MPI_BYTE, comm);
  traffic.messages += sendBuf.size();
  traffic.bytes += sendBuf.size() * sizeof(Msg);
  sentThisRound = 0;
}

bool Rank::reduceAll() {
  Request req{Request::Reduce, 0, 0};
  for (unsigned r = 1; r < ranks; ++r)
    MPI_Send(&req, 3, MPI_UINT64_T, int(r), RequestTag, comm);
  host = false;
  bool ok = reduce();
  host = true;
  return ok;
}

void Rank::serve() {
  for (;;) {
    Request req;
    MPI_Recv(&req, 3, MPI_UINT64_T, 0, RequestTag, comm, MPI_STATUS_IGNORE);
    Term reply = 0;
    switch (Request::Op(req.op)) {
    case Request::Load:
      reply = load(req.loc);
      break;
    case Request::LoadPage:
      // `term` slots from `loc`, all this rank's (the host clipped them).
      MPI_Send(slots + (req.loc - 2 * base), int(req.term), MPI_UINT64_T, 0, ReplyTag, comm);
      continue;
    case Request::Store:
      store(req.loc, req.term);
      continue;
    case Request::Exchange:
      reply = exchange(req.loc, req.term);
      break;
    case Request::AddDead:
      reply = addDead(req.loc, uint32_t(req.term));
      break;
    case Request::ClearDead:
      clearDead(req.loc);
      continue;
    case Request::Release:
      release(req.loc);
      continue;
    case Request::Reduce:
      reduce();
      continue;
    case Request::Finish:
      return;
    }
    MPI_Send(&reply, 1, MPI_UINT64_T, 0, ReplyTag, comm);
  }
}

void Rank::finishServing() {
  Request req{Request::Finish, 0, 0};
  for (unsigned r = 1; r < ranks; ++r)
    MPI_Send(&req, 3, MPI_UINT64_T, int(r), RequestTag, comm);
}

void Rank::gatherStats(RunStats &stats) {
  std::array<uint64_t, RuleCount + 7> mine{}, sum{};
  for (unsigned r = 0; r < RuleCount; ++r)
    mine[r] = byRule[r];
  mine[RuleCount + 0] = traffic.messages;
  mine[RuleCount + 1] = traffic.bytes;
  mine[RuleCount + 2] = traffic.links;
  mine[RuleCount + 3] = traffic.nodesMoved;
  mine[RuleCount + 4] = traffic.redexesShared;
  mine[RuleCount + 5] = top;
  mine[RuleCount + 6] = traffic.redexesRouted;
  MPI_Allreduce(mine.data(), sum.data(), int(mine.size()), MPI_UINT64_T, MPI_SUM, comm);
  for (unsigned r = 0; r < RuleCount; ++r) {
    stats.byRule[r] = sum[r];
    stats.interactions += sum[r];
  }
  RunStats::Distribution &d = stats.distribution;
  d.ranks = ranks;
  d.rounds = rounds;
  d.messages = sum[RuleCount + 0];
  d.bytes = sum[RuleCount + 1];
  d.links = sum[RuleCount + 2];
  d.nodesMoved = sum[RuleCount + 3];
  d.redexesShared = sum[RuleCount + 4];
  d.redexesRouted = sum[RuleCount + 6];
  stats.peakNodes = sum[RuleCount + 5];
}

/// The net between reductions, for the IO protocol, on rank 0.
using HostNet = ReducingNetHost<Rank, &Rank::reduceAll>;

Term Rank::readFinal(Loc slot) {
  if (ownsNode(slot >> 1))
    return slots[slot - 2 * base];
  unsigned owner = ownerOf(slot >> 1);
  Loc ownerBegin = 2 * Loc(owner) * perRank, ownerEnd = ownerBegin + 2 * perRank;
  Loc first = std::max(slot / PageSlots * PageSlots, ownerBegin);
  auto [it, fresh] = pages.try_emplace(first);
  std::vector<Term> &page = it->second;
  if (fresh) {
    page.resize(std::min(first + PageSlots, ownerEnd) - first);
    Request req{Request::LoadPage, first, page.size()};
    MPI_Send(&req, 3, MPI_UINT64_T, int(owner), RequestTag, comm);
    MPI_Recv(page.data(), int(page.size()), MPI_UINT64_T, int(owner), ReplyTag, comm,
             MPI_STATUS_IGNORE);
  }
  return page[slot - first];
}

Term fetchSlot(void *rank, Loc slot) { return static_cast<Rank *>(rank)->readFinal(slot); }

std::string describeFailure(RunStatus s, uint64_t memBytes, unsigned ranks, bool memGiven) {
  switch (s) {
  case RunStatus::OutOfMemory:
    return "out of memory: a process of the job needed more than its share of the net's memory (" +
           std::to_string(memBytes / ranks >> 20) + " MiB each of " + std::to_string(ranks) +
           (memGiven ? ", from --mem" : ", from the default share of RAM") +
           "); raise the limit with --mem";
  case RunStatus::Interrupted:
    return "interrupted";
  default:
    return "internal error: the distributed run broke an invariant of the net; please report "
           "this with the program (it runs in one process without --distributed)";
  }
}

} // namespace

RunResult runDistributed(const Book &book, const RunOptions &options) {
  RunResult result;
  Process job = joinJob(nullptr); // joined already: argv is not needed
  if (!job.error.empty()) {
    result.status = RunStatus::NoMpi;
    result.message = job.error;
    return result;
  }
  MPI_Comm comm;
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  uint64_t memBytes = options.memBytes ? options.memBytes : defaultMemBytes();
  // Every process of the job may run on this machine: each takes its share,
  // as address space that costs nothing until it is touched.
  Arena memory(std::max<uint64_t>(memBytes / job.ranks, 2 * GrowNodes * Arena::bytesPerNode));
  // None can run without every part: all learn whether each got its own.
  int mine = memory.ok(), all = 0;
  MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_LAND, comm);
  if (!all) {
    MPI_Comm_free(&comm);
    result.status = RunStatus::OutOfMemory;
    result.message = "out of memory: a process of the job cannot reserve its " +
                     std::to_string(memBytes / job.ranks >> 20) +
                     " MiB of address space for the net; lower it with --mem";
    return result;
  }
  uint64_t round = options.roundRedexes ? options.roundRedexes : DefaultRoundRedexes;
  Rank rank(book, job.rank, job.ranks, memory, round, comm, options.cancel);

  auto start = std::chrono::steady_clock::now();
  if (job.rank == 0)
    rank.boot(book.mainId);
  bool ok = rank.reduce();
  if (job.rank == 0) {
    rank.setHost(true);
    IoConfig streams = options.streams;
    streams.cancel = options.cancel;
    IoSession io(streams);
    if (ok && options.io) {
      HostNet net(book, rank);
      io.run(net, RootSlot);
    }
    io.flushOutput();
    result.stats.ioCalls = io.calls();
    result.status = rank.status();
    if (result.status == RunStatus::Ok)
      takeNormalForm(result, SlotReader(fetchSlot, &rank), book, options);
    rank.finishServing();
  } else {
    rank.serve();
    result.status = rank.status();
  }
  auto stop = std::chrono::steady_clock::now();
  rank.gatherStats(result.stats);
  MPI_Comm_free(&comm);

  RunStats &stats = result.stats;
  stats.seconds = std::chrono::duration<double>(stop - start).count();
  stats.threads = 1;
  stats.backend = "mpi (" + std::to_string(job.ranks) + (job.ranks == 1 ? " process)" : " processes)");
  if (result.status != RunStatus::Ok && result.message.empty())
    result.message = describeFailure(result.status, memBytes, job.ranks, options.memBytes != 0);
  return result;
}

} // namespace bendc::rt::dist
