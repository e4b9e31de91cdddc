// What a call that fuses along a definition's whole chain copies, worked out
// once per definition (buildCopyShapes) instead of on every call.
//
// A fused call (see expand in Interact.h) builds the template nodes that are
// neither fused with the caller nor evaluated by the definition's plan, and
// relocates every term it writes: a node term gets the node's new index, a
// variable the new index of its slot, or the caller's value when it points
// into a fused node, or a number the plan computed when it points into an
// evaluated node. Which of these applies to each term depends only on the
// definition and on the shape of the call: how many levels fuse, through
// which slots, and whether the plan ran. For the shape where the whole chain
// fuses (the common one: a function called with all its arguments) each term
// is worked out here as a step
//
//   term = base + (w[from] << shift)
//
// over one array `w` (the expansion scratch, laid out as in `shape` below):
// a constant is `base` alone, a node `tag + (index << 8)`, a variable
// `VAR + (slot << 8)` with slot = 2 * index + i, and a value from the caller
// or from the plan is `w[from]` itself. The copy then runs without a test per
// term; any other shape takes expand's general way.
#pragma once

#include "runtime/common/Book.h"
#include "runtime/common/Term.h"

#include <cstdint>
#include <vector>

namespace bendc::rt {

/// The most levels one expansion fuses (see expand).
inline constexpr unsigned MaxFusedLevels = 16;

/// A definition's chain as expand fuses it when every level continues: from
/// the root through the first positive slot of each level that holds a node.
struct FusedChain {
  uint8_t levels = 0;
  uint16_t nextBits = 0; // bit j: level j continues through its second slot
  uint32_t node[MaxFusedLevels] = {};
  uint8_t tag[MaxFusedLevels] = {};
};

/// The chain of the definition whose template slots are `slots` and whose
/// root is `root`.
inline FusedChain fusedChain(const Term *slots, Term root) {
  FusedChain ch;
  Term mine = root;
  while (isNodeTag(tagOf(mine)) && ch.levels < MaxFusedLevels) {
    uint32_t n = uint32_t(payloadOf(mine));
    ch.node[ch.levels] = n;
    ch.tag[ch.levels] = tagOf(mine);
    Term next = 0;
    for (unsigned i = 0; i < 2 && !next; ++i)
      if (auxPositive(tagOf(mine), i) && isNodeTag(tagOf(slots[2 * n + i]))) {
        next = slots[2 * n + i];
        ch.nextBits |= uint16_t(i << ch.levels);
      }
    ++ch.levels;
    mine = next;
  }
  return ch;
}

/// The nextBits of the first `levels` levels of a chain whose nextBits are
/// `bits`: the last of them continues nowhere.
constexpr uint16_t prefixBits(uint16_t bits, unsigned levels) {
  return uint16_t(levels > 1 ? bits & ((1u << (levels - 1)) - 1) : 0);
}

/// The layout of the scratch array `w` a shaped copy reads its steps from.
namespace shape {
inline constexpr uint32_t Zero = 0;                                          // always 0
inline constexpr uint32_t Args = 1;                                          // 2 per level: the caller's values
inline constexpr uint32_t Values = Args + 2 * MaxFusedLevels;                // the plan's numbers (runPlan)
inline constexpr uint32_t Nodes = Values + 2 * Plan::MaxNodes + Plan::MaxLate; // the built nodes' indices
} // namespace shape

/// What a fused level's slot gets once the copy is built (see expand).
enum class Finish : uint8_t {
  Dead,  // nothing: the next level's node, an unbound variable, or evaluated
  Move,  // the step's term moves into the caller's negative slot
  Link,  // the step's term (a node or an eraser) meets the caller's value
};

struct CopyStep {
  Term base = 0;
  uint32_t from = shape::Zero;
  uint8_t shift = 0;
  Finish finish = Finish::Dead; // the steps of the levels' slots only
};

/// The steps of one shape of a definition's copy, from `firstStep`: two per
/// built node (its slots, the nodes in template order), two per redex
/// (negative, positive), two per late link of the plan (the node, the
/// number), then two per fused level (what each of the caller's slots
/// gets), or, when nothing fuses, one for the root.
struct CopyVariant {
  uint32_t firstStep = 0;
  uint32_t built = 0; // nodes built
};

/// A definition's shapes: the call fusing the first L levels of its chain
/// (`levels` long, through `nextBits`), without the plan, is
/// variants[first + L] (L = 0: nothing fuses); the whole chain with the plan
/// run is variants[planned] when the definition has a plan. `shaped` is
/// false when the definition has none (every call takes the general way).
///
/// `walkable`: each level but the last holds a node in one positive slot
/// only, the next level's, so a call's fused levels are found by looking at
/// the caller's nodes along chains[chain] alone (walkChain in Interact.h).
struct CopyShape {
  bool shaped = false;
  bool walkable = false;
  uint8_t levels = 0;
  uint16_t nextBits = 0;
  uint32_t first = 0;
  uint32_t planned = 0;
  uint32_t chain = 0;
};

/// What a context reads CopyShapes through.
struct CopyShapesView {
  const CopyShape *byDef = nullptr;
  const CopyVariant *variants = nullptr;
  const CopyStep *steps = nullptr;
  const FusedChain *chains = nullptr;
};

struct CopyShapes {
  std::vector<CopyShape> byDef;
  std::vector<CopyVariant> variants;
  std::vector<CopyStep> steps;
  std::vector<FusedChain> chains; // of the walkable shapes

  CopyShapesView view() const { return {byDef.data(), variants.data(), steps.data(), chains.data()}; }
};

namespace detail {

/// Appends the steps of `def`'s copy for its whole chain `ch`, with `plan`'s
/// nodes evaluated (null: none); false when a term cannot be written as a
/// step (a node term naming a node that is not built, a variable into an
/// evaluated slot that holds no number), which leaves that shape to the
/// general way.
inline bool appendShape(const DefInfo &def, const Term *slots, const Term *redexes, const FusedChain &ch,
                        const Plan *plan, CopyVariant &v, std::vector<CopyStep> &steps) {
  constexpr int None = -1;
  std::vector<int> levelOf(def.nodeCount, None), evalOf(def.nodeCount, None), builtAs(def.nodeCount, None);
  for (unsigned j = 0; j < ch.levels; ++j)
    levelOf[ch.node[j]] = int(j);
  if (plan)
    for (unsigned k = 0; k < plan->nodeCount; ++k)
      evalOf[plan->node[k].node] = int(k);
  v.firstStep = uint32_t(steps.size());
  v.built = 0;
  for (uint32_t n = 0; n < def.nodeCount; ++n)
    if (levelOf[n] == None && evalOf[n] == None)
      builtAs[n] = int(v.built++);
  bool ok = true;
  auto step = [&](Term t) -> CopyStep {
    uint8_t tg = tagOf(t);
    if (isNodeTag(tg)) {
      int b = builtAs[payloadOf(t)];
      if (b == None)
        ok = false;
      return {Term(tg), shape::Nodes + uint32_t(b), 8};
    }
    if (tg == tag::Var) {
      uint32_t n = uint32_t(payloadOf(t) >> 1), i = uint32_t(payloadOf(t) & 1);
      if (levelOf[n] != None)
        return {0, shape::Args + 2 * uint32_t(levelOf[n]) + i, 0};
      if (evalOf[n] != None) {
        if (plan->node[evalOf[n]].reg[i] == Plan::NoReg)
          ok = false;
        return {0, shape::Values + 2 * uint32_t(evalOf[n]) + i, 0};
      }
      return {makeTerm(tag::Var, i), shape::Nodes + uint32_t(builtAs[n]), 9};
    }
    return {t, shape::Zero, 0};
  };
  // An unbound variable in a built node whose variable is in a built node
  // too carries where that variable is (see subTerm), and the variable is
  // written as a VARAT (tag::VarAt), which a value may replace.
  std::vector<int> varAt(2 * size_t(def.nodeCount), None);
  for (uint32_t n = 0; n < def.nodeCount; ++n)
    for (unsigned i = 0; i < 2 && builtAs[n] != None; ++i)
      if (Term t = slots[2 * n + i]; tagOf(t) == tag::Var && payloadOf(t) < varAt.size())
        varAt[payloadOf(t)] = int(2 * n + i);
  auto slotStep = [&](uint32_t n, unsigned i) -> CopyStep {
    Term t = slots[2 * n + i];
    int at = varAt[2 * n + i];
    CopyStep s = step(t);
    if (tagOf(t) == tag::Var && s.from >= shape::Nodes)
      s.base = makeTerm(tag::VarAt, payloadOf(s.base)); // to a built node, whose SUB says where this is
    if (tagOf(t) != tag::Sub || at == None)
      return s;
    return {makeTerm(tag::Sub, uint32_t(at) & 1), shape::Nodes + uint32_t(builtAs[uint32_t(at) >> 1]), 9};
  };
  for (uint32_t n = 0; n < def.nodeCount; ++n)
    if (builtAs[n] != None) {
      steps.push_back(slotStep(n, 0));
      steps.push_back(slotStep(n, 1));
    }
  for (uint32_t r = 0; r < 2 * def.redexCount; ++r)
    steps.push_back(step(redexes[r]));
  if (plan)
    for (unsigned k = 0; k < plan->lateCount; ++k) {
      steps.push_back(step(plan->late[k].node));
      steps.push_back({0, shape::Values + 2 * Plan::MaxNodes + k, 0});
    }
  for (unsigned j = 0; j < ch.levels; ++j)
    for (unsigned i = 0; i < 2; ++i) {
      Term mine = slots[2 * ch.node[j] + i];
      bool next = j + 1 < ch.levels && ((ch.nextBits >> j) & 1) == i;
      CopyStep s;
      if (next) {
        s.finish = Finish::Dead;
      } else if (auxPositive(ch.tag[j], i)) {
        s = step(mine);
        s.finish = Finish::Move;
      } else if (tagOf(mine) == tag::Sub || (isNodeTag(tagOf(mine)) && evalOf[payloadOf(mine)] != None)) {
        s.finish = Finish::Dead;
      } else {
        s = step(mine);
        s.finish = Finish::Link;
      }
      steps.push_back(s);
    }
  if (ch.levels == 0)
    steps.push_back(step(def.root));
  return ok;
}

} // namespace detail

/// The most template nodes of a definition copied by shape. A definition
/// has up to MaxFusedLevels + 2 variants of two steps a node each; past this
/// size a call's copy costs far more than telling its terms apart, and a
/// large literal would take megabytes of steps.
inline constexpr uint32_t MaxShapedNodes = 1024;

/// The shaped copies of every definition of `book` (see the top of this
/// file). Built by a runtime whose context copies by shape (CopiesByShape in
/// Interact.h), once per run. A definition left out (too large, or its
/// steps past what 32-bit indices reach) is copied the general way.
inline CopyShapes buildCopyShapes(const Book &book) {
  CopyShapes out;
  out.byDef.resize(book.defs.size());
  for (size_t id = 0; id < book.defs.size(); ++id) {
    const DefInfo &def = book.defs[id];
    if (def.nodeCount > MaxShapedNodes || out.steps.size() > (size_t(1) << 31))
      continue;
    const Term *slots = book.slots.data() + def.firstSlot;
    const Term *redexes = book.redexes.data() + def.firstRedex;
    const FusedChain whole = fusedChain(slots, def.root);
    const Plan *plan = def.plan ? &book.plans[def.plan - 1] : nullptr;
    if (plan && (plan->levels != whole.levels || plan->nextBits != whole.nextBits))
      continue; // a plan is made for this chain; anything else is left to the general way
    CopyShape s;
    s.levels = whole.levels;
    s.nextBits = whole.nextBits;
    s.first = uint32_t(out.variants.size());
    size_t stepMark = out.steps.size(), variantMark = out.variants.size();
    bool ok = true;
    for (unsigned l = 0; l <= whole.levels && ok; ++l) {
      FusedChain prefix = whole; // its first l levels
      prefix.levels = uint8_t(l);
      prefix.nextBits = prefixBits(whole.nextBits, l);
      ok = detail::appendShape(def, slots, redexes, prefix, nullptr, out.variants.emplace_back(), out.steps);
    }
    if (ok && plan) {
      s.planned = uint32_t(out.variants.size());
      ok = detail::appendShape(def, slots, redexes, whole, plan, out.variants.emplace_back(), out.steps);
    }
    if (!ok) {
      out.steps.resize(stepMark);
      out.variants.resize(variantMark);
      continue;
    }
    s.shaped = true;
    s.walkable = whole.levels > 0;
    for (unsigned j = 0; j + 1 < whole.levels; ++j) {
      unsigned other = 1 - ((whole.nextBits >> j) & 1);
      if (auxPositive(whole.tag[j], other) && isNodeTag(tagOf(slots[2 * whole.node[j] + other])))
        s.walkable = false;
    }
    if (s.walkable) {
      s.chain = uint32_t(out.chains.size());
      out.chains.push_back(whole);
    }
    out.byDef[id] = s;
  }
  return out;
}

} // namespace bendc::rt
