#include "runtime/common/Readback.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"

namespace bendc::rt {

namespace {
/// A term still to read: the slot it is stored in, and where its tree goes.
struct Item {
  Term term;
  Loc slot;        // names the variable when `term` is an unbound one
  uint32_t parent; // index of the parent node (unused for the root)
  uint8_t child;   // 0: the root; 1, 2: the parent's first or second child
};
} // namespace

ResultTree readback(SlotReader slots, Loc rootSlot) {
  using Kind = ResultTree::Kind;
  ResultTree out;
  llvm::DenseMap<Loc, uint32_t> names;
  llvm::SmallVector<Item, 64> stack;
  stack.push_back({slots[rootSlot], rootSlot, 0, 0});
  while (!stack.empty()) {
    Item it = stack.pop_back_val();
    uint32_t index = uint32_t(out.nodes.size());
    ResultTree::Node &node = out.nodes.emplace_back();
    if (it.child == 1)
      out.nodes[it.parent].fst = index;
    else if (it.child == 2)
      out.nodes[it.parent].snd = index;
    // A value pending in a place is what the place is joined with.
    Term t = unpend(it.term);
    Loc slot = it.slot;
    // Follow substitutions: a VAR whose bound slot holds a positive value.
    for (uint64_t guard = 0; tagOf(t) == tag::Var; ++guard) {
      Loc target = payloadOf(t);
      Term there = unpend(slots[target]);
      t = there;
      slot = target;
      if (!isPositive(there) || guard > (uint64_t(1) << 40))
        break; // SUB (or a node bound there): the variable is named by `target`
    }
    uint8_t tg = tagOf(t);
    switch (tg) {
    case tag::Sub: {
      auto [entry, inserted] = names.try_emplace(slot, out.vars);
      out.vars += inserted;
      node = {Kind::Var, entry->second, 0, 0};
      continue;
    }
    case tag::Nul:
    case tag::Era: node.kind = Kind::Era; continue;
    case tag::Num:
    case tag::NumN: node = {Kind::Num, numOf(t), 0, 0}; continue;
    case tag::Ref: node = {Kind::Ref, refOf(t), 0, 0}; continue;
    default: break;
    }
    if (!isNodeTag(tg)) {
      if (out.broken == ~Loc(0))
        out.broken = slot;
      node.kind = Kind::Era;
      continue;
    }
    static constexpr Kind kinds[] = {Kind::Con, Kind::Dup, Kind::Opr, Kind::Swi};
    node.kind = kinds[unsigned(kindOf(tg))];
    Loc n = nodeOf(t);
    stack.push_back({slots[slotOf(n, 1)], slotOf(n, 1), index, 2});
    stack.push_back({slots[slotOf(n, 0)], slotOf(n, 0), index, 1});
  }
  return out;
}

} // namespace bendc::rt
