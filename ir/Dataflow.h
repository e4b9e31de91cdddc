// A generic dataflow solver over the HIR's block tree.
//
// The blocks of a function form a graph: a block's children are the blocks of
// its instructions (a λ's body, a switch's arms). An analysis says what a
// value is (any type with ==), what it starts as, and how a block's value is
// computed from its own instructions and the values of its neighbours in the
// direction of flow. The solver keeps a worklist of blocks whose inputs
// changed and recomputes them until nothing changes, so analyses need not
// know the shape of the tree or the order to visit it in.
//
//   Direction::Up:   a block's value is computed from its children's values
//                    (liveness: what a block needs from outside).
//   Direction::Down: from its parent's value (what is in scope).
//
// Liveness, the analysis the passes need, is below. Use counts need no
// fixpoint: they are one sum over the function (see useCounts).
#pragma once

#include "ir/Hir.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/Sequence.h"
#include "llvm/ADT/SmallVector.h"

#include <utility>
#include <vector>

namespace bendc::hir {

/// The blocks of one function that the body reaches, numbered parents first
/// (0 is the body). The blocks of one block's instructions get consecutive
/// numbers, so a block's children are a range. The pointers hold until a
/// block is added to the function.
struct BlockGraph {
  const Function *function = nullptr; // whose blocks these are (the analyses read its instructions)
  std::vector<Block *> blocks;
  std::vector<int> parent; // -1 for the body

  BlockGraph() = default;
  explicit BlockGraph(Function &fn) { build(fn); }
  /// Numbers the blocks of `fn`, reusing this graph's buffers.
  void build(Function &fn);

  /// The numbers of the blocks of `b`'s instructions.
  llvm::iota_range<unsigned> children(unsigned b) const {
    return llvm::seq(childBegin[b], childBegin[b + 1]);
  }
  /// The number of block `b` of this graph's function.
  unsigned indexOf(BlockId b) const { return numberOf[b.index]; }

private:
  std::vector<unsigned> childBegin; // by block, and one past the last
  std::vector<unsigned> numberOf;   // by BlockId
};

enum class Direction { Up, Down };

/// Analysis requirements:
///   using Value = ...;                        // comparable with ==
///   static constexpr Direction direction;
///   Value initial() const;                    // every block's starting value
///   Value transfer(const Function &fn, const Block &b,
///                  llvm::ArrayRef<const Value *> inputs) const;
/// `inputs` are the children's values (Up) or the parent's, if any (Down).
/// Puts the fixpoint in `values`, by block number (its buffer reused).
template <typename Analysis>
void solve(const BlockGraph &graph, const Analysis &analysis,
           std::vector<typename Analysis::Value> &values) {
  using Value = typename Analysis::Value;
  size_t n = graph.blocks.size();
  values.assign(n, analysis.initial());
  // A first-in first-out queue: `work[head]` is next.
  llvm::SmallVector<unsigned, 16> work;
  size_t head = 0;
  llvm::SmallVector<bool, 16> queued(n, true);
  // Seed in the order that lets a tree settle in one sweep.
  for (size_t k = 0; k < n; ++k)
    work.push_back(Analysis::direction == Direction::Up ? unsigned(n - 1 - k) : unsigned(k));
  llvm::SmallVector<const Value *, 4> inputs;
  while (head < work.size()) {
    unsigned b = work[head++];
    queued[b] = false;
    inputs.clear();
    if (Analysis::direction == Direction::Up) {
      for (unsigned c : graph.children(b))
        inputs.push_back(&values[c]);
    } else if (graph.parent[b] >= 0) {
      inputs.push_back(&values[unsigned(graph.parent[b])]);
    }
    Value next = analysis.transfer(*graph.function, *graph.blocks[b], inputs);
    if (next == values[b])
      continue;
    values[b] = std::move(next);
    auto enqueue = [&](unsigned d) {
      if (!queued[d]) {
        queued[d] = true;
        work.push_back(d);
      }
    };
    if (Analysis::direction == Direction::Up) {
      if (graph.parent[b] >= 0)
        enqueue(unsigned(graph.parent[b]));
    } else {
      for (unsigned c : graph.children(b))
        enqueue(c);
    }
  }
}

/// The fixpoint, by block number.
template <typename Analysis>
std::vector<typename Analysis::Value> solve(const BlockGraph &graph, const Analysis &analysis) {
  std::vector<typename Analysis::Value> values;
  solve(graph, analysis, values);
  return values;
}

/// Liveness: the wires a block (with the blocks inside it) uses but does not
/// define — the inputs the Caiman HIR gives each continuation. Sorted.
struct Liveness {
  using Value = llvm::SmallVector<WireId, 4>;
  static constexpr Direction direction = Direction::Up;
  Value initial() const { return {}; }
  Value transfer(const Function &fn, const Block &b, llvm::ArrayRef<const Value *> children) const;
};

/// Open uses, for a linear function: how many uses in a block and the
/// blocks inside it are of wires defined outside them; a block is closed
/// when it has none. The same as asking whether its live inputs are empty,
/// without making the sets: a scoped wire's one use lies in the block that
/// defines it or inside that one, so each definition there cancels one use.
/// Exact for blocks that mention no unscoped wire (whose use may be
/// anywhere); a block that does may count uses of its own unscoped wires.
struct OpenUses {
  using Value = unsigned;
  static constexpr Direction direction = Direction::Up;
  Value initial() const { return 0; }
  Value transfer(const Function &fn, const Block &b, llvm::ArrayRef<const Value *> children) const;
};

/// The live inputs of every block of `fn`, by BlockGraph index.
std::vector<Liveness::Value> liveInputs(const BlockGraph &graph);

/// How many times each wire of `fn` is used, by WireId. A dataflow over the
/// block tree would gather at each block the uses that escape the blocks
/// inside it and keep those of the wires it defines; but every use of a
/// scoped wire lies in the block that defines it or in one inside that, so
/// what it keeps for a wire is all of the wire's uses, and an unscoped
/// wire's uses, anywhere, are all of its uses too. The counts are the plain
/// number of uses: one walk, no fixpoint (the fixpoint cost the linearizing
/// passes 40% of their time).
IdTable<WireId, unsigned> useCounts(const Function &fn);

/// The same into `counts`, its buffer reused.
void useCounts(const Function &fn, IdTable<WireId, unsigned> &counts);

} // namespace bendc::hir
