// The two linearizing passes: matches (variables into switch arms) and
// variables (dups and erasers from use counts).
#include "ir/Dataflow.h"
#include "ir/Passes.h"

#include "llvm/ADT/DenseMap.h"

#include <algorithm>

namespace bendc::hir {

namespace {

/// Renames the uses of `from` to `to` in `block` and everything inside it.
void renameUses(Block &block, const llvm::DenseMap<WireId, WireId> &rename) {
  forEachBlock(block, [&](Block &b) {
    if (auto it = rename.find(b.result); it != rename.end())
      b.result = it->second;
    for (Inst &i : b.insts)
      for (WireId &w : i.ins)
        if (auto it = rename.find(w); it != rename.end())
          w = it->second;
  });
}

/// The wires bound right around a switch (Bend's "alt" linearization moves
/// only these): the params of the switch's own block and what the block's
/// instructions define.
void boundAround(const Block &block, llvm::SmallVectorImpl<WireId> &out) {
  out.append(block.params.begin(), block.params.end());
  for (const Inst &i : block.insts)
    out.append(i.outs.begin(), i.outs.end());
}

} // namespace

void linearizeMatches(Module &module, MatchLinearization level) {
  if (level == MatchLinearization::Disabled)
    return;
  for (Function &fn : module.functions) {
    BlockGraph graph(fn);
    std::vector<Liveness::Value> live = liveInputs(graph);
    // Switches in the order blocks were numbered (parents first), then
    // reversed: inner switches move their variables first, which leaves the
    // live inputs of the outer arms as they were computed.
    std::vector<std::pair<Inst *, unsigned>> switches; // with the index of its block
    for (size_t b = 0; b < graph.blocks.size(); ++b)
      for (Inst &i : graph.blocks[b]->insts)
        if (i.kind == InstKind::Swi)
          switches.emplace_back(&i, unsigned(b));
    for (auto it = switches.rbegin(); it != switches.rend(); ++it) {
      Inst &swi = *it->first;
      llvm::SmallVector<WireId, 8> vars;
      for (auto &arm : swi.blocks)
        for (WireId w : live[graph.index[arm.get()]])
          if (!fn.unscoped[w])
            vars.push_back(w);
      if (level == MatchLinearization::Alt) {
        llvm::SmallVector<WireId, 8> around;
        boundAround(*graph.blocks[it->second], around);
        llvm::erase_if(vars, [&](WireId w) { return !llvm::is_contained(around, w); });
      }
      std::sort(vars.begin(), vars.end(), [&](WireId a, WireId b) {
        return std::make_pair(fn.wireNames[a], a) < std::make_pair(fn.wireNames[b], b);
      });
      vars.erase(std::unique(vars.begin(), vars.end()), vars.end());
      if (vars.empty())
        continue;
      for (auto &arm : swi.blocks) {
        llvm::DenseMap<WireId, WireId> rename;
        for (WireId v : vars) {
          WireId p = fn.newWire(fn.wireNames[v]);
          rename[v] = p;
          arm->params.push_back(p);
        }
        renameUses(*arm, rename);
      }
      swi.ins.append(vars.begin(), vars.end());
    }
  }
  if (level == MatchLinearization::Enabled)
    module.invariants.matchesLinearized = true;
}

void linearizeVariables(Module &module) {
  for (Function &fn : module.functions) {
    std::vector<unsigned> uses = useCounts(fn);
    unsigned originalWires = fn.wireCount();
    // Each wire used several times gets copies, handed out in use order.
    std::vector<llvm::SmallVector<WireId, 2>> copies(originalWires);
    std::vector<unsigned> handedOut(originalWires, 0);
    auto planCopies = [&](WireId w) -> llvm::SmallVector<Inst, 2> {
      llvm::SmallVector<Inst, 2> made;
      unsigned n = uses[w];
      if (n == 1)
        return made;
      if (n == 0) {
        Inst erase(InstKind::Erase);
        erase.ins = {w};
        made.push_back(std::move(erase));
        return made;
      }
      // {x1 {x2 {... xn}}}: a chain of n-1 dups.
      WireId source = w;
      for (unsigned k = 0; k + 1 < n; ++k) {
        Inst dup(InstKind::Dup);
        dup.ins = {source};
        WireId first = fn.newWire(fn.wireNames[w]);
        WireId rest = fn.newWire(fn.wireNames[w]);
        dup.outs = {first, rest};
        copies[w].push_back(first);
        if (k + 2 == n)
          copies[w].push_back(rest);
        source = rest;
        made.push_back(std::move(dup));
      }
      return made;
    };
    // Insert the dups and erasers next to each definition.
    forEachBlock(fn.body, [&](Block &b) {
      std::vector<Inst> rebuilt;
      rebuilt.reserve(b.insts.size());
      for (WireId p : b.params)
        for (Inst &made : planCopies(p))
          rebuilt.push_back(std::move(made));
      for (Inst &i : b.insts) {
        llvm::SmallVector<WireId, 2> outs(i.outs.begin(), i.outs.end());
        rebuilt.push_back(std::move(i));
        for (WireId w : outs)
          for (Inst &made : planCopies(w))
            rebuilt.push_back(std::move(made));
      }
      b.insts = std::move(rebuilt);
    });
    // Hand the copies to the uses, block by block (a block's instructions,
    // then its result, then the blocks inside it).
    auto take = [&](WireId &w) {
      if (w < originalWires && handedOut[w] < copies[w].size())
        w = copies[w][handedOut[w]++];
    };
    llvm::SmallVector<Block *, 16> work{&fn.body};
    while (!work.empty()) {
      Block *b = work.pop_back_val();
      for (Inst &i : b->insts) {
        if (i.kind == InstKind::Dup && i.ins[0] < originalWires && !copies[i.ins[0]].empty() &&
            llvm::is_contained(copies[i.ins[0]], i.outs[0]))
          continue; // one of the chains just made: it uses the original
        if (i.kind == InstKind::Dup && i.ins[0] >= originalWires)
          continue; // a link inside a chain
        for (WireId &w : i.ins)
          take(w);
        for (auto it = i.blocks.rbegin(); it != i.blocks.rend(); ++it)
          work.push_back(it->get());
      }
      take(b->result);
    }
  }
  module.invariants.linear = true;
}

} // namespace bendc::hir
