// The two linearizing passes: matches (variables into switch arms) and
// variables (dups and erasers from use counts).
#include "ir/Dataflow.h"
#include "ir/Passes.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/ErrorHandling.h"

#include <algorithm>
#include <string>
#include <tuple>
#include <cassert>

namespace bendc::hir {

namespace {

/// The wires bound right around a switch (Bend's "alt" linearization moves
/// only these): the params of the switch's own block and what the block's
/// instructions define.
void boundAround(const Function &fn, const Block &block, llvm::SmallVectorImpl<WireId> &out) {
  out.append(block.params.begin(), block.params.end());
  for (const Inst &i : fn.instsOf(block))
    out.append(i.outs.begin(), i.outs.end());
}

/// What handing out copies has left to walk: a use, an instruction or a
/// block.
struct HandOutItem {
  enum Kind : uint8_t { Use, Instruction, Body } kind;
  void *at; // WireId, Inst or Block
};

/// Buffers the linearizing passes keep from one function to the next.
struct Scratch {
  BlockGraph graph;
  std::vector<Liveness::Value> live;
  IdTable<WireId, unsigned> uses;
  std::vector<unsigned> handedOut;
  // The copies of each wire used more than once: those of wire w are
  // copyWires[copyBegin[w] .. copyBegin[w + 1]).
  std::vector<uint32_t> copyBegin;
  std::vector<WireId> copyWires;
  std::vector<Inst *> defined; // by wire: the one-out instruction defining it
  std::vector<HandOutItem> walk;
};

} // namespace

namespace {

/// Moves the variables switch and match arms use into their params. True
/// when `fn` has neither: it is left as it was.
bool linearizeMatchesIn(Function &fn, MatchLinearization level, Scratch &scratch) {
  BlockGraph &graph = scratch.graph;
  graph.build(fn);
  // Switches in the order blocks were numbered (parents first), then
  // reversed: inner switches move their variables first, which leaves the
  // live inputs of the outer arms as they were computed.
  // (No instruction is added here: the pointers hold.)
  std::vector<std::pair<Inst *, unsigned>> switches; // with the index of its block
  for (size_t b = 0; b < graph.blocks.size(); ++b)
    for (Inst &i : fn.instsOf(*graph.blocks[b]))
      if (i.kind == InstKind::Swi || i.kind == InstKind::Match)
        switches.emplace_back(&i, unsigned(b));
  if (switches.empty())
    return true;
  std::vector<Liveness::Value> &live = scratch.live;
  solve(graph, Liveness{}, live);
  for (auto it = switches.rbegin(); it != switches.rend(); ++it) {
    Inst &swi = *it->first;
    llvm::SmallVector<WireId, 8> vars;
    for (BlockId arm : swi.blocks)
      for (WireId w : live[graph.indexOf(arm)])
        if (!fn.wires[w].unscoped)
          vars.push_back(w);
    if (level == MatchLinearization::Alt) {
      llvm::SmallVector<WireId, 8> around;
      boundAround(fn, *graph.blocks[it->second], around);
      llvm::erase_if(vars, [&](WireId w) { return !llvm::is_contained(around, w); });
    }
    // Bend passes them sorted by the unique names it gives binders: the
    // binder's rank written in base 26, least significant letter first
    // (0 is a, 26 is ab), compared as text. Wires without a binder go last.
    auto key = [&](WireId w) {
      uint32_t rank = fn.wires[w].rank;
      std::string name;
      if (rank != Function::NoRank)
        for (uint32_t r = rank;; r /= 26) {
          name.push_back(char('a' + r % 26));
          if (r < 26)
            break;
        }
      return std::make_tuple(rank == Function::NoRank, name, fn.wires[w].name, w);
    };
    std::sort(vars.begin(), vars.end(), [&](WireId a, WireId b) { return key(a) < key(b); });
    vars.erase(std::unique(vars.begin(), vars.end()), vars.end());
    if (vars.empty())
      continue;
    for (BlockId arm : swi.blocks) {
      llvm::DenseMap<WireId, WireId> rename;
      for (WireId v : vars) {
        WireId p = fn.newWire(fn.wires[v].name, /*isUnscoped=*/false, fn.wires[v].rank);
        rename[v] = p;
        fn.block(arm).params.push_back(p);
      }
      renameUses(fn, arm, [&](WireId w) {
        auto it = rename.find(w);
        return it == rename.end() ? w : it->second;
      });
    }
    swi.ins.append(vars.begin(), vars.end());
  }
  return false;
}

} // namespace

void linearizeMatches(Module &module, MatchLinearization level) {
  if (level == MatchLinearization::Disabled)
    return;
  Scratch scratch;
  for (Function &fn : module.functions())
    linearizeMatchesIn(fn, level, scratch);
  if (level == MatchLinearization::Enabled)
    module.invariants.matchesLinearized = true;
}

namespace {

/// Moves block `arm` into `out` as the value it stands for: its
/// instructions when it takes no params (the block is left empty), else a
/// chain of λs, one per param, around it.
WireId armValue(Function &fn, BlockId arm, llvm::SmallVectorImpl<InstId> &out, llvm::SMLoc loc) {
  Block &b = fn.block(arm);
  if (b.params.empty()) {
    out.insert(out.end(), b.insts.begin(), b.insts.end());
    b.insts.clear();
    return b.result;
  }
  llvm::SmallVector<WireId, 4> params(b.params.begin(), b.params.end());
  BlockId body = arm;
  for (size_t k = params.size(); k-- > 0;) {
    fn.block(body).params = {params[k]};
    Inst lam(InstKind::Lam, loc);
    WireId f = fn.newWire("f");
    lam.outs = {f};
    lam.blocks.push_back(body);
    if (k == 0) {
      out.push_back(fn.newInst(std::move(lam)));
      return f;
    }
    body = fn.newBlock();
    fn.append(body, std::move(lam));
    fn.block(body).result = f;
  }
  llvm_unreachable("an arm with params makes a λ");
}

WireId app(Function &fn, llvm::SmallVectorImpl<InstId> &out, WireId f, WireId a, llvm::SMLoc loc) {
  WireId r = fn.newWire("a");
  Inst i(InstKind::App, loc);
  i.ins = {f, a};
  i.outs = {r};
  out.push_back(fn.newInst(std::move(i)));
  return r;
}

/// `λscrut switch scrut { 0: zero; _: succ }`'s body: a new block whose
/// param is `scrut` and whose one instruction is the switch.
BlockId switchBlock(Function &fn, WireId scrut, BlockId zero, BlockId succ, llvm::SMLoc loc) {
  Inst swi(InstKind::Swi, loc);
  swi.ins = {scrut};
  WireId w = fn.newWire("w");
  swi.outs = {w};
  swi.blocks = {zero, succ};
  BlockId id = fn.newBlock();
  fn.append(id, std::move(swi));
  Block &block = fn.block(id);
  block.params = {scrut};
  block.result = w;
  return id;
}

/// A new block holding what `arm` stands for (armValue).
BlockId armBlock(Function &fn, BlockId arm, llvm::SMLoc loc, llvm::ArrayRef<WireId> params = {}) {
  InstList insts;
  WireId result = armValue(fn, arm, insts, loc);
  BlockId id = fn.newBlock();
  Block &b = fn.block(id);
  b.params.assign(params.begin(), params.end());
  b.insts = std::move(insts);
  b.result = result;
  return id;
}

/// The instructions the match `id` becomes, appended to `out`; the match
/// itself is listed nowhere after.
void expandMatch(Function &fn, bool scott, InstId id, llvm::SmallVectorImpl<InstId> &out) {
  // Copied out: making instructions may move the match.
  const Inst &match = fn.inst(id);
  llvm::SMLoc loc = match.loc;
  WireId result = match.outs[0];
  llvm::SmallVector<WireId, 4> args(match.ins.begin() + 1, match.ins.end());
  WireId acc = match.ins[0];
  llvm::SmallVector<BlockId, 4> arms(match.blocks.begin(), match.blocks.end());
  size_t n = arms.size();
  if (scott) {
    for (BlockId arm : arms) {
      WireId v = armValue(fn, arm, out, loc);
      acc = app(fn, out, acc, v, loc);
    }
  } else {
    // λtag switch tag { 0: arm0; _: λp switch p { 0: arm1; _: λ* armN } }
    WireId tag = fn.newWire("tag");
    BlockId lamBody;
    if (n == 1) {
      // As Bend does: switch tag { 0: arm; _: * }, a successor case that is
      // an eraser rather than a λ.
      BlockId zero = armBlock(fn, arms[0], loc);
      BlockId succ = fn.newBlock();
      Inst era(InstKind::Era, loc);
      WireId e = fn.newWire("e");
      era.outs = {e};
      fn.block(succ).result = e;
      fn.append(succ, std::move(era));
      lamBody = switchBlock(fn, tag, zero, succ, loc);
    } else {
      // Built from the last switch out: `succ` is the successor case of the
      // switch made next, and the outermost switch is on the tag itself.
      BlockId succ;
      for (size_t k = n - 1; k-- > 0;) {
        WireId scrut = k == 0 ? tag : fn.newWire("p");
        BlockId zero = armBlock(fn, arms[k], loc);
        if (!succ.valid()) {
          WireId last = fn.newWire("_"); // the last predecessor: unused
          succ = armBlock(fn, arms[n - 1], loc, {last});
        }
        succ = switchBlock(fn, scrut, zero, succ, loc);
      }
      lamBody = succ;
    }
    Inst lam(InstKind::Lam, loc);
    WireId f = fn.newWire("f");
    lam.outs = {f};
    lam.blocks.push_back(lamBody);
    out.push_back(fn.newInst(std::move(lam)));
    acc = app(fn, out, acc, f, loc);
  }
  for (WireId a : args)
    acc = app(fn, out, acc, a, loc);
  // The last application defines the match's own result wire.
  Inst &last = fn.inst(out.back());
  assert(last.kind == InstKind::App && last.outs[0] == acc);
  last.outs[0] = result;
}

} // namespace

namespace {

void expandMatchesIn(Function &fn, bool scott) {
  // Inner blocks first: a Scott arm that takes no params is no block of its
  // own once expanded, its instructions join the block of the match, and a
  // match among them would be missed if that block were done first.
  // Expanding adds blocks: they are held by id, never by reference.
  llvm::SmallVector<BlockId, 16> blocks;
  forEachBlockId(fn, Function::Body, [&](BlockId b) { blocks.push_back(b); });
  for (BlockId b : llvm::reverse(blocks)) {
    if (llvm::none_of(fn.instsOf(fn.block(b)), [](const Inst &i) { return i.kind == InstKind::Match; }))
      continue;
    InstList old = std::move(fn.block(b).insts);
    InstList rebuilt;
    for (InstId i : old) {
      if (fn.inst(i).kind == InstKind::Match)
        expandMatch(fn, scott, i, rebuilt);
      else
        rebuilt.push_back(i);
    }
    fn.block(b).insts = std::move(rebuilt);
  }
}

} // namespace

void expandMatches(Module &module) {
  for (Function &fn : module.functions())
    expandMatchesIn(fn, module.scott);
  module.invariants.matchesExpanded = true;
}

namespace {

/// Hands the copies of each wire used more than once to its uses in the
/// order Bend numbers a variable's occurrences, which decides which use gets
/// which port of the dup chain (with superpositions, which value each use
/// sees). Bend counts occurrences walking the term: a node's children in
/// order (a function before its argument, a switch's scrutinee before its
/// arms, the variables passed to the arms after them), but `let x = v; body`
/// counts `body` before `v` (and `let {p q} = v; body` `v` first). The HIR
/// keeps that term as trees: a wire used once and defined by an instruction
/// is the subterm at its use. What is left are the roots of a block: dups,
/// untups and erased lets' values, walked before the block's result, and
/// the values let-bound to a name (a ranked or shared wire), walked after
/// it from the last let to the first.
/// That is Bend's order for lets in a row at the head of a block (and for a
/// let inside a let's value); a let nested deeper in an expression has its
/// value counted at the end of its block rather than right after its body.
template <typename Copies>
void handOutCopies(Function &fn, unsigned originalWires, const IdTable<WireId, unsigned> &uses,
                   Copies copies, std::vector<unsigned> &handedOut, Scratch &scratch) {
  std::vector<Inst *> &defined = scratch.defined;
  defined.assign(originalWires, nullptr);
  forEachInst(fn, [&](Inst &i) {
    if (i.outs.size() == 1 && i.outs[0].index < originalWires)
      defined[i.outs[0].index] = &i;
  });
  // The subterm at a use: the instruction defining a wire used only there.
  auto subterm = [&](WireId w) -> Inst * {
    if (w.index >= originalWires || uses[w] != 1)
      return nullptr;
    const Function::Wire &wire = fn.wires[w];
    return wire.rank == Function::NoRank && !wire.unscoped ? defined[w.index] : nullptr;
  };
  // A root walked after the block's result: the value of a let that binds
  // a name (`let * = v; body`, like a dup, has its value walked first).
  auto letValue = [&](const Inst &i) {
    if (i.outs.size() != 1 || subterm(i.outs[0]))
      return false;
    WireId w = i.outs[0];
    return w.index >= originalWires || uses[w] != 0 || fn.wires[w].rank != Function::NoRank;
  };
  using Item = HandOutItem;
  std::vector<Item> &work = scratch.walk;
  work.clear();
  auto pushUse = [&](WireId &w) { work.push_back(Item{Item::Use, &w}); };
  auto pushInst = [&](Inst &i) { work.push_back(Item{Item::Instruction, &i}); };
  auto pushBlock = [&](Block &b) { work.push_back(Item{Item::Body, &b}); };
  pushBlock(fn.body());
  while (!work.empty()) {
    Item item = work.back();
    work.pop_back();
    switch (item.kind) {
    case Item::Use: {
      WireId &w = *static_cast<WireId *>(item.at);
      if (Inst *def = subterm(w)) {
        pushInst(*def);
      } else if (w.index < originalWires && handedOut[w.index] < copies(w).size()) {
        w = copies(w)[handedOut[w.index]++];
      }
      break;
    }
    case Item::Instruction: {
      // Pushed last to first.
      Inst &i = *static_cast<Inst *>(item.at);
      bool armsAfterScrutinee = i.kind == InstKind::Swi || i.kind == InstKind::Match;
      size_t firstLater = armsAfterScrutinee ? std::min<size_t>(1, i.ins.size()) : i.ins.size();
      for (size_t k = i.ins.size(); k-- > firstLater;)
        pushUse(i.ins[k]);
      for (auto it = i.blocks.rbegin(); it != i.blocks.rend(); ++it)
        pushBlock(fn.block(*it));
      for (size_t k = firstLater; k-- > 0;)
        pushUse(i.ins[k]);
      break;
    }
    case Item::Body: {
      // Walked in order: dups and untups, the result, then lets' values
      // from the last to the first; pushed the other way round.
      Block &b = *static_cast<Block *>(item.at);
      for (Inst &i : fn.instsOf(b))
        if (letValue(i))
          pushInst(i);
      pushUse(b.result);
      for (InstId id : llvm::reverse(b.insts))
        if (Inst &i = fn.inst(id); !letValue(i) && (i.outs.size() != 1 || !subterm(i.outs[0])))
          pushInst(i);
      break;
    }
    }
  }
}

/// Gives each wire used more than once its dups and each unused one an
/// eraser.
void linearizeVariablesIn(Function &fn, Scratch &scratch) {
  IdTable<WireId, unsigned> &uses = scratch.uses;
  useCounts(fn, uses);
  unsigned originalWires = fn.wireCount();
  // A wire used n > 1 times gets n copies, handed to its uses in the order
  // Bend counts them (handOutCopies).
  std::vector<uint32_t> &copyBegin = scratch.copyBegin;
  std::vector<WireId> &copyWires = scratch.copyWires;
  copyBegin.resize(size_t(originalWires) + 1);
  copyWires.clear();
  // Only the wires the function had: the copies made here are used once.
  // Each wire then gets an eraser (unused) or n - 1 dups (used n > 1 times;
  // an upper bound, as a retired wire has no uses): room for them at once.
  size_t made = 0;
  for (uint32_t index = 0; index < originalWires; ++index) {
    WireId w(index);
    copyBegin[index] = uint32_t(copyWires.size());
    made += uses[w] == 0 ? 1 : uses[w] - 1;
    if (uses[w] > 1)
      for (unsigned n = 0; n < uses[w]; ++n)
        copyWires.push_back(fn.newWire(fn.wires[w].name));
  }
  copyBegin[originalWires] = uint32_t(copyWires.size());
  fn.insts.reserveMore(made);
  auto copies = [&](WireId w) {
    uint32_t k = w.index;
    return llvm::ArrayRef<WireId>(copyWires).slice(copyBegin[k], copyBegin[k + 1] - copyBegin[k]);
  };
  std::vector<unsigned> &handedOut = scratch.handedOut;
  handedOut.assign(originalWires, 0);
  if (!copyWires.empty())
    handOutCopies(fn, originalWires, uses, copies, handedOut, scratch);
  // Next to each definition: the chain {x1 {x2 {... xn}}} of n-1 dups
  // that makes the copies, or an eraser for a wire nobody uses.
  auto make = [&](WireId w, llvm::SmallVectorImpl<InstId> &out) {
    if (uses[w] == 0) {
      Inst erase(InstKind::Erase);
      erase.ins = {w};
      out.push_back(fn.newInst(std::move(erase)));
      return;
    }
    WireId source = w;
    llvm::ArrayRef<WireId> made = copies(w);
    for (size_t k = 0; k + 1 < made.size(); ++k) {
      Inst dup(InstKind::Dup);
      dup.ins = {source};
      WireId rest = k + 2 == made.size() ? made[k + 1] : fn.newWire(fn.wires[w].name);
      dup.outs = {made[k], rest};
      source = rest;
      out.push_back(fn.newInst(std::move(dup)));
    }
  };
  auto needsMaking = [&](WireId w) { return w.index < originalWires && uses[w] != 1; };
  forEachBlock(fn, [&](Block &b) {
    // Most blocks define only wires used once: they stay as they are.
    if (llvm::none_of(b.params, needsMaking) &&
        llvm::none_of(fn.instsOf(b), [&](const Inst &i) { return llvm::any_of(i.outs, needsMaking); }))
      return;
    InstList rebuilt;
    rebuilt.reserve(b.insts.size());
    for (WireId p : b.params)
      make(p, rebuilt);
    for (InstId i : b.insts) {
      // Copied: making instructions may move this one.
      llvm::SmallVector<WireId, 2> outs(fn.inst(i).outs.begin(), fn.inst(i).outs.end());
      rebuilt.push_back(i);
      for (WireId w : outs)
        make(w, rebuilt);
    }
    b.insts = std::move(rebuilt);
  });
}

} // namespace

void linearizeVariables(Module &module) {
  Scratch scratch;
  for (Function &fn : module.functions())
    linearizeVariablesIn(fn, scratch);
  module.invariants.linear = true;
}

struct FunctionLinearizer::State {
  Scratch scratch;
};

FunctionLinearizer::FunctionLinearizer(Module &module, MatchLinearization level)
    : module(module), level(level), state(std::make_unique<State>()),
      done(module.idCount(), false) {}

FunctionLinearizer::~FunctionLinearizer() = default;

void FunctionLinearizer::run(Function &fn) {
  size_t k = fn.id.index;
  assert(k < done.size() && &module.function(fn.id) == &fn &&
         "not a function of the module this linearizer was made for");
  if (done[k])
    return;
  done[k] = true;
  // Without switches and matches there is nothing to expand.
  bool unchanged = level != MatchLinearization::Disabled &&
                   linearizeMatchesIn(fn, level, state->scratch);
  Invariants now;
  now.matchesLinearized = level == MatchLinearization::Enabled;
  if (afterPass)
    afterPass(fn, "linearize-matches", now);
  if (!unchanged)
    expandMatchesIn(fn, module.scott);
  now.matchesExpanded = true;
  if (afterPass)
    afterPass(fn, "expand-matches", now);
  linearizeVariablesIn(fn, state->scratch);
  if (afterPass)
    afterPass(fn, "linearize-variables", linearized());
}

void FunctionLinearizer::finish() {
  // Functions made since (by floating, out of linear ones) are linear.
  for (size_t k = 0; k < done.size(); ++k)
    if (Function &fn = module.function(FunctionId(uint32_t(k))); !fn.removed)
      run(fn);
  Invariants now = linearized();
  module.invariants.matchesLinearized |= now.matchesLinearized;
  module.invariants.matchesExpanded = now.matchesExpanded;
  module.invariants.linear = now.linear;
}

void linearizeEachFunction(Module &module, MatchLinearization level) {
  FunctionLinearizer(module, level).finish();
}

} // namespace bendc::hir
