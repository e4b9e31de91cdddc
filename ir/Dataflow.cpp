#include "ir/Dataflow.h"

#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <iterator>

namespace bendc::hir {

void BlockGraph::build(Function &fn) {
  blocks.clear();
  parent.clear();
  childBegin.clear();
  blocks.push_back(&fn.body);
  parent.push_back(-1);
  fn.body.number = 0;
  for (size_t k = 0; k < blocks.size(); ++k) {
    childBegin.push_back(unsigned(blocks.size()));
    for (Inst &i : blocks[k]->insts)
      for (auto &child : i.blocks) {
        child->number = unsigned(blocks.size());
        blocks.push_back(child.get());
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
void definedIn(const Block &b, llvm::SmallVectorImpl<WireId> &out) {
  out.assign(b.params.begin(), b.params.end());
  for (const Inst &i : b.insts)
    out.append(i.outs.begin(), i.outs.end());
  sortUnique(out);
}

bool isIn(llvm::ArrayRef<WireId> sorted, WireId w) {
  return std::binary_search(sorted.begin(), sorted.end(), w);
}

} // namespace

Liveness::Value Liveness::transfer(const Block &b, llvm::ArrayRef<const Value *> children) const {
  Value used;
  if (b.result != NoWire)
    used.push_back(b.result);
  for (const Inst &i : b.insts)
    used.append(i.ins.begin(), i.ins.end());
  for (const Value *c : children)
    used.append(c->begin(), c->end());
  sortUnique(used);
  if (!used.empty() && used.back() == NoWire)
    used.pop_back();
  llvm::SmallVector<WireId, 8> defined;
  definedIn(b, defined);
  Value live;
  std::set_difference(used.begin(), used.end(), defined.begin(), defined.end(),
                      std::back_inserter(live));
  return live;
}

/// The uses in `b` itself, and those its children let escape, as (wire,
/// count) pairs sorted by wire.
static UseCounts::Value tally(const Block &b, llvm::ArrayRef<const UseCounts::Value *> children) {
  UseCounts::Value uses;
  if (b.result != NoWire)
    uses.push_back({b.result, 1});
  for (const Inst &i : b.insts)
    for (WireId w : i.ins)
      uses.push_back({w, 1});
  for (const UseCounts::Value *c : children)
    uses.append(c->begin(), c->end());
  llvm::sort(uses, [](const auto &x, const auto &y) { return x.first < y.first; });
  // Merge the counts of each wire into its first pair.
  size_t out = 0;
  for (size_t k = 0; k < uses.size(); ++k) {
    if (out > 0 && uses[out - 1].first == uses[k].first)
      uses[out - 1].second += uses[k].second;
    else
      uses[out++] = uses[k];
  }
  uses.truncate(out);
  return uses;
}

UseCounts::Value UseCounts::transfer(const Block &b, llvm::ArrayRef<const Value *> children) const {
  Value counts = tally(b, children);
  // What is defined here is counted here; only the rest flows up.
  llvm::SmallVector<WireId, 8> defined;
  definedIn(b, defined);
  llvm::erase_if(counts, [&](const auto &wc) { return isIn(defined, wc.first); });
  return counts;
}

std::vector<Liveness::Value> liveInputs(const BlockGraph &graph) { return solve(graph, Liveness{}); }

void useCounts(Function &fn, BlockGraph &graph, std::vector<UseCounts::Value> &escaping,
               std::vector<unsigned> &counts) {
  graph.build(fn);
  useCountsOver(fn, graph, escaping, counts);
}

void useCountsOver(const Function &fn, const BlockGraph &graph,
                   std::vector<UseCounts::Value> &escaping, std::vector<unsigned> &counts) {
  solve(graph, UseCounts{}, escaping);
  counts.assign(fn.wireCount(), 0);
  llvm::SmallVector<const UseCounts::Value *, 4> children;
  llvm::SmallVector<WireId, 8> defined;
  for (size_t b = 0; b < graph.blocks.size(); ++b) {
    const Block &block = *graph.blocks[b];
    children.clear();
    for (unsigned c : graph.children(unsigned(b)))
      children.push_back(&escaping[c]);
    // The uses of what this block defines are all in it or below it.
    definedIn(block, defined);
    for (auto [w, n] : tally(block, children))
      if (w < counts.size() && isIn(defined, w))
        counts[w] += n;
  }
  // Unscoped wires may be used outside the block that defines them.
  for (auto [w, n] : escaping[0])
    if (w < counts.size())
      counts[w] += n;
}

std::vector<unsigned> useCounts(Function &fn) {
  BlockGraph graph;
  std::vector<UseCounts::Value> escaping;
  std::vector<unsigned> counts;
  useCounts(fn, graph, escaping, counts);
  return counts;
}

} // namespace bendc::hir
