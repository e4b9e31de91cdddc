#include "ir/Hir.h"
#include "runtime/common/NumericText.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/raw_ostream.h"

#include <cassert>

namespace bendc::hir {

namespace {
struct KindInfo {
  const char *mnemonic;
  int outs, ins, blocks;
};
constexpr KindInfo kindInfo[] = {
#define BENDC_HIR_INFO(Name, Mnemonic, Outs, Ins, Blocks) {Mnemonic, Outs, Ins, Blocks},
    BENDC_HIR_INSTS(BENDC_HIR_INFO)
#undef BENDC_HIR_INFO
};
} // namespace

llvm::StringRef mnemonic(InstKind kind) { return kindInfo[unsigned(kind)].mnemonic; }
unsigned outCount(InstKind kind) { return unsigned(kindInfo[unsigned(kind)].outs); }
int inCount(InstKind kind) { return kindInfo[unsigned(kind)].ins; }
int blockCount(InstKind kind) { return kindInfo[unsigned(kind)].blocks; }

Function &Module::add(Function &&fn) {
  FunctionId id = table.next();
  assert((!fn.id.valid() || fn.id == id) && "functions are added in the order of their ids");
  fn.id = id;
  if (nextFunctionId <= id.index)
    nextFunctionId = id.index + 1;
  Function &placed = table[table.push_back(std::move(fn))];
  if (indexed)
    byName.try_emplace(placed.name, id); // (as when the index is made: the first of a name)
  return placed;
}

void Module::unindex(const Function &fn) {
  if (auto it = byName.find(fn.name); it != byName.end() && it->second == fn.id)
    byName.erase(it);
}

void Module::remove(FunctionId id) {
  Function &fn = table[id];
  if (fn.removed)
    return;
  if (indexed)
    unindex(fn);
  fn.release();
  fn.removed = true;
}

void Module::rename(Function &fn, llvm::StringRef name) {
  if (indexed) {
    unindex(fn);
    byName[name] = fn.id;
  }
  fn.name = name;
}

Function *Module::find(llvm::StringRef name) {
  if (!indexed) {
    for (const Function &fn : functions())
      byName.try_emplace(fn.name, fn.id);
    indexed = true;
  }
  auto it = byName.find(name);
  return it == byName.end() ? nullptr : &table[it->second];
}
const Function *Module::find(llvm::StringRef name) const {
  return const_cast<Module *>(this)->find(name);
}

Function *Module::targetById(const Inst &ref) {
  Function *f = withId(ref.callee);
  return f && f->name == ref.ref ? f : nullptr;
}
const Function *Module::targetById(const Inst &ref) const {
  return const_cast<Module *>(this)->targetById(ref);
}

Function *Module::withId(FunctionId id) {
  if (!table.contains(id) || table[id].removed)
    return nullptr;
  return &table[id];
}
const Function *Module::withId(FunctionId id) const { return const_cast<Module *>(this)->withId(id); }

Function *Module::target(const Inst &ref) {
  if (Function *f = targetById(ref))
    return f;
  return find(ref.ref);
}
const Function *Module::target(const Inst &ref) const {
  return const_cast<Module *>(this)->target(ref);
}

void renameUses(Function &fn, BlockId root, llvm::function_ref<WireId(WireId)> rename) {
  forEachBlock(fn, root, [&](Block &b) {
    b.result = rename(b.result);
    for (Inst &i : fn.instsOf(b))
      for (WireId &w : i.ins)
        w = rename(w);
  });
}

// ---------------------------------------------------------------- printing

namespace {
class Printer {
public:
  Printer(llvm::raw_ostream &os, const Function &fn) : os(os), fn(fn) {}

  void wire(WireId w) {
    if (w == NoWire) {
      os << "%?";
      return;
    }
    os << (fn.wires[w].unscoped ? "%$" : "%") << fn.wires[w].name << '.' << w.index;
  }

  void block(const Block &b, unsigned depth) {
    for (const Inst &i : fn.instsOf(b))
      inst(i, depth);
    indent(depth);
    os << "ret ";
    wire(b.result);
    os << '\n';
  }

  void params(const Block &b) {
    os << '(';
    for (size_t k = 0; k < b.params.size(); ++k) {
      if (k)
        os << ", ";
      wire(b.params[k]);
    }
    os << ')';
  }

  void inst(const Inst &i, unsigned depth) {
    indent(depth);
    for (size_t k = 0; k < i.outs.size(); ++k) {
      if (k)
        os << ", ";
      wire(i.outs[k]);
    }
    if (!i.outs.empty())
      os << " = ";
    os << mnemonic(i.kind);
    for (WireId w : i.ins) {
      os << ' ';
      wire(w);
    }
    if (i.kind == InstKind::Num || i.kind == InstKind::OprNum)
      os << ' ' << rt::num::showNumb(i.numb);
    if (i.kind == InstKind::Ref)
      os << " @" << i.ref;
    if (i.blocks.empty()) {
      os << '\n';
      return;
    }
    os << " {\n";
    static const char *const armNames[] = {"zero", "succ"};
    for (size_t k = 0; k < i.blocks.size(); ++k) {
      indent(depth + 1);
      if (i.kind == InstKind::Match)
        os << "ctr" << k;
      else
        os << (i.kind == InstKind::Swi ? armNames[k] : "body");
      params(fn.block(i.blocks[k]));
      os << ":\n";
      block(fn.block(i.blocks[k]), depth + 2);
    }
    indent(depth);
    os << "}\n";
  }

private:
  void indent(unsigned depth) { os.indent(2 * depth); }
  llvm::raw_ostream &os;
  const Function &fn;
};
} // namespace

void printFunction(llvm::raw_ostream &os, const Function &fn) {
  os << "def @" << fn.name << (fn.generated ? " (generated)" : "") << " {\n";
  // Deep programs nest blocks deeply; printing recurses once per λ or arm,
  // which callers bound by running on a large stack (see Compile.cpp).
  Printer(os, fn).block(fn.body(), 1);
  os << "}\n";
}

void printModule(llvm::raw_ostream &os, const Module &module, bool withBuiltins) {
  for (const Function &fn : module.functions())
    if (withBuiltins || !fn.builtin)
      printFunction(os, fn);
}

// ------------------------------------------------------------- verification

void verifyNames(const Module &module, std::vector<std::string> &problems) {
  llvm::StringSet<> names;
  for (uint32_t k = 0; k < module.idCount(); ++k) {
    const Function &fn = module.function(FunctionId(k));
    if (fn.removed)
      continue;
    if (!names.insert(fn.name).second)
      problems.push_back("function @" + fn.name.str() + " is defined twice");
    if (fn.id != FunctionId(k))
      problems.push_back("function @" + fn.name.str() + " has id " + std::to_string(fn.id.index) +
                         " in place " + std::to_string(k));
  }
}

std::optional<std::string> checkRef(const Module &module, const Inst &ref,
                                    llvm::function_ref<bool(llvm::StringRef)> more) {
  // An id that names another function is one a pass forgot to change.
  if (const Function *f = module.withId(ref.callee); f && f->name != ref.ref)
    return "reference to @" + ref.ref.str() + " holds the id of @" + f->name.str();
  if (module.netReferences.count(ref.ref) || module.find(ref.ref) || (more && more(ref.ref)))
    return std::nullopt;
  return "reference to unknown function @" + ref.ref.str();
}

std::vector<std::string> verify(const Module &module) {
  std::vector<std::string> problems;
  verifyNames(module, problems);
  auto refs = [&](const Inst &ref) { return checkRef(module, ref); };
  for (const Function &fn : module.functions())
    verifyFunction(fn, module.invariants, refs, problems);
  return problems;
}

void verifyFunction(const Function &cfn, const Invariants &invariants, RefCheck refs,
                    std::vector<std::string> &problems) {
  Function &fn = const_cast<Function &>(cfn); // the walkers take mutable blocks
  std::string where = " in @" + fn.name.str();
  auto wireText = [&](WireId w) -> std::string {
    if (!fn.wires.contains(w))
      return "%?";
    return (llvm::Twine("%") + fn.wires[w].name + "." + llvm::Twine(w.index)).str();
  };
  IdTable<WireId, unsigned> defs, uses;
  defs.assign(fn.wireCount(), 0);
  uses.assign(fn.wireCount(), 0);
  auto define = [&](WireId w) {
    if (!fn.wires.contains(w)) {
      problems.push_back("an undeclared wire is defined" + where);
      return;
    }
    ++defs[w];
  };
  auto use = [&](WireId w) {
    if (!fn.wires.contains(w)) {
      problems.push_back("an undeclared wire is used" + where);
      return;
    }
    ++uses[w];
  };
  if (fn.blocks.empty()) {
    problems.push_back("a function has no body" + where);
    return;
  }
  if (!fn.body().params.empty())
    problems.push_back("the body block of a function takes no params" + where);
  // Each block is held by one instruction at most, and the body by none:
  // the blocks reached from the body form a tree. (Counted over the whole
  // table, so that a wrong id cannot send the walks below round a cycle.)
  // Likewise each instruction is listed by one block at most.
  std::vector<uint8_t> holders(fn.blocks.size(), 0);
  std::vector<uint8_t> listed(fn.insts.size(), 0);
  bool blocksWrong = false, instsWrong = false;
  for (const Block &b : fn.blocks)
    for (InstId id : b.insts) {
      if (!fn.insts.contains(id) || listed[id.index]++ != 0) {
        instsWrong = true;
        continue;
      }
      for (BlockId c : fn.inst(id).blocks)
        if (!fn.blocks.contains(c) || c == Function::Body || holders[c.index]++ != 0)
          blocksWrong = true;
    }
  if (instsWrong) {
    problems.push_back("an instruction is listed twice or is no instruction of the function" + where);
    return;
  }
  if (blocksWrong) {
    problems.push_back("a block is held twice, is the body, or is no block of the function" + where);
    return;
  }
  forEachBlock(fn, [&](Block &b) {
    for (WireId p : b.params)
      define(p);
    use(b.result);
    for (Inst &i : fn.instsOf(b)) {
      // Made only for a message: verifying runs after every pass in tests.
      auto what = [&] { return (llvm::Twine("'") + mnemonic(i.kind) + "'" + where).str(); };
      if (i.outs.size() != outCount(i.kind))
        problems.push_back(what() + " defines " + std::to_string(i.outs.size()) + " wires");
      if (inCount(i.kind) >= 0 ? i.ins.size() != size_t(inCount(i.kind)) : i.ins.empty())
        problems.push_back(what() + " uses " + std::to_string(i.ins.size()) + " wires");
      if (blockCount(i.kind) >= 0 ? i.blocks.size() != size_t(blockCount(i.kind)) : i.blocks.empty()) {
        problems.push_back(what() + " has " + std::to_string(i.blocks.size()) + " blocks");
        continue;
      }
      for (WireId w : i.outs)
        define(w);
      for (WireId w : i.ins)
        use(w);
      if (i.kind == InstKind::Ref)
        if (std::optional<std::string> wrong = refs(i))
          problems.push_back(*wrong + where);
      if (i.kind == InstKind::Lam && fn.block(i.blocks[0]).params.size() != 1)
        problems.push_back("a λ body takes exactly one param" + where);
      if (i.kind == InstKind::Match && invariants.matchesExpanded)
        problems.push_back("a match is left after matches were expanded" + where);
      if (i.kind == InstKind::Match)
        for (BlockId arm : i.blocks)
          if (fn.block(arm).params.size() < i.ins.size() - 1)
            problems.push_back("a match arm takes fewer params than the match passes" + where);
      if (i.kind == InstKind::Swi) {
        size_t args = i.ins.size() - 1;
        const Block &zero = fn.block(i.blocks[0]), &succ = fn.block(i.blocks[1]);
        // (A successor case may also be a value taking nothing: `_: *`.)
        bool succValue = args == 0 && succ.params.empty();
        if (zero.params.size() != args || (succ.params.size() != args + 1 && !succValue))
          problems.push_back("switch arms must take its " + std::to_string(args) +
                             " arguments (the successor arm the predecessor first)" + where);
      }
    }
  });
  for (WireId w : fn.wires.ids()) {
    if (defs[w] == 0 && uses[w] == 0)
      continue; // retired: what used it moved to another function
    if (defs[w] != 1)
      problems.push_back("wire " + wireText(w) + " is defined " + std::to_string(defs[w]) +
                         " times" + where);
    else if (invariants.linear && uses[w] != 1)
      problems.push_back("wire " + wireText(w) + " is used " + std::to_string(uses[w]) +
                         " times in a linear function" + where);
  }
  if (!invariants.matchesLinearized)
    return;
  // Arms receive exactly their live inputs: nothing scoped comes from outside.
  forEachInst(fn, [&](Inst &i) {
    if (i.kind != InstKind::Swi && i.kind != InstKind::Match)
      return;
    for (BlockId arm : i.blocks) {
      llvm::DenseSet<WireId> inside;
      forEachBlock(fn, arm, [&](Block &b) {
        inside.insert(b.params.begin(), b.params.end());
        for (Inst &k : fn.instsOf(b))
          inside.insert(k.outs.begin(), k.outs.end());
      });
      auto check = [&](WireId w) {
        if (fn.wires.contains(w) && !fn.wires[w].unscoped && !inside.contains(w))
          problems.push_back("switch arm uses " + wireText(w) +
                             " from outside instead of taking it as a param" + where);
      };
      forEachBlock(fn, arm, [&](Block &b) {
        check(b.result);
        for (Inst &k : fn.instsOf(b))
          for (WireId w : k.ins)
            check(w);
      });
    }
  });
}

} // namespace bendc::hir
