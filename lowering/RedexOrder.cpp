#include "lowering/RedexOrder.h"

#include "ir/NetGraph.h"
#include "runtime/common/Interact.h"

#include "llvm/ADT/SCCIterator.h"
#include "llvm/ADT/SmallVector.h"

#include <functional>
#include <optional>
#include <queue>

namespace bendc::lowering {
namespace {

using rt::Term;
using rt::payloadOf;
using rt::tagOf;
namespace tag = rt::tag;

constexpr uint32_t None = ~0u;
constexpr unsigned MaxArgs = 64;
/// Steps the walks of one look at a definition may take in all (a summary,
/// or the order of its redexes); a definition that needs more keeps its
/// order and is assumed to demand nothing. Each walk is linear in the
/// definition's size, so only a very large one with very many calls gets
/// there.
constexpr uint64_t StepBudget = uint64_t(1) << 24;

uint64_t bit(unsigned k) { return k < MaxArgs ? uint64_t(1) << k : 0; }

/// Where the term of a node of a template sits: in a slot of another node
/// (the slot's index, 2 * node + i), on a side of a redex, or at the root.
struct Place {
  enum Kind : uint8_t { Slot, RedexNeg, RedexPos, Root } kind = Root;
  uint32_t at = 0;
};

/// One definition's template, indexed for the walks below: where each node
/// sits, which redex holds it, which λs receive arguments, and the calls.
struct Template {
  const Term *slots = nullptr;
  const Term *redexes = nullptr; // two terms per redex: negative, positive
  uint32_t nodeCount = 0, redexCount = 0;
  std::vector<Place> place;
  std::vector<uint8_t> nodeTag;
  std::vector<uint32_t> redexOf;  // the redex whose tree holds the node, or None
  std::vector<int32_t> argLevel;  // a λ receiving the definition's argument k: k; else -1
  std::vector<uint32_t> callOf;   // the last APP of a call's chain: the call (a redex); else None
  struct Call {
    uint32_t callee = None;       // None: the redex is not a call
    llvm::SmallVector<uint32_t, 4> apps; // the chain of APPs, argument k in apps[k]'s first slot
  };
  std::vector<Call> calls;        // by redex
  std::vector<uint32_t> switches; // the SWI nodes
  /// A numeric switch on the first argument whose arms are references: the
  /// arm and how its arguments map onto the definition's (zero: +1, the
  /// successor's: +0, its first argument being the predecessor).
  struct RefArm {
    uint32_t def;
    unsigned shift;
  };
  llvm::SmallVector<RefArm, 2> refArms;
  /// The terms whose values may be the definition's result.
  llvm::SmallVector<Term, 2> results;
  std::vector<std::pair<Term, Place>> stack; // build's

  Term slot(uint32_t node, unsigned i) const { return slots[2 * node + i]; }

  void build(const rt::Book &book, const rt::DefInfo &def) {
    slots = book.slots.data() + def.firstSlot;
    redexes = book.redexes.data() + def.firstRedex;
    nodeCount = def.nodeCount;
    redexCount = def.redexCount;
    place.assign(nodeCount, Place{});
    nodeTag.assign(nodeCount, 0);
    redexOf.assign(nodeCount, None);
    argLevel.assign(nodeCount, -1);
    callOf.assign(nodeCount, None);
    calls.assign(redexCount, Call{});
    switches.clear();
    refArms.clear();
    results.clear();
    // Every tree, from the root and each redex side.
    auto walk = [&](Term t, Place p, uint32_t redex) {
      stack.push_back({t, p});
      while (!stack.empty()) {
        auto [term, at] = stack.back();
        stack.pop_back();
        if (!rt::isNodeTag(tagOf(term)))
          continue;
        uint32_t n = uint32_t(payloadOf(term));
        if (n >= nodeCount)
          continue; // not a template this walk understands; left alone
        place[n] = at;
        nodeTag[n] = tagOf(term);
        if (tagOf(term) == tag::Swi)
          switches.push_back(n);
        redexOf[n] = redex;
        for (unsigned i = 0; i < 2; ++i)
          stack.push_back({slot(n, i), Place{Place::Slot, 2 * n + i}});
      }
    };
    walk(def.root, Place{Place::Root, 0}, None);
    for (uint32_t r = 0; r < redexCount; ++r) {
      walk(redexes[2 * r], Place{Place::RedexNeg, r}, r);
      walk(redexes[2 * r + 1], Place{Place::RedexPos, r}, r);
    }
    // The calls: a reference meeting a chain of applications.
    for (uint32_t r = 0; r < redexCount; ++r) {
      Term neg = redexes[2 * r], pos = redexes[2 * r + 1];
      if (tagOf(pos) != tag::Ref || tagOf(neg) != tag::App)
        continue;
      Call &c = calls[r];
      c.callee = uint32_t(rt::refOf(pos));
      for (Term t = neg; tagOf(t) == tag::App && payloadOf(t) < nodeCount; t = slot(uint32_t(payloadOf(t)), 1))
        c.apps.push_back(uint32_t(payloadOf(t)));
      if (c.apps.empty()) {
        c.callee = None;
        continue;
      }
      callOf[c.apps.back()] = r;
    }
    // The λs receiving arguments, and what the result is.
    auto chain = [&](Term t, unsigned shift) {
      unsigned level = shift;
      while (tagOf(t) == tag::Lam && uint32_t(payloadOf(t)) < nodeCount) {
        uint32_t n = uint32_t(payloadOf(t));
        argLevel[n] = int32_t(level++);
        t = slot(n, 1);
      }
      results.push_back(t);
    };
    if (!switchOnFirst(book, def, chain))
      chain(def.root, 0);
  }

  /// A numeric switch on the first argument, `λn (switch n { 0: z; _: s })`
  /// as HVM2 writes it: the arms' arguments are the definition's.
  template <class Chain> bool switchOnFirst(const rt::Book &book, const rt::DefInfo &def, Chain &chain) {
    uint64_t tup = rt::switchArmsOf(slots, nodeCount, def.root);
    if (tup == rt::NoArms)
      return false;
    argLevel[payloadOf(def.root)] = 0;
    for (unsigned a = 0; a < 2; ++a) {
      Term arm = slot(uint32_t(tup), a);
      unsigned shift = a == 0 ? 1 : 0;
      if (tagOf(arm) == tag::Ref && rt::refOf(arm) < book.defs.size())
        refArms.push_back({uint32_t(rt::refOf(arm)), shift});
      else
        chain(arm, shift);
    }
    return true;
  }
};

/// Walks back from terms and slots to where their values come from: the
/// definition's arguments, and the redexes that produce them.
class Walk {
public:
  Walk(const Template &t, const std::vector<ArgumentUse> &uses) : t(t), uses(uses) {}

  /// For the definition the template now holds (its memory kept from one
  /// definition to the next).
  void reset() {
    seen.assign(3 * size_t(t.nodeCount), 0);
    producerSeen.assign(t.redexCount, 0);
    epoch = 0;
    steps = 0;
  }

  void start() {
    ++epoch;
    args = 0;
    producers.clear();
  }
  /// Where the value of a term in a positive place comes from.
  void value(Term term) {
    uint8_t tg = tagOf(term);
    uint64_t at = payloadOf(term);
    if (tg == tag::Var && at < 2 * uint64_t(t.nodeCount))
      push(uint32_t(at));
    else if ((tg == tag::Tup || tg == tag::Sup) && at < t.nodeCount)
      push(2 * t.nodeCount + uint32_t(at));
  }
  /// Where the value a negative node consumes comes from.
  void consumed(uint32_t node) { push(2 * t.nodeCount + node); }
  bool run() {
    while (!stack.empty()) {
      if (++steps > StepBudget)
        return false;
      uint32_t item = stack.back();
      stack.pop_back();
      if (item < 2 * t.nodeCount)
        slotValue(item);
      else
        nodeValue(item - 2 * t.nodeCount);
    }
    return true;
  }

  uint64_t args = 0;
  llvm::SmallVector<uint32_t, 8> producers;

private:
  void push(uint32_t item) {
    if (seen[item] == epoch)
      return;
    seen[item] = epoch;
    stack.push_back(item);
  }
  void producer(uint32_t redex) {
    if (producerSeen[redex] != epoch) {
      producerSeen[redex] = epoch;
      producers.push_back(redex);
    }
  }
  /// The value arriving at a negative slot (one a variable points at).
  void slotValue(uint32_t s) {
    uint32_t n = s / 2;
    unsigned i = s % 2;
    uint8_t tg = t.nodeTag[n];
    if (tg == tag::Lam && i == 0) {
      if (t.argLevel[n] >= 0)
        args |= bit(unsigned(t.argLevel[n]));
      else if (t.redexOf[n] != None)
        producer(t.redexOf[n]); // a λ handed to a call: the call gives its argument
    } else if (tg == tag::Dup || tg == tag::Unt) {
      consumed(n); // a copy, or a field, of what the node consumes
    } else if ((tg == tag::Opr || tg == tag::Swi) && i == 1) {
      consumed(n); // computed from the number and the operand, or the arms
      value(t.slot(n, 0));
    } else if (tg == tag::App && i == 1) {
      if (uint32_t r = t.callOf[n]; r != None) {
        producer(r);
        const Template::Call &c = t.calls[r];
        uint64_t returned = uses[c.callee].returned;
        for (unsigned k = 0; k < c.apps.size() && k < MaxArgs; ++k)
          if (returned & bit(k))
            value(t.slot(c.apps[k], 0));
      } else if (t.redexOf[n] != None) {
        producer(t.redexOf[n]);
      }
    }
  }
  /// A positive tuple's fields, or the value a negative node consumes.
  void nodeValue(uint32_t n) {
    uint8_t tg = t.nodeTag[n];
    if (tg == tag::Tup || tg == tag::Sup) {
      value(t.slot(n, 0));
      value(t.slot(n, 1));
      return;
    }
    if (rt::isPositiveTag(tg))
      return; // a λ: a function, not a number
    const Place &p = t.place[n];
    if (p.kind == Place::Slot)
      push(p.at);
    else if (p.kind == Place::RedexNeg)
      value(t.redexes[2 * p.at + 1]);
  }

  const Template &t;
  const std::vector<ArgumentUse> &uses;
  std::vector<uint32_t> seen; // per item: the epoch of the walk that reached it
  std::vector<uint32_t> producerSeen;
  std::vector<uint32_t> stack;
  uint32_t epoch = 0;
  uint64_t steps = 0;
};

/// The values a call needs as numbers: those of its demanded arguments.
void seedDemand(Walk &w, const Template &t, const std::vector<ArgumentUse> &uses, uint32_t redex) {
  const Template::Call &c = t.calls[redex];
  if (c.callee != None) {
    uint64_t demanded = uses[c.callee].demanded;
    for (unsigned k = 0; k < c.apps.size() && k < MaxArgs; ++k)
      if (demanded & bit(k))
        w.value(t.slot(c.apps[k], 0));
  }
}

/// Which arguments the definition applies, given which the others apply: a
/// λ receiving one holds an application, or a duplication with an applied
/// copy; a switch's arms apply the switch's.
uint64_t appliedArguments(const Template &t, const std::vector<ArgumentUse> &uses) {
  uint64_t applied = 0;
  for (uint32_t n = 0; n < t.nodeCount; ++n) {
    if (t.argLevel[n] < 0)
      continue;
    Term x = t.slot(n, 0);
    bool app = tagOf(x) == tag::App;
    if (tagOf(x) == tag::Dup && payloadOf(x) < t.nodeCount)
      for (unsigned i = 0; i < 2; ++i)
        app |= tagOf(t.slot(uint32_t(payloadOf(x)), i)) == tag::App;
    if (app)
      applied |= bit(unsigned(t.argLevel[n]));
  }
  for (const Template::RefArm &a : t.refArms)
    applied |= uses[a.def].applied << a.shift;
  return applied;
}

/// Where the definition's arguments go, given where the others' go (its
/// `applied` bits already known).
ArgumentUse summarize(const Template &t, const std::vector<ArgumentUse> &uses, Walk &w, uint64_t applied,
                      bool &complete) {
  ArgumentUse u;
  u.applied = applied;
  w.reset();
  w.start();
  for (uint32_t n : t.switches)
    w.consumed(n);
  for (uint32_t r = 0; r < t.redexCount; ++r)
    seedDemand(w, t, uses, r);
  complete &= w.run();
  u.demanded = w.args;
  w.start();
  for (Term r : t.results)
    w.value(r);
  complete &= w.run();
  u.returned = w.args;
  for (const Template::RefArm &a : t.refArms) {
    u.demanded |= uses[a.def].demanded << a.shift;
    u.returned |= uses[a.def].returned << a.shift;
  }
  u.demanded &= ~applied;
  return u;
}

/// One definition's redexes in the order they are linked, and which of
/// them need another's result (DefInfo::consumers).
struct Ordering {
  std::vector<uint32_t> order; // by new position: the redex written there
  bool moved = false;
  uint32_t consumers = 0;
  uint32_t producers = 0; // DefInfo::producers
};

/// The redexes of one definition in their new order, or nothing when their
/// dependences form a cycle (the written order stays, no call marked).
std::optional<Ordering> newOrder(const Template &t, const std::vector<ArgumentUse> &uses, Walk &w) {
  // Edges: consumer -> producer, the consumer linked first.
  std::vector<std::vector<uint32_t>> after(t.redexCount);
  std::vector<uint32_t> indegree(t.redexCount, 0);
  bool any = false;
  std::vector<llvm::SmallVector<uint32_t, 1>> switchesOf(t.redexCount);
  for (uint32_t n : t.switches)
    if (t.redexOf[n] != None)
      switchesOf[t.redexOf[n]].push_back(n);
  // What each call needs for the arguments it demands, apart from what the
  // switches of its own redex tree need (DefInfo::consumers): such a
  // switch waits for its number while the call goes on (a walk of a list's
  // head that compares its result with the tail's at the end). One walk:
  // the demanded arguments first, then on from the switches.
  std::vector<llvm::SmallVector<uint32_t, 2>> needs(t.redexCount);
  w.reset();
  for (uint32_t r = 0; r < t.redexCount; ++r) {
    w.start();
    seedDemand(w, t, uses, r);
    if (!w.run())
      return std::nullopt;
    for (uint32_t p : w.producers)
      if (p != r)
        needs[r].push_back(p);
    for (uint32_t n : switchesOf[r])
      w.consumed(n);
    if (!w.run())
      return std::nullopt;
    for (uint32_t p : w.producers)
      if (p != r) {
        after[r].push_back(p);
        ++indegree[p];
        any = true;
      }
  }
  Ordering out;
  if (!any) {
    for (uint32_t r = 0; r < t.redexCount; ++r)
      out.order.push_back(r);
    return out;
  }
  // Stable: of the redexes free to go next, the one written first.
  std::priority_queue<uint32_t, std::vector<uint32_t>, std::greater<uint32_t>> ready;
  for (uint32_t r = 0; r < t.redexCount; ++r)
    if (indegree[r] == 0)
      ready.push(r);
  std::vector<uint32_t> &order = out.order;
  order.reserve(t.redexCount);
  while (!ready.empty()) {
    uint32_t r = ready.top();
    ready.pop();
    order.push_back(r);
    for (uint32_t p : after[r])
      if (--indegree[p] == 0)
        ready.push(p);
  }
  if (order.size() != t.redexCount)
    return std::nullopt; // each needs the other's result: keep what was written
  std::vector<uint32_t> position(t.redexCount);
  for (uint32_t k = 0; k < order.size(); ++k)
    position[order[k]] = k;
  for (uint32_t k = 0; k < order.size(); ++k) {
    out.moved |= order[k] != k;
    if (k >= 32 || needs[order[k]].empty())
      continue;
    out.consumers |= uint32_t(1) << k;
    uint32_t first = None;
    for (uint32_t p : needs[order[k]])
      first = std::min(first, position[p]);
    if (first < 32)
      out.producers |= uint32_t(1) << first;
  }
  return out;
}

} // namespace

RedexOrderReport orderRedexes(rt::Book &book) {
  RedexOrderReport report;
  std::vector<ArgumentUse> &uses = report.uses;
  uses.assign(book.defs.size(), ArgumentUse{});
  // Who refers to whom.
  uint32_t defCount = uint32_t(book.defs.size());
  net::RefGraph graph(defCount);
  std::vector<std::vector<uint32_t>> referrers(defCount);
  {
    std::vector<uint32_t> last(defCount, None);
    auto refer = [&](uint32_t d, Term t) {
      if (tagOf(t) != tag::Ref || rt::refOf(t) >= defCount || last[rt::refOf(t)] == d)
        return;
      last[rt::refOf(t)] = d;
      referrers[rt::refOf(t)].push_back(d);
      graph.refer(d, rt::refOf(t));
    };
    for (uint32_t d = 0; d < defCount; ++d) {
      const rt::DefInfo &def = book.defs[d];
      refer(d, def.root);
      for (uint64_t i = 0; i < 2 * uint64_t(def.nodeCount); ++i)
        refer(d, book.slots[def.firstSlot + i]);
      for (uint64_t i = 0; i < 2 * uint64_t(def.redexCount); ++i)
        refer(d, book.redexes[def.firstRedex + i]);
    }
  }
  // The definitions by strongly connected component of references, those
  // referred to first (scc_iterator's reverse topological order).
  std::vector<uint32_t> componentOf(defCount, None);
  std::vector<std::vector<uint32_t>> components;
  for (auto it = llvm::scc_begin(&graph); !it.isAtEnd(); ++it) {
    std::vector<uint32_t> component;
    for (net::RefGraph::Node *node : *it)
      if (node->def != net::RefGraph::EntryId) {
        componentOf[node->def] = uint32_t(components.size());
        component.push_back(node->def);
      }
    if (!component.empty())
      components.push_back(std::move(component));
  }
  // The least solution of `look` over every definition, from what `uses`
  // holds, one component after another: within one, a definition is looked
  // at again whenever one it refers to learns more. Each look only adds
  // bits, so this ends.
  Template t;
  Walk w(t, uses);
  std::vector<uint8_t> complete(defCount, 1);
  std::vector<uint8_t> queued(defCount, 0);
  auto solve = [&](auto look) {
    std::vector<uint32_t> queue;
    for (const std::vector<uint32_t> &component : components) {
      for (uint32_t d : component) {
        queue.push_back(d);
        queued[d] = 1;
      }
      while (!queue.empty()) {
        uint32_t d = queue.back();
        queue.pop_back();
        queued[d] = 0;
        const rt::DefInfo &def = book.defs[d];
        ArgumentUse u = uses[d];
        if (tagOf(def.root) == tag::Ref && def.nodeCount == 0 && def.redexCount == 0 &&
            rt::refOf(def.root) < defCount) {
          u = uses[rt::refOf(def.root)]; // another name for a definition
        } else if (complete[d] && (def.nodeCount != 0 || def.redexCount != 0)) {
          t.build(book, def);
          u = look(d, u);
        }
        if (u == uses[d])
          continue;
        uses[d] = u;
        for (uint32_t r : referrers[d])
          if (componentOf[r] == componentOf[d] && !queued[r]) {
            queued[r] = 1;
            queue.push_back(r);
          }
      }
    }
  };
  // First which arguments are applied; then, with that known, where the
  // arguments go.
  solve([&](uint32_t, ArgumentUse u) {
    u.applied = appliedArguments(t, uses);
    return u;
  });
  solve([&](uint32_t d, ArgumentUse u) {
    bool ok = true;
    ArgumentUse next = summarize(t, uses, w, u.applied, ok);
    if (ok)
      return next;
    // Too large to follow: nothing is demanded, anything may be returned,
    // and this stays so.
    complete[d] = 0;
    return ArgumentUse{0, ~uint64_t(0), u.applied};
  });
  // Then each definition's redexes, in an order where producers run first.
  std::vector<Term> moved;
  for (uint32_t d = 0; d < book.defs.size(); ++d) {
    rt::DefInfo &def = book.defs[d];
    def.consumers = def.producers = 0;
    if (def.redexCount < 2 || !complete[d])
      continue;
    t.build(book, def);
    std::optional<Ordering> ordering = newOrder(t, uses, w);
    if (!ordering)
      continue;
    def.consumers = ordering->consumers;
    def.producers = ordering->producers;
    if (!ordering->moved)
      continue;
    const std::vector<uint32_t> &order = ordering->order;
    Term *rdx = book.redexes.data() + def.firstRedex;
    moved.assign(rdx, rdx + 2 * size_t(def.redexCount));
    for (uint32_t k = 0; k < order.size(); ++k) {
      rdx[2 * k] = moved[2 * size_t(order[k])];
      rdx[2 * k + 1] = moved[2 * size_t(order[k]) + 1];
    }
    ++report.reorderedDefs;
  }
  return report;
}

} // namespace bendc::lowering
