// The interaction engine: the polarized atomic linker of seed 001 and one
// function per rule. Written once for every backend; a backend supplies the
// context `Ctx`, which owns memory access, allocation and the redex bag:
//
//   Term load(Loc slot); void store(Loc slot, Term t);   // relaxed
//   Term exchange(Loc slot, Term t);                     // atomic swap, acq_rel
//   Loc alloc();                  // a fresh node; the caller reserved enough
//   bool reserve(uint64_t n);     // makes n more nodes allocatable (false:
//                                 // out of memory, already reported)
//   void release(Loc node);       // the node is garbage: reuse it
//   uint32_t addDead(Loc node, uint32_t n); // atomic fetch_add on the node's
//                                            // count of dead slots, returns old
//   void clearDead(Loc node);
//   void push(Term neg, Term pos);  // a new redex
//   bool deferCall(Term app, Term ref); // take a call of a numeric switch
//                                   // whose number is on its way, to run it
//                                   // later (false: run it now)
//   void count(Rule rule);
//   void fault(Fault f, Term neg, Term pos); // the redex broke an invariant; stop
//   const Term *bookSlots, *bookRedexes; const DefInfo *defs;
//   const Plan *plans;               // Book::plans
//   static constexpr bool NumbersAtLink; // optional, see HandlesNumbersAtLink
//   Loc *scratch;                   // room for the largest definition's nodes
//   void prefetch(Loc slot);        // optional: the slot is about to be
//                                   // exchanged (see prefetchTarget)
//
// A context whose memory is one part of a net spread over several processes
// (runtime/dist) is a `SplitNet` and also supplies:
//
//   static constexpr bool Distributed = true;
//   bool ownsSlot(Loc slot); bool ownsNode(Loc node);  // in this process's memory
//   void sendLink(Term neg, Term var);   // link(neg, var) where var's slot lives
//   void sendJoin(Term var, Term b, unsigned depth); // joinValues, the same way
//   void putOffJoin(Term a, Term b, unsigned depth, bool consumers);
//                  // joinNodes (joinConsumers) once a and b are brought here
//
// The rules then touch only slots of their own process: a wire into another
// process's slot becomes a message, a node of another process is brought
// over before the rule that consumes it runs, and a shortcut that would read
// another process's memory (a fused expansion, a switch's ready pair) takes
// the general way, which counts the same interactions.
//
// Invariants. A positive slot is written when its node is built and read
// only by the thread that consumes the node; where values are written
// through (WritesThrough, see move), a thread bringing a value to a wire's
// SUB may also swap the wire's VARAT for the value, and the consumer claims
// a VARAT it reads (detail::take). A negative slot holds SUB
// (waiting for its value), a negative node, or — once its node was consumed —
// the positive value moved into it (a substitution entry). Other threads race
// only on those swaps and on the exchange on a negative slot.
//
// Memory. A consumed node is garbage once both slots are dead. A slot dies
// when it is read by its consumer (positive slots), or when a value moved into
// it finds a node there (the node is linked with it instead), or when the
// substitution entry it became is read by the other end of its wire. The
// thread that kills the second slot frees the node; `addDead` settles races.
#pragma once

#include "runtime/common/Book.h"
#include "runtime/common/CopyShape.h"
#include "runtime/common/HostDevice.h"
#include "runtime/common/Numeric.h"
#include "runtime/common/Operate.h"
#include "runtime/common/Rules.h"
#include "runtime/common/Term.h"

#include <array>
#include <cstddef>
#include <vector>

namespace bendc::rt {

enum class Fault : uint8_t {
  None,
  BadRedex,        // a redex that is not negative ~ positive
  NoMemory,        // a clash found no node to build with
};

/// See "A context whose memory is one part of a net" above.
template <class Ctx> concept SplitNet = requires { requires Ctx::Distributed; };
/// A context that has a number linked with a duplication or an operator
/// handled at once, where it is linked (detail::copyNumber,
/// interactOper<true>), instead of pushed:
///
///   static constexpr bool NumbersAtLink = true;
///
/// An interaction then pushes up to two redexes where it linked one, so only
/// a context whose redex bag grows as needed says so.
template <class Ctx> concept HandlesNumbersAtLink = requires { requires Ctx::NumbersAtLink; };

/// A context that copies a call by its definition's shape
/// (runtime/common/CopyShape.h) supplies
///
///   static constexpr bool CopiesByShape = true;
///   CopyShapesView shapes;        // of the book's definitions
///
/// and a scratch of shape::Nodes more Locs than its largest definition.
template <class Ctx> concept CopiesByShape = requires { requires Ctx::CopiesByShape; };

/// A context that gives work to other threads is told which of the calls it
/// links need the results of the redexes linked after them
/// (DefInfo::consumers), to hold them back when it gives them away:
///
///   static constexpr bool MarksConsumers = true;
///   size_t stackDepth();           // redexes pushed so far, not yet run
///   void markExpanded(const DefInfo &def, size_t start);
///       // def's redexes were just linked, from stack depth `start`; some
///       // are calls that need the ones after them (DefInfo::consumers,
///       // DefInfo::producers)
template <class Ctx> concept MarksConsumers = requires { requires Ctx::MarksConsumers; };

/// A context that writes a value straight into the place of the variable
/// waiting for it (see move) supplies
///
///   static constexpr bool WritesThrough = true;
///   Term loadAcquire(Loc slot);
///   bool compareExchange(Loc slot, Term &expected, Term desired); // acq_rel;
///       // on failure `expected` gets what the slot holds
///
/// Its shaped copies write a VARAT (tag::VarAt) where the SUB of the wire says
/// its VAR is, and every rule reads a positive slot of a node it consumes
/// with detail::take, which claims a VARAT found there: between the read and
/// the use, no other thread can put a value in its place.
template <class Ctx> concept WritesThrough = requires { requires Ctx::WritesThrough; };

/// Whether node `node` is in the context's own memory (always, but for a
/// SplitNet).
template <class Ctx> BENDC_HD bool ownsNode(Ctx &c, Loc node) {
  if constexpr (SplitNet<Ctx>)
    return c.ownsNode(node);
  else
    return true;
}
template <class Ctx> BENDC_HD bool ownsSlot(Ctx &c, Loc slot) {
  if constexpr (SplitNet<Ctx>)
    return c.ownsSlot(slot);
  else
    return true;
}

namespace detail {

/// When `t` is a variable, asks a context that can (`void prefetch(Loc
/// slot)`) to bring the slot it points at into the cache: a value about to
/// be linked is often read through a variable made long before.
template <class Ctx> BENDC_HD void prefetchTarget(Ctx &c, Term t) {
  if constexpr (requires { c.prefetch(Loc(0)); })
    if (tagOf(t) == tag::Var)
      c.prefetch(payloadOf(t));
}

/// What a claimed VARAT's slot holds until its node is freed: not the VARAT,
/// so no value on its way (move) is written there, and a negative term, so a
/// rule that read it by mistake would fault, not erase.
BENDC_HD constexpr Term claimedTerm() { return eraTerm(); }

/// Reads positive slot `slot` of a node this thread consumes, for the last
/// time: its term is handed on. Where values are written through (see move),
/// a VARAT there is claimed by an exchange and handed on as the VAR it stands
/// for: a value that arrives at its place afterwards stays there, and one
/// written through before the exchange is what it returns. A VARAT is thus
/// never copied: it is where its wire was made, or gone.
template <class Ctx> BENDC_HD_HOT Term take(Ctx &c, Loc slot) {
  if constexpr (WritesThrough<Ctx>) {
    Term t = c.loadAcquire(slot);
    return tagOf(t) == tag::VarAt ? plainVar(c.exchange(slot, claimedTerm())) : t;
  } else {
    return c.load(slot);
  }
}

template <class Ctx> BENDC_HD void killSlot(Ctx &c, Loc slot) {
  Loc node = slot >> 1;
  if (c.addDead(node, 1) == 1) {
    c.clearDead(node);
    c.release(node);
  }
}

/// A consumed node whose slots were handled by this thread: `dead` of them are
/// dead now, the others became substitution entries that die later.
template <class Ctx> BENDC_HD void finishNode(Ctx &c, Loc node, unsigned dead) {
  if (dead == 2) {
    c.release(node);
    return;
  }
  if (dead == 1 && c.addDead(node, 1) == 1) {
    c.clearDead(node);
    c.release(node);
  }
}

} // namespace detail

// Clashes (see joinValues): a value meets a value, a consumer a consumer.
// Level 0 is a clash's first; other callers start at 1.
template <class Ctx> BENDC_HD_CALL void joinValues(Ctx &c, Term a, Term b, unsigned depth = 1);
template <class Ctx> BENDC_HD_CALL void joinConsumers(Ctx &c, Term a, Term b, unsigned depth = 1);

namespace detail {
template <class Ctx> BENDC_HD void copyNumber(Ctx &c, Term dup, Term num);
} // namespace detail
template <bool AtLink = false, class Ctx> BENDC_HD void interactOper(Ctx &c, Term opr, Term num_);

/// Joins a negative term (a node or an eraser, never SUB) with a positive term.
/// `NumbersNow`: a number met here may be handled at once (see
/// HandlesNumbersAtLink); without, the redex is pushed.
template <bool NumbersNow = true, class Ctx> BENDC_HD_HOT void link(Ctx &c, Term neg, Term pos) {
  while (tagOf(pos) == tag::Var) {
    Loc slot = payloadOf(pos);
    if constexpr (SplitNet<Ctx>)
      if (!c.ownsSlot(slot))
        return c.sendLink(neg, pos);
    Term got = c.exchange(slot, neg);
    if (isSub(got))
      return; // `neg` now sits where the variable was bound
    // The slot held the variable's value: it is dead; link the value instead.
    detail::killSlot(c, slot);
    if (BENDC_RARE(!isValueOrPending(got)))
      return joinConsumers(c, neg, got); // a clash left a consumer there
    pos = unpend(got);
  }
  // A negative leaf meeting a leaf is a whole interaction with nothing to
  // do: counted here instead of going through the redex bag.
  if ((tagOf(neg) == tag::Era || tagOf(neg) == tag::NumN) && !isNode(pos)) {
    c.count(Rule::Void);
    return;
  }
  // A number reaches its consumers before the work pushed after it: the
  // chain of steps it feeds goes on while the nodes it needs are built, and
  // a number waiting in the bag keeps its node alive (see NumbersAtLink).
  if constexpr (NumbersNow && HandlesNumbersAtLink<Ctx>) {
    if (tagOf(neg) == tag::Dup && tagOf(pos) == tag::Num)
      return detail::copyNumber(c, neg, pos);
    if (tagOf(neg) == tag::Opr && tagOf(pos) == tag::Num)
      return interactOper<true>(c, neg, pos);
  }
  c.push(neg, pos);
}

namespace detail {
/// Links the redexes of a copy of `def`, in order: `sides` holds two
/// entries per redex (negative, positive), each made a term by `make`. A
/// context that marks the calls that need others (MarksConsumers) is told
/// where they went. Returns the entry after the last redex's.
template <class Ctx, class T, class Make>
BENDC_HD_HOT const T *linkRedexes(Ctx &c, const DefInfo &def, const T *sides, Make make) {
  // Locals: stores into net memory could alias the book as far as the
  // compiler knows.
  const uint32_t count = def.redexCount;
  size_t start = 0;
  if constexpr (MarksConsumers<Ctx>)
    if (BENDC_RARE(def.consumers != 0))
      start = c.stackDepth();
  for (uint32_t r = 0; r < count; ++r, sides += 2)
    link(c, make(sides[0]), make(sides[1]));
  if constexpr (MarksConsumers<Ctx>)
    if (BENDC_RARE(def.consumers != 0))
      c.markExpanded(def, start);
  return sides;
}
} // namespace detail

/// Moves a positive term into a negative slot of a consumed node. Returns true
/// when the slot died (it held a node, now linked with `pos`, or the value
/// went where its variable was), false when it became a substitution entry.
/// `NumbersNow` as for link.
///
/// Where values are written through (WritesThrough), a slot that still waits
/// and knows where its variable was written (see subTerm) has the value put
/// there instead, if the VARAT is still there: a compare-and-swap, which
/// fails once the VARAT's reader claimed it (detail::take). The value is then
/// found at once by whoever consumes that node, and the slot dies now:
/// succeeding, the swap found the wire's only VAR, so nobody else ever comes
/// to the slot. Else the value waits in the slot, put there by a
/// compare-and-swap too; a node found there instead (the other end of the
/// wire came first) is linked.
template <bool NumbersNow = true, class Ctx> BENDC_HD_HOT bool move(Ctx &c, Loc slot, Term pos) {
  Term got;
  if constexpr (WritesThrough<Ctx>) {
    got = c.loadAcquire(slot);
    if (isSub(got)) {
      if (Loc back = payloadOf(got); back != 0 && !isPending(pos)) {
        // A number found where the net holds a variable: see throughVar.
        Term var = makeTerm(tag::VarAt, slot);
        if (c.compareExchange(back, var, throughVar(pos)))
          return true;
      }
      if (c.compareExchange(slot, got, pos))
        return false;
    }
  } else {
    got = c.exchange(slot, pos);
    if (isSub(got))
      return false;
  }
  if (BENDC_RARE(isValueOrPending(got)))
    joinValues(c, unpend(got), pos); // a clash left a value there
  else
    link<NumbersNow>(c, got, pos);
  return true;
}

namespace detail {
/// interactEras where a number is linked with a duplication (see link): both
/// slots take the number; a node found there is pushed with it, never run
/// here, so a link does bounded work.
template <class Ctx> BENDC_HD void copyNumber(Ctx &c, Term dup, Term num) {
  c.count(Rule::Eras);
  Loc n = nodeOf(dup);
  unsigned dead = move<false>(c, slotOf(n, 0), num);
  dead += move<false>(c, slotOf(n, 1), num);
  finishNode(c, n, dead);
}
} // namespace detail

/// Hands the term in slot `i` of consumed node `node` (tag `t`) to `f`
/// according to the slot's polarity: positive slots are read and linked with
/// `negFor(i)`; negative slots receive `posFor(i)`. Returns the dead count.
/// Positive slots whose bit is set in `copied` had their value copied by the
/// caller: they only die.
template <bool Reverse = false, class Ctx, class NegFor, class PosFor>
BENDC_HD_HOT unsigned spill(Ctx &c, uint8_t t, Loc node, NegFor negFor, PosFor posFor, unsigned copied = 0) {
  unsigned dead = 0;
  for (unsigned k = 0; k < 2; ++k) {
    unsigned i = Reverse ? 1 - k : k;
    Loc slot = slotOf(node, i);
    if (auxPositive(t, i) && (copied >> i & 1)) {
      ++dead;
    } else if (auxPositive(t, i)) {
      link(c, negFor(i), detail::take(c, slot));
      ++dead;
    } else {
      dead += move(c, slot, posFor(i));
    }
  }
  return dead;
}

/// Whether a negative node and a positive node of one kind annihilate
/// cleanly (their first auxiliary slots have opposite polarities).
BENDC_HD constexpr bool annihilates(uint8_t neg, uint8_t pos) {
  // With `pos` a node: `neg` is one too (the same node and pending bits), of
  // the same kind, with the other polarity of its first auxiliary slot.
  constexpr uint8_t Kind = 3 << 2;
  return isNodeTag(pos) &&
         ((neg ^ pos) & (tag::NodeBit | tag::PendBit | Kind | tag::Aux1PosBit)) == tag::Aux1PosBit;
}
static_assert(annihilates(tag::App, tag::Lam) && annihilates(tag::Dup, tag::Sup) && !annihilates(tag::App, tag::Tup) &&
              !annihilates(tag::Dup, tag::Lam) && !annihilates(tag::Era, tag::Lam) &&
              !annihilates(tag::App | tag::PendBit, tag::Lam));

/// The most redexes one call of `def` can push: its own redexes, plus the link
/// of its root, or, when it is fused, one per level and one more for the last.
/// `slots` are the book's template slots. Backends that size buffers by the
/// pushes of one interaction use this bound.
inline uint64_t maxCallPushes(const DefInfo &def, const Term *slots) {
  // The levels a fusion can reach: a chain from the root through positive
  // auxiliary slots that hold nodes (at most MaxFusedLevels deep).
  auto levels = [&](auto &self, Term t, unsigned depth) -> unsigned {
    if (!isNodeTag(tagOf(t)) || depth == MaxFusedLevels)
      return 0;
    const Term *node = slots + def.firstSlot + 2 * payloadOf(t);
    unsigned deepest = 0;
    for (unsigned i = 0; i < 2; ++i)
      if (auxPositive(tagOf(t), i)) {
        unsigned d = self(self, node[i], depth + 1);
        deepest = d > deepest ? d : deepest;
      }
    return 1 + deepest;
  };
  // A plan's late links (Plan::late) come on top.
  return uint64_t(def.redexCount) + levels(levels, def.root, 0) + 1 + (def.plan ? Plan::MaxLate : 0);
}

namespace detail {

/// One step of the chain expand fuses: template node `mine` (of the
/// definition whose slots are `slots`) meets the negative node `meets`. With
/// `deeper` (the chain may grow), the first positive slot of `mine` that holds
/// a node meeting a node waiting in `meets`'s matching slot (it stays there:
/// only a wire's other end writes a negative slot, and a node there means
/// that end is gone) is fused at the next level: its index, with the waiting
/// node in `waiting`; -1 when none. With `args`, `meets`'s values for the
/// negative slots of `mine` are read into it on the way.
template <class Ctx>
BENDC_HD int fusesAt(Ctx &c, const Term *slots, Term mine, Term meets, bool deeper, Term &waiting,
                     Term *args) {
  uint8_t tag = tagOf(mine);
  uint64_t node = payloadOf(mine);
  Loc n = nodeOf(meets);
  int at = -1;
  for (unsigned i = 0; i < 2; ++i) {
    if (!auxPositive(tag, i)) {
      if (args) {
        args[i] = take(c, slotOf(n, i));
        prefetchTarget(c, args[i]);
      }
      continue;
    }
    Term inner = slots[2 * node + i];
    if (at >= 0 || !deeper || !isNodeTag(tagOf(inner)))
      continue;
    Term w = c.load(slotOf(n, i));
    if (annihilates(tagOf(w), tagOf(inner))) {
      waiting = w;
      at = int(i);
    }
  }
  return at;
}

} // namespace detail

/// Whether a call of `def` by the negative node tagged `neg` builds nothing
/// of the definition's root: it fuses with `neg` (see expand).
BENDC_HD bool callFuses(uint8_t neg, const DefInfo &def) {
  return neg != tag::Join && annihilates(neg, tagOf(def.root));
}

/// For a SplitNet: the slot holding the first node of another process that
/// the call `neg ~ ref` would fuse if it were here (expand's chain, walked
/// step by step the same way), or ~0 when the chain it can see ends here or
/// the call fuses nothing.
/// The context brings that node over first, so that a call fuses as it would
/// in one process: fusing puts values straight into the copy, where building
/// leaves variables, and an operator counts one more interaction when it
/// finds a variable (interactOper).
template <class Ctx> Loc unfusedSlot(Ctx &c, Term neg, Term ref) {
  const DefInfo &def = c.defs[refOf(ref)];
  if (!callFuses(tagOf(neg), def))
    return ~Loc(0);
  const Term *slots = c.bookSlots + def.firstSlot;
  Term meets = neg, mine = def.root, waiting = 0;
  for (unsigned levels = 1; levels < MaxFusedLevels; ++levels) {
    int i = detail::fusesAt(c, slots, mine, meets, true, waiting, nullptr);
    if (i < 0)
      break;
    if (!c.ownsNode(nodeOf(waiting)))
      return slotOf(nodeOf(meets), unsigned(i));
    mine = slots[2 * payloadOf(mine) + unsigned(i)];
    meets = waiting;
  }
  return ~Loc(0);
}

namespace detail {

/// locs[k] of a template node that is not built: fused with the caller
/// (Fused | level) or evaluated while copying (Evaluated | index in the plan).
inline constexpr Loc Fused = Loc(1) << 63;
inline constexpr Loc Evaluated = Loc(1) << 62;
BENDC_HD constexpr bool notBuilt(Loc l) { return (l >> 62) != 0; }
BENDC_HD constexpr bool isEvaluated(Loc l) { return (l >> 62) == 1; }

/// Whether a number meeting template term `t` may be evaluated on the
/// template (see planNumbers): a duplication or an operator.
BENDC_HD constexpr bool feedable(Term t) { return tagOf(t) == tag::Dup || tagOf(t) == tag::Opr; }

/// A level of the chain a call fuses (see expand).
struct Level {
  uint32_t node; // in the template
  uint8_t tag;   // its tag
  Term meets;    // the negative node it annihilates with
  int next;      // the slot whose node is fused at the next level, or -1
  Term arg[2];   // `meets`'s values for the template node's negative slots
};

/// Runs `def`'s plan (Book::plans) for a call fused along `level`: when the
/// chain is the plan's and its arguments are numbers, computes the plan's
/// registers, counts its interactions, marks its nodes Evaluated in `locs`
/// (unless null) and puts the numbers their slots hold in `value`; returns
/// the plan, or null (nothing done) when it does not apply.
template <class Ctx>
BENDC_HD_HOT const Plan *runPlan(Ctx &c, const DefInfo &def, const Level *level, unsigned levels, Loc *locs,
                                 Term *value) {
  const Plan &p = c.plans[def.plan - 1];
  if (levels != p.levels)
    return nullptr;
  for (unsigned j = 0; j + 1 < levels; ++j)
    if (unsigned(level[j].next) != ((p.nextBits >> j) & 1))
      return nullptr;
  // An argument is a number, or a variable whose number has arrived: read
  // through the variable as the built net would, marked so (ThroughVarBit),
  // and its slot dies once every argument is known.
  Term reg[Plan::MaxRegs];
  for (unsigned r = 0; r < p.argCount; ++r) {
    Term t = level[p.arg[r] >> 1].arg[p.arg[r] & 1];
    if (tagOf(t) == tag::Var) {
      if (!ownsSlot(c, payloadOf(t)))
        return nullptr;
      Term there = c.load(payloadOf(t));
      if (tagOf(there) != tag::Num)
        return nullptr;
      t = there | ThroughVarBit;
    } else if (tagOf(t) != tag::Num) {
      return nullptr;
    }
    reg[r] = t;
  }
  for (unsigned r = 0; r < p.argCount; ++r) {
    Term t = level[p.arg[r] >> 1].arg[p.arg[r] & 1];
    if (tagOf(t) == tag::Var)
      killSlot(c, payloadOf(t));
  }
  // All MaxConsts of them, a fixed size the compiler copies with a few
  // vector moves (a copy of constCount words became `rep movsq`, whose
  // start-up cost was 3% of sum_tree's time); the registers past the
  // constants are results, written below before they are read.
  for (unsigned r = 0; r < Plan::MaxConsts; ++r)
    reg[p.argCount + r] = p.constant[r];
  for (unsigned k = 0; k < p.opCount; ++k) {
    const Plan::Op &o = p.op[k];
    c.count(Rule::Oper);
    if (o.throughVar || cameThroughVar(reg[o.operand]))
      c.count(Rule::Oper);
    reg[o.dst] = numTerm(num::operateCommon(numOf(reg[o.in]), numOf(reg[o.operand])));
  }
  for (unsigned k = 0; k < p.eras; ++k)
    c.count(Rule::Eras);
  for (unsigned k = 0; k < p.voids; ++k)
    c.count(Rule::Void);
  for (unsigned k = 0; k < p.nodeCount; ++k) {
    if (locs)
      locs[p.node[k].node] = Evaluated | k;
    for (unsigned i = 0; i < 2; ++i)
      if (p.node[k].reg[i] != Plan::NoReg)
        value[2 * k + i] = reg[p.node[k].reg[i]] | ThroughVarBit; // the built net reads it through a variable
  }
  for (unsigned k = 0; k < p.lateCount; ++k)
    value[2 * Plan::MaxNodes + k] = reg[p.late[k].reg];
  return &p;
}

/// The levels of a call of a definition whose chain `ch` continues, at each
/// level, through the only positive slot that holds a node: as expand's
/// general walk (fusesAt) finds them, without looking at the template.
/// Returns how many fused; `level` gets them.
template <class Ctx> BENDC_HD_HOT unsigned walkChain(Ctx &c, const FusedChain &ch, Term meets, Level *level) {
  unsigned levels = 0;
  for (;;) {
    Level &l = level[levels];
    const uint8_t tg = ch.tag[levels];
    const Loc n = nodeOf(meets);
    l = {ch.node[levels], tg, meets, -1, {0, 0}};
    for (unsigned i = 0; i < 2; ++i)
      if (!auxPositive(tg, i)) {
        l.arg[i] = take(c, slotOf(n, i));
        prefetchTarget(c, l.arg[i]);
      }
    if (++levels == ch.levels)
      return levels;
    const unsigned i = (ch.nextBits >> (levels - 1)) & 1;
    const Term waiting = c.load(slotOf(n, i));
    if (!annihilates(tagOf(waiting), ch.tag[levels]) || !ownsNode(c, nodeOf(waiting)))
      return levels;
    l.next = int(i);
    meets = waiting;
  }
}

/// The copy of a call of `def` by the steps of its shape (see
/// runtime/common/CopyShape.h): the same nodes built, the same terms written
/// and the same links made in the same order as expand's general way. `level`
/// holds the `levels` fused levels (none: returns the relocated root); `w` is
/// the scratch, whose plan numbers runPlan wrote already when `plan` ran.
template <class Ctx>
BENDC_HD_HOT Term copyByShape(Ctx &c, const DefInfo &def, const CopyVariant &v, const Level *level,
                              unsigned levels, Loc *w, const Plan *plan) {
  static_assert(WritesThrough<Ctx>, "a shaped copy writes VARATs, which only detail::take reads");
  w[shape::Zero] = 0;
  for (unsigned j = 0; j < levels; ++j) {
    w[shape::Args + 2 * j] = throughVar(level[j].arg[0]);
    w[shape::Args + 2 * j + 1] = throughVar(level[j].arg[1]);
  }
  Loc *built = w + shape::Nodes;
  const uint32_t count = v.built;
  for (uint32_t k = 0; k < count; ++k)
    built[k] = c.alloc();
  const CopyStep *s = c.shapes.steps + v.firstStep;
  auto make = [w](const CopyStep &st) -> Term { return st.base + (w[st.from] << st.shift); };
  for (uint32_t k = 0; k < count; ++k, s += 2) {
    c.store(slotOf(built[k], 0), make(s[0]));
    c.store(slotOf(built[k], 1), make(s[1]));
  }
  // Reading the root before linking: linking may hand nodes to other threads.
  const Term root = levels ? 0 : make(s[2 * def.redexCount]);
  s = linkRedexes(c, def, s, make);
  if (plan)
    for (unsigned k = 0; k < plan->lateCount; ++k, s += 2)
      link(c, make(s[0]), make(s[1]));
  for (unsigned j = 0; j < levels; ++j) {
    const Loc n = nodeOf(level[j].meets);
    auto finish = [&](const CopyStep &st, unsigned i) -> unsigned {
      if (st.finish == Finish::Move)
        return move(c, slotOf(n, i), make(st));
      if (st.finish == Finish::Link)
        link(c, make(st), level[j].arg[i]);
      return 1;
    };
    unsigned dead = finish(s[0], 0);
    dead += finish(s[1], 1);
    s += 2;
    c.count(Rule::Anni);
    finishNode(c, n, dead);
  }
  return root;
}

} // namespace detail

/// Copies the definition `id` into fresh nodes and links its redexes; returns
/// its (relocated, positive) root.
///
/// With `against` (a negative node that annihilates with the root) the root
/// is not built: it annihilates with `against` during the copy, the
/// template's wires into the root's negative slots taking `against`'s values
/// directly. When the root's positive slot holds a node that would meet a node
/// already waiting in `against`'s matching slot (a curried function meeting
/// its chain of applications), that node is fused too, and so on down the
/// chain. HVM2 counts the same interactions (a call, then one annihilation per
/// level); nothing is built, linked and read back only to die at once.
///
/// `Planned`: `def` has a plan (DefInfo::plan) and `against` is given; the
/// copy runs it when it applies. Without, the plan's steps are not compiled in.
/// A context that copies by shape (CopiesByShape) takes copyByShape whenever
/// the levels that fused follow the definition's chain (CopyShape.h), which
/// is every call but one that fused through another slot or stopped at
/// another process's node.
template <bool Planned = false, class Ctx> BENDC_HD Term expand(Ctx &c, uint32_t id, Term against = 0) {
  using detail::Evaluated;
  using detail::Fused;
  const DefInfo &def = c.defs[id];
  // Locals: stores into net memory could alias the book as far as the
  // compiler knows, and these are read on every iteration.
  const uint32_t nodes = def.nodeCount;
  const Term *slots = c.bookSlots + def.firstSlot;
  const Term *rdx = c.bookRedexes + def.firstRedex;
  Loc *locs = c.scratch;
  constexpr unsigned MaxLevels = MaxFusedLevels;
  detail::Level level[MaxLevels];
  unsigned levels = 0;
  uint16_t nextBits = 0;

  // The levels that fused are a prefix of the definition's chain: the copy
  // is shaped (copyByShape). Where each level continues through its only
  // positive slot holding a node, the chain is walked as the shape knows it.
  const CopyShape *known = nullptr, *shape = nullptr;
  if constexpr (CopiesByShape<Ctx>) {
    known = &c.shapes.byDef[id];
    if (known->walkable && against) {
      levels = detail::walkChain(c, c.shapes.chains[known->chain], against, level);
      shape = known;
    }
  }
  if (!shape) {
    Term meets = against, mine = def.root;
    while (meets) {
      detail::Level &l = level[levels];
      l = {uint32_t(payloadOf(mine)), tagOf(mine), meets, -1, {0, 0}};
      ++levels;
      meets = 0;
      // A node of another process is not fused (see unfusedSlot).
      Term waiting = 0;
      int i = detail::fusesAt(c, slots, mine, l.meets, levels != MaxLevels, waiting, l.arg);
      if (i >= 0 && ownsNode(c, nodeOf(waiting))) {
        l.next = i;
        nextBits |= uint16_t(i << (levels - 1));
        meets = waiting;
        mine = slots[2 * l.node + unsigned(i)];
      }
    }
  }
  if constexpr (CopiesByShape<Ctx>)
    if (!shape && known->shaped && levels <= known->levels && nextBits == prefixBits(known->nextBits, levels))
      shape = known;
  if (against && !shape) {
    for (uint32_t i = 0; i < nodes; ++i)
      locs[i] = 0;
    for (unsigned j = 0; j < levels; ++j)
      locs[level[j].node] = Fused | j;
  }
  // The numbers of the evaluated nodes' slots, then those of the late links
  // (a shaped copy keeps them in its scratch).
  Term value[Planned ? 2 * Plan::MaxNodes + Plan::MaxLate : 1];
  const Plan *plan = nullptr;
  if constexpr (Planned)
    if (levels != 0)
      plan = detail::runPlan(c, def, level, levels, shape ? nullptr : locs, shape ? locs + shape::Values : value);
  if constexpr (CopiesByShape<Ctx>)
    if (shape)
      return detail::copyByShape(c, def, c.shapes.variants[plan ? shape->planned : shape->first + levels], level,
                                 levels, locs, plan);
  for (uint32_t i = 0; i < nodes; ++i)
    if (!against || !detail::notBuilt(locs[i]))
      locs[i] = c.alloc();
  auto reloc = [locs, &level, &value](Term t) -> Term {
    uint8_t tg = tagOf(t);
    if (isNodeTag(tg))
      return nodeTerm(tg, locs[payloadOf(t)]);
    if (tg == tag::Var) {
      uint64_t local = payloadOf(t);
      Loc l = locs[local >> 1];
      if (l & Fused)
        return throughVar(level[l & ~Fused].arg[local & 1]);
      if constexpr (Planned)
        if (detail::isEvaluated(l))
          return value[2 * (l & ~Evaluated) + (local & 1)];
      return varTerm(slotOf(l, unsigned(local & 1)));
    }
    return t;
  };
  for (uint32_t i = 0; i < nodes; ++i) {
    if (detail::notBuilt(locs[i])) // fused or evaluated (a built node's Loc is below both marks)
      continue;
    c.store(slotOf(locs[i], 0), reloc(slots[2 * i]));
    c.store(slotOf(locs[i], 1), reloc(slots[2 * i + 1]));
  }
  if (!against) {
    // Reading the root before linking: linking may hand nodes to other threads.
    Term r = reloc(def.root);
    detail::linkRedexes(c, def, rdx, reloc);
    return r;
  }
  // The definition's redexes before the caller's values: the last redex
  // pushed runs first, so a number handed to a duplication below reaches
  // the calls it feeds before they run, and they take switchCall's path.
  detail::linkRedexes(c, def, rdx, reloc);
  if constexpr (Planned)
    if (plan)
      for (unsigned k = 0; k < plan->lateCount; ++k)
        link(c, reloc(plan->late[k].node), value[2 * Plan::MaxNodes + k]);
  for (unsigned j = 0; j < levels; ++j) {
    const detail::Level &l = level[j];
    Loc n = nodeOf(l.meets);
    unsigned dead = 0;
    for (unsigned i = 0; i < 2; ++i) {
      Term mine = slots[2 * l.node + i];
      if (int(i) == l.next) {
        ++dead; // its node is the next level's
        continue;
      }
      if (auxPositive(l.tag, i)) {
        dead += move(c, slotOf(n, i), reloc(mine));
      } else {
        ++dead;
        // A node or an eraser waits there for the value, unless the plan
        // evaluated it with the value.
        if (tagOf(mine) != tag::Sub &&
            !(Planned && isNodeTag(tagOf(mine)) && detail::isEvaluated(locs[payloadOf(mine)])))
          link(c, reloc(mine), l.arg[i]);
      }
    }
    c.count(Rule::Anni);
    detail::finishNode(c, n, dead);
  }
  return 0;
}

/// Makes `def`'s plan (see Plan), if a fully fused call of it can compute
/// anything while copying, and sets DefInfo::plan. The chain is the one
/// expand fuses when every level continues through its first positive slot
/// that holds a node; each negative slot of it that holds a duplication or
/// an operator is an argument. A number meeting a duplication counts an
/// ERAS and goes to both slots; meeting an operator whose operand is known
/// (a literal, an argument, or a slot evaluated before) it counts an OPER,
/// two when the built operator would find its operand through a variable
/// (interactOper), and the result goes on; meeting an eraser or a negative
/// number it counts a VOID. A number in a slot a variable points at is what
/// that variable becomes (reloc); a node of another kind, or an operator
/// whose operand is never known, is built and linked with its number after
/// the copy (Plan::late), as the interaction that reached it would have.
inline void planNumbers(DefInfo &def, const Term *bookSlots, std::vector<Plan> &plans) {
  def.plan = 0;
  const Term *slots = bookSlots + def.firstSlot;
  Plan p;
  const FusedChain chain = fusedChain(slots, def.root);
  const uint32_t *levelNode = chain.node;
  const uint8_t *levelTag = chain.tag;
  p.levels = chain.levels;
  p.nextBits = chain.nextBits;
  bool seeds = false;
  for (unsigned j = 0; j < chain.levels; ++j)
    for (unsigned i = 0; i < 2; ++i)
      seeds |= !auxPositive(levelTag[j], i) && detail::feedable(slots[2 * levelNode[j] + i]);
  if (!seeds)
    return;
  auto levelOf = [&](uint32_t node) {
    for (unsigned j = 0; j < p.levels; ++j)
      if (levelNode[j] == node)
        return int(j);
    return -1;
  };

  // Symbolic evaluation over registers.
  constexpr uint8_t None = Plan::NoReg;
  bool overflow = false;
  unsigned regs = 0;
  std::vector<uint8_t> argRegOf(2 * p.levels, None);
  std::vector<int> evalOf(def.nodeCount, -1);
  struct Feed {
    Term node;
    uint8_t reg;
    bool orphan; // reached through an evaluated node: linked by nobody else
  };
  struct Parked {
    Feed feed;
    uint64_t slot;
  };
  std::vector<Feed> work, late;
  std::vector<Parked> parked;
  struct OpDraft {
    uint8_t dst, in, operand, throughVar;
  };
  std::vector<OpDraft> ops;
  std::vector<std::pair<uint8_t, Term>> constants; // register, literal
  std::vector<std::array<uint8_t, 2>> nodeRegs;
  std::vector<uint32_t> evaluatedNodes;
  unsigned eras = 0, voids = 0;
  // Registers are numbered as they appear; renumbered below so that the
  // arguments come first, then the constants, then the results.
  auto argReg = [&](unsigned lvl, unsigned i) {
    uint8_t &r = argRegOf[2 * lvl + i];
    if (r == None)
      r = uint8_t(regs++);
    return r;
  };
  auto giveUp = [&](const Feed &f) {
    if (f.orphan)
      late.push_back(f);
  };
  auto deliver = [&](uint64_t s, unsigned k, uint8_t reg) {
    Term there = slots[s];
    if (isNodeTag(tagOf(there))) {
      work.push_back({there, reg, true});
      return;
    }
    if (!isSub(there)) {
      ++voids; // an eraser or a negative number
      return;
    }
    nodeRegs[k][s & 1] = reg;
    for (size_t q = 0; q < parked.size(); ++q)
      if (parked[q].slot == s) {
        work.push_back(parked[q].feed);
        parked.erase(parked.begin() + std::ptrdiff_t(q));
        return;
      }
  };
  auto step = [&](Feed f) {
    uint32_t t = uint32_t(payloadOf(f.node));
    if (evaluatedNodes.size() == Plan::MaxNodes) {
      overflow = true; // too large a plan; this also keeps registers below 256
      return;
    }
    auto evaluate = [&] {
      evalOf[t] = int(evaluatedNodes.size());
      evaluatedNodes.push_back(t);
      nodeRegs.push_back({None, None});
      return unsigned(evalOf[t]);
    };
    if (tagOf(f.node) == tag::Dup) {
      unsigned k = evaluate();
      ++eras;
      deliver(2 * uint64_t(t), k, f.reg);
      deliver(2 * uint64_t(t) + 1, k, f.reg);
      return;
    }
    if (tagOf(f.node) != tag::Opr)
      return giveUp(f);
    Term operand = slots[2 * t];
    uint8_t b;
    uint8_t throughVar = 0;
    if (tagOf(operand) == tag::Num) {
      b = uint8_t(regs++);
      constants.push_back({b, operand});
    } else if (tagOf(operand) == tag::Var) {
      uint64_t s = payloadOf(operand);
      uint32_t owner = uint32_t(s >> 1);
      if (int lvl = levelOf(owner); lvl >= 0) {
        // Relocated to the argument itself, which the built operator finds
        // through the variable.
        b = argReg(unsigned(lvl), unsigned(s & 1));
        throughVar = 1;
      } else if (evalOf[owner] >= 0) {
        b = nodeRegs[unsigned(evalOf[owner])][s & 1];
        throughVar = 1;
      } else {
        parked.push_back({f, s}); // until that slot is evaluated
        return;
      }
    } else {
      return giveUp(f);
    }
    unsigned k = evaluate();
    uint8_t dst = uint8_t(regs++);
    ops.push_back({dst, f.reg, b, throughVar});
    deliver(2 * uint64_t(t) + 1, k, dst);
  };
  for (unsigned lvl = 0; lvl < p.levels; ++lvl)
    for (unsigned i = 0; i < 2; ++i) {
      Term t = slots[2 * levelNode[lvl] + i];
      if (auxPositive(levelTag[lvl], i) || !detail::feedable(t))
        continue;
      work.push_back({t, argReg(lvl, i), false});
      while (!work.empty() && !overflow) {
        Feed f = work.back();
        work.pop_back();
        step(f);
      }
    }
  for (const Parked &q : parked)
    giveUp(q.feed);
  if (overflow || evaluatedNodes.empty())
    return;

  // Renumber: arguments, constants, results.
  std::vector<uint8_t> renum(regs, None);
  unsigned next = 0;
  for (unsigned a = 0; a < 2 * p.levels; ++a)
    if (argRegOf[a] != None) {
      if (p.argCount == Plan::MaxArgs)
        overflow = true;
      else
        p.arg[p.argCount++] = uint8_t(a);
      renum[argRegOf[a]] = uint8_t(next++);
    }
  for (auto &[r, literal] : constants) {
    if (p.constCount == Plan::MaxConsts)
      overflow = true;
    else
      p.constant[p.constCount++] = literal;
    renum[r] = uint8_t(next++);
  }
  for (const OpDraft &o : ops)
    renum[o.dst] = uint8_t(next++);
  overflow |= ops.size() > Plan::MaxOps || evaluatedNodes.size() > Plan::MaxNodes ||
              late.size() > Plan::MaxLate || next > Plan::MaxRegs || eras > 255 || voids > 255;
  if (overflow)
    return;
  for (const OpDraft &o : ops)
    p.op[p.opCount++] = {renum[o.dst], renum[o.in], renum[o.operand], o.throughVar};
  for (size_t k = 0; k < evaluatedNodes.size(); ++k) {
    Plan::Node &n = p.node[p.nodeCount++];
    n.node = evaluatedNodes[k];
    for (unsigned i = 0; i < 2; ++i)
      n.reg[i] = nodeRegs[k][i] == None ? None : renum[nodeRegs[k][i]];
  }
  for (const Feed &f : late)
    p.late[p.lateCount++] = {f.node, renum[f.reg]};
  p.eras = uint8_t(eras);
  p.voids = uint8_t(voids);
  plans.push_back(p);
  def.plan = uint32_t(plans.size());
}

/// The most nodes an arm of a numeric switch may have (DefInfo::switchArm).
inline constexpr unsigned MaxArmNodes = 16;

/// The template nodes of the tree whose root is the node `root`, parents
/// before children; 0 when they are more than MaxArmNodes.
BENDC_HD unsigned treeNodes(const Term *slots, Term root, uint32_t (&ids)[MaxArmNodes]) {
  unsigned n = 0;
  ids[n++] = uint32_t(payloadOf(root));
  for (unsigned k = 0; k < n; ++k)
    for (unsigned i = 0; i < 2; ++i) {
      Term t = slots[2 * ids[k] + i];
      if (!isNodeTag(tagOf(t)))
        continue;
      if (n == MaxArmNodes)
        return 0;
      ids[n++] = uint32_t(payloadOf(t));
    }
  return n;
}

/// switchArmsOf's answer for a root of another shape.
inline constexpr uint64_t NoArms = ~uint64_t(0);

/// A numeric switch on the first argument, `λn (switch n { 0: z; _: s })` as
/// HVM2 writes it: `root` is a λ whose variable is a switch and whose body is
/// the switch's result, and the switch's cases are a pair. Returns the pair's
/// node in the template `slots` (of `nodeCount` nodes), or NoArms.
inline uint64_t switchArmsOf(const Term *slots, uint64_t nodeCount, Term root) {
  auto isNode = [&](Term t, uint8_t tg) { return tagOf(t) == tg && payloadOf(t) < nodeCount; };
  if (!isNode(root, tag::Lam))
    return NoArms;
  Term swi = slots[2 * payloadOf(root)], body = slots[2 * payloadOf(root) + 1];
  if (!isNode(swi, tag::Swi))
    return NoArms;
  if (body != varTerm(2 * payloadOf(swi) + 1) || !isSub(slots[2 * payloadOf(swi) + 1]))
    return NoArms;
  Term tup = slots[2 * payloadOf(swi)];
  return isNode(tup, tag::Tup) ? payloadOf(tup) : NoArms;
}

/// Recognises a numeric switch (DefInfo::switchArm) in `def`'s template.
inline void analyzeSwitch(DefInfo &def, const Term *bookSlots) {
  const Term *slots = bookSlots + def.firstSlot;
  if (def.redexCount != 0)
    return;
  uint64_t tup = switchArmsOf(slots, def.nodeCount, def.root);
  if (tup == NoArms)
    return;
  for (unsigned a = 0; a < 2; ++a) {
    Term arm = slots[2 * tup + a];
    uint8_t at = tagOf(arm);
    if (at == tag::Ref || at == tag::Num || at == tag::Nul) {
      def.armNodes[a] = 0;
      def.armVoids[a] = 1;
      continue;
    }
    if (!isNodeTag(at))
      return;
    uint32_t ids[MaxArmNodes];
    unsigned n = treeNodes(slots, arm, ids);
    if (n == 0)
      return;
    // Closed: every variable points at a SUB slot of one of the arm's nodes.
    unsigned leaves = 0, vars = 0, subs = 0;
    for (unsigned k = 0; k < n; ++k)
      for (unsigned i = 0; i < 2; ++i) {
        Term t = slots[2 * ids[k] + i];
        uint8_t tt = tagOf(t);
        if (isNodeTag(tt))
          continue;
        if (tt == tag::Sub) {
          ++subs;
        } else if (tt == tag::Var) {
          ++vars;
          bool inside = false;
          for (unsigned j = 0; j < n; ++j)
            inside |= ids[j] == payloadOf(t) >> 1;
          if (!inside)
            return;
        } else {
          ++leaves; // a number, a reference or an eraser
        }
      }
    if (vars != subs)
      return;
    def.armNodes[a] = uint8_t(n);
    def.armVoids[a] = uint8_t(leaves + vars);
  }
  for (unsigned a = 0; a < 2; ++a)
    def.switchArm[a] = slots[2 * tup + a];
}

/// Builds an arm of a numeric switch from its template: fresh nodes, or the
/// leaf itself.
template <class Ctx> BENDC_HD Term buildArm(Ctx &c, const Term *slots, Term arm) {
  if (!isNodeTag(tagOf(arm)))
    return arm;
  uint32_t ids[MaxArmNodes];
  Loc at[MaxArmNodes];
  unsigned n = treeNodes(slots, arm, ids); // never 0: analyzeSwitch bounded the arm
  if (n == 0)
    __builtin_unreachable();
  for (unsigned k = 0; k < n; ++k)
    at[k] = c.alloc();
  auto locOf = [&](uint64_t id) {
    for (unsigned k = 0; k < n; ++k)
      if (ids[k] == id)
        return at[k];
    return at[0]; // unreachable: analyzeSwitch checked the arm is closed
  };
  for (unsigned k = 0; k < n; ++k)
    for (unsigned i = 0; i < 2; ++i) {
      Term t = slots[2 * ids[k] + i];
      uint8_t tt = tagOf(t);
      if (isNodeTag(tt))
        t = nodeTerm(tt, locOf(payloadOf(t)));
      else if (tt == tag::Var)
        t = varTerm(slotOf(locOf(payloadOf(t) >> 1), unsigned(payloadOf(t) & 1)));
      c.store(slotOf(at[k], i), t);
    }
  return nodeTerm(tagOf(arm), at[0]);
}

/// A call of a numeric switch whose number is already in the application:
/// the arm is chosen now. HVM2 builds the λ and the switch and its pair of
/// arms; the same interactions are counted: the call, the λ meeting the
/// application, the switch, the pair taken apart and the erasure of the
/// other arm. The application itself is reused as the successor arm's
/// application to the predecessor. When the number is still on its way the
/// context may take the call to run later (`deferCall`). False (nothing
/// done) when the call must go the general way.
/// True while the number a call of a numeric switch applies to is still on
/// its way: the application's argument is a substitution entry not yet
/// filled. A context that put the call off (`deferCall`) asks this to know
/// when running it would take the direct path.
template <class Ctx> BENDC_HD bool callAwaitsNumber(Ctx &c, Term app) {
  Term arg = plainVar(c.load(slotOf(nodeOf(app), 0)));
  return tagOf(arg) == tag::Var && tagOf(c.load(payloadOf(arg))) == tag::Sub;
}

template <class Ctx> BENDC_HD bool switchCall(Ctx &c, const DefInfo &def, Term app, Term ref) {
  Loc n = nodeOf(app);
  // Claimed (detail::take) while it is looked at, and put back unless the
  // call goes this way: the application is consumed by whichever way it goes.
  const Term held = detail::take(c, slotOf(n, 0));
  auto putBack = [&] {
    if constexpr (WritesThrough<Ctx>)
      c.store(slotOf(n, 0), held);
  };
  Term arg = held;
  bool entry = tagOf(arg) == tag::Var; // read from a substitution entry, which dies
  Loc entrySlot = payloadOf(arg);
  if (entry && !ownsSlot(c, entrySlot)) {
    putBack();
    return false; // the number is read where it is, by the general way
  }
  if (entry)
    arg = c.load(entrySlot);
  // The number is on its way: the context may run the call later.
  if (entry && tagOf(arg) == tag::Sub && c.deferCall(app, ref)) {
    putBack();
    return true;
  }
  // A reference to a definition that is a number (a constructor's tag, as
  // Bend writes one) is that number, one more call counted.
  bool numberDef = false;
  if (tagOf(arg) == tag::Ref) {
    const DefInfo &d = c.defs[refOf(arg)];
    if (d.nodeCount != 0 || d.redexCount != 0 || tagOf(d.root) != tag::Num) {
      putBack();
      return false;
    }
    arg = d.root;
    numberDef = true;
  }
  if (tagOf(arg) != tag::Num) {
    putBack();
    return false;
  }
  if (entry)
    detail::killSlot(c, entrySlot);
  uint32_t v = num::u24Of(numOf(arg));
  unsigned chosen = v == 0 ? 0 : 1, other = 1 - chosen;
  if (numberDef)
    c.count(Rule::Call);
  c.count(Rule::Call);
  c.count(Rule::Anni);
  c.count(Rule::Swit);
  c.count(Rule::Anni);
  for (unsigned k = 0; k < def.armNodes[other]; ++k)
    c.count(Rule::Eras);
  for (unsigned k = 0; k < def.armVoids[other]; ++k)
    c.count(Rule::Void);
  Term arm = buildArm(c, c.bookSlots + def.firstSlot, def.switchArm[chosen]);
  if (v == 0) {
    detail::finishNode(c, n, 1 + move(c, slotOf(n, 1), arm));
    return true;
  }
  c.store(slotOf(n, 0), numTerm(num::makeU24(v - 1)));
  link(c, app, arm);
  return true;
}

template <class Ctx> BENDC_HD void interactCall(Ctx &c, Term neg, Term ref) {
  const DefInfo &def = c.defs[refOf(ref)];
  uint8_t nt = tagOf(neg);
  if (nt == tag::App && def.switchArm[0] && switchCall(c, def, neg, ref))
    return;
  if (nt == tag::Dup && def.safe) {
    // HVM2's shortcut: a definition without DUPs is copied, not expanded.
    c.count(Rule::Eras);
    Loc n = nodeOf(neg);
    detail::finishNode(c, n, spill(c, nt, n, [](unsigned) { return eraTerm(); },
                                   [ref](unsigned) { return ref; }));
    return;
  }
  c.count(Rule::Call);
  if (callFuses(nt, def)) {
    if (def.plan)
      expand<true>(c, refOf(ref), neg);
    else
      expand(c, refOf(ref), neg);
    return;
  }
  link(c, neg, expand(c, refOf(ref)));
}

/// A leaf (an eraser or a number) meets a node: as in HVM2, each port of the
/// node receives a copy of the leaf, in the port's polarity (the leaf itself
/// or its twin).
template <class Ctx> BENDC_HD void interactEras(Ctx &c, Term neg, Term pos) {
  c.count(Rule::Eras);
  bool leafNeg = !isNode(neg);
  Term node = leafNeg ? pos : neg;
  Term negLeaf = leafNeg ? neg : flipLeaf(pos), posLeaf = leafNeg ? flipLeaf(neg) : pos;
  Loc n = nodeOf(node);
  detail::finishNode(c, n, spill(c, tagOf(node), n, [negLeaf](unsigned) { return negLeaf; },
                                 [posLeaf](unsigned) { return posLeaf; }));
}

// Clashes. HVM2 has one node kind for λ, application and pair, and joins
// any two ports. A program that applies a pair, or takes a λ apart, joins two
// positive terms (two values) or two negative ones (two consumers, or two
// places that wait for values) here. Leaves turn into their twins; a value
// that meets a variable waits in the variable's place (a pending term) for
// the place's own value; two places forward one to the other; two nodes of
// one kind annihilate port by port, two of different kinds commute. A
// reference meeting a node, and the levels of a clash below MaxClashDepth,
// are put off: a JOIN node holding one value becomes a redex with the other
// (the reference is then expanded by the usual call, and the join starts
// over at level 0). Nothing is left that stops the run.

/// The most levels of nested nodes one clash joins before it puts the rest
/// off (a bound on the recursion, which a GPU thread's stack needs).
inline constexpr unsigned MaxClashDepth = 8;

/// The stack a GPU thread is given (cudaLimitStackSize). The compiler cannot
/// size a recursion, and a clash recurses: joinValues, joinNodes, commuteNodes,
/// spill and move call each other, each level taking 160 to 520 bytes of
/// stack on sm_90 (`-Xptxas -v`), on top of the kernel's own 1.1 KiB. CUDA's
/// default of 1 KiB overflowed at the first level; 16 KiB holds the kernel and
/// MaxClashDepth levels of the costliest cycle with room to spare, and costs
/// this much per resident thread (4.1 GiB on a 132-SM H200).
inline constexpr size_t DeviceStackBytes = size_t(16) << 10;

namespace detail {

/// Joins two negative slots of consumed nodes (two places that wait for
/// values, each the end of a wire): from now on the first forwards to the
/// second; what already came to the first goes on to the second. Adds the
/// slots that died to the counts.
template <class Ctx> BENDC_HD void joinPlaces(Ctx &c, Loc sa, Loc sb, unsigned &deadA, unsigned &deadB) {
  Term a = c.exchange(sa, varTerm(sb));
  if (isSub(a))
    return; // whoever comes to `sa` is sent on to `sb`
  ++deadA;
  if (isValueOrPending(a))
    deadB += move(c, sb, unpend(a)); // a value waited there
  else
    link(c, a, varTerm(sb)); // a consumer (a leaf too): it waits at `sb` now, or meets what is there
}

/// Two nodes of different kinds and one polarity: each is copied past the
/// other as in interactComm. Every wire between the copies then joins two
/// values or two places: two values meet in a cell (a slot that both ends
/// exchange into; the second to come finds the first), and of two places one
/// forwards to the other.
template <class Ctx> BENDC_HD void commuteNodes(Ctx &c, Term a, Term b) {
  if (!c.reserve(6))
    return c.fault(Fault::NoMemory, a, b);
  c.count(Rule::Comm);
  uint8_t at = tagOf(a), bt = tagOf(b);
  Loc na = nodeOf(a), nb = nodeOf(b);
  auto copyTag = [](uint8_t t, bool positive) { return isPositiveTag(t) == positive ? t : twinTag(t); };
  Loc ac[2] = {c.alloc(), c.alloc()}; // copies of a, placed at b's slot i
  Loc bc[2] = {c.alloc(), c.alloc()}; // copies of b, placed at a's slot j
  uint8_t act[2], bct[2];
  for (unsigned i = 0; i < 2; ++i) {
    act[i] = copyTag(at, !auxPositive(bt, i));
    bct[i] = copyTag(bt, !auxPositive(at, i));
  }
  Loc cells = 0;
  unsigned used = 0;
  for (unsigned i = 0; i < 2; ++i)
    for (unsigned j = 0; j < 2; ++j) {
      Loc x = slotOf(ac[i], j), y = slotOf(bc[j], i);
      if (auxPositive(act[i], j)) {
        if (used % 2 == 0)
          cells = c.alloc();
        Loc cell = slotOf(cells, used++ % 2);
        c.store(cell, subTerm());
        c.store(x, varTerm(cell));
        c.store(y, varTerm(cell));
      } else {
        c.store(x, varTerm(y));
        c.store(y, subTerm());
      }
    }
  if (used % 2 == 1)
    killSlot(c, slotOf(cells, 1)); // the cell node's other slot is not used
  unsigned deadB = spill(c, bt, nb, [&](unsigned i) { return nodeTerm(act[i], ac[i]); },
                         [&](unsigned i) { return nodeTerm(act[i], ac[i]); });
  unsigned deadA = spill(c, at, na, [&](unsigned j) { return nodeTerm(bct[j], bc[j]); },
                         [&](unsigned j) { return nodeTerm(bct[j], bc[j]); });
  finishNode(c, nb, deadB);
  finishNode(c, na, deadA);
}

/// Puts the join of value `a` with `b` (a value or a JOIN's variable) off: a
/// JOIN node holds `a` and is linked with `b`. takeJoin reads it back.
template <class Ctx> BENDC_HD void putOff(Ctx &c, Term a, Term b) {
  if (!c.reserve(1))
    return c.fault(Fault::NoMemory, a, b);
  Loc j = c.alloc();
  c.store(slotOf(j, 0), a);
  c.store(slotOf(j, 1), eraTerm());
  link(c, nodeTerm(tag::Join, j), b);
}

/// The value a JOIN node held (see putOff); the node is freed.
template <class Ctx> BENDC_HD Term takeJoin(Ctx &c, Term join) {
  Loc j = nodeOf(join);
  Term v = take(c, slotOf(j, 0));
  c.release(j);
  return v;
}

/// Two nodes of one kind and one polarity: their ports join pairwise.
template <class Ctx> BENDC_HD void joinNodes(Ctx &c, Term a, Term b, unsigned depth) {
  if constexpr (SplitNet<Ctx>)
    if (!c.ownsNode(nodeOf(a)) || !c.ownsNode(nodeOf(b)))
      return c.putOffJoin(a, b, depth, /*consumers=*/false);
  uint8_t at = tagOf(a), bt = tagOf(b);
  if (kindOf(at) != kindOf(bt))
    return commuteNodes(c, a, b);
  c.count(Rule::Anni);
  Loc na = nodeOf(a), nb = nodeOf(b);
  unsigned deadA = 0, deadB = 0;
  for (unsigned i = 0; i < 2; ++i) {
    Loc sa = slotOf(na, i), sb = slotOf(nb, i);
    bool pa = auxPositive(at, i), pb = auxPositive(bt, i);
    if (pa && pb) {
      joinValues(c, take(c, sa), take(c, sb), depth + 1);
      ++deadA;
      ++deadB;
    } else if (pa) {
      ++deadA;
      deadB += move(c, sb, take(c, sa));
    } else if (pb) {
      ++deadB;
      deadA += move(c, sa, take(c, sb));
    } else {
      joinPlaces(c, sa, sb, deadA, deadB);
    }
  }
  finishNode(c, na, deadA);
  finishNode(c, nb, deadB);
}

} // namespace detail

/// Joins two values (positive terms) as HVM2 joins two ports. `depth` counts
/// the clash's levels.
template <class Ctx> BENDC_HD_CALL void joinValues(Ctx &c, Term a, Term b, unsigned depth) {
  for (;;) {
    if (tagOf(a) != tag::Var && tagOf(b) == tag::Var) {
      Term t = a;
      a = b;
      b = t;
    }
    if (tagOf(a) == tag::Var) {
      // `b` waits in the variable's place for the value that comes there, or
      // meets what is there already.
      Loc slot = payloadOf(a);
      if constexpr (SplitNet<Ctx>)
        if (!c.ownsSlot(slot))
          return c.sendJoin(a, b, depth);
      Term got = c.exchange(slot, pendingTerm(b));
      if (isSub(got))
        return;
      detail::killSlot(c, slot);
      if (!isValueOrPending(got))
        return link(c, got, b); // a consumer waited there
      a = unpend(got);
      continue;
    }
    if (Term fa = flipLeaf(a))
      return link(c, fa, b);
    if (Term fb = flipLeaf(b))
      return link(c, fb, a);
    bool aRef = tagOf(a) == tag::Ref, bRef = tagOf(b) == tag::Ref;
    if (aRef && bRef) {
      c.count(Rule::Void);
      return;
    }
    if (aRef)
      return detail::putOff(c, b, a); // HVM2 expands the reference first
    if (bRef)
      return detail::putOff(c, a, b);
    if (depth >= MaxClashDepth)
      return detail::putOff(c, a, b);
    return detail::joinNodes(c, a, b, depth);
  }
}

/// Joins two negative terms (two consumers) as HVM2 joins two ports.
template <class Ctx> BENDC_HD_CALL void joinConsumers(Ctx &c, Term a, Term b, unsigned depth) {
  // A JOIN consumes as its value would: that value meets the other.
  if (tagOf(b) == tag::Join) {
    Term t = a;
    a = b;
    b = t;
  }
  if constexpr (SplitNet<Ctx>)
    if (tagOf(a) == tag::Join && !c.ownsNode(nodeOf(a)))
      return c.putOffJoin(a, b, depth, /*consumers=*/true);
  if (tagOf(a) == tag::Join)
    return link(c, b, detail::takeJoin(c, a));
  if (Term fa = flipLeaf(a))
    return link(c, b, fa);
  if (Term fb = flipLeaf(b))
    return link(c, a, fb);
  detail::joinNodes(c, a, b, depth);
}

namespace detail {

/// interactAnni's rare cases, out of line: a join put off (see putOff)
/// resumes at level 0; nodes whose first ports clash (a pair applied as a
/// function, a λ taken apart as a pair) join those ports as HVM2 does
/// (see joinValues), the second ones as usual.
template <class Ctx> BENDC_HD_CALL void anniRare(Ctx &c, Term neg, Term pos) {
  uint8_t nt = tagOf(neg), pt = tagOf(pos);
  if (nt == tag::Join)
    return joinValues(c, takeJoin(c, neg), pos, 0);
  c.count(Rule::Anni);
  Loc n = nodeOf(neg), p = nodeOf(pos);
  unsigned deadN = 0, deadP = 0;
  Loc sn = slotOf(n, 0), sp = slotOf(p, 0);
  if (auxPositive(pt, 0)) {
    deadN = deadP = 1;
    joinValues(c, take(c, sn), take(c, sp), 0);
  } else {
    joinPlaces(c, sn, sp, deadN, deadP);
  }
  Term v = take(c, slotOf(p, 1));
  ++deadP;
  deadN += move(c, slotOf(n, 1), v);
  finishNode(c, n, deadN);
  finishNode(c, p, deadP);
}

} // namespace detail

template <class Ctx> BENDC_HD void interactAnni(Ctx &c, Term neg, Term pos) {
  uint8_t nt = tagOf(neg), pt = tagOf(pos);
  if (BENDC_RARE(nt == tag::Join || auxPositive(nt, 0) == auxPositive(pt, 0)))
    return detail::anniRare(c, neg, pos);
  c.count(Rule::Anni);
  Loc n = nodeOf(neg), p = nodeOf(pos);
  unsigned deadN = 0, deadP = 0;
  for (unsigned i = 0; i < 2; ++i) {
    if (auxPositive(pt, i)) {
      Term v = detail::take(c, slotOf(p, i));
      ++deadP;
      deadN += move(c, slotOf(n, i), v);
    } else {
      Term v = detail::take(c, slotOf(n, i));
      ++deadN;
      deadP += move(c, slotOf(p, i), v);
    }
  }
  detail::finishNode(c, n, deadN);
  detail::finishNode(c, p, deadP);
}

namespace detail {

/// interactComm's work for negative node `n` tagged `nt` and positive node
/// `p` tagged `pt`; inlined, so that where the tags are constants every
/// polarity below is decided when compiling.
template <class Ctx> BENDC_HD_HOT void commute(Ctx &c, uint8_t nt, Loc n, uint8_t pt, Loc p) {
  uint8_t nct[2], pct[2];
  for (unsigned i = 0; i < 2; ++i) {
    nct[i] = auxPositive(pt, i) ? nt : twinTag(nt);
    pct[i] = auxPositive(nt, i) ? twinTag(pt) : pt;
  }
  // A leaf in a positive slot of one node would meet a duplication: the
  // other node's copy placed there, whose two slots are wired to the same
  // slot of this node's two copies. A number, an eraser, or a reference to
  // a definition a duplication copies (DefInfo::safe) is written into those
  // two slots instead, the duplication is never built, and its interaction
  // (Rule::Eras) is counted here. Only one of the nodes can be a
  // duplication, so at most one side copies leaves. The copies' slots that
  // take one are positive: a superposition's slots are all positive, so
  // the other node's copies keep its tag (and a duplication's are all
  // negative, so a superposition's copies keep theirs). A number is marked
  // as having come through a variable (ThroughVarBit), as the duplication
  // would have left it: an operator counts the same interactions finding it.
  // In church_exp every commutation copies a successor's operand this way;
  // each was a node built, a number moved into it twice, and two reads
  // through variables.
  auto copiedLeaf = [&](Loc slot, Term &leaf) {
    Term v = c.load(slot);
    uint8_t t = tagOf(v);
    if (t != tag::Num && t != tag::Nul && !(t == tag::Ref && c.defs[refOf(v)].safe))
      return false;
    c.count(Rule::Eras);
    leaf = throughVar(v);
    return true;
  };
  Term leaf[2] = {0, 0};
  unsigned copiedN = 0, copiedP = 0; // slots of n (of p) whose leaf is copied
  for (unsigned j = 0; j < 2; ++j)
    if (pct[j] == tag::Dup && auxPositive(nt, j) && copiedLeaf(slotOf(n, j), leaf[j]))
      copiedN |= 1u << j;
  for (unsigned i = 0; i < 2 && copiedN == 0; ++i)
    if (nct[i] == tag::Dup && auxPositive(pt, i) && copiedLeaf(slotOf(p, i), leaf[i]))
      copiedP |= 1u << i;
  Loc nc[2], pc[2]; // copies of neg, placed at pos's slot i; of pos, at neg's slot j
  for (unsigned i = 0; i < 2; ++i) {
    nc[i] = copiedP >> i & 1 ? 0 : c.alloc();
    pc[i] = copiedN >> i & 1 ? 0 : c.alloc();
  }
  // Wire nc[i].aux[j] with pc[j].aux[i]: the negative end holds SUB, the
  // positive end a VAR pointing at it. The SUB does not say where the VAR
  // is (see subTerm): church_exp's 28.7 million values that arrive here are
  // each read within a few interactions, and writing them into the VAR's
  // place first cost it 13%.
  for (unsigned i = 0; i < 2; ++i)
    for (unsigned j = 0; j < 2; ++j) {
      Loc a = slotOf(nc[i], j), b = slotOf(pc[j], i);
      if (copiedN >> j & 1) {
        c.store(a, leaf[j]);
      } else if (copiedP >> i & 1) {
        c.store(b, leaf[i]);
      } else if (auxPositive(nct[i], j)) {
        c.store(a, varTerm(b));
        c.store(b, subTerm());
      } else {
        c.store(a, subTerm());
        c.store(b, varTerm(a));
      }
    }
  // Order: the positive node's slots first to second, then the negative
  // node's second to first. The last redex pushed runs first, so this
  // decides which copies exist while a value waits for them. In church_exp
  // the successor meets superpositions `{u1 {u2 u3}}` of a numeral's three
  // uses, the innermost numeral's at the root: the chain of steps wants a
  // copy from each of u1, u2, u3 in turn. Building u1's copies last, the
  // number goes through them as they are built, with u2's and u3's already
  // waiting; built first, they wait for the rest. Of the 24 orders of the
  // four slots this one alone keeps church_exp's net at two thirds of its
  // successor steps: 9.6 million nodes at the peak, against 12.0 and 14.4
  // million (PERF.md, "The first use's copies last"); 4.8 million since its
  // operands are copied at once (above).
  unsigned deadP = spill<false>(
      c, pt, p, [&](unsigned i) { return nodeTerm(nct[i], nc[i]); },
      [&](unsigned i) { return nodeTerm(nct[i], nc[i]); }, copiedP);
  unsigned deadN = spill<true>(
      c, nt, n, [&](unsigned j) { return nodeTerm(pct[j], pc[j]); },
      [&](unsigned j) { return nodeTerm(pct[j], pc[j]); }, copiedN);
  finishNode(c, p, deadP);
  finishNode(c, n, deadN);
}

} // namespace detail

/// Two nodes of different kinds: two copies of each, the copies of the
/// negative node go where the positive node's ports were and vice versa. A copy
/// placed in a negative slot is its kind's positive twin.
template <class Ctx> BENDC_HD void interactComm(Ctx &c, Term neg, Term pos) {
  c.count(Rule::Comm);
  uint8_t nt = tagOf(neg), pt = tagOf(pos);
  Loc n = nodeOf(neg), p = nodeOf(pos);
  // The pairs programs meet most, each compiled with its tags known: an
  // operator or an application meeting a superposition (a shared function
  // applied, a shared numeral's steps), a duplication meeting a function or
  // a pair. church_exp's commutations are all operator-superposition ones;
  // the generic code decided each polarity at run time, about a third of a
  // commutation's instructions.
  switch (unsigned(nt) << 8 | pt) {
  case unsigned(tag::Opr) << 8 | tag::Sup: return detail::commute(c, tag::Opr, n, tag::Sup, p);
  case unsigned(tag::App) << 8 | tag::Sup: return detail::commute(c, tag::App, n, tag::Sup, p);
  case unsigned(tag::Dup) << 8 | tag::Lam: return detail::commute(c, tag::Dup, n, tag::Lam, p);
  case unsigned(tag::Dup) << 8 | tag::Tup: return detail::commute(c, tag::Dup, n, tag::Tup, p);
  default: return detail::commute(c, nt, n, pt, p);
  }
}

namespace detail {

/// The operator's positive twin +(-operand +result) (a copy of an operator
/// placed where a value is consumed) meets a number's twin: as HVM2's OPR
/// with all polarities flipped. Its operand is a place another wire writes,
/// so when no number waits there a new node takes the number there.
template <class Ctx> BENDC_HD_CALL void operTwin(Ctx &c, Term numN, Term twin) {
  Loc n = nodeOf(twin);
  Numb a = numOf(numN);
  Term operand = c.load(slotOf(n, 0)), result = take(c, slotOf(n, 1));
  if (tagOf(operand) == tag::NumN) {
    c.release(n); // the number waiting there is read, the result slot too
    link(c, numNTerm(num::operate(a, numOf(operand))), result);
    return;
  }
  Loc m = c.alloc();
  c.store(slotOf(m, 0), numN);
  c.store(slotOf(m, 1), result);
  finishNode(c, n, 1 + move(c, slotOf(n, 0), nodeTerm(tagOf(twin), m)));
}

/// The switch's positive twin +(-branches +result) meets a number's twin as
/// HVM2's switch does: the branches receive a pair (result, *) for zero, and
/// (*, λ(predecessor result)) otherwise.
template <class Ctx> BENDC_HD_CALL void switTwin(Ctx &c, Term numN, Term twin) {
  Loc n = nodeOf(twin);
  uint32_t v = num::u24Of(numOf(numN));
  Term result = take(c, slotOf(n, 1));
  Loc pair = c.alloc();
  if (v == 0) {
    c.store(slotOf(pair, 0), result);
    c.store(slotOf(pair, 1), nulTerm());
  } else {
    Loc lam = c.alloc();
    c.store(slotOf(lam, 0), numNTerm(num::makeU24(v - 1)));
    c.store(slotOf(lam, 1), result);
    c.store(slotOf(pair, 0), nulTerm());
    c.store(slotOf(pair, 1), nodeTerm(tag::Lam, lam));
  }
  finishNode(c, n, 1 + move(c, slotOf(n, 0), nodeTerm(tag::Tup, pair)));
}

} // namespace detail

/// A number meets an operator node -(+operand -result). If the operand is
/// already a number the operation happens now; otherwise the operator waits
/// for it: the same node, now holding this number, is linked with the operand.
/// Reusing the node keeps its result slot where the result's wire points, so a
/// loop does not grow a chain of forwarding variables.
/// (The operator's positive twin: detail::operTwin.) `AtLink`: called by
/// link (see HandlesNumbersAtLink), with an operator node; what the result
/// or the operand meets is pushed, never run here.
template <bool AtLink, class Ctx> BENDC_HD void interactOper(Ctx &c, Term opr, Term num_) {
  c.count(Rule::Oper);
  if (!AtLink && BENDC_RARE(tagOf(opr) == tag::NumN))
    return detail::operTwin(c, opr, num_);
  Loc n = nodeOf(opr);
  Term operand = detail::take(c, slotOf(n, 0));
  Numb a = numOf(num_);
  if (tagOf(operand) == tag::Num) {
    // A number put where the built net holds a variable: the operator would
    // have waited for it, one more interaction (see ThroughVarBit).
    if (cameThroughVar(operand))
      c.count(Rule::Oper);
    detail::finishNode(c, n, 1 + move<!AtLink>(c, slotOf(n, 1), numTerm(num::operateCommon(a, numOf(operand)))));
    return;
  }
  c.store(slotOf(n, 0), numTerm(a));
  link<!AtLink>(c, opr, operand);
}

/// A number meets a switch -(+branches -result). The branches are a pair
/// (zero-case, successor-case); the zero-case goes to the result, or the
/// successor-case is applied to the predecessor. HVM2 does this by building a
/// node that takes the pair apart (one more interaction); when the branches
/// are already a pair that interaction happens here, counted the same way.
/// The switch node itself becomes the application, keeping the result slot.
/// (The switch's positive twin: detail::switTwin.)
template <class Ctx> BENDC_HD void interactSwit(Ctx &c, Term swi, Term num_) {
  c.count(Rule::Swit);
  if (BENDC_RARE(tagOf(swi) == tag::NumN))
    return detail::switTwin(c, swi, num_);
  Loc n = nodeOf(swi);
  Term branches = detail::take(c, slotOf(n, 0));
  uint32_t v = num::u24Of(numOf(num_));
  if (v != 0)
    c.store(slotOf(n, 0), numTerm(num::makeU24(v - 1)));
  Term app = nodeTerm(tag::App, n); // when v != 0: (predecessor result)
  if (tagOf(branches) == tag::Tup && ownsNode(c, nodeOf(branches))) {
    c.count(Rule::Anni);
    Loc b = nodeOf(branches);
    Term zero = detail::take(c, slotOf(b, 0)), succ = detail::take(c, slotOf(b, 1));
    c.release(b);
    if (v == 0) {
      link(c, eraTerm(), succ);
      detail::finishNode(c, n, 1 + move(c, slotOf(n, 1), zero));
    } else {
      link(c, eraTerm(), zero);
      link(c, app, succ);
    }
    return;
  }
  // The branches are still behind a wire: a node takes them apart on arrival.
  Loc u = c.alloc();
  c.store(slotOf(u, 0), v == 0 ? subTerm() : eraTerm());
  c.store(slotOf(u, 1), v == 0 ? eraTerm() : app);
  unsigned dead = v == 0 ? 1 + move(c, slotOf(n, 1), varTerm(slotOf(u, 0))) : 0;
  link(c, nodeTerm(tag::Unt, u), branches);
  if (v == 0)
    detail::finishNode(c, n, dead);
}

/// Performs one interaction `neg ~ pos`.
template <class Ctx> BENDC_HD void interact(Ctx &c, Term neg, Term pos, Rule rule) {
  switch (rule) {
  case Rule::Call: interactCall(c, neg, pos); return;
  case Rule::Void: c.count(Rule::Void); return;
  case Rule::Eras: interactEras(c, neg, pos); return;
  case Rule::Anni: interactAnni(c, neg, pos); return;
  case Rule::Comm: interactComm(c, neg, pos); return;
  case Rule::Oper: interactOper(c, neg, pos); return;
  case Rule::Swit: interactSwit(c, neg, pos); return;
  case Rule::Invalid: c.fault(Fault::BadRedex, neg, pos); return;
  }
}

/// The largest number of nodes one interaction may allocate, given the book.
inline uint32_t maxNodesPerInteraction(const Book &book) {
  uint32_t most = 4;
  for (const DefInfo &d : book.defs)
    most = d.nodeCount > most ? d.nodeCount : most;
  return most;
}

} // namespace bendc::rt
