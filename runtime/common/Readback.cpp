#include "runtime/common/Readback.h"
#include "runtime/common/NumericText.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"

namespace bendc::rt {

namespace {
struct Item {
  enum Kind : uint8_t { Text, Term_ } kind;
  const char *text; // for Text
  Term term;        // for Term_
  Loc slot;         // where `term` is stored (names unbound variables)
};
} // namespace

std::string readback(const Term *slots, const Book &book, Loc rootSlot) {
  std::string out;
  llvm::DenseMap<Loc, unsigned> names;
  auto name = [&](Loc slot) {
    auto [it, inserted] = names.try_emplace(slot, unsigned(names.size()));
    out += 'x';
    out += std::to_string(it->second);
  };
  llvm::SmallVector<Item, 64> stack;
  stack.push_back({Item::Term_, nullptr, slots[rootSlot], rootSlot});
  while (!stack.empty()) {
    Item it = stack.pop_back_val();
    if (it.kind == Item::Text) {
      out += it.text;
      continue;
    }
    // A value pending in a place is what the place is joined with.
    Term t = unpend(it.term);
    Loc slot = it.slot;
    // Follow substitutions: a VAR whose bound slot holds a positive value.
    for (uint64_t guard = 0; tagOf(t) == tag::Var; ++guard) {
      Loc target = payloadOf(t);
      Term there = unpend(slots[target]);
      if (!isPositive(there) || guard > (uint64_t(1) << 40)) {
        t = there; // SUB (or a node bound there): the variable is named by `target`
        slot = target;
        break;
      }
      t = there;
      slot = target;
    }
    uint8_t tg = tagOf(t);
    switch (tg) {
    case tag::Sub: name(slot); continue;
    case tag::Nul:
    case tag::Era: out += '*'; continue;
    case tag::Num:
    case tag::NumN: out += num::showNumb(numOf(t)); continue;
    case tag::Ref:
      out += '@';
      out += refOf(t) < book.names.size() ? book.names[refOf(t)] : std::string("?");
      continue;
    default: break;
    }
    if (!isNodeTag(tg)) {
      out += "<?>";
      continue;
    }
    Loc n = nodeOf(t);
    static const char *const open[] = {"(", "{", "$(", "?("};
    static const char *const close[] = {")", "}", ")", ")"};
    out += open[unsigned(kindOf(tg))];
    stack.push_back({Item::Text, close[unsigned(kindOf(tg))], 0, 0});
    stack.push_back({Item::Term_, nullptr, slots[slotOf(n, 1)], slotOf(n, 1)});
    stack.push_back({Item::Text, " ", 0, 0});
    stack.push_back({Item::Term_, nullptr, slots[slotOf(n, 0)], slotOf(n, 0)});
  }
  return out;
}

} // namespace bendc::rt
