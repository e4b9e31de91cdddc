#include "ir/Dataflow.h"

#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <iterator>

namespace bendc::hir {

void BlockGraph::build(Function &fn) {
  function = &fn;
  blocks.clear();
  parent.clear();
  childBegin.clear();
  numberOf.assign(fn.blocks.size(), 0);
  blocks.push_back(&fn.body());
  parent.push_back(-1);
  for (size_t k = 0; k < blocks.size(); ++k) {
    childBegin.push_back(unsigned(blocks.size()));
    for (InstId i : blocks[k]->insts)
      for (BlockId child : fn.inst(i).blocks) {
        numberOf[child.index] = unsigned(blocks.size());
        blocks.push_back(&fn.block(child));
        parent.push_back(int(k));
      }
  }
  childBegin.push_back(unsigned(blocks.size()));
}

namespace {

/// Sorts `ws` and drops repeats.
void sortUnique(llvm::SmallVectorImpl<WireId> &ws) {
  std::sort(ws.begin(), ws.end());
  ws.erase(std::unique(ws.begin(), ws.end()), ws.end());
}

/// The wires `b` itself defines (its params and its instructions' outs),
/// sorted.
void definedIn(const Function &fn, const Block &b, llvm::SmallVectorImpl<WireId> &out) {
  out.assign(b.params.begin(), b.params.end());
  for (const Inst &i : fn.instsOf(b))
    out.append(i.outs.begin(), i.outs.end());
  sortUnique(out);
}


} // namespace

Liveness::Value Liveness::transfer(const Function &fn, const Block &b,
                                   llvm::ArrayRef<const Value *> children) const {
  Value used;
  if (b.result != NoWire)
    used.push_back(b.result);
  for (const Inst &i : fn.instsOf(b))
    used.append(i.ins.begin(), i.ins.end());
  for (const Value *c : children)
    used.append(c->begin(), c->end());
  sortUnique(used);
  if (!used.empty() && used.back() == NoWire)
    used.pop_back();
  llvm::SmallVector<WireId, 8> defined;
  definedIn(fn, b, defined);
  Value live;
  std::set_difference(used.begin(), used.end(), defined.begin(), defined.end(),
                      std::back_inserter(live));
  return live;
}

OpenUses::Value OpenUses::transfer(const Function &fn, const Block &b,
                                   llvm::ArrayRef<const Value *> children) const {
  uint64_t uses = b.result != NoWire, defined = 0;
  auto scoped = [&](WireId w) { return fn.wires.contains(w) && !fn.wires[w].unscoped; };
  for (WireId p : b.params)
    defined += scoped(p);
  for (const Inst &i : fn.instsOf(b)) {
    uses += i.ins.size();
    for (WireId w : i.outs)
      defined += scoped(w);
  }
  for (const Value *c : children)
    uses += *c;
  return uses > defined ? Value(uses - defined) : 0;
}

std::vector<Liveness::Value> liveInputs(const BlockGraph &graph) { return solve(graph, Liveness{}); }

void useCounts(const Function &fn, IdTable<WireId, unsigned> &counts) {
  counts.assign(fn.wireCount(), 0);
  auto count = [&](WireId w) {
    if (counts.contains(w))
      ++counts[w];
  };
  forEachBlock(fn, Function::Body, [&](const Block &b) {
    count(b.result);
    for (const Inst &i : fn.instsOf(b))
      for (WireId w : i.ins)
        count(w);
  });
}

IdTable<WireId, unsigned> useCounts(const Function &fn) {
  IdTable<WireId, unsigned> counts;
  useCounts(fn, counts);
  return counts;
}

} // namespace bendc::hir
