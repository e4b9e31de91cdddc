// Passes over whole definitions: expand main, merge identical definitions,
// drop unreachable ones.
#include "ir/Passes.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cassert>
#include <functional>
#include <memory>

namespace bendc::hir {

namespace {

/// Copies `from`'s body into block `at` of `into` at `index`, in place of
/// the reference there; the copy's result becomes the reference's out wire.
/// The blocks inside the body are copied as new blocks of `into`.
void inlineAt(Function &into, BlockId at, size_t index, const Function &from) {
  const Inst &ref = into.inst(into.block(at).insts[index]);
  assert(ref.kind == InstKind::Ref && ref.outs.size() == 1 && "only a reference is replaced by a body");
  assert(&into != &from && "a function is never inlined into itself");
  WireId out = ref.outs[0];
  llvm::DenseMap<WireId, WireId> map;
  map[from.body().result] = out;
  auto wire = [&](WireId w) {
    auto [it, inserted] = map.try_emplace(w, NoWire);
    if (inserted)
      it->second = into.newWire(from.wires[w].name, from.wires[w].unscoped);
    return it->second;
  };
  std::function<void(const Block &, BlockId)> copyBlock;
  auto copyInst = [&](const Inst &i) {
    Inst c(i.kind, i.loc);
    c.numb = i.numb;
    c.callee = i.callee;
    c.ref = i.ref;
    for (WireId w : i.outs)
      c.outs.push_back(wire(w));
    for (WireId w : i.ins)
      c.ins.push_back(wire(w));
    for (BlockId b : i.blocks) {
      BlockId nb = into.newBlock();
      copyBlock(from.block(b), nb);
      c.blocks.push_back(nb);
    }
    return c;
  };
  // Copying adds blocks to `into`: a block being filled is named by its id.
  copyBlock = [&](const Block &src, BlockId dst) {
    for (WireId p : src.params) {
      WireId w = wire(p);
      into.block(dst).params.push_back(w);
    }
    for (const Inst &i : from.instsOf(src))
      into.append(dst, copyInst(i));
    WireId result = wire(src.result);
    into.block(dst).result = result;
  };
  // The reference's row stays in the table, listed nowhere.
  into.insts.reserveMore(from.insts.size());
  InstList copied;
  for (const Inst &i : from.instsOf(from.body()))
    copied.push_back(into.newInst(copyInst(i)));
  Block &block = into.block(at);
  block.insts.erase(block.insts.begin() + long(index));
  block.insts.insert(block.insts.begin() + long(index), copied.begin(), copied.end());
}

/// Where each wire a block's instructions make is made: the instruction's
/// index. A block's wires are mostly numbered in a run (as Core to HIR makes
/// them), so a table by wire over that run; a map where they are spread.
/// Built once for the block's whole size: a main of millions of
/// instructions (a long literal) must not grow a hash table by doubling.
class BlockProducers {
public:
  static constexpr uint32_t None = ~0u;

  BlockProducers(const Function &fn, const Block &b) {
    uint32_t lo = ~0u, hi = 0;
    size_t outs = 0;
    for (const Inst &i : fn.instsOf(b))
      for (WireId o : i.outs) {
        lo = std::min(lo, o.index);
        hi = std::max(hi, o.index);
        ++outs;
      }
    if (outs == 0)
      return;
    if (size_t(hi - lo) < 2 * outs + 64) {
      base = lo;
      dense.assign(size_t(hi - lo) + 1, None);
    } else {
      sparse.reserve(unsigned(outs));
    }
    for (size_t k = 0; k < b.insts.size(); ++k)
      for (WireId o : fn.inst(b.insts[k]).outs) {
        if (dense.empty())
          sparse[o] = uint32_t(k);
        else
          dense[o.index - base] = uint32_t(k);
      }
  }

  /// The index of the instruction that makes `w`, or None.
  uint32_t find(WireId w) const {
    if (!dense.empty())
      return w.index >= base && w.index - base < dense.size() ? dense[w.index - base] : None;
    auto it = sparse.find(w);
    return it == sparse.end() ? None : it->second;
  }

private:
  uint32_t base = 0;
  std::vector<uint32_t> dense;
  llvm::DenseMap<WireId, uint32_t> sparse;
};

/// The BlockProducers of the blocks asked about, each made when first
/// asked; a block is known by `Key` (its id, in a function that grows; its
/// address, in functions that do not).
template <typename Key> class ProducerTables {
public:
  /// The index in block `b` of `fn`, known as `key`, of the instruction
  /// that makes `w`, or BlockProducers::None.
  uint32_t find(Key key, const Function &fn, const Block &b, WireId w) {
    auto it = tables.find(key);
    if (it == tables.end())
      it = tables.try_emplace(key, std::make_unique<BlockProducers>(fn, b)).first;
    return it->second->find(w);
  }
  /// Forgets a block's table, its instructions having moved.
  void forget(Key key) { tables.erase(key); }

private:
  llvm::DenseMap<Key, std::unique_ptr<BlockProducers>> tables;
};

class MainExpander {
public:
  MainExpander(Module &module, Function &main) : module(module), main(main) {}

  /// Inlining adds blocks to main: blocks are named by their ids here.
  void expandReturn(BlockId b, WireId w) {
    long k = producerIndex(b, w);
    if (k < 0)
      return;
    // Inlining adds instructions to main: `i` is not used after it.
    Inst &i = main.inst(main.block(b).insts[size_t(k)]);
    switch (i.kind) {
    case InstKind::Ref: {
      const Function *target = module.target(i);
      if (!target || llvm::is_contained(seen, i.ref))
        return;
      seen.push_back(target->name);
      inlineAt(main, b, size_t(k), *target);
      producers.forget(b); // indices moved
      expandReturn(b, w);
      seen.pop_back();
      return;
    }
    case InstKind::Sup:
    case InstKind::Tup: {
      WireId first = i.ins[0], second = i.ins[1];
      expandReturn(b, first);
      expandReturn(b, second);
      return;
    }
    case InstKind::Lam: {
      BlockId body = i.blocks[0];
      expandReturn(body, main.block(body).result);
      return;
    }
    case InstKind::App: {
      // A constructor applied to arguments: expand the arguments that are
      // not nullary constructors.
      llvm::SmallVector<WireId, 4> args;
      Inst *head = &i;
      while (head->kind == InstKind::App) {
        args.push_back(head->ins[1]);
        long h = producerIndex(b, head->ins[0]);
        if (h < 0)
          return;
        head = &main.inst(main.block(b).insts[size_t(h)]);
      }
      if (head->kind != InstKind::Ref || !module.constructors.count(head->ref))
        return;
      for (WireId a : args) {
        long p = producerIndex(b, a);
        if (p >= 0) {
          const Inst &arg = main.inst(main.block(b).insts[size_t(p)]);
          if (arg.kind == InstKind::Ref && module.constructors.count(arg.ref) && isNullary(arg.ref))
            continue;
        }
        expandReturn(b, a);
      }
      return;
    }
    default: return;
    }
  }

  /// Undoes floating inside main: references to floated combinators are
  /// replaced by their bodies, and so are those inside what came in.
  void expandFloated() {
    for (bool changed = true; changed;) {
      changed = false;
      forEachBlockId(main, Function::Body, [&](BlockId b) {
        for (size_t k = 0; k < main.block(b).insts.size(); ++k) {
          Inst &i = main.inst(main.block(b).insts[k]);
          if (i.kind != InstKind::Ref || !i.ref.contains("__C"))
            continue;
          if (const Function *target = module.target(i)) {
            inlineAt(main, b, k, *target);
            producers.forget(b);
            changed = true;
            --k; // look again at what came in
          }
        }
      });
    }
  }

private:
  /// The index in `b` of the instruction defining `w`, or -1.
  long producerIndex(BlockId b, WireId w) {
    uint32_t k = producers.find(b, main, main.block(b), w);
    return k == BlockProducers::None ? -1 : long(k);
  }

  bool isNullary(llvm::StringRef ctr) const {
    auto it = module.constructors.find(ctr);
    return it != module.constructors.end() && it->second == 0;
  }

  Module &module;
  Function &main;
  llvm::SmallVector<llvm::StringRef, 8> seen;
  ProducerTables<BlockId> producers;
};

/// The function's text with wires numbered by first appearance: equal for
/// functions that differ only in wire names.
std::string canonicalText(const Function &fn) {
  llvm::DenseMap<WireId, uint32_t> order;
  std::string text;
  llvm::raw_string_ostream os(text);
  std::function<void(const Block &)> block = [&](const Block &b) {
    auto wire = [&](WireId w) {
      auto [it, inserted] = order.try_emplace(w, uint32_t(order.size()));
      os << (fn.wires[w].unscoped ? "$" : "%") << it->second << ' ';
    };
    os << '(';
    for (WireId p : b.params)
      wire(p);
    for (const Inst &i : fn.instsOf(b)) {
      os << mnemonic(i.kind) << ' ';
      for (WireId w : i.outs)
        wire(w);
      os << ": ";
      for (WireId w : i.ins)
        wire(w);
      if (i.kind == InstKind::Num || i.kind == InstKind::OprNum)
        os << '#' << i.numb << ' ';
      if (i.kind == InstKind::Ref)
        os << '@' << i.ref << ' ';
      for (BlockId c : i.blocks)
        block(fn.block(c));
      os << ';';
    }
    os << "ret ";
    wire(b.result);
    os << ')';
  };
  block(fn.body());
  return os.str();
}

/// The function references to a merged one go to: its name and id.
struct MergedInto {
  llvm::StringRef name;
  FunctionId id;
};

void redirectRefs(Module &module, const llvm::StringMap<MergedInto> &to) {
  for (Function &fn : module.functions())
    forEachInst(fn, [&](Inst &i) {
      if (i.kind != InstKind::Ref)
        return;
      if (auto it = to.find(i.ref); it != to.end()) {
        i.ref = it->second.name;
        i.callee = it->second.id;
      }
    });
}

} // namespace

namespace {

/// Follows what MainExpander::expandReturn would inline, without inlining:
/// each function's return positions are looked at once, in its own body.
class ExpansionFinder {
public:
  ExpansionFinder(Module &module, llvm::function_ref<void(Function &)> prepare)
      : expands(module.idCount(), false), module(module), prepare(prepare) {}

  void from(Function &main) {
    prepare(main);
    returned(main, main.body(), main.body().result);
    // expandFloated then inlines, in main and in what came into it, the
    // references to functions named as floated ones: of the module's
    // functions, those named so by the program.
    llvm::SmallVector<Function *, 8> work{&main};
    for (size_t k = 0; k < expands.size(); ++k)
      if (expands[k])
        work.push_back(&module.function(FunctionId(uint32_t(k))));
    while (!work.empty()) {
      Function *fn = work.pop_back_val();
      forEachInst(*fn, [&](Inst &i) {
        if (i.kind == InstKind::Ref && i.ref.contains("__C"))
          if (Function *target = reach(i))
            work.push_back(target);
      });
    }
  }

  std::vector<bool> expands; // by function id

private:
  /// The function `ref` names, prepared, if it is one not reached before.
  Function *reach(const Inst &ref) {
    Function *target = module.target(ref);
    if (!target)
      return nullptr;
    size_t k = target->id.index;
    if (expands[k])
      return nullptr;
    expands[k] = true;
    prepare(*target);
    return target;
  }

  /// Looks at what block `b` of `fn` returns through `w`.
  void returned(Function &fn, Block &b, WireId w) {
    Inst *i = producer(fn, b, w);
    if (!i)
      return;
    switch (i->kind) {
    case InstKind::Ref:
      if (Function *target = reach(*i))
        returned(*target, target->body(), target->body().result);
      return;
    case InstKind::Sup:
    case InstKind::Tup: {
      WireId first = i->ins[0], second = i->ins[1];
      returned(fn, b, first);
      returned(fn, b, second);
      return;
    }
    case InstKind::Lam: {
      Block &body = fn.block(i->blocks[0]);
      returned(fn, body, body.result);
      return;
    }
    case InstKind::App: {
      llvm::SmallVector<WireId, 4> args;
      Inst *head = i;
      while (head && head->kind == InstKind::App) {
        args.push_back(head->ins[1]);
        head = producer(fn, b, head->ins[0]);
      }
      if (!head || head->kind != InstKind::Ref || !module.constructors.count(head->ref))
        return;
      for (WireId a : args)
        returned(fn, b, a); // a nullary constructor, which expandMain skips, inlines nothing
      return;
    }
    default: return;
    }
  }

  Inst *producer(Function &fn, Block &b, WireId w) {
    uint32_t k = producers.find(&b, fn, b, w);
    return k == BlockProducers::None ? nullptr : &fn.inst(b.insts[k]);
  }

  Module &module;
  llvm::function_ref<void(Function &)> prepare;
  ProducerTables<const Block *> producers; // nothing adds blocks while it looks
};

} // namespace

namespace {
/// The entry point, or null. One look by name: a scan costs less than the
/// index find() would make.
Function *entryOf(Module &module) {
  for (Function &f : module.functions())
    if (f.name == module.entry)
      return &f;
  return nullptr;
}
} // namespace

std::vector<bool> functionsMainExpands(Module &module, llvm::function_ref<void(Function &)> prepare) {
  ExpansionFinder finder(module, prepare);
  if (Function *main = entryOf(module))
    finder.from(*main);
  return std::move(finder.expands);
}

void expandMain(Module &module) {
  Function *main = entryOf(module);
  if (!main)
    return;
  MainExpander expander(module, *main);
  expander.expandReturn(Function::Body, main->body().result);
  expander.expandFloated();
}

void mergeDefinitions(Module &module) {
  for (bool changed = true; changed;) {
    changed = false;
    // Functions with the same body, in module order; the first one stays and
    // takes the name of the group, `a__M_b__M_c` as Bend names it.
    llvm::StringMap<size_t> groupOf; // canonical text -> group
    std::vector<std::vector<FunctionId>> groups;
    for (Function &fn : module.functions()) {
      if (fn.name == module.entry)
        continue;
      auto [it, inserted] = groupOf.try_emplace(canonicalText(fn), groups.size());
      if (inserted)
        groups.emplace_back();
      groups[it->second].push_back(fn.id);
    }
    llvm::StringMap<MergedInto> to; // old name -> the merged function
    for (const std::vector<FunctionId> &group : groups) {
      if (group.size() < 2)
        continue;
      std::string joined;
      for (FunctionId k : group)
        joined += (joined.empty() ? "" : "__M_") + module.function(k).name.str();
      llvm::StringRef name = module.save(joined);
      for (FunctionId k : group)
        to[module.function(k).name] = MergedInto{name, group.front()};
      Function &first = module.function(group.front());
      module.rename(first, name);
      first.generated = true;
      for (FunctionId k : llvm::drop_begin(group))
        module.remove(k);
    }
    if (to.empty())
      break;
    assert(!to.count(module.entry) && "the entry point is never merged away");
    redirectRefs(module, to);
    changed = true;
  }
}

void pruneDefinitions(Module &module, bool keepUserDefinitions, const FunctionReferences *made) {
  uint32_t ids = module.idCount();
  if (made && (made->begin.size() != size_t(ids) + 1 || made->otherBegin.size() != made->begin.size()))
    made = nullptr; // not of this module as it is
  // Functions by id; other names (definitions written as nets) by name.
  // References go by the function ids they hold; the module's index by
  // name is made only if some name needs it.
  // The functions that share their name with a net definition: told by
  // `made`, else looked up as they are reached.
  std::vector<bool> netNamed;
  if (made) {
    netNamed.assign(ids, false);
    for (FunctionId id : made->netNamed)
      if (id.index < netNamed.size())
        netNamed[id.index] = true;
  }
  std::vector<bool> reachedFunction(ids, false);
  llvm::StringSet<> reachedOther;
  llvm::SmallVector<FunctionId, 16> work;     // functions to visit
  llvm::SmallVector<llvm::StringRef, 4> nets; // net definitions to visit
  auto reachAt = [&](FunctionId k) {
    if (k.index < ids && !module.function(k).removed && !reachedFunction[k.index]) {
      reachedFunction[k.index] = true;
      work.push_back(k);
    }
  };
  auto reach = [&](llvm::StringRef name) {
    if (const Function *f = module.find(name))
      reachAt(f->id);
    else if (reachedOther.insert(name).second)
      nets.push_back(name);
  };
  bool entryIsFunction = false;
  for (const Function &fn : module.functions()) {
    bool entry = fn.name == module.entry;
    entryIsFunction |= entry;
    if (entry || (keepUserDefinitions && !fn.builtin))
      reachAt(fn.id);
  }
  if (!entryIsFunction)
    reach(module.entry);
  for (llvm::StringRef name : module.userNetDefinitions)
    if (keepUserDefinitions)
      reach(name);
  while (!work.empty() || !nets.empty()) {
    if (!nets.empty()) {
      llvm::StringRef name = nets.pop_back_val();
      if (auto net = module.netReferences.find(name); net != module.netReferences.end())
        for (llvm::StringRef r : net->second)
          reach(r);
      continue;
    }
    FunctionId k = work.pop_back_val();
    Function &fn = module.function(k);
    // A function may share its name with a net definition, which then goes too.
    if (!made || netNamed[k.index])
      if (auto net = module.netReferences.find(fn.name); net != module.netReferences.end()) {
        reachedOther.insert(fn.name);
        for (llvm::StringRef r : net->second)
          reach(r);
      }
    if (made) {
      for (uint32_t r = made->begin[k.index]; r < made->begin[k.index + 1]; ++r)
        reachAt(made->targets[r]);
      // Names that are no function's (no definition's) are net definitions:
      // no need to look among the functions' names for them.
      for (uint32_t r = made->otherBegin[k.index]; r < made->otherBegin[k.index + 1]; ++r)
        if (reachedOther.insert(made->others[r]).second)
          nets.push_back(made->others[r]);
      continue;
    }
    forEachInst(fn, [&](Inst &i) {
      if (i.kind != InstKind::Ref)
        return;
      if (const Function *f = module.targetById(i))
        reachAt(f->id);
      else
        reach(i.ref);
    });
  }
  for (uint32_t k = 0; k < ids; ++k)
    if (!reachedFunction[k])
      module.remove(FunctionId(k));
  for (auto it = module.netReferences.begin(); it != module.netReferences.end();) {
    auto next = std::next(it);
    if (!reachedOther.contains(it->first()))
      module.netReferences.erase(it);
    it = next;
  }
}

} // namespace bendc::hir
