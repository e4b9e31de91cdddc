#include "lowering/CoreToHir.h"
#include "runtime/common/Numeric.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Casting.h"

#include <algorithm>
#include <cassert>
#include <deque>
#include <iterator>

namespace bendc::lowering {

using namespace hir;
using llvm::cast;
namespace num = rt::num;

uint32_t numbOf(core::Number n) {
  switch (n.kind) {
  case core::NumKind::U24: return num::makeU24(n.bits);
  case core::NumKind::I24: return (n.bits << 5) | num::TyI24;
  case core::NumKind::F24: return (n.bits << 5) | num::TyF24;
  }
  llvm_unreachable("unknown number kind");
}

namespace {

uint32_t opTag(core::Op op) {
  switch (op) {
  case core::Op::Add: return num::OpAdd;
  case core::Op::Sub: return num::OpSub;
  case core::Op::Mul: return num::OpMul;
  case core::Op::Div: return num::OpDiv;
  case core::Op::Rem: return num::OpRem;
  case core::Op::Eq: return num::OpEq;
  case core::Op::Ne: return num::OpNeq;
  case core::Op::Lt: return num::OpLt;
  case core::Op::Gt: return num::OpGt;
  case core::Op::And: return num::OpAnd;
  case core::Op::Or: return num::OpOr;
  case core::Op::Xor: return num::OpXor;
  case core::Op::Shl: return num::OpShl;
  case core::Op::Shr: return num::OpShr;
  // HVM2 has no `<=`, `>=` or `**`: a comparison the other way tested for
  // zero, and xor, which HVM2 defines as the power on floats.
  case core::Op::Le: return num::OpGt;
  case core::Op::Ge: return num::OpLt;
  case core::Op::Pow: return num::OpXor;
  }
  llvm_unreachable("unknown operator");
}

/// The operator that takes its operands the other way round.
uint32_t flipped(uint32_t tag) {
  switch (tag) {
  case num::OpSub: return num::FpSub;
  case num::FpSub: return num::OpSub;
  case num::OpDiv: return num::FpDiv;
  case num::FpDiv: return num::OpDiv;
  case num::OpRem: return num::FpRem;
  case num::FpRem: return num::OpRem;
  case num::OpLt: return num::OpGt;
  case num::OpGt: return num::OpLt;
  case num::OpShl: return num::FpShl;
  case num::FpShl: return num::OpShl;
  case num::OpShr: return num::FpShr;
  case num::FpShr: return num::OpShr;
  default: return tag;
  }
}

/// Definitions of at least this many terms take the wire table they were
/// made in as it is (a copy would be a second allocation of its size).
constexpr size_t kHandOver = size_t(1) << 16;

/// Buffers the translation of one function fills and the function then
/// copies, each in one allocation of its final size (but the largest wire
/// tables, which it takes); kept from one function to the next.
struct Scratch {
  std::deque<std::vector<InstId>> levels; // the instructions of the blocks being made, by depth
  Function wires;                       // the wires made so far (only its wire vectors)
  IdTable<WireId, WireId> subst;
  FunctionReferences *references = nullptr; // when asked for
};

class Translator {
public:
  Translator(const core::Program &program, Function &fn, std::vector<std::string> &problems,
             Scratch &scratch)
      : program(program), fn(fn), problems(problems), scratch(scratch), wires(scratch.wires) {}

  /// Translates `body`, of about `expectedTerms` Core terms (0: unknown).
  void run(const core::Term *body, size_t expectedTerms) {
    wires.wires.clear();
    // A definition of millions of terms (a long literal) is one large block:
    // room for its instructions and wires at once (a term makes at most one
    // of each, but for binders), rather than tables grown by doubling, each
    // step a copy of hundreds of megabytes.
    bool large = expectedTerms >= kHandOver;
    if (large) {
      if (scratch.levels.empty())
        scratch.levels.emplace_back();
      scratch.levels[0].reserve(expectedTerms);
      wires.wires.reserve(expectedTerms + expectedTerms / 4);
    }
    // A term makes at most one instruction.
    fn.insts.reserve(expectedTerms);
    fill(Function::Body, [&] { return emit(body); });
    if (large) {
      // The tables themselves rather than copies of them.
      fn.wires.storage().swap(wires.wires.storage());
    } else {
      fn.wires.storage().assign(wires.wires.begin(), wires.wires.end());
    }
    IdTable<WireId, WireId> &subst = scratch.subst;
    subst.assign(fn.wireCount(), NoWire);
    bool any = false;
    for (auto &[w, target] : aliases) {
      subst[w] = target;
      any = true;
    }
    if (!any)
      return;
    // `$x` bound by a let stands for the let's value (which may itself be
    // such an alias).
    renameUses(fn, Function::Body, [&](WireId w) {
      for (unsigned guard = 0; subst.contains(w) && subst[w] != NoWire && guard < subst.size(); ++guard)
        w = subst[w];
      return w;
    });
  }

  bool failed = false;

private:
  // Instructions are made in place at the end of the function's table and
  // listed in the buffer of the block being filled. Its operands and nested
  // blocks are emitted first: no instruction is added while one is being
  // made, so the reference holds until it is done.
  Inst &place(InstKind kind, llvm::SMLoc loc) {
    InstId id = fn.insts.emplace_back(kind, loc);
    current->push_back(id);
    return fn.inst(id);
  }
  WireId out(Inst &inst, llvm::StringRef hint) {
    WireId w = wires.newWire(hint);
    inst.outs.push_back(w);
    return w;
  }
  WireId def(InstKind kind, llvm::SMLoc loc, std::initializer_list<WireId> ins,
             llvm::StringRef hint) {
    Inst &i = place(kind, loc);
    i.ins.append(ins.begin(), ins.end());
    return out(i, hint);
  }

  /// Emits a block's instructions (`emitBody` returns its result) into a
  /// buffer of this nesting depth, then copies them into block `id` at once
  /// (emitting makes blocks: `id` names it, as a reference would not hold).
  template <typename Emit> void fill(BlockId id, Emit &&emitBody) {
    if (scratch.levels.size() <= depth)
      scratch.levels.emplace_back(); // a deque: the levels in use stay in place
    std::vector<InstId> *saved = current;
    current = &scratch.levels[depth++];
    WireId result = emitBody();
    Block &b = fn.block(id);
    b.result = result;
    b.insts.append(current->begin(), current->end());
    current->clear();
    --depth;
    current = saved;
  }

  WireId unscopedWire(llvm::StringRef name) {
    auto [it, inserted] = unscoped.try_emplace(name, NoWire);
    if (inserted)
      it->second = wires.newWire(name, /*isUnscoped=*/true);
    return it->second;
  }

  void bind(llvm::StringRef name, WireId w) {
    if (!name.empty())
      scope.push_back({name, w});
  }

  WireId lookup(const core::VarTerm *v) {
    for (auto it = scope.rbegin(); it != scope.rend(); ++it)
      if (it->first == v->name())
        return it->second;
    problems.push_back("core-to-hir: variable '" + v->name().str() + "' in @" + fn.name.str() +
                       " is bound nowhere");
    failed = true;
    return def(InstKind::Era, v->loc, {}, v->name());
  }

  /// Emits `body` into a new block with `params` bound to `names`.
  BlockId block(llvm::ArrayRef<std::pair<llvm::StringRef, WireId>> params,
                const core::Term *body) {
    BlockId b = fn.newBlock();
    size_t bound = scope.size();
    for (auto &[name, w] : params) {
      fn.block(b).params.push_back(w);
      bind(name, w);
    }
    fill(b, [&] { return emit(body); });
    scope.resize(bound);
    return b;
  }

  WireId lamParam(const core::LamTerm *lam) {
    if (lam->unscoped)
      return unscopedWire(lam->var);
    return binder(lam->var);
  }

  /// The wire of a variable bound here (empty name: erased), ranked among
  /// the definition's binders as Bend numbers them.
  WireId binder(llvm::StringRef name) {
    if (name.empty())
      return wires.newWire("_");
    return wires.newWire(name, /*isUnscoped=*/false, nextRank++);
  }

  WireId emit(const core::Term *t) {
    switch (t->kind) {
    case core::TermKind::Var: return lookup(cast<core::VarTerm>(t));
    case core::TermKind::Link: return unscopedWire(cast<core::LinkTerm>(t)->name());
    case core::TermKind::Ref: {
      Inst &i = place(InstKind::Ref, t->loc);
      i.ref = cast<core::RefTerm>(t)->name();
      // A function's id is its definition's place.
      if (uint32_t k = program.definitionOf(i.ref); k != core::Program::NoDefinition)
        i.callee = FunctionId(k);
      if (FunctionReferences *refs = scratch.references) {
        if (i.callee.valid())
          refs->targets.push_back(i.callee);
        else
          refs->others.push_back(i.ref);
      }
      return out(i, "r");
    }
    case core::TermKind::Era: return def(InstKind::Era, t->loc, {}, "e");
    case core::TermKind::Num: return numWire(numbOf(cast<core::NumTerm>(t)->value()), t->loc);
    case core::TermKind::Lam: {
      auto *lam = cast<core::LamTerm>(t);
      WireId param = lamParam(lam);
      llvm::StringRef name = lam->unscoped ? llvm::StringRef() : lam->var;
      BlockId body = block({{name, param}}, lam->body);
      Inst &i = place(InstKind::Lam, t->loc);
      i.blocks.push_back(body);
      return out(i, "f");
    }
    case core::TermKind::App: {
      auto *app = cast<core::AppTerm>(t);
      if (const core::MatchShape *shape = program.matchShape(t))
        if (WireId w = emitMatch(app, *shape); w != NoWire)
          return w;
      WireId f = emit(app->fun);
      WireId a = emit(app->arg);
      return def(InstKind::App, t->loc, {f, a}, "a");
    }
    case core::TermKind::Let: {
      auto *let = cast<core::LetTerm>(t);
      WireId value = emit(let->value);
      size_t depth = scope.size();
      if (let->unscoped)
        aliases.emplace_back(unscopedWire(let->var), value);
      else if (!let->var.empty()) {
        bind(let->var, value);
        wires.wires[value].rank = nextRank++;
      }
      WireId result = emit(let->body);
      scope.resize(depth);
      return result;
    }
    case core::TermKind::LetTup:
    case core::TermKind::Dup: {
      auto *let = cast<core::LetPairTerm>(t);
      WireId value = emit(let->value);
      WireId a = binder(let->first);
      WireId b = binder(let->second);
      Inst &i = place(t->kind == core::TermKind::Dup ? InstKind::Dup : InstKind::Untup, t->loc);
      i.ins.push_back(value);
      i.outs.append({a, b});
      size_t depth = scope.size();
      bind(let->first, a);
      bind(let->second, b);
      WireId result = emit(let->body);
      scope.resize(depth);
      return result;
    }
    case core::TermKind::Sup:
    case core::TermKind::Tup: {
      auto *pair = cast<core::PairTerm>(t);
      WireId a = emit(pair->first);
      WireId b = emit(pair->second);
      return t->kind == core::TermKind::Sup ? def(InstKind::Sup, t->loc, {a, b}, "s")
                                            : def(InstKind::Tup, t->loc, {a, b}, "t");
    }
    case core::TermKind::Opr: return emitOpr(cast<core::OprTerm>(t));
    case core::TermKind::Swi: return emitSwi(cast<core::SwiTerm>(t));
    }
    llvm_unreachable("unknown Core term");
  }

  /// A constructor match, read back out of its encoding: the scrutinee and
  /// each constructor's arm with its fields as params. NoWire (and nothing
  /// emitted) when the term does not have the encoding's shape.
  WireId emitMatch(const core::AppTerm *t, const core::MatchShape &shape) {
    core::DecodedMatch match;
    if (!core::decodeMatch(program.encoding, t, shape, match))
      return NoWire;
    size_t n = match.arms.size();
    WireId x = emit(match.scrutinee);
    llvm::SmallVector<BlockId, 4> arms;
    for (size_t k = 0; k < n; ++k) {
      std::vector<std::pair<llvm::StringRef, WireId>> params;
      for (const core::LamTerm *lam : match.arms[k].fields)
        params.push_back({lam->var, binder(lam->var)});
      arms.push_back(block(params, match.arms[k].body));
    }
    Inst &i = place(InstKind::Match, t->loc);
    i.ins.push_back(x);
    i.blocks.append(arms.begin(), arms.end());
    return out(i, "m");
  }

  WireId numWire(uint32_t numb, llvm::SMLoc loc) {
    Inst &i = place(InstKind::Num, loc);
    i.numb = numb;
    return out(i, "n");
  }

  WireId oprNum(WireId x, uint32_t numb, llvm::SMLoc loc) {
    Inst &i = place(InstKind::OprNum, loc);
    i.ins.push_back(x);
    i.numb = numb;
    return out(i, "o");
  }

  WireId opr(WireId x, WireId y, llvm::SMLoc loc) { return def(InstKind::Opr, loc, {x, y}, "o"); }

  WireId emitOpr(const core::OprTerm *o) {
    uint32_t tag = opTag(o->op);
    WireId result;
    auto *lhsNum = llvm::dyn_cast<core::NumTerm>(o->lhs);
    auto *rhsNum = llvm::dyn_cast<core::NumTerm>(o->rhs);
    if (lhsNum) {
      // [op lhs] meets the node: `[op lhs] ~ $(rhs result)`.
      WireId n = numWire((numbOf(lhsNum->value()) & ~0x1Fu) | tag, o->loc);
      result = opr(n, emit(o->rhs), o->loc);
    } else if (rhsNum && o->op != core::Op::Pow) {
      WireId x = emit(o->lhs);
      result = oprNum(x, (numbOf(rhsNum->value()) & ~0x1Fu) | flipped(tag), o->loc);
    } else {
      WireId x = emit(o->lhs);
      WireId partial = oprNum(x, num::makeSym(tag), o->loc);
      result = opr(partial, emit(o->rhs), o->loc);
    }
    if (o->op == core::Op::Le || o->op == core::Op::Ge)
      result = opr(numWire(num::OpEq, o->loc), result, o->loc); // [==0]
    return result;
  }

  WireId emitSwi(const core::SwiTerm *s) {
    WireId scrutinee = emit(s->arg);
    BlockId zero = block({}, s->zero), succ;
    auto *succLam = llvm::dyn_cast<core::LamTerm>(s->succ);
    if (succLam && !succLam->unscoped) {
      WireId pred = lamParam(succLam);
      succ = block({{succLam->var, pred}}, succLam->body);
    } else {
      // A successor case that is not a λ receives the predecessor by application.
      WireId pred = wires.newWire("p", /*isUnscoped=*/false, nextRank++);
      succ = fn.newBlock();
      fn.block(succ).params.push_back(pred);
      fill(succ, [&] {
        WireId f = emit(s->succ);
        return def(InstKind::App, s->loc, {f, pred}, "a");
      });
    }
    Inst &i = place(InstKind::Swi, s->loc);
    i.ins.push_back(scrutinee);
    i.blocks = {zero, succ};
    return out(i, "w");
  }

  const core::Program &program;
  Function &fn;
  std::vector<std::string> &problems;
  Scratch &scratch;
  Function &wires; // where wires are made, until `fn` takes them
  std::vector<InstId> *current = nullptr; // the instructions of the block being made
  unsigned depth = 0;                   // how many blocks are being made
  std::vector<std::pair<llvm::StringRef, WireId>> scope;
  llvm::StringMap<WireId> unscoped;
  std::vector<std::pair<WireId, WireId>> aliases; // `let $x = v`: $x stands for v
  uint32_t nextRank = 0;                           // the next binder's rank (Function::Wire::rank)
};

} // namespace

struct HirBuilder::State {
  explicit State(const core::Program &program) : program(program) {}
  const core::Program &program;
  std::vector<std::string> problems;
  Scratch scratch;
};

HirBuilder::HirBuilder(const core::Program &program)
    : state(std::make_unique<State>(program)) {}

HirBuilder::~HirBuilder() = default;

std::unique_ptr<Module> HirBuilder::makeModule() {
  const core::Program &program = state->program;
  auto module = std::make_unique<Module>();
  module->entry = module->save(program.entry);
  module->scott = program.encoding == core::AdtEncoding::Scott;
  for (const core::AdtInfo &adt : program.adts)
    for (const core::AdtInfo::Ctr &ctr : adt.ctrs)
      module->constructors[ctr.name] = unsigned(ctr.fields.size());
  // A function's id is its definition's place.
  module->reserve(program.defs.size());
  for (const core::Definition &d : program.defs) {
    Function fn;
    fn.name = d.name; // in the program, as the references' names are
    fn.loc = d.loc;
    fn.builtin = d.builtin;
    module->add(std::move(fn));
  }
  return module;
}

bool HirBuilder::translate(Function &fn, FunctionReferences *references) {
  State &s = *state;
  uint32_t k = fn.id.index;
  assert(k < s.program.defs.size() && "not a function makeModule made");
  s.scratch.references = references;
  // Definitions are translated mostly in order, long after desugaring made
  // them: the next one's terms are fetched while this one is translated.
  s.program.prefetch(k + 1);
  Translator t(s.program, fn, s.problems, s.scratch);
  const core::ProgramRefs &refs = s.program.refs;
  t.run(s.program.defs[k].body, k < refs.termsOf.size() ? refs.termsOf[k] : 0);
  if (references) {
    references->begin.push_back(uint32_t(references->targets.size()));
    references->otherBegin.push_back(uint32_t(references->others.size()));
  }
  return !t.failed;
}

size_t HirBuilder::references(FunctionReferences &out) const {
  const core::Program &program = state->program;
  const core::ProgramRefs *refs = &program.refs;
  core::ProgramRefs walked;
  if (!refs->covers(program.defs.size())) {
    for (const core::Definition &d : program.defs)
      walked.add(d.body);
    refs = &walked;
  }
  out = FunctionReferences();
  for (size_t k = 0; k < program.defs.size(); ++k) {
    for (llvm::StringRef name : refs->of(k)) {
      if (uint32_t id = program.definitionOf(name); id != core::Program::NoDefinition)
        out.targets.push_back(FunctionId(id));
      else
        out.others.push_back(name);
    }
    out.begin.push_back(uint32_t(out.targets.size()));
    out.otherBegin.push_back(uint32_t(out.others.size()));
  }
  netNamed(out);
  return refs->terms;
}

void HirBuilder::netNamed(FunctionReferences &out) const {
  // Core saves each name once: equal names are one pointer.
  out.netNamed.clear();
  for (const core::HvmDefinition &h : state->program.hvmDefs)
    if (uint32_t id = state->program.definitionOf(h.name); id != core::Program::NoDefinition)
      out.netNamed.push_back(FunctionId(id));
}

const std::vector<std::string> &HirBuilder::problems() const { return state->problems; }

FunctionId HirBuilder::functionId(llvm::StringRef name) const {
  uint32_t k = state->program.definitionOf(name);
  return k == core::Program::NoDefinition ? NoFunction : FunctionId(k);
}

std::unique_ptr<Module> coreToHir(const core::Program &program, FunctionReferences *references,
                                  std::vector<std::string> *problems) {
  HirBuilder builder(program);
  std::unique_ptr<Module> module = builder.makeModule();
  if (references)
    *references = FunctionReferences();
  bool failed = false;
  for (Function &fn : module->functions())
    failed |= !builder.translate(fn, references);
  if (failed) {
    if (problems)
      problems->insert(problems->end(), builder.problems().begin(), builder.problems().end());
    return nullptr;
  }
  if (references)
    builder.netNamed(*references);
  return module;
}

} // namespace bendc::lowering
