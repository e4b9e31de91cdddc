#include "ir/Dataflow.h"

#include "llvm/ADT/DenseSet.h"

#include <algorithm>

namespace bendc::hir {

BlockGraph::BlockGraph(Function &fn) {
  blocks.push_back(&fn.body);
  parent.push_back(-1);
  children.emplace_back();
  index[&fn.body] = 0;
  for (size_t k = 0; k < blocks.size(); ++k) {
    for (Inst &i : blocks[k]->insts)
      for (auto &child : i.blocks) {
        unsigned id = unsigned(blocks.size());
        blocks.push_back(child.get());
        parent.push_back(int(k));
        children.emplace_back();
        children[k].push_back(id);
        index[child.get()] = id;
      }
  }
}

Liveness::Value Liveness::transfer(const Block &b, llvm::ArrayRef<const Value *> children) const {
  llvm::DenseSet<WireId> defined(b.params.begin(), b.params.end());
  for (const Inst &i : b.insts)
    defined.insert(i.outs.begin(), i.outs.end());
  Value live;
  auto add = [&](WireId w) {
    if (w != NoWire && !defined.contains(w))
      live.push_back(w);
  };
  add(b.result);
  for (const Inst &i : b.insts)
    for (WireId w : i.ins)
      add(w);
  for (const Value *c : children)
    for (WireId w : *c)
      add(w);
  std::sort(live.begin(), live.end());
  live.erase(std::unique(live.begin(), live.end()), live.end());
  return live;
}

/// The uses in `b` itself, and those its children let escape.
static UseCounts::Value tally(const Block &b, llvm::ArrayRef<const UseCounts::Value *> children) {
  UseCounts::Value counts;
  if (b.result != NoWire)
    ++counts[b.result];
  for (const Inst &i : b.insts)
    for (WireId w : i.ins)
      ++counts[w];
  for (const UseCounts::Value *c : children)
    for (auto &[w, n] : *c)
      counts[w] += n;
  return counts;
}

UseCounts::Value UseCounts::transfer(const Block &b, llvm::ArrayRef<const Value *> children) const {
  Value counts = tally(b, children);
  // What is defined here is counted here; only the rest flows up.
  for (WireId p : b.params)
    counts.erase(p);
  for (const Inst &i : b.insts)
    for (WireId w : i.outs)
      counts.erase(w);
  return counts;
}

std::vector<Liveness::Value> liveInputs(const BlockGraph &graph) { return solve(graph, Liveness{}); }

std::vector<unsigned> useCounts(Function &fn) {
  BlockGraph graph(fn);
  std::vector<UseCounts::Value> escaping = solve(graph, UseCounts{});
  std::vector<unsigned> counts(fn.wireCount(), 0);
  llvm::SmallVector<const UseCounts::Value *, 4> children;
  for (size_t b = 0; b < graph.blocks.size(); ++b) {
    const Block &block = *graph.blocks[b];
    children.clear();
    for (unsigned c : graph.children[b])
      children.push_back(&escaping[c]);
    UseCounts::Value here = tally(block, children);
    auto settle = [&](WireId w) {
      auto it = here.find(w);
      if (w < counts.size() && it != here.end())
        counts[w] += it->second;
    };
    for (WireId p : block.params)
      settle(p);
    for (const Inst &i : block.insts)
      for (WireId w : i.outs)
        settle(w);
  }
  // Unscoped wires may be used outside the block that defines them.
  for (auto &[w, n] : escaping[0])
    if (w < counts.size())
      counts[w] += n;
  return counts;
}

} // namespace bendc::hir
