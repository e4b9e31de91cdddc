// Hindley–Milner inference with levels (let-polymorphism) and union–find
// type variables, extended the way Bend's type system is: `Any` unifies
// with everything and spreads into the variables it meets, `_` in an
// annotation is filled by inference, and numeric operators constrain their
// operands to `Number(t)` (any number) or `Integer(t)` (u24 or i24).
#include "frontend/TypeCheck.h"

#include "frontend/Desugar.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/GraphTraits.h"
#include "llvm/ADT/SCCIterator.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Allocator.h"
#include "llvm/Support/raw_ostream.h"

#include <deque>
#include <optional>
#include <string>
#include <type_traits>

namespace bendc::frontend {
namespace {

using core::Term;
using core::TermKind;
using llvm::cast;
using llvm::SMLoc;
using llvm::StringRef;

enum class TK : uint8_t { Var, Ctr, Arrow, Tup, Number, Integer, U24, I24, F24, None, Any, Hole };

/// A type. Variables are union–find nodes: `link` is what the variable was
/// unified with. A variable at level kGeneric belongs to a type scheme and is
/// replaced by a fresh one at each use.
struct Ty {
  TK kind;
  unsigned level = 0;
  Ty *link = nullptr;
  StringRef name; // Ctr
  llvm::ArrayRef<Ty *> args; // in the checker's arena, as the type is
};
constexpr unsigned kGeneric = ~0u;

// ---- the dependency graph of checked definitions -----------------------------

struct DepNode {
  int def = -1; // index into Checker::checked; -1: the root
  llvm::SmallVector<DepNode *, 4> succs;
};
struct DepGraph {
  std::deque<DepNode> nodes;
  DepNode root;
};

} // namespace
} // namespace bendc::frontend

template <> struct llvm::GraphTraits<bendc::frontend::DepGraph *> {
  using NodeRef = bendc::frontend::DepNode *;
  using ChildIteratorType = llvm::SmallVector<NodeRef, 4>::iterator;
  static NodeRef getEntryNode(bendc::frontend::DepGraph *g) { return &g->root; }
  static ChildIteratorType child_begin(NodeRef n) { return n->succs.begin(); }
  static ChildIteratorType child_end(NodeRef n) { return n->succs.end(); }
};

namespace bendc::frontend {
namespace {

/// Why a unification failed.
struct Mismatch {
  Ty *a = nullptr, *b = nullptr; // the two types as they were asked to unify
  Ty *occursVar = nullptr, *occursIn = nullptr;
};

class Checker {
public:
  Checker(const core::Program &prog, const Book &book, const TypingFacts &facts,
          DiagnosticEngine &diags, TypeInfo *info, const core::ProgramRefs *refs)
      : prog(prog), book(book), facts(facts), diags(diags), info(info), refs(refs) {}

  void run();
  /// Every scheme known, as text, into `info`.
  void exportSchemes() {
    for (auto &s : schemes) {
      varNames.clear();
      info->schemes[s.first()] = show(s.second);
    }
  }

private:
  // ---- types ----------------------------------------------------------------
  Ty *make(TK kind, llvm::ArrayRef<Ty *> args = {}, StringRef name = {}) {
    Ty *t = new (store.Allocate<Ty>()) Ty();
    t->kind = kind;
    t->name = name;
    if (!args.empty()) {
      Ty **copy = store.Allocate<Ty *>(args.size());
      std::copy(args.begin(), args.end(), copy);
      t->args = llvm::ArrayRef<Ty *>(copy, args.size());
    }
    return t;
  }
  Ty *fresh() {
    Ty *t = make(TK::Var);
    t->level = level;
    return t;
  }
  Ty *generic() {
    Ty *t = make(TK::Var);
    t->level = kGeneric;
    return t;
  }
  Ty *arrow(Ty *from, Ty *to) { return make(TK::Arrow, {from, to}); }
  Ty *prim(TK kind) { return make(kind); }
  static Ty *prune(Ty *t) {
    while (t->kind == TK::Var && t->link) {
      if (t->link->kind == TK::Var && t->link->link)
        t->link = t->link->link;
      t = t->link;
    }
    return t;
  }

  bool unify(Ty *a, Ty *b);
  bool isPlain(Ty *t);
  bool isPlainAdt(StringRef name);
  llvm::StringMap<bool> plainAdts; // memo; true while being decided (a recursive type)
  bool unifyAnyInto(Ty *t);
  bool bindVar(Ty *v, Ty *t);
  Ty *instantiate(Ty *t);
  Ty *instantiate(Ty *t, llvm::DenseMap<Ty *, Ty *> &map);
  void generalize(Ty *t);
  Ty *freeze(Ty *t); // a copy with every unbound variable generic

  // ---- annotations -------------------------------------------------------------
  StringRef resolveType(const FileScope *file, StringRef name) const;
  /// An annotation as a type scheme; unknown type names are reported.
  Ty *fromAnnotation(const ast::TypeExpr *t, const FileScope *file, llvm::StringMap<Ty *> &vars);
  void noteTypeNamedLikeVariable(Diagnostic &d, const ast::TypeExpr *sig) const;
  Ty *schemeOf(const ast::TypeExpr *t, const FileScope *file) {
    llvm::StringMap<Ty *> vars;
    return t ? fromAnnotation(t, file, vars) : prim(TK::Any);
  }
  Ty *constructorScheme(const CtrData &ctr);

  // ---- inference -----------------------------------------------------------------
  struct Failure {};
  Ty *infer(const Term *t);
  /// Infers `body` with `name` (none when empty) bound to `type`.
  Ty *inferUnder(StringRef name, Ty *type, const Term *body);
  [[noreturn]] void failUnscopedBind(const Term *at, StringRef name);
  Ty *inferMatch(const TypingFacts::Match &m);
  /// Unifies or reports at `at` (or at `where`, when given) and fails.
  void expect(Ty *a, Ty *b, const Term *at, llvm::SMRange where = {});
  [[noreturn]] void fail(DiagKind kind, llvm::SMRange where, std::string message);
  [[noreturn]] void fail(DiagKind kind, const Term *at, std::string message) {
    fail(kind, llvm::SMRange(at->loc, at->loc), std::move(message));
  }
  /// Explains a mismatch in an entry point that arguments were applied to.
  void noteArguments(Diagnostic &d, StringRef def) const;
  Ty *lookupVar(StringRef name);
  Ty *refType(StringRef name);
  void inferGroup(llvm::ArrayRef<unsigned> group);

public:
  /// The checked definitions whose result, once given as many arguments as
  /// their leading λs take, is plain data: numbers, tuples and constructors
  /// of types whose fields are plain data too — no function anywhere, so a
  /// DUP copies it exactly.
  /// The places in Program::defs of the checked definitions that return
  /// plain data (see core::Definition::plainResult).
  void collectPlainResults(std::vector<uint32_t> &out) {
    for (const CheckedDef &d : checked) {
      auto s = schemes.find(d.def->name);
      if (s == schemes.end())
        continue;
      Ty *t = prune(s->second);
      for (const core::Term *body = d.def->body; auto *lam = llvm::dyn_cast<core::LamTerm>(body);
           body = lam->body) {
        if (lam->unscoped || t->kind != TK::Arrow) {
          t = nullptr;
          break;
        }
        t = prune(t->args[1]);
      }
      if (t && isPlain(t))
        out.push_back(uint32_t(d.def - prog.defs.data()));
    }
  }

private:
  std::optional<Ty *> specialize(Ty *inferred, Ty *annotation, std::string &why);
  Ty *merge(Ty *inf, Ty *ann, llvm::DenseMap<Ty *, Ty *> &chosen, bool &ok);
  bool sameType(Ty *a, Ty *b);

  // ---- printing ------------------------------------------------------------------
  std::string show(Ty *t);
  void show(llvm::raw_ostream &os, Ty *t, bool nested);

  const core::Program &prog;
  const Book &book;
  const TypingFacts &facts;
  DiagnosticEngine &diags;
  TypeInfo *info;
  const core::ProgramRefs *refs; // null: walk the definitions
  // The type of each variable use of the group being inferred; shown once
  // the group is done, when the types are as precise as they will be.
  llvm::DenseMap<const char *, Ty *> useTypes;

  // Types are made by the million and never freed one by one: an arena
  // (a Ty has nothing to destroy) lets them all go at once.
  llvm::BumpPtrAllocator store;
  static_assert(std::is_trivially_destructible_v<Ty>);
  unsigned level = 0;
  Mismatch mismatch;
  llvm::StringMap<Ty *, llvm::BumpPtrAllocator> schemes; // finished definitions and constructors
  // Core saves each name once, so a name's pointer stands for it (below).
  llvm::DenseMap<const char *, Ty *> groupVars; // the group being inferred: monomorphic
  llvm::DenseMap<const char *, Ty *> schemeOfRef; // `schemes` as references found them
  std::vector<std::pair<StringRef, Ty *>> env; // variables in scope, innermost last
  llvm::DenseMap<Ty *, std::string> varNames;  // for messages
  StringRef currentDef;
  const ast::TypeExpr *currentSig = nullptr; // its annotation, for notes
  bool currentBuiltin = false;               // it is the prelude's

  struct CheckedDef {
    const core::Definition *def;
    const TypingFacts::Def *info;
  };
  std::vector<CheckedDef> checked;
};

// ---- unification --------------------------------------------------------------

bool Checker::bindVar(Ty *v, Ty *t) {
  // Occurs check, and the variables of `t` move out to `v`'s level so that
  // they are not generalized while `v` is still in scope.
  llvm::SmallVector<Ty *, 16> work{t};
  while (!work.empty()) {
    Ty *x = prune(work.pop_back_val());
    if (x == v) {
      mismatch.occursVar = v;
      mismatch.occursIn = t;
      return false;
    }
    if (x->kind == TK::Var) {
      if (x->level != kGeneric && x->level > v->level)
        x->level = v->level;
      continue;
    }
    work.append(x->args.begin(), x->args.end());
  }
  v->link = t;
  return true;
}

bool Checker::unifyAnyInto(Ty *t) {
  for (Ty *c : t->args) {
    Ty *x = prune(c);
    if (x->kind == TK::Var) {
      x->link = prim(TK::Any);
      continue;
    }
    if (x->kind != TK::Any && x->kind != TK::Hole && !unifyAnyInto(x))
      return false;
  }
  return true;
}

bool Checker::unify(Ty *a, Ty *b) {
  a = prune(a);
  b = prune(b);
  if (a == b || a->kind == TK::Hole || b->kind == TK::Hole)
    return true;
  if (a->kind == TK::Var)
    return bindVar(a, b);
  if (b->kind == TK::Var)
    return bindVar(b, a);
  auto pairwise = [&] {
    if (a->args.size() != b->args.size())
      return false;
    for (size_t i = 0; i < a->args.size(); ++i)
      if (!unify(a->args[i], b->args[i]))
        return false;
    return true;
  };
  auto isPrimNumber = [](TK k) { return k == TK::U24 || k == TK::I24 || k == TK::F24; };
  auto isNumClass = [](TK k) { return k == TK::Number || k == TK::Integer; };
  if (a->kind == b->kind) {
    switch (a->kind) {
    case TK::Arrow:
    case TK::Tup:
    case TK::Number:
    case TK::Integer:
      return pairwise();
    case TK::Ctr:
      return a->name == b->name && pairwise();
    case TK::U24:
    case TK::I24:
    case TK::F24:
    case TK::None:
    case TK::Any:
      return true;
    case TK::Var:
    case TK::Hole:
      break;
    }
  }
  if (isNumClass(a->kind) && isNumClass(b->kind))
    return unify(a->args[0], b->args[0]);
  if (isNumClass(a->kind) && isPrimNumber(b->kind))
    return unify(a->args[0], b);
  if (isNumClass(b->kind) && isPrimNumber(a->kind))
    return unify(b->args[0], a);
  if (a->kind == TK::Any)
    return unifyAnyInto(b);
  if (b->kind == TK::Any)
    return unifyAnyInto(a);
  return false;
}

Ty *Checker::instantiate(Ty *t, llvm::DenseMap<Ty *, Ty *> &map) {
  t = prune(t);
  if (t->kind == TK::Var) {
    if (t->level != kGeneric)
      return t;
    Ty *&v = map[t];
    if (!v)
      v = fresh();
    return v;
  }
  if (t->args.empty())
    return t;
  llvm::SmallVector<Ty *, 4> args;
  bool changed = false;
  for (Ty *a : t->args) {
    args.push_back(instantiate(a, map));
    changed |= args.back() != a;
  }
  return changed ? make(t->kind, args, t->name) : t;
}

Ty *Checker::instantiate(Ty *t) {
  llvm::DenseMap<Ty *, Ty *> map;
  return instantiate(t, map);
}

void Checker::generalize(Ty *t) {
  t = prune(t);
  if (t->kind == TK::Var) {
    if (t->level != kGeneric && t->level > level)
      t->level = kGeneric;
    return;
  }
  for (Ty *a : t->args)
    generalize(a);
}

Ty *Checker::freeze(Ty *t) {
  t = prune(t);
  if (t->kind == TK::Var) {
    t->level = kGeneric;
    return t;
  }
  llvm::SmallVector<Ty *, 4> args;
  for (Ty *a : t->args)
    args.push_back(freeze(a));
  return t->args.empty() ? t : make(t->kind, args, t->name);
}

// ---- annotations ----------------------------------------------------------------

StringRef Checker::resolveType(const FileScope *file, StringRef name) const {
  if (file) {
    auto it = file->names.find(name);
    if (it != file->names.end()) {
      auto a = book.adts.find(it->second);
      if (a != book.adts.end())
        return a->first();
    }
    if (!file->prefix.empty()) {
      auto a = book.adts.find((file->prefix + "/" + name).str());
      if (a != book.adts.end())
        return a->first();
    }
  }
  auto a = book.adts.find(name);
  return a != book.adts.end() ? a->first() : StringRef();
}

Ty *Checker::fromAnnotation(const ast::TypeExpr *t, const FileScope *file,
                            llvm::StringMap<Ty *> &vars) {
  using K = ast::TypeExpr::Kind;
  switch (t->kind) {
  case K::Any: return prim(TK::Any);
  case K::None: return prim(TK::None);
  case K::Hole: return prim(TK::Hole);
  case K::U24: return prim(TK::U24);
  case K::I24: return prim(TK::I24);
  case K::F24: return prim(TK::F24);
  case K::Name: {
    if (StringRef adt = resolveType(file, t->name); !adt.empty())
      return make(TK::Ctr, {}, adt);
    Ty *&v = vars[t->name];
    if (!v)
      v = generic();
    return v;
  }
  case K::Apply: {
    llvm::SmallVector<Ty *, 4> args;
    for (const ast::TypeExpr *a : t->args)
      args.push_back(fromAnnotation(a, file, vars));
    StringRef adt = resolveType(file, t->name);
    if (adt.empty()) {
      diags.report(DiagKind::UnknownType, t->range.toSM(),
                   "unknown type '" + t->name.str() + "'");
      return prim(TK::Any);
    }
    return make(TK::Ctr, args, adt);
  }
  case K::Arrow:
    return arrow(fromAnnotation(t->args[0], file, vars), fromAnnotation(t->args[1], file, vars));
  case K::Tuple: {
    // Tuples are pairs nested to the right, as Core builds them.
    Ty *r = fromAnnotation(t->args.back(), file, vars);
    for (size_t i = t->args.size() - 1; i-- > 0;)
      r = make(TK::Tup, {fromAnnotation(t->args[i], file, vars), r});
    return r;
  }
  }
  return prim(TK::Any);
}

Ty *Checker::constructorScheme(const CtrData &ctr) {
  llvm::StringMap<Ty *> vars;
  llvm::SmallVector<Ty *, 4> params;
  for (StringRef p : ctr.adt->params) {
    Ty *&v = vars[p];
    if (!v)
      v = generic();
    params.push_back(v);
  }
  Ty *t = make(TK::Ctr, params, book.adts.find(ctr.adt->name)->first());
  for (size_t i = ctr.fieldTypes.size(); i-- > 0;) {
    const ast::TypeExpr *f = ctr.fieldTypes[i];
    t = arrow(f ? fromAnnotation(f, ctr.adt->file, vars) : prim(TK::Any), t);
  }
  return t;
}

// ---- inference ---------------------------------------------------------------------

void Checker::noteArguments(Diagnostic &d, StringRef def) const {
  if (def.empty() || def != facts.appliedEntry)
    return;
  d.notes.push_back(DiagNote{facts.firstArgument.toSM(),
                             "'" + def.str() +
                                 "' is checked as applied to its command-line arguments"});
}

void Checker::fail(DiagKind kind, llvm::SMRange where, std::string message) {
  Diagnostic &d = diags.report(kind, where, std::move(message));
  if (currentSig && currentSig->range.isValid())
    d.notes.push_back(DiagNote{currentSig->range.toSM(),
                               "'" + currentDef.str() + "' is type-checked because of this annotation"});
  noteArguments(d, currentDef);
  if (currentBuiltin && currentSig)
    noteTypeNamedLikeVariable(d, currentSig);
  throw Failure{};
}

/// A prelude definition fails to check when the program declares a type
/// with the name the prelude's annotation uses for a type variable (`T`):
/// says so at the program's type, the only place to fix it.
void Checker::noteTypeNamedLikeVariable(Diagnostic &d, const ast::TypeExpr *sig) const {
  auto userType = [&](StringRef name) -> const AdtData * {
    auto a = book.adts.find(name);
    return a != book.adts.end() && !a->second->builtin ? a->second : nullptr;
  };
  const AdtData *found = nullptr;
  StringRef name;
  // In the annotation, or as a parameter of the prelude's types (their
  // fields' types are read the same way).
  llvm::SmallVector<const ast::TypeExpr *, 8> work{sig};
  while (!work.empty() && !found) {
    const ast::TypeExpr *t = work.pop_back_val();
    if (!t)
      continue;
    if (t->kind == ast::TypeExpr::Kind::Name && (found = userType(t->name)))
      name = t->name;
    work.append(t->args.begin(), t->args.end());
  }
  for (const auto &entry : book.adts) {
    if (found)
      break;
    if (entry.second->builtin)
      for (StringRef param : entry.second->params)
        if ((found = userType(param))) {
          name = param;
          break;
        }
  }
  if (found)
    d.notes.push_back(DiagNote{found->range.toSM(),
                               "the prelude writes '" + name.str() +
                                   "' for a type variable, and this type takes its place; give "
                                   "the type another name"});
}

void Checker::expect(Ty *a, Ty *b, const Term *at, llvm::SMRange where) {
  mismatch = Mismatch{a, b};
  if (unify(a, b))
    return;
  varNames.clear(); // one naming of type variables per message
  // Shown left to right, so variables are named in reading order.
  std::string msg = "type mismatch in '" + currentDef.str() + "': cannot unify '";
  msg += show(a);
  msg += "' with '";
  msg += show(b);
  msg += "'";
  if (mismatch.occursVar) {
    msg += " (the type variable '";
    msg += show(mismatch.occursVar);
    msg += "' occurs in '";
    msg += show(mismatch.occursIn);
    msg += "', so the type would be infinite)";
  }
  fail(DiagKind::TypeMismatch, where.isValid() ? where : llvm::SMRange(at->loc, at->loc), msg);
}

Ty *Checker::lookupVar(StringRef name) {
  for (auto it = env.rbegin(); it != env.rend(); ++it)
    if (it->first == name)
      return instantiate(it->second);
  // Desugaring binds every variable; an unbound one was reported already.
  return fresh();
}

Ty *Checker::refType(StringRef name) {
  if (auto g = groupVars.find(name.data()); g != groupVars.end())
    return g->second;
  // A scheme, once there, stays: each reference's name is looked up once.
  Ty *&scheme = schemeOfRef[name.data()];
  if (!scheme)
    if (auto s = schemes.find(name); s != schemes.end())
      scheme = s->second;
  if (scheme)
    return instantiate(scheme);
  // NumScott tags: `Type/Ctr/tag` is a number.
  if (name.endswith("/tag") && book.ctrs.count(name.drop_back(4)))
    return prim(TK::U24);
  return prim(TK::Any);
}

Ty *Checker::inferMatch(const TypingFacts::Match &m) {
  Ty *scrut = infer(m.scrutinee);
  // The constructors' types, instantiated together for the whole match,
  // give the field types of every arm and the scrutinee's type.
  llvm::DenseMap<Ty *, Ty *> inst;
  Ty *adtType = nullptr;
  Ty *result = fresh();
  for (size_t i = 0; i < m.arms.size(); ++i) {
    const CtrData &ctr = *m.adt->ctrs[i];
    Ty *ct = instantiate(schemes.lookup(ctr.name), inst);
    llvm::SmallVector<Ty *, 4> fields;
    for (size_t f = 0; f < ctr.fields.size(); ++f) {
      ct = prune(ct);
      fields.push_back(ct->args[0]);
      ct = ct->args[1];
    }
    adtType = ct;
    // The arm is a λ per field (built that way by the desugarer).
    const Term *arm = m.arms[i];
    size_t bound = 0;
    for (Ty *fieldTy : fields) {
      auto *lam = llvm::dyn_cast<core::LamTerm>(arm);
      if (!lam || lam->unscoped)
        break;
      if (!lam->var.empty()) {
        env.emplace_back(lam->var, fieldTy);
        ++bound;
      }
      arm = lam->body;
    }
    Ty *armTy = infer(arm);
    env.resize(env.size() - bound);
    expect(armTy, result, arm);
  }
  if (adtType)
    expect(scrut, adtType, m.scrutinee);
  return result;
}

Ty *Checker::inferUnder(StringRef name, Ty *type, const Term *body) {
  if (name.empty())
    return infer(body);
  env.emplace_back(name, type);
  Ty *t = infer(body);
  env.pop_back();
  return t;
}

void Checker::failUnscopedBind(const Term *at, StringRef name) {
  fail(DiagKind::UntypedTerm, at,
       "unscoped variable bind '$" + name.str() + "' in the type-checked function '" +
           currentDef.str() + "'");
}

Ty *Checker::infer(const Term *t) {
  if (auto note = facts.matches.find(t); note != facts.matches.end())
    return inferMatch(note->second);
  switch (t->kind) {
  case TermKind::Var: {
    Ty *ty = lookupVar(cast<core::VarTerm>(t)->name());
    if (info && t->loc.isValid())
      useTypes.try_emplace(t->loc.getPointer(), ty);
    return ty;
  }
  case TermKind::Ref: return refType(cast<core::RefTerm>(t)->name());
  case TermKind::Link:
    fail(DiagKind::UntypedTerm, t,
         "unscoped variable '$" + cast<core::LinkTerm>(t)->name().str() +
             "' in the type-checked function '" + currentDef.str() + "'");
  case TermKind::Lam: {
    auto *l = cast<core::LamTerm>(t);
    if (l->unscoped)
      failUnscopedBind(t, l->var);
    Ty *param = fresh();
    return arrow(param, inferUnder(l->var, param, l->body));
  }
  case TermKind::App: {
    auto *a = cast<core::AppTerm>(t);
    Ty *fun = infer(a->fun);
    Ty *arg = infer(a->arg);
    Ty *res = fresh();
    expect(fun, arrow(arg, res), a->fun);
    return res;
  }
  case TermKind::Let: {
    auto *l = cast<core::LetTerm>(t);
    if (l->unscoped)
      failUnscopedBind(t, l->var);
    ++level;
    Ty *value = infer(l->value);
    --level;
    generalize(value);
    return inferUnder(l->var, value, l->body);
  }
  case TermKind::LetTup:
  case TermKind::Dup: {
    auto *l = cast<core::LetPairTerm>(t);
    Ty *value = infer(l->value);
    Ty *a = fresh(), *b = fresh();
    if (t->kind == TermKind::LetTup) {
      expect(value, make(TK::Tup, {a, b}), l->value);
    } else {
      // Duplicates have the type of what they copy.
      expect(value, a, l->value);
      expect(value, b, l->value);
    }
    size_t bound = 0;
    for (auto [name, ty] : {std::pair{l->first, a}, std::pair{l->second, b}})
      if (!name.empty()) {
        env.emplace_back(name, ty);
        ++bound;
      }
    Ty *body = infer(l->body);
    env.resize(env.size() - bound);
    return body;
  }
  case TermKind::Sup:
    fail(DiagKind::UntypedTerm, t,
         "superposition in the type-checked function '" + currentDef.str() + "'");
  case TermKind::Tup: {
    auto *p = cast<core::PairTerm>(t);
    Ty *a = infer(p->first);
    Ty *b = infer(p->second);
    return make(TK::Tup, {a, b});
  }
  case TermKind::Era: return prim(TK::None);
  case TermKind::Num:
    switch (cast<core::NumTerm>(t)->value().kind) {
    case core::NumKind::U24: return prim(TK::U24);
    case core::NumKind::I24: return prim(TK::I24);
    case core::NumKind::F24: return prim(TK::F24);
    }
    return prim(TK::U24);
  case TermKind::Opr: {
    auto *o = cast<core::OprTerm>(t);
    Ty *lhs = infer(o->lhs);
    Ty *rhs = infer(o->rhs);
    expect(rhs, lhs, t);
    using core::Op;
    switch (o->op) {
    case Op::Add: case Op::Sub: case Op::Mul: case Op::Div: {
      Ty *n = make(TK::Number, {fresh()});
      expect(lhs, n, t);
      return lhs;
    }
    case Op::Eq: case Op::Ne: case Op::Lt: case Op::Gt: case Op::Le: case Op::Ge:
      expect(lhs, make(TK::Number, {fresh()}), t);
      return prim(TK::U24);
    case Op::Rem: case Op::And: case Op::Or: case Op::Xor: case Op::Shl: case Op::Shr:
      expect(lhs, make(TK::Integer, {fresh()}), t);
      return lhs;
    case Op::Pow:
      expect(lhs, prim(TK::F24), t);
      return lhs;
    }
    return lhs;
  }
  case TermKind::Swi: {
    auto *s = cast<core::SwiTerm>(t);
    expect(infer(s->arg), prim(TK::U24), s->arg);
    Ty *zero = infer(s->zero);
    Ty *succ;
    if (auto *l = llvm::dyn_cast<core::LamTerm>(s->succ); l && !l->unscoped) {
      succ = inferUnder(l->var, prim(TK::U24), l->body);
    } else {
      succ = fresh();
      expect(infer(s->succ), arrow(prim(TK::U24), succ), s->succ);
    }
    expect(succ, zero, s->succ);
    return zero;
  }
  }
  return fresh();
}

bool Checker::sameType(Ty *a, Ty *b) {
  a = prune(a);
  b = prune(b);
  if (a == b)
    return true;
  if (a->kind != b->kind || a->name != b->name || a->args.size() != b->args.size() ||
      a->kind == TK::Var)
    return false;
  for (size_t i = 0; i < a->args.size(); ++i)
    if (!sameType(a->args[i], b->args[i]))
      return false;
  return true;
}

/// The annotation, with `_` filled from the inferred type and `Any` taken
/// from either side; fails where the annotation is more general than what
/// was inferred (a variable of the inferred type must stand for one type).
Ty *Checker::merge(Ty *inf, Ty *ann, llvm::DenseMap<Ty *, Ty *> &chosen, bool &ok) {
  inf = prune(inf);
  ann = prune(ann);
  if (ann->kind == TK::Hole)
    return inf;
  if (ann->kind == TK::Any)
    return ann;
  if (inf->kind == TK::Any)
    return ann;
  // Unified with a concrete number, `Number(t)` is that number.
  if ((inf->kind == TK::Number || inf->kind == TK::Integer) && ann->kind != inf->kind)
    return merge(inf->args[0], ann, chosen, ok);
  if (inf->kind == TK::Var) {
    auto [it, isNew] = chosen.try_emplace(inf, ann);
    if (!isNew && !sameType(it->second, ann))
      ok = false;
    return ann;
  }
  bool numeric = (inf->kind == TK::Number || inf->kind == TK::Integer) && inf->kind == ann->kind;
  if (inf->kind == ann->kind && !numeric && inf->args.empty() && ann->kind != TK::Var)
    return inf;
  if (inf->kind != ann->kind || inf->name != ann->name || inf->args.size() != ann->args.size()) {
    ok = false;
    return ann;
  }
  llvm::SmallVector<Ty *, 4> args;
  for (size_t i = 0; i < inf->args.size(); ++i)
    args.push_back(merge(inf->args[i], ann->args[i], chosen, ok));
  return make(ann->kind, args, ann->name);
}

std::optional<Ty *> Checker::specialize(Ty *inferred, Ty *annotation, std::string &why) {
  if (prune(annotation)->kind == TK::Hole)
    return inferred;
  // Fresh copies of both, so the annotation's variables are not the
  // inferred ones; unify them, then read the annotation against the result.
  unsigned saved = level;
  level = 1;
  Ty *inf = instantiate(inferred);
  Ty *ann = instantiate(annotation);
  level = saved;
  mismatch = Mismatch{inf, ann};
  varNames.clear();
  if (!unify(inf, ann)) {
    why = "its annotated type '";
    why += show(annotation);
    why += "' does not match the inferred type '";
    why += show(inferred);
    why += "'";
    return std::nullopt;
  }
  llvm::DenseMap<Ty *, Ty *> chosen;
  bool ok = true;
  Ty *result = merge(inf, annotation, chosen, ok);
  if (!ok) {
    varNames.clear();
    why = "its annotated type '";
    why += show(annotation);
    why += "' is more general than the inferred type '";
    why += show(inferred);
    why += "'";
    return std::nullopt;
  }
  return result;
}

void Checker::inferGroup(llvm::ArrayRef<unsigned> group) {
  groupVars.clear();
  level = 1;
  for (unsigned i : group)
    groupVars[checked[i].def->name.data()] = fresh();
  bool failed = false;
  for (unsigned i : group) {
    currentDef = checked[i].def->name;
    currentBuiltin = checked[i].def->builtin;
    currentSig = checked[i].info->annotated ? checked[i].info->sig : nullptr;
    env.clear();
    try {
      expect(groupVars[currentDef.data()], infer(checked[i].def->body), checked[i].def->body,
             checked[i].info->name.toSM());
    } catch (Failure &) {
      failed = true;
      break; // one error per group: the others would follow from it
    }
  }
  level = 0;
  currentSig = nullptr;
  if (info && !failed)
    for (auto &[loc, ty] : useTypes) {
      varNames.clear();
      info->uses.try_emplace(loc, show(ty));
    }
  useTypes.clear();
  for (unsigned i : group) {
    const CheckedDef &d = checked[i];
    StringRef name = d.def->name;
    if (failed) {
      schemes[name] = prim(TK::Any);
      continue;
    }
    Ty *inferred = freeze(groupVars[name.data()]);
    Ty *annotation = d.info->generated ? prim(TK::Hole) : schemeOf(d.info->sig, d.info->file);
    std::string why;
    std::optional<Ty *> t = specialize(inferred, annotation, why);
    if (!t) {
      llvm::SMRange where = d.info->name.isValid() ? d.info->name.toSM()
                                                   : llvm::SMRange(d.def->loc, d.def->loc);
      Diagnostic &diag =
          diags.report(DiagKind::TypeMismatch, where, "type mismatch in '" + name.str() + "': " + why);
      if (d.info->annotated && d.info->sig)
        diag.notes.push_back(DiagNote{d.info->sig->range.toSM(), "annotated here"});
      noteArguments(diag, name);
      schemes[name] = prim(TK::Any);
      continue;
    }
    schemes[name] = freeze(*t);
  }
  groupVars.clear();
}

void Checker::run() {
  for (const CtrData &c : book.ctrStore)
    schemes[c.name] = constructorScheme(c);
  for (size_t k = 0; k < prog.hvmDefs.size(); ++k) {
    const TypingFacts::Def *f = TypingFacts::of(facts.hvmDefs, k);
    schemes[prog.hvmDefs[k].name] = f ? schemeOf(f->sig, f->file) : prim(TK::Any);
  }
  llvm::DenseMap<const char *, unsigned> index; // by the name's pointer in Core
  std::vector<uint32_t> place;                  // of each checked definition in `defs`
  for (const core::Definition &d : prog.defs) {
    const TypingFacts::Def *f = TypingFacts::of(facts.defs, size_t(&d - prog.defs.data()));
    if (!f || d.constructor)
      continue;
    if (!f->checked) {
      // Unchecked: its annotation is taken as true (`Any` where absent).
      schemes[d.name] = schemeOf(f->sig, f->file);
      continue;
    }
    index[d.name.data()] = unsigned(checked.size());
    place.push_back(uint32_t(&d - prog.defs.data()));
    checked.push_back(CheckedDef{&d, f});
  }
  if (checked.empty())
    return;

  // Definitions are inferred callees first, mutually recursive ones together.
  DepGraph graph;
  for (size_t i = 0; i < checked.size(); ++i) {
    graph.nodes.emplace_back();
    graph.nodes.back().def = int(i);
    graph.root.succs.push_back(&graph.nodes.back());
  }
  llvm::SmallVector<StringRef, 16> found;
  for (size_t i = 0; i < checked.size(); ++i) {
    llvm::ArrayRef<StringRef> names;
    if (refs) {
      names = refs->of(place[i]);
    } else {
      found.clear();
      core::collectRefs(checked[i].def->body, found);
      names = found;
    }
    for (StringRef r : names)
      if (auto it = index.find(r.data()); it != index.end())
        graph.nodes[i].succs.push_back(&graph.nodes[it->second]);
  }
  // The groups first, so that the next group's terms can be fetched while
  // one is inferred (the order is not the definitions').
  std::vector<unsigned> order;  // checked definitions, group after group
  std::vector<size_t> groupEnd; // where each group ends in `order`
  order.reserve(checked.size());
  for (auto scc = llvm::scc_begin(&graph); !scc.isAtEnd(); ++scc) {
    size_t begin = order.size();
    for (DepNode *n : *scc)
      if (n->def >= 0)
        order.push_back(unsigned(n->def));
    if (order.size() == begin)
      continue;
    // Source order within a group, for stable messages.
    std::sort(order.begin() + long(begin), order.end());
    groupEnd.push_back(order.size());
  }
  for (size_t g = 0, begin = 0; g < groupEnd.size(); begin = groupEnd[g++]) {
    if (groupEnd[g] < order.size())
      prog.prefetch(place[order[groupEnd[g]]]);
    inferGroup(llvm::ArrayRef<unsigned>(order).slice(begin, groupEnd[g] - begin));
  }
}

// ---- printing ----------------------------------------------------------------------

std::string Checker::show(Ty *t) {
  std::string s;
  llvm::raw_string_ostream os(s);
  show(os, t, false);
  return s;
}

void Checker::show(llvm::raw_ostream &os, Ty *t, bool nested) {
  t = prune(t);
  switch (t->kind) {
  case TK::Var: {
    std::string &n = varNames[t];
    if (n.empty()) {
      unsigned k = unsigned(varNames.size() - 1);
      n = std::string(1, char('a' + k % 26));
      if (k >= 26)
        n += std::to_string(k / 26);
    }
    os << n;
    return;
  }
  case TK::Ctr:
    os << t->name;
    if (!t->args.empty()) {
      os << '(';
      for (size_t i = 0; i < t->args.size(); ++i) {
        if (i)
          os << ", ";
        show(os, t->args[i], false);
      }
      os << ')';
    }
    return;
  case TK::Arrow:
    if (nested)
      os << '(';
    show(os, t->args[0], true);
    os << " -> ";
    show(os, t->args[1], false);
    if (nested)
      os << ')';
    return;
  case TK::Tup: {
    os << '(';
    show(os, t->args[0], false);
    Ty *rest = prune(t->args[1]);
    while (rest->kind == TK::Tup) {
      os << ", ";
      show(os, rest->args[0], false);
      rest = prune(rest->args[1]);
    }
    os << ", ";
    show(os, rest, false);
    os << ')';
    return;
  }
  case TK::Number:
  case TK::Integer: {
    Ty *inner = prune(t->args[0]);
    if (inner->kind == TK::Var) {
      os << (t->kind == TK::Number ? "Number(" : "Integer(");
      show(os, inner, false);
      os << ')';
    } else {
      show(os, inner, nested);
    }
    return;
  }
  case TK::U24: os << "u24"; return;
  case TK::I24: os << "i24"; return;
  case TK::F24: os << "f24"; return;
  case TK::None: os << "None"; return;
  case TK::Any: os << "Any"; return;
  case TK::Hole: os << "_"; return;
  }
}

} // namespace

bool Checker::isPlain(Ty *t) {
  t = prune(t);
  switch (t->kind) {
  case TK::U24:
  case TK::I24:
  case TK::F24:
  case TK::Number:
  case TK::Integer:
  case TK::None: return true;
  case TK::Tup:
    for (Ty *a : t->args)
      if (!isPlain(a))
        return false;
    return true;
  case TK::Ctr:
    for (Ty *a : t->args)
      if (!isPlain(a))
        return false;
    return isPlainAdt(t->name);
  default: return false; // a function, a variable, Any
  }
}

bool Checker::isPlainAdt(StringRef name) {
  auto memo = plainAdts.find(name);
  if (memo != plainAdts.end())
    return memo->second;
  auto adt = book.adts.find(name);
  if (adt == book.adts.end())
    return false;
  plainAdts[name] = true; // a recursive field is plain if the rest is
  bool plain = true;
  for (const CtrData *c : adt->second->ctrs) {
    // The type's parameters stand for plain types: its arguments are
    // checked where it is used.
    llvm::StringMap<Ty *> vars;
    for (StringRef p : adt->second->params)
      vars[p] = prim(TK::U24);
    for (const ast::TypeExpr *f : c->fieldTypes)
      if (!f || !isPlain(fromAnnotation(f, adt->second->file, vars)))
        plain = false;
  }
  plainAdts[name] = plain;
  return plain;
}

void typeCheck(core::Program &prog, const Book &book, const TypingFacts &facts,
               DiagnosticEngine &diags, TypeInfo *info) {
  // What the program check found each definition refers to, if it got
  // that far (else the checker walks the definitions itself).
  Checker checker(prog, book, facts, diags, info,
                  prog.refs.covers(prog.defs.size()) ? &prog.refs : nullptr);
  checker.run();
  if (info)
    checker.exportSchemes();
  std::vector<uint32_t> plain;
  checker.collectPlainResults(plain);
  for (uint32_t k : plain)
    prog.defs[k].plainResult = true;
}

} // namespace bendc::frontend
