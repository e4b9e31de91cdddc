// Desugaring of expressions and imp statements to Core. Names resolve
// lexically; inline recursive constructs (fold, bend, local def, the
// continuation of `ask`) are lifted to new definitions that take the
// variables they capture as leading parameters.
#include "frontend/Desugar.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/ConvertUTF.h"

#include <functional>
#include <map>
#include <optional>

namespace bendc::frontend {

using namespace ast;
using core::Term;
using core::TermKind;
using llvm::SMLoc;
using llvm::StringRef;

static SMLoc at(SourceRange r) { return r.begin; }

StringRef Book::resolve(const FileScope &file, StringRef name) const {
  auto it = file.names.find(name);
  if (it != file.names.end())
    return it->second;
  // Keys of the book's maps live as long as the book.
  if (auto d = defs.find(name); d != defs.end())
    return d->first();
  if (auto c = ctrs.find(name); c != ctrs.end())
    return c->first();
  if (auto a = adts.find(name); a != adts.end())
    return a->first();
  return {};
}

// ---- scopes -------------------------------------------------------------------

StringRef Desugarer::bindVar(StringRef name, SourceRange range, bool warnUnused) {
  // Source binders (the ones worth warning about) follow the name rules;
  // generated ones may use `%` and `__`.
  if (warnUnused && (name.contains("__") || name.startswith("//")))
    diags.report(DiagKind::ForbiddenName, range.toSM(),
                 ("'" + name + "' is not a valid name: names cannot contain '__' or start with '//'")
                     .str());
  Binding b;
  b.name = name;
  b.range = range;
  b.warnUnused = warnUnused;
  StringRef core = coreName(name);
  if (core != name)
    b.target = core;
  scope.push_back(b);
  return core;
}

StringRef Desugarer::coreName(StringRef name) {
  // A `use` value in scope that refers to an outer `name` would be captured
  // by a binder of `name` where it is copied below it: that binder gets a
  // fresh name.
  if (!name.empty())
    if (auto it = useFree.find(name); it != useFree.end() && it->second > 0)
      return fresh(name);
  return name;
}

/// The variables free in `t`, each once, in the order met.
static void freeVariables(Term *t, llvm::SmallVectorImpl<StringRef> &out) {
  llvm::SmallVector<StringRef, 8> bound;
  std::function<void(Term *)> walk = [&](Term *u) {
    using llvm::cast;
    switch (u->kind) {
    case TermKind::Var: {
      StringRef n = cast<core::VarTerm>(u)->name();
      if (!llvm::is_contained(bound, n) && !llvm::is_contained(out, n))
        out.push_back(n);
      return;
    }
    case TermKind::Lam: {
      auto *l = cast<core::LamTerm>(u);
      bound.push_back(l->unscoped ? StringRef() : l->var);
      walk(l->body);
      bound.pop_back();
      return;
    }
    case TermKind::App:
      walk(cast<core::AppTerm>(u)->fun);
      walk(cast<core::AppTerm>(u)->arg);
      return;
    case TermKind::Let: {
      auto *l = cast<core::LetTerm>(u);
      walk(l->value);
      bound.push_back(l->unscoped ? StringRef() : l->var);
      walk(l->body);
      bound.pop_back();
      return;
    }
    case TermKind::LetTup:
    case TermKind::Dup: {
      auto *l = cast<core::LetPairTerm>(u);
      walk(l->value);
      bound.push_back(l->first);
      bound.push_back(l->second);
      walk(l->body);
      bound.pop_back();
      bound.pop_back();
      return;
    }
    case TermKind::Sup:
    case TermKind::Tup:
      walk(cast<core::PairTerm>(u)->first);
      walk(cast<core::PairTerm>(u)->second);
      return;
    case TermKind::Opr:
      walk(cast<core::OprTerm>(u)->lhs);
      walk(cast<core::OprTerm>(u)->rhs);
      return;
    case TermKind::Swi:
      walk(cast<core::SwiTerm>(u)->arg);
      walk(cast<core::SwiTerm>(u)->zero);
      walk(cast<core::SwiTerm>(u)->succ);
      return;
    default:
      return;
    }
  };
  walk(t);
}

void Desugarer::bindUse(StringRef name, Term *value, SourceRange range) {
  Binding b;
  b.name = name;
  b.kind = BindKind::Use;
  b.use = value;
  b.range = range;
  llvm::SmallVector<StringRef, 8> free;
  freeVariables(value, free);
  b.useFree.assign(free.begin(), free.end());
  for (StringRef v : b.useFree)
    ++useFree[v];
  scope.push_back(std::move(b));
}

void Desugarer::bindAlias(StringRef name, StringRef target, SourceRange range) {
  Binding b;
  b.name = name;
  b.kind = BindKind::Alias;
  b.target = target;
  b.range = range;
  scope.push_back(b);
}

void Desugarer::pop(size_t m) {
  while (scope.size() > m) {
    Binding &b = scope.back();
    if (b.kind == BindKind::Var && b.warnUnused && b.uses == 0 && !b.name.startswith("_") &&
        !b.name.startswith("%") && !file->builtin)
      diags.report(DiagKind::UnusedVariable, b.range.toSM(),
                   "variable '" + b.name.str() + "' is never used");
    for (StringRef v : b.useFree)
      --useFree[v];
    scope.pop_back();
  }
}

StringRef Desugarer::fresh(StringRef base) {
  // A variable's name: nothing looks it up by its pointer, so it is copied
  // rather than saved once.
  llvm::SmallString<32> name("%");
  name += base;
  name += llvm::utostr(freshCount++);
  return prog.copy(name);
}

core::Term *Desugarer::placeholder(StringRef name, SMLoc loc) {
  // Big enough to become an application when captures are appended.
  size_t size = std::max(sizeof(core::AppTerm), sizeof(core::RefTerm));
  void *mem = prog.arena.Allocate(size, alignof(core::AppTerm));
  return new (mem) core::RefTerm(loc, prog.save(name));
}

Desugarer::Lift *Desugarer::beginLift(StringRef kind) {
  lifts.push_back(std::make_unique<Lift>());
  Lift *lift = lifts.back().get();
  // A provisional name, unique in the definition (see nameLifts).
  lift->name = defName + "__" + kind.str() + "%" + std::to_string(liftCount++);
  lift->kind = kind.str();
  lift->topName = defName;
  // What Bend has lifted out already when it lifts this one: local
  // definitions, and bends before folds.
  for (size_t i = scope.size(); i-- > 0;) {
    Lift *outer = scope[i].kind == BindKind::Boundary ? scope[i].lift : nullptr;
    if (outer && (outer->kind.empty() || (outer->kind == "bend" && kind != "bend"))) {
      lift->namingParent = outer;
      break;
    }
  }
  Binding b;
  b.kind = BindKind::Boundary;
  b.lift = lift;
  scope.push_back(b);
  return lift;
}

core::Term *Desugarer::selfRef(Lift *lift, SourceRange range) {
  if (lift->done) {
    Term *t = ref(lift->name, at(range));
    for (const std::string &c : lift->captures)
      t = app(t, lookupCore(prog.save(c), range), at(range));
    return t;
  }
  Term *p = placeholder(lift->name, at(range));
  lift->selfRefs.push_back(p);
  return p;
}

core::Term *Desugarer::closeLift(Lift *lift, Term *body, SourceRange range) {
  size_t boundary = scope.size();
  while (boundary > 0 && !(scope[boundary - 1].kind == BindKind::Boundary &&
                           scope[boundary - 1].lift == lift))
    --boundary;
  assert(boundary > 0 && "lift boundary missing");
  pop(boundary);
  scope.pop_back(); // the boundary itself
  SMLoc loc = at(range);
  for (auto it = lift->captures.rbegin(); it != lift->captures.rend(); ++it)
    body = lam(prog.save(*it), body, loc);
  return body;
}

core::Term *Desugarer::endLift(Lift *lift, Term *body, SourceRange range) {
  if (lift->sortCaptures) // as Bend orders them: by name
    llvm::sort(lift->captures);
  body = closeLift(lift, body, range);
  SMLoc loc = at(range);
  for (Term *p : lift->selfRefs) {
    if (lift->captures.empty())
      continue;
    Term *chain = ref(lift->name, p->loc);
    for (size_t i = 0; i + 1 < lift->captures.size(); ++i)
      chain = app(chain, var(prog.save(lift->captures[i]), p->loc), p->loc);
    new (p) core::AppTerm(p->loc, chain, var(prog.save(lift->captures.back()), p->loc));
  }
  lift->done = true;
  lift->doneOrder = liftsDone++;
  llvm::StringRef name = prog.save(lift->name);
  TypingFacts::set(facts.defs, prog.defs.size(),
                   TypingFacts::Def{nullptr, file, checkedDef, true, {}, false});
  prog.defs.push_back(core::Definition{name, body, loc, file->builtin});
  return selfRef(lift, range);
}

core::Term *Desugarer::clone(Term *t) {
  Term *copy = cloneNode(t);
  if (checkedDef)
    clones[t] = copy;
  return copy;
}

core::Term *Desugarer::cloneNode(Term *t) {
  using llvm::cast;
  // `use` copies its value at every occurrence; nested uses can double the
  // program at each level, so the copies are bounded.
  if (++cloned > kMaxCloned) {
    if (cloned == kMaxCloned + 1)
      diags.report(DiagKind::TooDeep, llvm::SMRange(t->loc, t->loc),
                   "'use' bindings expand to too large a program in '" + defName + "'");
    return era(t->loc);
  }
  switch (t->kind) {
  case TermKind::Var: return var(cast<core::VarTerm>(t)->name(), t->loc);
  case TermKind::Link: return prog.make<core::LinkTerm>(t->loc, cast<core::LinkTerm>(t)->name());
  case TermKind::Ref: return ref(cast<core::RefTerm>(t)->name(), t->loc);
  case TermKind::Era: return era(t->loc);
  case TermKind::Num: return prog.make<core::NumTerm>(t->loc, cast<core::NumTerm>(t)->value());
  case TermKind::Lam: {
    auto *l = cast<core::LamTerm>(t);
    return prog.make<core::LamTerm>(t->loc, l->var, l->unscoped, clone(l->body));
  }
  case TermKind::App: {
    auto *a = cast<core::AppTerm>(t);
    Term *copy = app(clone(a->fun), clone(a->arg), t->loc);
    if (const core::MatchShape *shape = prog.matchShape(t)) {
      core::MatchShape same = *shape; // copied first: inserting may move the map
      prog.noteMatch(copy, std::move(same));
    }
    // A copied match is still a match to the type checker.
    auto note = checkedDef ? facts.matches.find(t) : facts.matches.end();
    if (note != facts.matches.end()) {
      TypingFacts::Match m = note->second;
      m.scrutinee = clones.lookup(m.scrutinee);
      for (Term *&arm : m.arms)
        arm = clones.lookup(arm);
      if (m.scrutinee && llvm::all_of(m.arms, [](Term *x) { return x != nullptr; }))
        facts.matches[copy] = std::move(m);
    }
    return copy;
  }
  case TermKind::Let: {
    auto *l = cast<core::LetTerm>(t);
    return prog.make<core::LetTerm>(t->loc, l->var, l->unscoped, clone(l->value), clone(l->body));
  }
  case TermKind::LetTup:
  case TermKind::Dup: {
    auto *l = cast<core::LetPairTerm>(t);
    return prog.make<core::LetPairTerm>(t->kind, t->loc, l->first, l->second, clone(l->value),
                                        clone(l->body));
  }
  case TermKind::Sup:
  case TermKind::Tup: {
    auto *p = cast<core::PairTerm>(t);
    return prog.make<core::PairTerm>(t->kind, t->loc, clone(p->first), clone(p->second));
  }
  case TermKind::Opr: {
    auto *o = cast<core::OprTerm>(t);
    return prog.make<core::OprTerm>(t->loc, o->op, clone(o->lhs), clone(o->rhs));
  }
  case TermKind::Swi: {
    auto *s = cast<core::SwiTerm>(t);
    return prog.make<core::SwiTerm>(t->loc, clone(s->arg), clone(s->zero), clone(s->succ));
  }
  }
  llvm_unreachable("unknown term kind");
}

template <class Accepts>
std::pair<Desugarer::Binding *, Desugarer::Lift *> Desugarer::innermostBinding(Accepts accepts) {
  Lift *crossed = nullptr;
  for (size_t i = scope.size(); i-- > 0;) {
    Binding &b = scope[i];
    if (b.kind == BindKind::Boundary) {
      if (!crossed)
        crossed = b.lift;
      continue;
    }
    if (accepts(b)) {
      ++b.uses;
      return {&b, crossed};
    }
  }
  return {nullptr, nullptr};
}

core::Term *Desugarer::capturedVar(StringRef v, Lift *crossed, SourceRange range) {
  if (crossed && llvm::find(crossed->captures, v.str()) == crossed->captures.end())
    crossed->captures.push_back(v.str());
  return var(v, at(range));
}

/// Bend lifts local definitions, bends and folds out before it substitutes
/// `use` values: a lifted definition takes a `use` variable, a local
/// function or a folded field of an outer fold's arm as a variable of its
/// own, and its call passes the value. So does bendc: lookup makes the
/// variable (the binding's liftVar), and the call's captures find it here.
core::Term *Desugarer::boundValue(Binding &b, SourceRange range) {
  switch (b.kind) {
  case BindKind::FoldRec: return app(selfRef(b.lift, range), var(b.target, at(range)), at(range));
  case BindKind::Use: return clone(b.use);
  case BindKind::LocalFun: return selfRef(b.lift, range);
  default: llvm_unreachable("only FoldRec, Use and LocalFun bindings have a value");
  }
}

// A local function's own boundary does not count: its rules refer to it
// directly.
bool Desugarer::fromElsewhere(const Binding &b, const Lift *crossed) {
  return crossed && !(b.kind == BindKind::LocalFun && crossed == b.lift);
}

core::Term *Desugarer::lookupCore(StringRef coreName, SourceRange range) {
  auto [found, crossed] = innermostBinding([&](const Binding &b) {
    if (b.kind == BindKind::FoldRec || b.kind == BindKind::Use || b.kind == BindKind::LocalFun)
      return !b.liftVar.empty() && b.liftVar == coreName;
    return (b.kind == BindKind::Var || b.kind == BindKind::Alias) &&
           (b.target.empty() ? b.name : b.target) == coreName;
  });
  if (found) {
    if (!found->liftVar.empty() && !fromElsewhere(*found, crossed))
      return boundValue(*found, range);
    return capturedVar(coreName, crossed, range);
  }
  // Bound nowhere in this definition: looked up as written.
  return lookup(coreName, range);
}

core::Term *Desugarer::lookup(StringRef name, SourceRange range) {
  auto [found, crossed] = innermostBinding([&](const Binding &b) { return b.name == name; });
  if (found) {
    Binding &b = *found;
    switch (b.kind) {
    case BindKind::Var:
    case BindKind::Alias:
      return capturedVar(b.target.empty() ? b.name : b.target, crossed, range);
    case BindKind::Use:
    case BindKind::LocalFun:
    case BindKind::FoldRec:
      // Inside another lifted definition: a variable of it (see boundValue).
      if (fromElsewhere(b, crossed)) {
        if (b.liftVar.empty())
          b.liftVar = fresh(b.name);
        return capturedVar(b.liftVar, crossed, range);
      }
      return boundValue(b, range);
    case BindKind::Fork:
      return selfRef(b.lift, range);
    case BindKind::Global:
      if (!book.defs.count(b.target) && !book.ctrs.count(b.target)) {
        diags.report(DiagKind::UnboundReference, range.toSM(),
                     "reference to undefined function '" + b.target.str() + "'");
        return era(at(range));
      }
      return ref(b.target, at(range));
    case BindKind::Boundary:
      break;
    }
  }
  return lookupGlobal(name, range);
}

core::Term *Desugarer::lookupGlobal(StringRef name, SourceRange range) {
  StringRef g = resolve(name);
  if (!g.empty() && (book.defs.count(g) || book.ctrs.count(g)))
    return ref(g, at(range));
  if (name.contains('/'))
    diags.report(DiagKind::UnboundReference, range.toSM(),
                 "reference to undefined function or constructor '" + name.str() + "'");
  else {
    Diagnostic &d =
        diags.report(DiagKind::UnboundVariable, range.toSM(), "unbound variable '" + name.str() + "'");
    // `n-1` is one name: Bend's names may hold '-'.
    auto [left, right] = name.split('-');
    if (!left.empty() && !right.empty())
      d.notes.push_back({llvm::SMRange(), "'-' is a character of names: to subtract, write '" +
                                              left.str() + " - " + right.str() + "'"});
  }
  return era(at(range));
}

core::Term *Desugarer::callGlobal(StringRef name, std::vector<Term *> args, SourceRange range) {
  Term *t = ref(name, at(range));
  for (Term *a : args)
    t = app(t, a, at(range));
  return t;
}

// ---- expressions ----------------------------------------------------------------

core::Term *Desugarer::expr(Expr *e) {
  using llvm::cast;
  SMLoc loc = at(e->range);
  switch (e->kind) {
  case NodeKind::VarExpr:
    return lookup(cast<VarExpr>(e)->name, e->range);
  case NodeKind::ChnExpr: {
    auto *c = cast<ChnExpr>(e);
    Unscoped &u = unscoped[c->name];
    u.uses.insert(loc.getPointer());
    if (!u.first.isValid())
      u.first = e->range;
    return prog.make<core::LinkTerm>(loc, prog.save(c->name));
  }
  case NodeKind::EraExpr:
    return era(loc);
  case NodeKind::NumExpr:
    return prog.make<core::NumTerm>(loc, cast<NumExpr>(e)->value);
  case NodeKind::StrExpr:
    return string(cast<StrExpr>(e)->value, e->range);
  case NodeKind::ListExpr:
    return list(cast<SeqExpr>(e));
  case NodeKind::TupExpr:
    return tuple(cast<SeqExpr>(e)->elems, TermKind::Tup, e->range);
  case NodeKind::SupExpr:
    return tuple(cast<SeqExpr>(e)->elems, TermKind::Sup, e->range);
  case NodeKind::LamExpr:
    return lambda(cast<LamExpr>(e));
  case NodeKind::AppExpr: {
    auto *a = cast<AppExpr>(e);
    return application(a->fun, a->args, {}, e->range);
  }
  case NodeKind::CallExpr: {
    auto *c = cast<CallExpr>(e);
    return application(c->fun, c->args, c->kwargs, e->range);
  }
  case NodeKind::CtrExpr:
    return ctrLiteral(cast<CtrExpr>(e));
  case NodeKind::OpExpr: {
    auto *o = cast<OpExpr>(e);
    Term *l = expr(o->lhs);
    Term *r = expr(o->rhs);
    if (auto *n = llvm::dyn_cast<core::NumTerm>(r);
        n && (o->op == core::Op::Div || o->op == core::Op::Rem) &&
        n->value().kind != core::NumKind::F24 && n->value().bits == 0)
      diags.report(DiagKind::DivisionByZero, o->rhs->range.toSM(),
                   std::string("integer ") + (o->op == core::Op::Div ? "division" : "remainder") +
                       " by zero: bendc gives " +
                       (o->op == core::Op::Div ? "the largest number (16777215 for u24, -1 for i24)"
                                               : "the left operand") +
                       ", where HVM2's C runtime stops");
    return prog.make<core::OprTerm>(loc, o->op, l, r);
  }
  case NodeKind::LetExpr:
    return letExpr(cast<LetExpr>(e));
  case NodeKind::UseExpr: {
    auto *u = cast<UseExpr>(e);
    Term *value = expr(u->value);
    size_t m = mark();
    bindUse(u->name, value, e->range);
    Term *next = expr(u->next);
    pop(m);
    return next;
  }
  case NodeKind::AskExpr: {
    auto *a = cast<AskExpr>(e);
    Term *value = expr(a->value);
    return askExpr(a->pat, value, [&] { return expr(a->next); }, e->range);
  }
  case NodeKind::MatchExpr:
    return matchExpr(cast<MatchExpr>(e));
  case NodeKind::SwitchExpr: {
    auto *se = cast<SwitchExpr>(e);
    return switchTerm(se->bind, se->arg, se->with, se->arms, e->range,
                      [&](const Arm &a) { return expr(a.body); });
  }
  case NodeKind::IfExpr: {
    auto *ie = cast<IfExpr>(e);
    return ifTerm(ie->conds, e->range, [&](size_t i) { return expr(ie->thens[i]); },
                  [&] { return expr(ie->otherwise); });
  }
  case NodeKind::BendExpr: {
    auto *be = cast<BendExpr>(e);
    return bendTerm(be->state, be->cond, e->range, [&] { return expr(be->step); },
                    [&] { return expr(be->base); });
  }
  case NodeKind::OpenExpr:
    return openExpr(cast<OpenExpr>(e));
  case NodeKind::WithExpr:
    return withExpr(cast<WithExpr>(e));
  case NodeKind::LocalDefExpr: {
    auto *d = cast<LocalDefExpr>(e);
    return localDef(d->def, [&] { return expr(d->next); });
  }
  case NodeKind::MapExpr:
    return mapLiteral(cast<MapExpr>(e));
  case NodeKind::MapGetExpr: {
    auto *g = cast<MapGetExpr>(e);
    Term *key = expr(g->key);
    StringRef v = fresh("map_get");
    mapGets.push_back(MapGet{v, g->map, key, e->range});
    return var(v, loc);
  }
  case NodeKind::ComprehensionExpr:
    return comprehension(cast<ComprehensionExpr>(e));
  default:
    llvm_unreachable("not an expression");
  }
}

core::Term *Desugarer::string(StringRef text, SourceRange range) {
  SMLoc loc = at(range);
  std::vector<uint32_t> cps;
  const llvm::UTF8 *p = reinterpret_cast<const llvm::UTF8 *>(text.begin());
  const llvm::UTF8 *end = reinterpret_cast<const llvm::UTF8 *>(text.end());
  while (p < end) {
    llvm::UTF32 cp = 0;
    unsigned len = llvm::getNumBytesForUTF8(*p);
    if (p + len > end || llvm::convertUTF8Sequence(&p, p + len, &cp, llvm::lenientConversion) !=
                             llvm::conversionOK) {
      cp = 0xFFFD;
      ++p;
    }
    cps.push_back(cp);
  }
  Term *t = ref("String/Nil", loc);
  StringRef cons = prog.save("String/Cons"); // once, not per character
  for (auto it = cps.rbegin(); it != cps.rend(); ++it)
    t = app(app(prog.make<core::RefTerm>(loc, cons),
                prog.make<core::NumTerm>(loc, core::Number::u24(*it)), loc),
            t, loc);
  return t;
}

core::Term *Desugarer::list(SeqExpr *e) {
  SMLoc loc = at(e->range);
  std::vector<Term *> elems;
  elems.reserve(e->elems.size());
  for (Expr *x : e->elems)
    elems.push_back(expr(x));
  Term *t = ref("List/Nil", loc);
  StringRef cons = prog.save("List/Cons"); // once, not per element
  for (auto it = elems.rbegin(); it != elems.rend(); ++it)
    t = app(app(prog.make<core::RefTerm>(loc, cons), *it, loc), t, loc);
  return t;
}

core::Term *Desugarer::tuple(llvm::ArrayRef<Expr *> elems, TermKind kind, SourceRange range) {
  std::vector<Term *> terms;
  for (Expr *x : elems)
    terms.push_back(expr(x));
  if (terms.size() < 2) {
    diags.report(DiagKind::SyntaxError, range.toSM(),
                 kind == TermKind::Sup ? "a superposition needs at least two elements"
                                       : "a tuple needs at least two elements");
    return terms.empty() ? era(at(range)) : terms[0];
  }
  Term *t = terms.back();
  for (size_t i = terms.size() - 1; i-- > 0;)
    t = prog.make<core::PairTerm>(kind, at(range), terms[i], t);
  return t;
}

core::Term *Desugarer::lambda(LamExpr *e) {
  SMLoc loc = at(e->range);
  if (auto *v = llvm::dyn_cast<VarPat>(e->param)) {
    size_t m = mark();
    StringRef name = v->name.empty() ? v->name : bindVar(v->name, v->range, true);
    Term *body = expr(e->body);
    pop(m);
    return prog.make<core::LamTerm>(loc, name, false, body);
  }
  if (auto *c = llvm::dyn_cast<ChnPat>(e->param)) {
    Unscoped &u = unscoped[c->name];
    u.binders.insert(c->range.begin.getPointer());
    if (!u.first.isValid())
      u.first = c->range;
    return prog.make<core::LamTerm>(loc, prog.save(c->name), true, expr(e->body));
  }
  StringRef p = fresh("lam");
  Term *body = bindPattern(e->param, var(p, loc), [&] { return expr(e->body); });
  return lam(p, body, loc);
}

core::Term *Desugarer::application(Expr *fun, llvm::ArrayRef<Expr *> args,
                                   llvm::ArrayRef<ast::Binding> kwargs, SourceRange range) {
  SMLoc loc = at(range);
  if (kwargs.empty()) {
    Term *t = expr(fun);
    for (Expr *a : args)
      t = app(t, expr(a), loc);
    return t;
  }
  // Named arguments: the callee must be a definition or constructor whose
  // parameter names are known.
  auto *v = llvm::dyn_cast<VarExpr>(fun);
  StringRef g = v ? resolve(v->name) : StringRef();
  std::vector<std::string> names;
  auto def = g.empty() ? book.defs.end() : book.defs.find(g);
  if (!g.empty() && book.ctrs.count(g)) {
    names = book.ctrs[g]->fields;
  } else if (def != book.defs.end() && def->second.fun && def->second.fun->imp) {
    // An imp definition's parameters, as written.
    for (const ast::Param &p : def->second.fun->params)
      names.push_back(p.name.str());
  } else {
    diags.report(DiagKind::InvalidArgument, range.toSM(),
                 "named arguments need a call to a definition or constructor by name");
    return era(loc);
  }
  std::vector<Expr *> slots(names.size(), nullptr);
  if (args.size() > names.size()) {
    diags.report(DiagKind::InvalidArgument, range.toSM(), "too many arguments for '" + g.str() + "'");
    return era(loc);
  }
  for (size_t i = 0; i < args.size(); ++i)
    slots[i] = args[i];
  for (const ast::Binding &k : kwargs) {
    auto it = llvm::find(names, k.name.str());
    if (it == names.end() || slots[it - names.begin()]) {
      diags.report(DiagKind::InvalidArgument, k.range.toSM(),
                   "'" + g.str() + "' has no parameter '" + k.name.str() + "' left to name");
      return era(loc);
    }
    slots[it - names.begin()] = k.value;
  }
  Term *t = ref(g, loc);
  for (size_t i = 0; i < slots.size(); ++i) {
    if (!slots[i]) {
      diags.report(DiagKind::InvalidArgument, range.toSM(),
                   "missing argument '" + names[i] + "' in the call to '" + g.str() + "'");
      return era(loc);
    }
    t = app(t, expr(slots[i]), loc);
  }
  return t;
}

core::Term *Desugarer::ctrLiteral(CtrExpr *e) {
  SMLoc loc = at(e->range);
  StringRef g = resolve(e->name);
  if (g.empty() || !book.ctrs.count(g)) {
    diags.report(DiagKind::UnboundReference, e->range.toSM(),
                 "constructor '" + e->name.str() + "' is not defined");
    return era(loc);
  }
  CtrData *ctr = book.ctrs[g];
  std::vector<Expr *> slots(ctr->fields.size(), nullptr);
  for (const ast::Binding &f : e->fields) {
    auto it = llvm::find(ctr->fields, f.name.str());
    if (it == ctr->fields.end() || slots[it - ctr->fields.begin()]) {
      diags.report(DiagKind::InvalidArgument, f.range.toSM(),
                   "constructor '" + g.str() + "' has no field '" + f.name.str() + "' left to set");
      return era(loc);
    }
    slots[it - ctr->fields.begin()] = f.value;
  }
  Term *t = ref(g, loc);
  for (size_t i = 0; i < slots.size(); ++i) {
    if (!slots[i]) {
      diags.report(DiagKind::WrongFieldCount, e->range.toSM(),
                   "missing field '" + ctr->fields[i] + "' of constructor '" + g.str() + "'");
      return era(loc);
    }
    t = app(t, expr(slots[i]), loc);
  }
  return t;
}

core::Term *Desugarer::letExpr(LetExpr *e) {
  Term *value = expr(e->value);
  return bindPattern(e->pat, value, [&] { return expr(e->next); });
}

void Desugarer::collectPatternVars(Pat *pat,
                                   std::vector<std::pair<StringRef, SourceRange>> &out) {
  if (auto *v = llvm::dyn_cast<VarPat>(pat)) {
    if (!v->name.empty())
      out.emplace_back(v->name, v->range);
    return;
  }
  if (auto *s = llvm::dyn_cast<SeqPat>(pat))
    for (Pat *p : s->elems)
      collectPatternVars(p, out);
  if (auto *c = llvm::dyn_cast<CtrPat>(pat))
    for (Pat *p : c->args)
      collectPatternVars(p, out);
}

core::Term *Desugarer::bindPattern(Pat *pat, Term *value, llvm::function_ref<Term *()> rest) {
  SMLoc loc = at(pat->range);
  if (auto *v = llvm::dyn_cast<VarPat>(pat)) {
    size_t m = mark();
    StringRef name = v->name.empty() ? v->name : bindVar(v->name, v->range, true);
    Term *body = rest();
    pop(m);
    return prog.make<core::LetTerm>(loc, name, false, value, body);
  }
  if (auto *c = llvm::dyn_cast<ChnPat>(pat)) {
    Unscoped &u = unscoped[c->name];
    u.binders.insert(c->range.begin.getPointer());
    if (!u.first.isValid())
      u.first = c->range;
    return prog.make<core::LetTerm>(loc, prog.save(c->name), true, value, rest());
  }
  auto *seq = llvm::dyn_cast<SeqPat>(pat);
  if (!seq || seq->kind == NodeKind::ListPat) {
    diags.report(DiagKind::InvalidPattern, pat->range.toSM(),
                 "only variables, tuples and superpositions can be bound here");
    // Bind the pattern's names anyway so their uses are not reported too.
    std::vector<std::pair<StringRef, SourceRange>> names;
    collectPatternVars(pat, names);
    size_t m = mark();
    for (auto &[n, r] : names)
      n = bindVar(n, r);
    Term *body = rest();
    pop(m);
    for (auto &[n, r] : names)
      body = prog.make<core::LetTerm>(loc, n, false, era(loc), body);
    return body;
  }
  std::vector<std::pair<StringRef, SourceRange>> names;
  collectPatternVars(pat, names);
  for (size_t i = 0; i < names.size(); ++i)
    for (size_t j = 0; j < i; ++j)
      if (names[i].first == names[j].first)
        diags.report(DiagKind::RepeatedBind, names[i].second.toSM(),
                     ("'" + names[i].first + "' is bound twice in this pattern").str());
  TermKind kind = seq->kind == NodeKind::TupPat ? TermKind::LetTup : TermKind::Dup;
  // (a, b, c) is (a, (b, c)): peel one element at a time.
  std::function<Term *(size_t, Term *)> peel = [&](size_t i, Term *v) -> Term * {
    Pat *first = seq->elems[i];
    bool lastPair = i + 2 == seq->elems.size();
    auto simple = [](Pat *p) -> std::optional<StringRef> {
      if (auto *vp = llvm::dyn_cast<VarPat>(p))
        return vp->name;
      return std::nullopt;
    };
    auto a = simple(first);
    StringRef an = a ? *a : fresh("pat");
    StringRef bn;
    Pat *second = lastPair ? seq->elems[i + 1] : nullptr;
    if (lastPair) {
      auto b = simple(second);
      bn = b ? *b : fresh("pat");
    } else {
      bn = fresh("pat");
    }
    size_t m = mark();
    if (a && !an.empty())
      an = bindVar(an, first->range, true);
    if (lastPair && simple(second) && !bn.empty())
      bn = bindVar(bn, second->range, true);
    Term *body = [&]() -> Term * {
      auto inner = [&]() -> Term * {
        if (!lastPair)
          return peel(i + 1, var(bn, loc));
        if (simple(second))
          return rest();
        return bindPattern(second, var(bn, loc), rest);
      };
      if (a)
        return inner();
      return bindPattern(first, var(an, loc), inner);
    }();
    pop(m);
    return prog.make<core::LetPairTerm>(kind, loc, an, bn, v, body);
  };
  if (seq->elems.size() < 2) {
    diags.report(DiagKind::InvalidPattern, pat->range.toSM(),
                 "a tuple or superposition pattern needs at least two elements");
    return rest();
  }
  return peel(0, value);
}

core::Term *Desugarer::mapLiteral(MapExpr *e) {
  SMLoc loc = at(e->range);
  Term *t = ref("Map/empty", loc);
  for (size_t i = 0; i < e->keys.size(); ++i) {
    Term *k = expr(e->keys[i]);
    Term *v = expr(e->values[i]);
    t = callGlobal("Map/set", {t, k, v}, e->range);
  }
  return t;
}

core::Term *Desugarer::withExpr(WithExpr *e) {
  StringRef saved = withType;
  StringRef type = resolve(e->type);
  withType = prog.save(type.empty() ? e->type.str() : type);
  size_t m = mark();
  Binding wrap;
  wrap.name = "wrap";
  wrap.kind = BindKind::Global;
  wrap.target = prog.save((withType + "/wrap").str());
  wrap.range = e->range;
  scope.push_back(wrap);
  Term *body = expr(e->body);
  pop(m);
  withType = saved;
  return body;
}

core::Term *Desugarer::askExpr(Pat *pat, Term *value, llvm::function_ref<Term *()> rest,
                               SourceRange range) {
  SMLoc loc = at(range);
  if (withType.empty()) {
    diags.report(DiagKind::SyntaxError, range.toSM(), "'ask' (or '<-') outside of a 'with' block");
    return bindPattern(pat, value, rest);
  }
  std::string bind = (withType + "/bind").str();
  if (!book.defs.count(bind)) {
    diags.report(DiagKind::UnboundReference, range.toSM(),
                 "reference to undefined function '" + bind + "'");
    return bindPattern(pat, value, rest);
  }
  // The continuation is deferred, as Bend does it: `bind` receives
  // λd (d (λcaptures... λpat rest) captures...), and `undefer` applies it to
  // the identity. A lift finds the captures; the closure stays in place.
  Lift *lift = beginLift("bind");
  Term *body;
  if (auto *v = llvm::dyn_cast<VarPat>(pat)) {
    size_t m = mark();
    StringRef name = v->name.empty() ? v->name : bindVar(v->name, v->range, true);
    Term *inner = rest();
    pop(m);
    body = lam(name, inner, loc);
  } else {
    StringRef p = fresh("ask");
    body = lam(p, bindPattern(pat, var(p, loc), rest), loc);
  }
  Term *closed = closeLift(lift, body, range);
  StringRef d = fresh("defer");
  Term *call = app(var(d, loc), closed, loc);
  for (const std::string &c : lift->captures)
    call = app(call, lookupCore(prog.save(c), range), loc);
  Term *nxt = lam(d, call, loc);
  return callGlobal(bind, {value, nxt}, range);
}

core::Term *Desugarer::localDef(FunDecl *def, llvm::function_ref<Term *()> rest) {
  size_t m = mark();
  Binding b;
  b.name = def->name;
  b.kind = BindKind::LocalFun;
  b.range = def->nameRange;
  scope.push_back(b);
  Lift *lift = beginLift({}); // named below
  // Named as in Bend: after the definition it is in (the local one, if any),
  // with the number of local definitions this top-level one had finished
  // (body and scope both) when it began, which tells apart equal names.
  lift->name = localParent + "__local_" + std::to_string(localDefsDone) + "_" + def->name.str();
  lift->sortCaptures = true;
  scope[m].lift = lift;
  std::string outer = std::move(localParent);
  localParent = lift->name;
  Term *body = function(def);
  localParent = std::move(outer);
  endLift(lift, body, def->range);
  Term *next = rest();
  pop(m);
  ++localDefsDone;
  return next;
}

core::Term *Desugarer::comprehension(ComprehensionExpr *e) {
  SMLoc loc = at(e->range);
  Term *iter = expr(e->iter);
  auto adtIt = book.adts.find("List");
  if (adtIt == book.adts.end() || adtIt->second->ctrs.size() != 2) {
    diags.report(DiagKind::UnboundReference, e->range.toSM(), "the builtin type 'List' is missing");
    return era(loc);
  }
  AdtData *listAdt = adtIt->second;
  Lift *lift = beginLift("comprehension");
  StringRef it = fresh("iter");
  size_t m = mark();
  it = bindVar(it, e->range);
  Term *matchTerm = encodeMatch(var(it, loc), listAdt, [&](unsigned i) -> Term * {
    CtrData *ctr = listAdt->ctrs[i];
    if (ctr->fields.empty())
      return ref("List/Nil", loc);
    StringRef head = fresh("head"), tail = fresh("tail");
    size_t m2 = mark();
    StringRef bindName = bindVar(e->bind, e->range);
    Term *value = expr(e->term);
    Term *cons = callGlobal("List/Cons", {value, app(selfRef(lift, e->range), var(tail, loc), loc)},
                            e->range);
    Term *body = cons;
    if (e->cond) {
      Term *cond = expr(e->cond);
      body = prog.make<core::SwiTerm>(loc, cond, app(selfRef(lift, e->range), var(tail, loc), loc),
                                      lam("", cons, loc));
    }
    pop(m2);
    body = prog.make<core::LetTerm>(loc, bindName, false, var(head, loc), body);
    // Fields in List/Cons order: head, then tail.
    return lam(head, lam(tail, body, loc), loc);
  }, loc);
  pop(m);
  Term *call = endLift(lift, lam(it, matchTerm, loc), e->range);
  return app(call, iter, loc);
}

// ---- matches ----------------------------------------------------------------------

bool Desugarer::planMatch(llvm::ArrayRef<Arm> arms, SourceRange range, std::vector<ArmPlan> &plan) {
  AdtData *adt = nullptr;
  const Arm *fallback = nullptr;
  std::vector<std::pair<CtrData *, const Arm *>> explicitArms;
  for (const Arm &arm : arms) {
    if (fallback) {
      if (!fallback->name.empty() && fallback->name != "_" && &arm != fallback)
        diags.report(DiagKind::IrrefutableMatch, fallback->range.toSM(),
                     "irrefutable match: every case after the variable pattern '" +
                         fallback->name.str() + "' is ignored");
      else
        diags.report(DiagKind::UnreachableCase, arm.range.toSM(),
                     "this case is unreachable: an earlier default case covers it");
      break;
    }
    CtrData *ctr = nullptr;
    if (!arm.name.empty() && arm.name != "_") {
      StringRef g = resolve(arm.name);
      if (!g.empty() && book.ctrs.count(g))
        ctr = book.ctrs[g];
      else if (adt && book.ctrs.count(adt->name + "/" + arm.name.str()))
        ctr = book.ctrs[adt->name + "/" + arm.name.str()];
    }
    if (!ctr) {
      fallback = &arm;
      continue;
    }
    if (adt && ctr->adt != adt) {
      diags.report(DiagKind::InvalidPattern, arm.range.toSM(),
                   "constructor '" + ctr->name + "' is not of type '" + adt->name + "'");
      return false;
    }
    adt = ctr->adt;
    bool dup = false;
    for (auto &[c, a] : explicitArms)
      dup |= c == ctr;
    if (dup) {
      diags.report(DiagKind::RedundantCase, arm.range.toSM(),
                   "this case is unreachable: '" + ctr->name + "' is already matched");
      continue;
    }
    explicitArms.emplace_back(ctr, &arm);
  }
  if (!adt) {
    // Only a default case: the match is a binding.
    plan.push_back(ArmPlan{nullptr, fallback, true});
    return true;
  }
  std::string missing;
  for (CtrData *c : adt->ctrs) {
    const Arm *found = nullptr;
    for (auto &[ec, ea] : explicitArms)
      if (ec == c)
        found = ea;
    if (found) {
      plan.push_back(ArmPlan{c, found, false});
      continue;
    }
    if (fallback) {
      plan.push_back(ArmPlan{c, fallback, true});
      continue;
    }
    missing += (missing.empty() ? "'" : ", '") + c->name + "'";
    plan.push_back(ArmPlan{c, nullptr, false});
  }
  if (!missing.empty()) {
    diags.report(DiagKind::NonExhaustiveMatch, range.toSM(),
                 "non-exhaustive match: missing case " + missing);
    return false;
  }
  return true;
}

core::Term *Desugarer::withSwitchValue(StringRef bind, Term *value, SourceRange range,
                                       llvm::function_ref<Term *()> body) {
  if (bind.empty())
    return body();
  size_t m = mark();
  bindUse(bind, value, range);
  Term *t = body();
  pop(m);
  return t;
}

core::Term *Desugarer::switchChain(Term *arg, unsigned cases,
                                   llvm::function_ref<Term *(unsigned)> arm,
                                   llvm::function_ref<Term *(StringRef)> defaultArm,
                                   StringRef predName, SMLoc loc) {
  // switch x {0: a; 1: b; _: c} is switch x {0: a; _: λp switch p {0: b; _: λx-2 c}}.
  std::function<Term *(Term *, unsigned)> go = [&](Term *scrut, unsigned i) -> Term * {
    Term *zero = arm(i);
    if (i + 1 == cases) {
      size_t m = mark();
      StringRef pred = predName.empty() ? predName : bindVar(predName, SourceRange(loc, loc));
      Term *d = defaultArm(pred);
      pop(m);
      return prog.make<core::SwiTerm>(loc, scrut, zero, lam(pred, d, loc));
    }
    StringRef p = fresh("pred");
    Term *inner = go(var(p, loc), i + 1);
    return prog.make<core::SwiTerm>(loc, scrut, zero, lam(p, inner, loc));
  };
  return go(arg, 0);
}

core::Term *Desugarer::encodeMatch(Term *scrutinee, AdtData *adt,
                                   llvm::function_ref<Term *(unsigned)> armOf, SMLoc loc) {
  unsigned n = unsigned(adt->ctrs.size());
  core::MatchShape shape;
  for (const CtrData *ctr : adt->ctrs) {
    shape.fields.push_back(unsigned(ctr->fields.size()));
    shape.ctrs.push_back(prog.save(ctr->name));
  }
  if (!checkedDef) {
    Term *encoded = encodeMatchTerm(scrutinee, n, armOf, loc);
    prog.noteMatch(encoded, std::move(shape));
    return encoded;
  }
  TypingFacts::Match note{scrutinee, adt, std::vector<Term *>(n, nullptr)};
  auto armTerm = [&](unsigned i) { return note.arms[i] = armOf(i); };
  Term *encoded = encodeMatchTerm(scrutinee, n, armTerm, loc);
  facts.matches[encoded] = std::move(note);
  prog.noteMatch(encoded, std::move(shape));
  return encoded;
}

core::Term *Desugarer::encodeMatchTerm(Term *scrutinee, unsigned n,
                                       llvm::function_ref<Term *(unsigned)> armTerm, SMLoc loc) {
  if (prog.encoding == core::AdtEncoding::Scott) {
    Term *t = scrutinee;
    for (unsigned i = 0; i < n; ++i)
      t = app(t, armTerm(i), loc);
    return t;
  }
  // NumScott: a value is λx (x TAG fields...); the tag picks the arm. As in
  // Bend, even the tag of a single constructor is tested: switch tag {0: arm; _: *}.
  StringRef tag = fresh("tag");
  if (n == 1)
    return app(scrutinee,
               lam(tag, prog.make<core::SwiTerm>(loc, var(tag, loc), armTerm(0), era(loc)), loc),
               loc);
  Term *chain = switchChain(
      var(tag, loc), n - 1, armTerm, [&](StringRef) { return armTerm(n - 1); }, "", loc);
  return app(scrutinee, lam(tag, chain, loc), loc);
}

core::Term *Desugarer::matchArms(StringRef bind, Term *scrutinee, const std::vector<ArmPlan> &plan,
                                 AdtData *adt, llvm::function_ref<Term *(const Arm &)> body,
                                 Lift *fold, SMLoc loc) {
  // As in Bend, a default case stands for a copy of itself per constructor
  // it covers: there too the fields are `bind.field` (those of the
  // constructor the copy is for), and `bind` (and the case's variable) mean
  // the constructor rebuilt from them.
  return encodeMatch(scrutinee, adt, [&](unsigned i) -> Term * {
    const ArmPlan &p = plan[i];
    CtrData *ctr = p.ctr;
    size_t m = mark();
    bool named = p.viaDefault && !p.arm->name.empty() && p.arm->name != "_";
    std::vector<StringRef> fieldVars;
    for (size_t f = 0; f < ctr->fields.size(); ++f) {
      if (bind.empty()) {
        // Nothing can name the fields; only a variable case rebuilds the value.
        fieldVars.push_back(named ? fresh("field") : StringRef());
        continue;
      }
      StringRef name = prog.save((bind + "." + ctr->fields[f]).str());
      if (fold && ctr->recursive[f]) {
        Binding b;
        b.name = name;
        b.kind = BindKind::FoldRec;
        b.range = p.arm->range;
        b.target = coreName(name);
        b.lift = fold;
        scope.push_back(b);
        fieldVars.push_back(b.target);
      } else {
        fieldVars.push_back(bindVar(name, p.arm->range));
      }
    }
    auto rebuilt = [&] {
      Term *value = ref(ctr->name, loc);
      for (StringRef f : fieldVars)
        value = app(value, var(f, loc), loc);
      return value;
    };
    // (In a fold, `bind` keeps meaning the value folded.)
    if (!fold && !bind.empty())
      bindUse(bind, rebuilt(), p.arm->range);
    Term *t;
    if (named && fold) {
      StringRef v = bindVar(p.arm->name, p.arm->range);
      t = prog.make<core::LetTerm>(loc, v, false, rebuilt(), body(*p.arm));
    } else {
      if (named)
        bindUse(p.arm->name, rebuilt(), p.arm->range);
      t = body(*p.arm);
    }
    pop(m);
    for (auto it = fieldVars.rbegin(); it != fieldVars.rend(); ++it)
      t = lam(*it, t, loc);
    return t;
  }, loc);
}

/// The binder of a match or switch: `x = e`, or the variable matched on.
static StringRef matchBind(StringRef bind, Expr *arg) {
  if (bind == "_")
    return {}; // `match _ = value`: nothing to name
  if (!bind.empty())
    return bind;
  if (auto *v = llvm::dyn_cast<VarExpr>(arg))
    return v->name;
  return {};
}

core::Term *Desugarer::matchTerm(StringRef bind, Expr *arg, llvm::ArrayRef<ast::Binding> with,
                                 llvm::ArrayRef<Arm> arms, bool isFold, SourceRange range,
                                 llvm::function_ref<Term *(const Arm &)> bodyOf) {
  SMLoc loc = at(range);
  Term *value = expr(arg);
  std::vector<std::pair<StringRef, Term *>> withInits;
  for (const ast::Binding &w : with)
    withInits.emplace_back(w.name, w.value ? expr(w.value) : lookup(w.name, w.range));
  std::vector<ArmPlan> plan;
  if (!planMatch(arms, range, plan))
    return era(loc);
  // The `with` variables, bound around `inner`.
  auto withLets = [&](llvm::function_ref<Term *()> inner) {
    size_t m = mark();
    std::vector<StringRef> names;
    for (auto &[n, v] : withInits)
      names.push_back(bindVar(n, range));
    Term *t = inner();
    pop(m);
    for (size_t i = withInits.size(); i-- > 0;)
      t = prog.make<core::LetTerm>(loc, names[i], false, withInits[i].second, t);
    return t;
  };
  if (!plan[0].ctr) {
    // Irrefutable: as in Bend, the match's name and the case's variable
    // both stand for the value, and the `with` variables are bound.
    const Arm *a = plan[0].arm;
    size_t m = mark();
    if (!bind.empty())
      bindUse(bind, value, range);
    if (!a->name.empty() && a->name != "_")
      bindUse(a->name, value, a->range);
    Term *t = withLets([&] { return bodyOf(*a); });
    pop(m);
    return t;
  }
  AdtData *adt = plan[0].ctr->adt;
  if (!isFold) {
    // Each case rebinds the match's name (see matchArms): the value is
    // matched as it is.
    return withLets([&] { return matchArms(bind, value, plan, adt, bodyOf, nullptr, loc); });
  }
  // fold: a lifted function of the value and the `with` variables, whose
  // recursive fields call it again.
  Lift *lift = beginLift("fold");
  StringRef self = bindVar(bind.empty() ? fresh("fold") : bind, range);
  std::vector<StringRef> names;
  for (auto &[n, v] : withInits)
    names.push_back(bindVar(n, range));
  Term *body = matchArms(bind, var(self, loc), plan, adt, bodyOf, lift, loc);
  for (size_t i = names.size(); i-- > 0;)
    body = lam(names[i], body, loc);
  body = lam(self, body, loc);
  Term *call = endLift(lift, body, range);
  Term *t = app(call, value, loc);
  for (auto &[n, v] : withInits)
    t = app(t, v, loc);
  return t;
}

core::Term *Desugarer::matchExpr(MatchExpr *e) {
  return matchTerm(matchBind(e->bind, e->arg), e->arg, e->with, e->arms, e->fold, e->range,
                   [&](const Arm &a) { return expr(a.body); });
}

core::Term *Desugarer::switchTerm(StringRef bindName, Expr *arg, llvm::ArrayRef<ast::Binding> with,
                                   llvm::ArrayRef<Arm> arms, SourceRange range,
                                   llvm::function_ref<Term *(const Arm &)> bodyOf) {
  SMLoc loc = at(range);
  StringRef bind = matchBind(bindName, arg);
  Term *value = expr(arg);
  std::vector<std::pair<StringRef, Term *>> withInits;
  for (const ast::Binding &w : with)
    withInits.emplace_back(w.name, w.value ? expr(w.value) : lookup(w.name, w.range));
  // The cases are 0, 1, ..., then `_`.
  unsigned cases = 0;
  for (const Arm &a : arms) {
    bool last = &a == &arms.back();
    if (last && a.name == "_")
      break;
    if (a.name != std::to_string(cases)) {
      diags.report(DiagKind::InvalidSwitch, a.range.toSM(),
                   a.name == "_" ? "the '_' case must be the last one"
                                 : "expected case " + std::to_string(cases));
      return era(loc);
    }
    ++cases;
  }
  if (arms.back().name != "_" || cases == 0) {
    diags.report(DiagKind::InvalidSwitch, range.toSM(),
                 cases == 0 ? "a switch starts with case 0" : "a switch must end with a '_' case");
    return era(loc);
  }
  size_t m = mark();
  std::vector<StringRef> withNames;
  for (auto &[n, v] : withInits)
    withNames.push_back(bindVar(n, range));
  StringRef pred = bind.empty() ? fresh("pred")
                                : prog.save((bind + "-" + std::to_string(cases)).str());
  // Each case rebinds the switch's name (see withSwitchValue): the value is
  // switched on as it is.
  Term *t = switchChain(
      value, cases,
      [&](unsigned i) {
        return withSwitchValue(bind, prog.make<core::NumTerm>(loc, core::Number::u24(i)), arms[i].range,
                               [&] { return bodyOf(arms[i]); });
      },
      [&](StringRef p) {
        Term *n = prog.make<core::OprTerm>(loc, core::Op::Add, var(p, loc),
                                           prog.make<core::NumTerm>(loc, core::Number::u24(cases)));
        return withSwitchValue(bind, n, arms.back().range, [&] { return bodyOf(arms.back()); });
      },
      pred, loc);
  pop(m);
  for (size_t i = withInits.size(); i-- > 0;)
    t = prog.make<core::LetTerm>(loc, withNames[i], false, withInits[i].second, t);
  return t;
}

core::Term *Desugarer::ifTerm(llvm::ArrayRef<Expr *> conds, SourceRange range,
                               llvm::function_ref<Term *(size_t)> thenOf,
                               llvm::function_ref<Term *()> otherwise) {
  SMLoc loc = at(range);
  std::function<Term *(size_t)> go = [&](size_t i) -> Term * {
    if (i == conds.size())
      return otherwise();
    Term *cond = expr(conds[i]);
    Term *then = thenOf(i);
    Term *other = go(i + 1);
    return prog.make<core::SwiTerm>(loc, cond, other, lam("", then, loc));
  };
  return go(0);
}

core::Term *Desugarer::bendTerm(llvm::ArrayRef<ast::Binding> state, Expr *condition, SourceRange range,
                                 llvm::function_ref<Term *()> stepOf,
                                 llvm::function_ref<Term *()> baseOf) {
  SMLoc loc = at(range);
  std::vector<Term *> inits;
  for (const ast::Binding &b : state)
    inits.push_back(b.value ? expr(b.value) : lookup(b.name, b.range));
  Lift *lift = beginLift("bend");
  std::vector<StringRef> stateNames;
  for (const ast::Binding &b : state)
    stateNames.push_back(bindVar(b.name, b.range));
  Binding fork;
  fork.name = "fork";
  fork.kind = BindKind::Fork;
  fork.lift = lift;
  scope.push_back(fork);
  Term *cond = expr(condition);
  Term *step = stepOf();
  Term *base = baseOf();
  Term *body = prog.make<core::SwiTerm>(loc, cond, base, lam("", step, loc));
  for (size_t i = stateNames.size(); i-- > 0;)
    body = lam(stateNames[i], body, loc);
  Term *call = endLift(lift, body, range);
  for (Term *i : inits)
    call = app(call, i, loc);
  return call;
}

core::Term *Desugarer::openExpr(OpenExpr *e) {
  SMLoc loc = at(e->range);
  StringRef type = resolve(e->type);
  auto it = book.adts.find(type);
  if (type.empty() || it == book.adts.end()) {
    diags.report(DiagKind::InvalidOpen, e->range.toSM(),
                 "type '" + e->type.str() + "' of an 'open' is not defined");
    return era(loc);
  }
  AdtData *adt = it->second;
  if (adt->ctrs.size() != 1) {
    diags.report(DiagKind::InvalidOpen, e->range.toSM(),
                 "type '" + adt->name + "' of an 'open' has more than one constructor");
    return era(loc);
  }
  Arm arm{adt->ctrs[0]->name, e->range, e->body, {}};
  std::vector<ArmPlan> plan{ArmPlan{adt->ctrs[0], &arm, false}};
  Term *scrut = lookup(e->var, e->range);
  return matchArms(e->var, scrut, plan, adt, [&](const Arm &a) { return expr(a.body); }, nullptr,
                   loc);
}

// ---- imp statements ---------------------------------------------------------------

core::Term *Desugarer::wrapMapGets(size_t from, Term *body) {
  for (size_t i = mapGets.size(); i-- > from;) {
    MapGet &g = mapGets[i];
    SMLoc loc = at(g.range);
    Term *map = lookup(g.map, g.range);
    auto *mapName = llvm::dyn_cast<core::VarTerm>(map);
    StringRef mapVar = mapName ? mapName->name() : g.map;
    Term *get = callGlobal("Map/get", {map, g.key}, g.range);
    body = prog.make<core::LetPairTerm>(TermKind::LetTup, loc, g.var, mapVar, get, body);
  }
  mapGets.resize(from);
  return body;
}

bool Desugarer::samePattern(Pat *a, Pat *b) const {
  if (a->kind != b->kind)
    return false;
  if (auto *va = llvm::dyn_cast<VarPat>(a))
    return va->name == llvm::cast<VarPat>(b)->name;
  if (auto *ca = llvm::dyn_cast<ChnPat>(a))
    return ca->name == llvm::cast<ChnPat>(b)->name;
  auto *sa = llvm::dyn_cast<SeqPat>(a);
  auto *sb = llvm::dyn_cast<SeqPat>(b);
  if (!sa || !sb || sa->elems.size() != sb->elems.size())
    return false;
  for (size_t i = 0; i < sa->elems.size(); ++i)
    if (!samePattern(sa->elems[i], sb->elems[i]))
      return false;
  return true;
}

Desugarer::BlockValue Desugarer::block(Block stmts, size_t index) {
  if (index >= stmts.size()) {
    BlockValue v;
    v.ok = false;
    v.term = era(SMLoc());
    return v;
  }
  return statement(stmts[index], stmts, index);
}

core::Term *Desugarer::continueWith(Pat *pat, Term *value, Block stmts, size_t index,
                                    BlockValue &out) {
  return bindPattern(pat, value, [&] {
    out = block(stmts, index);
    return out.term;
  });
}

Desugarer::BlockValue Desugarer::statement(Stmt *s, Block stmts, size_t index) {
  using llvm::cast;
  SMLoc loc = at(s->range);
  bool last = index + 1 == stmts.size();
  BlockValue out;
  size_t gets = mapGets.size();
  auto assign = [&](Pat *pat, Term *value) -> BlockValue {
    if (last) {
      out.term = wrapMapGets(gets, value);
      out.assigned = pat;
      return out;
    }
    BlockValue rest;
    Term *t = continueWith(pat, value, stmts, index + 1, rest);
    rest.term = wrapMapGets(gets, t);
    return rest;
  };
  switch (s->kind) {
  case NodeKind::ReturnStmt: {
    if (!last)
      diags.report(DiagKind::UnreachableCase, stmts[index + 1]->range.toSM(),
                   "statements after 'return' are unreachable");
    out.term = wrapMapGets(gets, expr(cast<ReturnStmt>(s)->value));
    return out;
  }
  case NodeKind::AssignStmt: {
    auto *a = cast<AssignStmt>(s);
    Term *value = expr(a->value);
    if (auto *ms = llvm::dyn_cast<MapSetPat>(a->pat)) {
      Term *key = expr(ms->key);
      value = callGlobal("Map/set", {lookup(ms->map, ms->range), key, value}, s->range);
      return assign(synth.make<VarPat>(ms->range, ms->map), value);
    }
    return assign(a->pat, value);
  }
  case NodeKind::InPlaceStmt: {
    auto *ip = cast<InPlaceStmt>(s);
    Term *rhs = expr(ip->value);
    auto combine = [&](Term *old) -> Term * {
      if (ip->mapper)
        return app(rhs, old, loc);
      return prog.make<core::OprTerm>(loc, ip->op, old, rhs);
    };
    if (auto *v = llvm::dyn_cast<VarPat>(ip->target))
      return assign(v, combine(lookup(v->name, v->range)));
    if (auto *ms = llvm::dyn_cast<MapSetPat>(ip->target)) {
      Term *key = expr(ms->key);
      StringRef x = fresh("old");
      Term *f = ip->mapper ? rhs : lam(x, prog.make<core::OprTerm>(loc, ip->op, var(x, loc), rhs), loc);
      Term *value = callGlobal("Map/map", {lookup(ms->map, ms->range), key, f}, s->range);
      return assign(synth.make<VarPat>(ms->range, ms->map), value);
    }
    diags.report(DiagKind::InvalidPattern, ip->target->range.toSM(),
                 "an in-place operation needs a variable or a map entry");
    out.term = era(loc);
    return out;
  }
  case NodeKind::AskStmt: {
    auto *a = cast<AskStmt>(s);
    Term *value = expr(a->value);
    if (last) {
      // A branch that ends in `x <- value` binds x for what follows the
      // branching statement.
      out.term = wrapMapGets(gets, value);
      out.assigned = a->pat;
      out.monadic = true;
      return out;
    }
    BlockValue rest;
    Term *t = askExpr(a->pat, value, [&] {
      rest = block(stmts, index + 1);
      return rest.term;
    }, s->range);
    rest.term = wrapMapGets(gets, t);
    return rest;
  }
  case NodeKind::UseStmt: {
    auto *u = cast<UseStmt>(s);
    Term *value = expr(u->value);
    if (last) {
      diags.report(DiagKind::MissingReturn, s->range.toSM(), "a block cannot end with 'use'");
      out.term = value;
      out.ok = false;
      return out;
    }
    size_t m = mark();
    bindUse(u->name, value, s->range);
    BlockValue rest = block(stmts, index + 1);
    pop(m);
    return rest;
  }
  case NodeKind::OpenStmt: {
    auto *o = cast<OpenStmt>(s);
    if (last) {
      diags.report(DiagKind::MissingReturn, s->range.toSM(), "a block cannot end with 'open'");
      out.term = era(loc);
      out.ok = false;
      return out;
    }
    StringRef type = resolve(o->type);
    auto it = book.adts.find(type);
    if (type.empty() || it == book.adts.end() || it->second->ctrs.size() != 1) {
      diags.report(DiagKind::InvalidOpen, s->range.toSM(),
                   it == book.adts.end() || type.empty()
                       ? "type '" + o->type.str() + "' of an 'open' is not defined"
                       : "type '" + type.str() + "' of an 'open' has more than one constructor");
      out.term = era(loc);
      return out;
    }
    AdtData *adt = it->second;
    Arm arm{adt->ctrs[0]->name, s->range, nullptr, {}};
    std::vector<ArmPlan> plan{ArmPlan{adt->ctrs[0], &arm, false}};
    BlockValue rest;
    Term *scrut = lookup(o->var, s->range);
    rest.term = matchArms(o->var, scrut, plan, adt, [&](const Arm &) {
      rest = block(stmts, index + 1);
      return rest.term;
    }, nullptr, loc);
    return rest;
  }
  case NodeKind::DefStmt: {
    auto *d = cast<DefStmt>(s);
    if (last) {
      diags.report(DiagKind::MissingReturn, s->range.toSM(), "a block cannot end with 'def'");
      out.term = era(loc);
      out.ok = false;
      return out;
    }
    BlockValue rest;
    Term *t = localDef(d->def, [&] {
      rest = block(stmts, index + 1);
      return rest.term;
    });
    rest.term = t;
    return rest;
  }
  default:
    break;
  }
  return branchy(s, stmts, index, [&](llvm::function_ref<BlockValue(Block)> branch) -> Term * {
    switch (s->kind) {
    case NodeKind::IfStmt: {
      auto *is = cast<IfStmt>(s);
      return ifTerm(is->conds, s->range, [&](size_t i) { return branch(is->thens[i]).term; },
                    [&] { return branch(is->otherwise).term; });
    }
    case NodeKind::SwitchStmt: {
      auto *ss = cast<SwitchStmt>(s);
      return switchTerm(ss->bind, ss->arg, ss->with, ss->arms, s->range,
                        [&](const Arm &a) { return branch(a.block).term; });
    }
    case NodeKind::MatchStmt: {
      auto *ms = cast<MatchStmt>(s);
      return matchTerm(matchBind(ms->bind, ms->arg), ms->arg, ms->with, ms->arms, ms->fold, s->range,
                       [&](const Arm &a) { return branch(a.block).term; });
    }
    case NodeKind::BendStmt: {
      auto *bs = cast<BendStmt>(s);
      return bendTerm(bs->state, bs->cond, s->range, [&] { return branch(bs->step).term; },
                      [&] { return branch(bs->base).term; });
    }
    case NodeKind::WithStmt: {
      auto *ws = cast<WithStmt>(s);
      StringRef saved = withType;
      StringRef type = resolve(ws->type);
      withType = prog.save(type.empty() ? ws->type.str() : type);
      size_t m = mark();
      Binding wrap;
      wrap.name = "wrap";
      wrap.kind = BindKind::Global;
      wrap.target = prog.save((withType + "/wrap").str());
      wrap.range = s->range;
      scope.push_back(wrap);
      Term *t = branch(ws->body).term;
      pop(m);
      withType = saved;
      return t;
    }
    default:
      llvm_unreachable("not a statement");
    }
  });
}

Desugarer::BlockValue Desugarer::branchy(
    Stmt *s, Block stmts, size_t index,
    llvm::function_ref<Term *(llvm::function_ref<BlockValue(Block)>)> build) {
  SMLoc loc = at(s->range);
  bool last = index + 1 == stmts.size();
  std::vector<BlockValue> branches;
  size_t gets = mapGets.size();
  Term *value = build([&](Block b) {
    BlockValue v = block(b, 0);
    branches.push_back(v);
    return v;
  });
  BlockValue out;
  bool allReturn = true, allAssign = true;
  for (const BlockValue &b : branches) {
    allReturn &= b.assigned == nullptr;
    allAssign &= b.assigned != nullptr;
  }
  if (branches.empty()) {
    out.term = wrapMapGets(gets, value);
    return out;
  }
  if (allReturn) {
    if (!last)
      diags.report(DiagKind::UnreachableCase, stmts[index + 1]->range.toSM(),
                   "every branch before this statement returns, so it is unreachable");
    out.term = wrapMapGets(gets, value);
    return out;
  }
  Pat *pat = allAssign ? branches[0].assigned : nullptr;
  bool monadic = allAssign && branches[0].monadic;
  for (const BlockValue &b : branches)
    if (pat && (!samePattern(pat, b.assigned) || b.monadic != monadic))
      pat = nullptr;
  if (!pat) {
    diags.report(DiagKind::InvalidBranches, s->range.toSM(),
                 "the branches of this statement must all return, or all end by assigning the "
                 "same variables");
    out.term = era(loc);
    return out;
  }
  if (last) {
    out.term = wrapMapGets(gets, value);
    out.assigned = pat;
    out.monadic = monadic;
    return out;
  }
  BlockValue rest;
  Term *t;
  if (monadic)
    t = askExpr(pat, value, [&] {
      rest = block(stmts, index + 1);
      return rest.term;
    }, s->range);
  else
    t = continueWith(pat, value, stmts, index + 1, rest);
  rest.term = wrapMapGets(gets, t);
  return rest;
}

// ---- definitions ------------------------------------------------------------------

void Desugarer::checkUnscoped() {
  for (auto &entry : unscoped) {
    Unscoped &u = entry.second;
    std::string name = entry.first().str();
    if (u.binders.empty())
      diags.report(DiagKind::UnscopedVariable, u.first.toSM(),
                   "unbound unscoped variable '$" + name + "'");
    else if (u.binders.size() > 1)
      diags.report(DiagKind::UnscopedVariable, u.first.toSM(),
                   "unscoped variable '$" + name + "' is defined more than once");
    else if (u.uses.empty())
      diags.report(DiagKind::UnscopedVariable, u.first.toSM(),
                   "unscoped variable '$" + name + "' is never used");
    else if (u.uses.size() > 1)
      diags.report(DiagKind::UnscopedVariable, u.first.toSM(),
                   "unscoped variable '$" + name + "' is used more than once");
  }
}

void Desugarer::emitDefinition(DefData &def) {
  file = def.file;
  defName = def.name;
  localParent = defName;
  localDefsDone = 0;
  liftCount = 0;
  cloned = 0;
  freshCount = 0; // generated names depend only on this definition
  scope.clear();
  useFree.clear();
  unscoped.clear();
  mapGets.clear();
  withType = {};
  if (def.hvm) {
    llvm::StringRef name = prog.save(def.name);
    TypingFacts::set(facts.hvmDefs, prog.hvmDefs.size(),
                     TypingFacts::Def{def.hvm->type, file, false, false, def.hvm->range});
    prog.hvmDefs.push_back(core::HvmDefinition{
        name, prog.save(def.hvm->text), at(def.hvm->range),
        llvm::SMLoc::getFromPointer(def.hvm->text.data()), def.builtin});
    return;
  }
  checkedDef = def.fun->checked();
  clones.clear();
  size_t firstLift = lifts.size(), firstDef = prog.defs.size();
  liftsDone = 0;
  llvm::StringRef name = prog.save(def.name);
  TypingFacts::Def known{def.fun->sig, file, checkedDef, false, def.fun->nameRange,
                         def.fun->annotated};
  Term *body = function(def.fun);
  if (!mapGets.empty())
    body = wrapMapGets(0, body);
  checkUnscoped();
  // Its place comes after those of the definitions it lifted out.
  TypingFacts::set(facts.defs, prog.defs.size(), known);
  def.coreIndex = uint32_t(prog.defs.size());
  prog.defs.push_back(core::Definition{name, body, at(def.fun->range), def.builtin});
  nameLifts(firstLift, firstDef);
  noteReferences();
}

void Desugarer::nameLifts(size_t firstLift, size_t firstDef, llvm::ArrayRef<Term *> alsoIn) {
  std::vector<Lift *> todo;
  for (size_t i = firstLift; i < lifts.size(); ++i)
    if (!lifts[i]->kind.empty())
      todo.push_back(lifts[i].get());
  if (todo.empty())
    return;
  llvm::sort(todo, [](Lift *a, Lift *b) { return a->doneOrder < b->doneOrder; });
  // Numbers in the order the lifts finished (inner ones first)...
  std::map<std::pair<Lift *, std::string>, unsigned> counters;
  std::vector<unsigned> number;
  for (Lift *l : todo)
    number.push_back(counters[{l->namingParent, l->kind}]++);
  // ...names the other way round: a lift finishes after those inside it,
  // so its own name is final before theirs are made from it.
  llvm::DenseMap<const char *, StringRef> renamed; // by the saved provisional name
  for (size_t k = todo.size(); k-- > 0;) {
    Lift *l = todo[k];
    const std::string &base = l->namingParent ? l->namingParent->name : l->topName;
    StringRef from = prog.save(l->name);
    StringRef to = prog.save(base + "__" + l->kind + std::to_string(number[k]));
    renamed[from.data()] = to;
    l->name = to.str();
  }
  auto renameIn = [&](const Term *root) {
    core::forEachTerm(root, [&](const Term *t) {
      if (t->kind != TermKind::Ref)
        return;
      auto *r = llvm::cast<core::RefTerm>(t);
      if (auto it = renamed.find(r->name().data()); it != renamed.end())
        new (const_cast<core::RefTerm *>(r)) core::RefTerm(r->loc, it->second);
    });
  };
  for (size_t k = firstDef; k < prog.defs.size(); ++k) {
    core::Definition &d = prog.defs[k];
    if (auto it = renamed.find(d.name.data()); it != renamed.end())
      d.name = it->second;
    renameIn(d.body);
  }
  for (const Term *t : alsoIn)
    renameIn(t);
}

void Desugarer::applyArguments(const DefData &entry, llvm::ArrayRef<Expr *> args) {
  // The entry's body changes: what it refers to is found again later.
  prog.refs = core::ProgramRefs();
  file = entry.file;
  // Lifted out of an argument, a definition is named after it; the entry's
  // own lifts keep their names.
  liftCount = 0;
  liftsDone = 0;
  size_t firstLift = lifts.size(), firstDef = prog.defs.size();
  localDefsDone = 0;
  cloned = 0;
  scope.clear();
  useFree.clear();
  unscoped.clear();
  mapGets.clear();
  withType = {};
  // The arguments become part of the entry's body, and are checked with it.
  checkedDef = entry.fun && entry.fun->checked();
  clones.clear();
  std::vector<Term *> terms;
  for (size_t i = 0; i < args.size(); ++i) {
    defName = entry.name.str() + "__arg" + std::to_string(i + 1);
    localParent = defName;
    terms.push_back(expr(args[i]));
  }
  // One definition in Bend: an unscoped variable may be bound in one argument
  // and used in another.
  checkUnscoped();
  nameLifts(firstLift, firstDef, terms);
  for (core::Definition &d : prog.defs) {
    if (d.name != entry.name)
      continue;
    for (Term *t : terms)
      d.body = app(d.body, t, t->loc);
    facts.appliedEntry = d.name;
    facts.firstArgument = args.front()->range;
    return;
  }
}

void Desugarer::noteReferences() {
  core::ProgramRefs &refs = prog.refs;
  if (!constructorsNamed) {
    constructorNames = prog.constructorNames();
    constructorsNamed = true;
  }
  // Definitions are complete once made (a lift's placeholders are patched
  // before the definition that lifts it ends), and stay as they are until
  // arguments are applied to the entry point (which starts over).
  for (size_t k = refs.begin.size() - 1; k < prog.defs.size(); ++k)
    refs.add(prog.defs[k].body, &constructorNames);
}

void Desugarer::emitConstructors() {
  for (AdtData &adt : book.adtStore) {
    core::AdtInfo info;
    info.name = prog.save(adt.name);
    unsigned n = unsigned(adt.ctrs.size());
    for (CtrData *c : adt.ctrs) {
      // Each name saved once (saving looks the text up).
      core::AdtInfo::Ctr ic;
      ic.name = prog.save(c->name);
      for (const std::string &f : c->fields)
        ic.fields.push_back(prog.save(f));
      SMLoc loc = at(c->range);
      Term *body;
      if (prog.encoding == core::AdtEncoding::NumScott) {
        // λfields λx (x Type/Ctr/tag fields...)
        StringRef tagName = prog.save(c->name + "/tag");
        Term *t = app(var("%x", loc), prog.make<core::RefTerm>(loc, tagName), loc);
        for (StringRef f : ic.fields)
          t = app(t, var(f, loc), loc);
        body = lam("%x", t, loc);
        prog.defs.push_back(core::Definition{tagName,
                                             prog.make<core::NumTerm>(loc, core::Number::u24(c->index)),
                                             loc, adt.builtin});
      } else {
        // λfields λc0 ... λcn (ci fields...)
        std::string ci = "%c" + std::to_string(c->index);
        Term *t = var(prog.save(ci), loc);
        for (StringRef f : ic.fields)
          t = app(t, var(f, loc), loc);
        body = t;
        for (unsigned i = n; i-- > 0;)
          body = lam(prog.save("%c" + std::to_string(i)), body, loc);
      }
      for (auto it = ic.fields.rbegin(); it != ic.fields.rend(); ++it)
        body = lam(*it, body, loc);
      prog.defs.push_back(core::Definition{ic.name, body, loc, adt.builtin, /*constructor=*/true});
      info.ctrs.push_back(std::move(ic));
    }
    prog.adts.push_back(std::move(info));
  }
  noteReferences();
}

} // namespace bendc::frontend
