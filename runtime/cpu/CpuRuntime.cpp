#include "runtime/cpu/CpuRuntime.h"
#include "runtime/NetHost.h"
#include "runtime/Progress.h"
#include "runtime/common/Interact.h"
#include "runtime/common/NodeStock.h"
#include "runtime/cpu/Arena.h"
#include "runtime/cpu/SpanProbe.h"
#include "runtime/cpu/WorkPool.h"

#include "llvm/ADT/SmallVector.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <iterator>
#include <mutex>
#include <thread>
#include <type_traits>
#include <vector>

namespace bendc::rt {

namespace {

/// 512 MiB, 3 KiB, 2 GiB: sizes in messages.
std::string showBytes(uint64_t bytes) {
  static const char *const units[] = {"bytes", "KiB", "MiB", "GiB", "TiB"};
  unsigned u = 0;
  double value = double(bytes);
  while (value >= 1024 && u + 1 < std::size(units)) {
    value /= 1024;
    ++u;
  }
  char text[32];
  snprintf(text, sizeof text, value < 10 && u ? "%.1f %s" : "%.0f %s", value, units[u]);
  return text;
}

constexpr RuleTable ruleTable;

/// Nodes a thread takes from the global arena at a time.
constexpr Loc ChunkNodes = Loc(1) << 15;
/// Nodes of its chunk a thread asks the kernel to map at a time (256 KiB of
/// slots): one call instead of 64 page faults. Only past the first
/// PopulateFromBytes of the arena, a common size of last-level cache: mapping
/// zeroes the pages, and pages zeroed ahead of use pushed a net that fits in
/// the caches out of them (sort_radix, 10 MiB, ran 8% slower; see PERF.md).
constexpr Loc WindowNodes = Loc(1) << 14;
constexpr uint64_t PopulateFromBytes = uint64_t(32) << 20;
/// How far past the chunks handed out a worker with nothing to do maps the
/// arena's pages for the others (see Worker::mapAhead): 32 MiB of slots,
/// once the chunks handed out come within a quarter of that of the memory
/// mapped a window at a time.
constexpr Loc MapAheadNodes = Loc(1) << 21;
/// How long such a worker waits before it looks for pages to map again.
constexpr std::chrono::microseconds MapAheadPause{1000};
/// Bytes that keep one thread's hot data from another's: a pair of cache
/// lines, which the hardware prefetchers fetch together.
constexpr size_t Apart = 128;
constexpr size_t LocsPerLine = Apart / sizeof(Loc);
/// Nodes are owned by blocks of 2^OwnerShift (a chunk is several blocks).
constexpr unsigned OwnerShift = 12;
/// The owner of blocks outside every worker's current chunk.
constexpr unsigned NoOwner = 0xFFFF;
/// Entries of its free list a worker looks at when it scrubs it.
constexpr unsigned ScrubDepth = 64;
/// Nodes a worker collects for another before handing them over.
constexpr size_t ReturnBatch = 64;
/// Nodes touched before the clock starts (2 MiB of slots): tiny programs never
/// fault a page while timed. More would move page faults out of the timed
/// reduction without making the process faster: 32 MiB cost every run 15 ms.
constexpr Loc PretouchNodes = Loc(1) << 17;
/// Interactions worker 0 performs alone when a round starts from the host
/// (an IO call's continuation): most such rounds are small, and starting the
/// other threads would cost more than they do.
constexpr uint64_t SoloBudget = uint64_t(1) << 16;
/// How many of the latest put-off calls a worker looks at for one whose
/// number has arrived.
constexpr size_t ArrivalScan = 64;

double secondsSince(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

/// State every worker shares.
struct Shared {
  Arena *arena = nullptr;
  const Book *book = nullptr;
  CopyShapes shapes; // of book's definitions
  unsigned threads = 1;
  uint32_t reserveNodes = 4;
  std::atomic<Loc> nextChunk{FirstNode};
  /// Chunks from this node on are mapped a window at a time (see
  /// WindowNodes).
  Loc populateFrom = 0;
  /// Idle workers mapped the arena's pages up to here (Worker::mapAhead).
  std::atomic<Loc> mappedAhead{0};
  // Work sharing.
  std::mutex poolMutex;
  std::condition_variable poolCv;
  WorkPool pool;                      // guarded by poolMutex
  unsigned idle = 0;                  // guarded by poolMutex
  bool done = false;                  // guarded by poolMutex
  std::atomic<unsigned> hungry{0};    // threads in waitForWork
  std::atomic<size_t> poolSize{0};    // pool.open(), readable without the lock
  // Failure: the first one wins.
  std::atomic<int> failure{int(RunStatus::Ok)};
  std::atomic<uint8_t> fault{uint8_t(Fault::None)};
  std::atomic<uint16_t> faultTags{0}; // negative tag << 8 | positive tag
  const std::atomic<bool> *cancel = nullptr;
  /// RunOptions::maxInteractions (0: none), and the interactions the
  /// workers have added up so far (only kept when there is a limit).
  uint64_t maxInteractions = 0;
  std::atomic<uint64_t> interactionsSoFar{0};
  // Node ownership. The blocks of the chunk a worker allocates from belong to
  // it. A thread that kept reusing nodes lying between another thread's hot
  // nodes would share their cache lines (and those of their dead counters)
  // with it, and both would run at a fraction of their speed; so now and then
  // a worker takes such nodes off the top of its free list and gives them
  // back (Worker::scrub). Freed nodes are otherwise reused by whoever freed
  // them, while they are still in its cache (a tree built by one thread and
  // consumed by another), and nodes of older chunks belong to nobody.
  std::unique_ptr<std::atomic<uint16_t>[]> owner; // by block of 2^OwnerShift nodes
  struct alignas(Apart) Inbox {
    std::mutex mutex;
    std::vector<Loc> nodes; // freed by other workers, for this one
  };
  std::unique_ptr<Inbox[]> inboxes; // by worker
  /// The arena is used up: from now on every thread reuses what it frees.
  std::atomic<bool> tight{false};
  /// When the current round started (RunStats::ThreadShare).
  std::chrono::steady_clock::time_point roundStart;

  void fail(RunStatus status) {
    int expected = int(RunStatus::Ok);
    failure.compare_exchange_strong(expected, int(status));
    std::lock_guard<std::mutex> lock(poolMutex);
    done = true;
    poolCv.notify_all();
  }
  bool failed() const { return failure.load(std::memory_order_relaxed) != int(RunStatus::Ok); }
  /// Checked every few interactions: a failure elsewhere, or Ctrl-C.
  bool shouldStop() {
    if (cancel && cancel->load(std::memory_order_relaxed))
      fail(RunStatus::Interrupted);
    return failed();
  }
};

/// What a worker that measures no span keeps for it.
struct NoProbe {};

/// One worker thread; also the context the interaction engine runs in. With
/// `Span` (one thread only), it stamps what it reads and writes to measure
/// the run's span (SpanProbe).
template <bool Span> class alignas(Apart) Worker {
public:
  // --- the context interface of runtime/common/Interact.h ---
  static constexpr bool NumbersAtLink = true; // the stack grows as needed
  static constexpr bool CopiesByShape = true;
  static constexpr bool MarksConsumers = true;
  static constexpr bool WritesThrough = true;
  const Term *bookSlots;
  const Term *bookRedexes;
  const DefInfo *defs;
  const Plan *plans;
  CopyShapesView shapes;
  Loc *scratch;

  Term load(Loc slot) const {
    if constexpr (Span)
      probe.read(slot);
    return std::atomic_ref<Term>(slots[slot]).load(std::memory_order_relaxed);
  }
  void store(Loc slot, Term t) {
    if constexpr (Span)
      probe.wrote(slot);
    std::atomic_ref<Term>(slots[slot]).store(t, std::memory_order_relaxed);
  }
  Term exchange(Loc slot, Term t) {
    if constexpr (Span) {
      probe.read(slot);
      probe.wrote(slot);
    }
    return std::atomic_ref<Term>(slots[slot]).exchange(t, std::memory_order_acq_rel);
  }
  Term loadAcquire(Loc slot) const {
    if constexpr (Span)
      probe.read(slot);
    return std::atomic_ref<Term>(slots[slot]).load(std::memory_order_acquire);
  }
  bool compareExchange(Loc slot, Term &expected, Term desired) {
    std::atomic_ref<Term> ref(slots[slot]);
    bool swapped = ref.compare_exchange_strong(expected, desired, std::memory_order_acq_rel, std::memory_order_acquire);
    if constexpr (Span) {
      probe.read(slot);
      if (swapped)
        probe.wrote(slot);
    }
    return swapped;
  }
  uint32_t addDead(Loc node, uint32_t n) {
    return std::atomic_ref<uint8_t>(dead[node]).fetch_add(uint8_t(n), std::memory_order_acq_rel);
  }
  void clearDead(Loc node) { std::atomic_ref<uint8_t>(dead[node]).store(0, std::memory_order_relaxed); }
  Loc alloc() {
    if constexpr (Span) {
      uint64_t mark = probe.mark(); // reading the free list needs nothing
      Loc n = nodes.take(*this);
      probe.undo(mark);
      return n;
    }
    return nodes.take(*this);
  }
  void prefetch(Loc slot) const { __builtin_prefetch(slots + slot, 1); }
  void release(Loc node) {
    if constexpr (Span) {
      uint64_t mark = probe.mark();
      nodes.give(*this, node);
      probe.undo(mark);
      return;
    }
    nodes.give(*this, node);
  }
  size_t stackDepth() const { return stack.size(); }
  /// The redexes of `def` were just linked, from stack depth `start` (see
  /// MarksConsumers): the calls among them that need others are marked,
  /// with where the work they need starts.
  __attribute__((noinline)) void markExpanded(const DefInfo &def, size_t start) {
    // Alone; or some redex did not become a stack entry of its own (a
    // number met at once), and which entry is which is not known.
    if (!sharing || stack.size() - start != def.redexCount || def.redexCount > 32)
      return;
    while (!marks.empty() && marks.back().at >= start)
      marks.pop_back(); // left behind by a stack that has shrunk since
    for (uint32_t r = 0; r < def.redexCount; ++r) {
      if (!(def.consumers >> r & 1))
        continue;
      uint32_t at = uint32_t(start + r);
      // The first redex linked after it that a call before it needs.
      uint32_t later = def.producers & ~((uint32_t(2) << r) - 1);
      if (later == 0) {
        marks.push_back({at, Mark::Unknown, stack[at], {}});
        continue;
      }
      uint32_t from = uint32_t(start) + uint32_t(__builtin_ctz(later));
      marks.push_back({at, from, stack[at], stack[from - 1]});
    }
  }
  void push(Term neg, Term pos) {
    // The common case inline: a store and a bump; growing is out of line.
    if (BENDC_RARE(stack.size() == stack.capacity()))
      growStack();
    stack.push_back({neg, pos});
    if constexpr (Span)
      probe.pushed();
  }
  __attribute__((noinline)) void growStack() { stack.reserve(stack.capacity() * 2 + 4096); }
  bool deferCall(Term neg, Term pos) {
    if (!mayDefer)
      return false;
    deferred.push_back({neg, pos});
    if constexpr (Span)
      probe.putOff();
    return true;
  }
  void count(Rule rule) {
    ++counts[unsigned(rule)];
    if constexpr (Span)
      probe.interaction();
  }
  void fault(Fault f, Term neg, Term pos) {
    shared.fault.store(uint8_t(f), std::memory_order_relaxed);
    shared.faultTags.store(uint16_t(tagOf(neg) << 8 | tagOf(pos)), std::memory_order_relaxed);
    shared.fail(RunStatus::Fault);
  }

  // --- the worker itself ---
  Worker(Shared &shared, unsigned id, Loc *scratchSpace)
      : bookSlots(shared.book->slots.data()), bookRedexes(shared.book->redexes.data()),
        defs(shared.book->defs.data()), plans(shared.book->plans.data()), shapes(shared.shapes.view()),
        scratch(scratchSpace), shared(shared),
        slots(shared.arena->slotData()), dead(shared.arena->deadData()), id(id),
        owner(shared.threads > 1 ? shared.owner.get() : nullptr), sharing(shared.threads > 1),
        outbox(shared.threads) {
    stack.reserve(1 << 12);
  }

  void boot(uint32_t mainId) {
    if (!reserve(defs[mainId].nodeCount))
      return;
    if constexpr (Span)
      probe.begin(0);
    store(RootSlot, subTerm()); // the root waits for the result like any bound variable
    count(Rule::Call);          // HVM2 counts the expansion of @main into the root
    Term root = expand(*this, mainId);
    move(*this, RootSlot, root);
    if constexpr (Span)
      probe.finish();
  }

  void runLoop();
  /// Reduces alone for at most `budget` interactions; true when the stack is
  /// empty (or the run failed).
  bool runSolo(uint64_t budget);
  bool hasWork() const { return !stack.empty(); }
  /// A round starts: nothing is owed, nothing was given.
  void startRound() { owe = nullptr; }
  /// Checked every few interactions: a failure elsewhere, Ctrl-C, or the
  /// run's interaction limit reached.
  bool shouldStop() {
    if (shared.maxInteractions != 0 && reachedLimit())
      shared.fail(RunStatus::InteractionLimit);
    return shared.shouldStop();
  }

  /// Makes sure `n` nodes can be allocated without checks.
  bool reserve(uint64_t n) {
    if (nodes.available() >= n)
      return true;
    return refill(n);
  }

  std::array<uint64_t, RuleCount> counts{};
  double waitSeconds = 0; // see RunStats::ThreadShare
  /// The stamps of a run that measures its span.
  mutable std::conditional_t<Span, SpanProbe, NoProbe> probe;
  /// The interactions of this worker, published now and then for the
  /// progress line.
  std::atomic<uint64_t> published{0};
  uint64_t interactionsDone() const {
    uint64_t total = 0;
    for (uint64_t c : counts)
      total += c;
    return total;
  }

private:
  void publish() { published.store(interactionsDone(), std::memory_order_relaxed); }
  bool reachedLimit();
  bool refill(uint64_t n);
  void markOwner(Loc begin, Loc end, unsigned who) {
    if (!owner)
      return;
    for (Loc b = begin >> OwnerShift; begin < end && b <= (end - 1) >> OwnerShift; ++b)
      shared.owner[b].store(uint16_t(who), std::memory_order_relaxed);
  }
  void giveBack(unsigned owner, Loc node);
  void scrub();
  void takeReturned();
  void shareWork();
  bool takeFromPool();
  void poolChanged() { shared.poolSize.store(shared.pool.open(), std::memory_order_relaxed); }
  bool waitForWork();
  bool mapAhead();
  /// Whether a worker with nothing to do maps pages once `handedOut` nodes
  /// were handed out in chunks.
  bool mapsAhead(Loc handedOut) const { return handedOut + MapAheadNodes / 4 > shared.populateFrom; }
  bool runArrivedCall(uint32_t need);
  /// Runs a call put off earlier, without putting it off again.
  void runPutOff(size_t k) {
    Redex r = deferred[k];
    deferred.erase(deferred.begin() + ptrdiff_t(k));
    if constexpr (Span)
      probe.begin(probe.takenPutOff(k));
    mayDefer = false;
    interact(*this, r.neg, r.pos, Rule::Call);
    mayDefer = true;
    if constexpr (Span)
      probe.finish();
  }
  /// Runs the redex on top of the stack.
  void runTop() {
    Redex r = stack.back();
    stack.pop_back();
    if constexpr (Span)
      probe.begin(probe.popped());
    interact(*this, r.neg, r.pos, ruleTable.rules[tagOf(r.neg)][tagOf(r.pos)]);
    if constexpr (Span)
      probe.finish();
  }

  Shared &shared;
  Term *slots;
  uint8_t *dead;
  std::vector<Redex> stack;
  /// Calls put off until their number arrives (see switchCall); each is run
  /// once more, without being put off again, when the stack is empty.
  std::vector<Redex> deferred;
  bool mayDefer = false;
  NodeStock nodes;
  uint64_t counted = 0; // interactions added to shared.interactionsSoFar
  unsigned id;
  std::atomic<uint16_t> *owner; // shared.owner; null with one thread
  /// Others may take work from this one: calls that need the work above
  /// them are marked.
  bool sharing;
  /// Where marked calls sit in the stack, lowest first (see markExpanded).
  /// A mark whose redex has left its place is ignored and dropped.
  struct Mark {
    static constexpr uint32_t Unknown = ~0u; // where its work starts is not known
    uint32_t at, from;
    /// The redexes at `at` and at `from` - 1 when marked. The one under the
    /// work is run only once all the work above it is done (the stack is
    /// last in, first out, and nothing above a call still here was given).
    Redex redex, under;
  };
  std::vector<Mark> marks;
  Join *owe = nullptr; // the join this worker's stack is counted in (WorkPool)
  Loc chunkBegin = 0, chunkEnd = 0; // the chunk allocated from now
  /// Nodes freed here for another worker; whole cache lines, so one worker's
  /// batches never share a line with anything another writes.
  struct alignas(Apart) Batch {
    Loc nodes[ReturnBatch];
    size_t size = 0;
  };
  std::vector<Batch> outbox; // by owner
};

/// Adds this worker's interactions since it last looked to the run's total;
/// true when the total reached the limit.
template <bool Span> bool Worker<Span>::reachedLimit() {
  uint64_t total = interactionsDone();
  uint64_t added = total - counted;
  counted = total;
  return shared.interactionsSoFar.fetch_add(added, std::memory_order_relaxed) + added >=
         shared.maxInteractions;
}

template <bool Span> void Worker<Span>::giveBack(unsigned owner, Loc node) {
  Batch &batch = outbox[owner];
  batch.nodes[batch.size++] = node;
  if (batch.size < ReturnBatch)
    return;
  Shared::Inbox &inbox = shared.inboxes[owner];
  std::lock_guard<std::mutex> lock(inbox.mutex);
  inbox.nodes.insert(inbox.nodes.end(), batch.nodes, batch.nodes + batch.size);
  batch.size = 0;
}

/// Gives back the nodes near the top of the free list (the ones about to be
/// reused) that lie in another worker's current chunk.
template <bool Span> void Worker<Span>::scrub() {
  if (!owner || shared.tight.load(std::memory_order_relaxed))
    return;
  Loc prev = 0, n = nodes.freeHead;
  for (unsigned k = 0; k < ScrubDepth && n != 0; ++k) {
    Loc next = NodeStock::next(load(slotOf(n, 0)));
    unsigned o = owner[n >> OwnerShift].load(std::memory_order_relaxed);
    if (o != id && o != NoOwner) {
      if (prev != 0)
        store(slotOf(prev, 0), NodeStock::link(next));
      else
        nodes.freeHead = next;
      --nodes.freeCount;
      giveBack(o, n);
    } else {
      prev = n;
    }
    n = next;
  }
}

/// Takes the nodes other workers gave back, and, once the arena is used up,
/// the ones waiting here for other workers.
template <bool Span> void Worker<Span>::takeReturned() {
  std::vector<Loc> returned;
  {
    Shared::Inbox &inbox = shared.inboxes[id];
    std::lock_guard<std::mutex> lock(inbox.mutex);
    returned.swap(inbox.nodes);
  }
  for (Loc n : returned)
    nodes.give(*this, n);
  if (shared.tight.load(std::memory_order_relaxed))
    for (Batch &batch : outbox) {
      for (size_t k = 0; k < batch.size; ++k)
        nodes.give(*this, batch.nodes[k]);
      batch.size = 0;
    }
}

template <bool Span> bool Worker<Span>::refill(uint64_t n) {
  // The current chunk's next window, while there is one.
  while (nodes.bumpEnd < chunkEnd) {
    Loc next = std::min<Loc>(chunkEnd, nodes.bumpEnd + WindowNodes);
    shared.arena->populate(nodes.bumpEnd, next);
    nodes.bumpEnd = next;
    if (nodes.available() >= n)
      return true;
  }
  // Leftovers of the current chunk go to the free list, with the nodes
  // other workers freed for this one.
  nodes.retireRange(*this);
  takeReturned();
  if (nodes.freeCount >= n)
    return true;
  Loc want = std::max<Loc>(ChunkNodes, n);
  Loc begin = shared.nextChunk.fetch_add(want, std::memory_order_relaxed);
  Loc end = begin + want;
  if (end > shared.arena->nodeCount()) {
    shared.nextChunk.store(shared.arena->nodeCount(), std::memory_order_relaxed);
    shared.tight.store(true, std::memory_order_relaxed);
    takeReturned();
    if (begin < shared.arena->nodeCount())
      for (Loc i = begin; i < shared.arena->nodeCount(); ++i)
        release(i);
    if (nodes.freeCount >= n)
      return true;
    shared.fail(RunStatus::OutOfMemory);
    return false;
  }
  markOwner(chunkBegin, chunkEnd, NoOwner);
  markOwner(begin, end, id);
  chunkBegin = begin;
  chunkEnd = end;
  nodes.bump = begin;
  if (begin < shared.populateFrom) {
    nodes.bumpEnd = end; // its pages fault in as they are used
    return true;
  }
  nodes.bumpEnd = begin;
  return refill(n); // maps the chunk's first window
}

template <bool Span> void Worker<Span>::shareWork() {
  auto holds = [&](uint32_t at, Redex r) {
    return at < stack.size() && stack[at].neg == r.neg && stack[at].pos == r.pos;
  };
  // The marked calls still in place, with their work: from the first redex
  // it needs on, unless the one under that has gone, and the work with it;
  // from just above it when where its work starts is not known.
  llvm::SmallVector<Consumer, 16> calls;
  size_t kept = 0;
  for (const Mark &m : marks) {
    if (!holds(m.at, m.redex))
      continue;
    uint32_t from = m.from == Mark::Unknown ? m.at + 1 : holds(m.from - 1, m.under) ? m.from : Consumer::NoWork;
    calls.push_back({m.at, from});
    marks[kept++] = m;
  }
  marks.resize(kept);
  // The oldest redexes are at the bottom; they tend to stand for the most work.
  const size_t give = oldestToGive(stack.size(), calls.data(), calls.size());
  if (give == 0)
    return;
  size_t given = 0;
  while (given < calls.size() && calls[given].at < give)
    ++given;
  kept = 0;
  for (size_t k = given; k < marks.size(); ++k) {
    const Mark &m = marks[k];
    marks[kept++] = {uint32_t(m.at - give), m.from == Mark::Unknown ? m.from : uint32_t(m.from - give),
                     m.redex, m.under};
  }
  marks.resize(kept);
  std::lock_guard<std::mutex> lock(shared.poolMutex);
  bool some = shared.pool.give(stack.data(), give, calls.data(), given, owe);
  poolChanged();
  stack.erase(stack.begin(), stack.begin() + ptrdiff_t(give));
  if (some)
    shared.poolCv.notify_all();
}

/// Moves half of what the pool lets go (at least one redex) onto this
/// worker's empty stack; false when nothing may go. The caller holds
/// poolMutex.
template <bool Span> bool Worker<Span>::takeFromPool() {
  marks.clear();
  if (!shared.pool.take(stack, owe))
    return false;
  if constexpr (Span)
    probe.stackResized(stack.size()); // not reached: one thread gives nothing
  poolChanged();
  return true;
}

template <bool Span> bool Worker<Span>::waitForWork() {
  struct Waited {
    double &total;
    std::chrono::steady_clock::time_point since;
    ~Waited() { total += secondsSince(since); }
  } waited{waitSeconds, std::chrono::steady_clock::now()};
  // Hungry until it leaves, also while it maps pages ahead: counted only
  // while asleep, a worker that was mapping went unseen by the others, and
  // church_exp's next piece of work reached it 3 to 220 ms after it ran out
  // (0.1 to 0.4 ms now; see PERF.md).
  struct Hungry {
    std::atomic<unsigned> &count;
    bool counted = true;
    explicit Hungry(std::atomic<unsigned> &count) : count(count) {
      count.fetch_add(1, std::memory_order_relaxed);
    }
    ~Hungry() { fed(); }
    void fed() {
      if (counted)
        count.fetch_sub(1, std::memory_order_relaxed);
      counted = false;
    }
  } hungry(shared.hungry);
  std::unique_lock<std::mutex> lock(shared.poolMutex);
  ++shared.idle;
  // What this stack's work held back may go now: this worker takes it
  // first, and wakes the others only for what it leaves.
  if (shared.pool.pay(owe))
    poolChanged();
  auto took = [&] {
    hungry.fed();
    --shared.idle;
    if (shared.pool.open() != 0 && shared.hungry.load(std::memory_order_relaxed) != 0)
      shared.poolCv.notify_all();
    return true;
  };
  bool mappedNothing = false; // since it last waited
  while (true) {
    if (shared.done)
      return false;
    if (takeFromPool())
      return took();
    if (shared.idle == shared.threads) {
      // Every stack is empty, so every piece of work a gate counts is done
      // or in the pool: whatever is held goes.
      if (shared.pool.releaseAll() && takeFromPool())
        return took();
      shared.done = true;
      shared.poolCv.notify_all();
      return false;
    }
    // Nothing to take yet. While the net grows into memory mapped a window
    // at a time, the pages the others will need next are mapped here, so
    // that they do not stop to fault them in; whatever changed meanwhile is
    // looked at again before waiting.
    const bool grows = mapsAhead(shared.nextChunk.load(std::memory_order_relaxed)) &&
                       shared.mappedAhead.load(std::memory_order_relaxed) < shared.arena->nodeCount();
    if (grows && !mappedNothing) {
      lock.unlock();
      mappedNothing = !mapAhead();
      lock.lock();
      continue;
    }
    mappedNothing = false;
    if (grows)
      shared.poolCv.wait_for(lock, MapAheadPause); // to map more as the net grows
    else
      shared.poolCv.wait(lock);
  }
}

/// Maps a window of the arena's pages not handed out yet, at most
/// MapAheadNodes past the chunks that were; false when there is none left
/// to map. A worker with nothing to do calls it: the worker that later takes
/// that memory finds it mapped (its own mapping of a window already mapped
/// is quick), and the zeroing of fresh pages, a fifth of a one-thread run of
/// a net that grows to hundreds of MiB, is done while a thread would wait.
template <bool Span> bool Worker<Span>::mapAhead() {
  Loc from = shared.mappedAhead.load(std::memory_order_relaxed), start, to;
  do {
    Loc handedOut = shared.nextChunk.load(std::memory_order_relaxed);
    if (!mapsAhead(handedOut))
      return false;
    start = std::max({from, handedOut, shared.populateFrom});
    to = std::min({start + WindowNodes, handedOut + MapAheadNodes, shared.arena->nodeCount()});
    if (start >= to)
      return false;
  } while (!shared.mappedAhead.compare_exchange_weak(from, to, std::memory_order_relaxed));
  shared.arena->populate(start, to);
  return true;
}

/// Runs the latest call put off earlier whose number has arrived, the direct
/// way; true when there was one. Only the latest few are looked at: older
/// ones wait for a later look, or run the general way in the end.
template <bool Span> bool Worker<Span>::runArrivedCall(uint32_t need) {
  size_t end = deferred.size() > ArrivalScan ? deferred.size() - ArrivalScan : 0;
  for (size_t k = deferred.size(); k-- > end;) {
    Redex r = deferred[k];
    if (callAwaitsNumber(*this, r.neg))
      continue;
    if (!reserve(need))
      return false;
    runPutOff(k);
    return true;
  }
  return false;
}

template <bool Span> void Worker<Span>::runLoop() {
  uint32_t need = shared.reserveNodes;
  uint32_t tick = 0;
  // Only here, and only by a worker alone, calls are put off, to be run
  // later by the loop below. With others, the number a call waits for is
  // often being computed by another thread: put off, most such calls ran the
  // general way in the end after all, with the bookkeeping on top (see
  // PERF.md).
  struct Alone {
    Worker &w;
    Alone(Worker &w, bool alone) : w(w) { w.mayDefer = alone; }
    ~Alone() { w.mayDefer = false; }
  } alone(*this, shared.threads == 1);
  if (shared.threads > 1)
    waitSeconds += secondsSince(shared.roundStart); // how late this thread began
  do {
    for (;;) {
      while (!stack.empty()) {
        if (!reserve(need))
          return;
        runTop();
        if ((++tick & 127) == 0) {
          if (shouldStop())
            return;
          if ((tick & 1023) == 0)
            scrub();
          if ((tick & 8191) == 0)
            publish();
          if (shared.hungry.load(std::memory_order_relaxed) != 0 && stack.size() > 1 &&
              shared.poolSize.load(std::memory_order_relaxed) == 0)
            shareWork();
        }
      }
      if (deferred.empty())
        break;
      if (runArrivedCall(need))
        continue;
      // No number will arrive: a call put off earlier runs now the general
      // way, never put off again.
      if (shared.failed() || !reserve(need))
        return;
      runPutOff(deferred.size() - 1);
    }
    publish();
  } while (waitForWork());
}

template <bool Span> bool Worker<Span>::runSolo(uint64_t budget) {
  uint32_t need = shared.reserveNodes;
  uint32_t tick = 0;
  while (!stack.empty()) {
    if (budget-- == 0)
      return false;
    if (!reserve(need))
      return true;
    runTop();
    if ((++tick & 127) == 0 && shouldStop())
      return true;
  }
  publish();
  return true;
}

/// The net between rounds: the host's view of it (through worker 0, which
/// holds the redexes the host creates) and the rounds that reduce it.
template <bool Span> class CpuNet final : public CtxNetHost<Worker<Span>> {
public:
  CpuNet(Shared &shared, std::vector<std::unique_ptr<Worker<Span>>> &workers)
      : CtxNetHost<Worker<Span>>(*shared.book, *workers[0]), shared(shared), workers(workers),
        host(*workers[0]) {}

  bool reserve(uint64_t n) override { return !shared.failed() && host.reserve(n); }

  bool reduce() override {
    if (shared.failed())
      return false;
    if (host.runSolo(SoloBudget))
      return !shared.failed();
    return reduceInParallel();
  }

  /// A round on every thread, from the redexes in worker 0's stack.
  bool reduceInParallel() {
    {
      std::lock_guard<std::mutex> lock(shared.poolMutex);
      shared.done = false;
      shared.idle = 0;
      if (shared.pool.empty())
        shared.pool.reset();
      for (auto &w : workers)
        w->startRound();
    }
    if (shared.threads == 1) {
      host.runLoop();
    } else {
      shared.roundStart = std::chrono::steady_clock::now();
      std::vector<std::thread> pool;
      for (unsigned t = 1; t < shared.threads; ++t)
        pool.emplace_back([this, t] { workers[t]->runLoop(); });
      host.runLoop();
      for (auto &th : pool)
        th.join();
    }
    return !shared.failed();
  }

private:
  Shared &shared;
  std::vector<std::unique_ptr<Worker<Span>>> &workers;
  Worker<Span> &host;
};

/// runCpu, with workers that measure the span or not.
template <bool Span> RunResult runWith(const Book &book, const RunOptions &options) {
  RunResult result;
  unsigned threads = options.threads ? options.threads : std::max(1u, std::thread::hardware_concurrency());
  threads = std::min(threads, MaxCpuThreads); // node owners are 16-bit, NoOwner excluded
  if constexpr (Span)
    threads = 1; // a span is measured on one thread's order of work
  uint64_t memBytes = options.memBytes ? options.memBytes : defaultMemBytes();
  Arena arena(memBytes);
  if (!arena.ok()) {
    result.status = RunStatus::OutOfMemory;
    result.message = "out of memory: cannot reserve " + showBytes(memBytes) +
                     " of address space for the net; lower it with --mem (e.g. --mem 1G)";
    return result;
  }

  Shared shared;
  shared.arena = &arena;
  shared.owner = std::make_unique<std::atomic<uint16_t>[]>((arena.nodeCount() >> OwnerShift) + 1);
  shared.book = &book;
  shared.threads = threads;
  shared.inboxes = std::make_unique<Shared::Inbox[]>(threads);
  shared.reserveNodes = maxNodesPerInteraction(book);
  shared.shapes = buildCopyShapes(book);
  shared.populateFrom = PopulateFromBytes / Arena::bytesPerNode;
  shared.cancel = options.cancel;
  shared.maxInteractions = options.maxInteractions;

  // Map the first pages of the arena before the clock starts, in parallel.
  {
    Loc end = std::min<Loc>(arena.nodeCount(), PretouchNodes);
    std::vector<std::thread> touchers;
    for (unsigned t = 0; t < threads; ++t)
      touchers.emplace_back([&, t] { arena.touch(end * t / threads, end * (t + 1) / threads); });
    for (auto &th : touchers)
      th.join();
  }

  // Each worker's expansion scratch on cache lines of its own: expand()
  // writes it on every call, and two small arrays side by side on the heap
  // made the workers take turns on one line (stress at 2 threads ran 1.2x).
  // One buffer: worker t's scratch starts on a cache line of its own, at
  // base + t * stride.
  size_t scratchLocs = shape::Nodes + shared.reserveNodes; // see CopiesByShape
  size_t stride = (scratchLocs + LocsPerLine - 1) / LocsPerLine * LocsPerLine + LocsPerLine;
  std::vector<Loc> scratch(threads * stride + LocsPerLine);
  Loc *base = scratch.data();
  while (reinterpret_cast<uintptr_t>(base) % Apart != 0)
    ++base;
  std::vector<std::unique_ptr<Worker<Span>>> workers;
  for (unsigned t = 0; t < threads; ++t)
    workers.push_back(std::make_unique<Worker<Span>>(shared, t, base + t * stride));
  if constexpr (Span)
    if (!workers[0]->probe.reserve(uint64_t(arena.nodeCount()) * 2)) {
      result.status = RunStatus::OutOfMemory;
      result.message = "out of memory: cannot reserve " + showBytes(uint64_t(arena.nodeCount()) * 16) +
                       " of address space to measure the span; lower --mem (e.g. --mem 1G)";
      return result;
    }
  CpuNet<Span> net(shared, workers);

  std::unique_ptr<ProgressLine> progress;
  if (options.progress)
    progress = std::make_unique<ProgressLine>(options.streams.err, [&] {
      ProgressSample s;
      for (auto &w : workers)
        s.interactions += w->published.load(std::memory_order_relaxed);
      s.bytesInUse = std::min<Loc>(shared.nextChunk.load(std::memory_order_relaxed), arena.nodeCount()) *
                     Arena::bytesPerNode;
      return s;
    });
  IoConfig streams = options.streams;
  streams.progress = progress.get();
  streams.cancel = options.cancel;
  IoSession io(streams);

  auto start = std::chrono::steady_clock::now();
  workers[0]->boot(book.mainId);
  if (net.reduceInParallel() && options.io)
    io.run(net, RootSlot);
  io.flushOutput();
  progress.reset();
  auto stop = std::chrono::steady_clock::now();
  result.stats.ioCalls = io.calls();

  RunStats &stats = result.stats;
  stats.seconds = std::chrono::duration<double>(stop - start).count();
  stats.threads = threads;
  stats.backend = "cpu";
  stats.peakNodes = std::min<Loc>(shared.nextChunk.load(), arena.nodeCount());
  for (auto &w : workers)
    for (unsigned r = 0; r < RuleCount; ++r)
      stats.byRule[r] += w->counts[r];
  for (uint64_t c : stats.byRule)
    stats.interactions += c;
  if (threads > 1)
    for (auto &w : workers)
      stats.perThread.push_back({w->interactionsDone(), w->waitSeconds});
  if constexpr (Span)
    stats.span = workers[0]->probe.span();

  result.status = RunStatus(shared.failure.load());
  switch (result.status) {
  case RunStatus::Ok:
    takeNormalForm(result, arena.slotData(), book, options);
    break;
  case RunStatus::OutOfMemory:
    result.message = "out of memory: the net needed more than " + std::to_string(arena.nodeCount()) +
                     " nodes (" + showBytes(memBytes) +
                     (options.memBytes ? " set with --mem" : ", the default share of RAM") +
                     "); raise the limit with --mem, e.g. --mem " +
                     std::to_string(std::max<uint64_t>(2 * (memBytes >> 30), 1)) + "G";
    break;
  case RunStatus::Fault: {
    uint16_t tags = shared.faultTags.load();
    std::string what = std::string(tagName(uint8_t(tags >> 8))) + " met " + tagName(uint8_t(tags & 0xFF));
    result.message = Fault(shared.fault.load()) == Fault::NoMemory
                         ? "out of memory where " + what + "; raise the limit with --mem"
                         : "internal error: a redex joined two terms of the same polarity (" + what +
                               "); please report this with the program";
    break;
  }
  case RunStatus::Interrupted:
    result.message = "interrupted";
    break;
  case RunStatus::InteractionLimit:
    result.message = "stopped after " + std::to_string(stats.interactions) +
                     " interactions: the run's limit is " + std::to_string(options.maxInteractions);
    break;
  default:
    break;
  }
  return result;
}

} // namespace

RunResult runCpu(const Book &book, const RunOptions &options) {
  return options.span ? runWith<true>(book, options) : runWith<false>(book, options);
}

} // namespace bendc::rt
