// Names, scopes and lifts: binding and looking up variables, `use`
// aliases, fresh names, and lifting inline recursive constructs (fold, bend,
// local def, the continuation of `ask`) to definitions of their own that take
// what they capture as leading parameters.
#include "frontend/desugar/Internal.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"

#include <functional>

namespace bendc::frontend {


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

// ---- recorded names -----------------------------------------------------------

uint32_t ResolvedNames::local(StringRef name, llvm::SMRange at) {
  auto [it, fresh] =
      localAt.try_emplace({at.Start.getPointer(), name.data()}, uint32_t(locals.size()));
  if (fresh)
    locals.push_back(Local{name, at, at.End});
  return it->second;
}


void ResolvedNames::use(llvm::SMRange at, uint32_t local, StringRef global) {
  if (at.Start.isValid() && used.insert(at.Start.getPointer()).second)
    uses.push_back(Use{at, local, global});
}


void ResolvedNames::merge(uint32_t from, uint32_t into) {
  from = find(from);
  into = find(into);
  if (from == into)
    return;
  locals[from].sameAs = into;
  llvm::SMLoc end = locals[from].end;
  if (end.isValid() && end.getPointer() > locals[into].end.getPointer())
    locals[into].end = end;
}


llvm::SMRange desugar::spelled(SourceRange within, StringRef name) {
  if (llvm::SMRange r = ast::spelledAt(within.begin, name); r.Start.isValid())
    return r;
  if (llvm::SMRange r = ast::spelledIn(within, name); r.Start.isValid())
    return r;
  return within.toSM();
}


uint32_t Desugarer::declare(StringRef name, llvm::SMRange at) {
  uint32_t id = record->local(name, at);
  llvm::SMLoc &end = record->locals[id].end;
  if (scopeEnd.isValid() && (!end.isValid() || end.getPointer() < scopeEnd.getPointer()))
    end = scopeEnd;
  return id;
}


void Desugarer::declared(StringRef name, SourceRange where, StringRef written) {
  if (record)
    scope.back().symbol = declare(name, spelled(where, written.empty() ? name : written));
}


void Desugarer::declaredAt(StringRef name, llvm::SMRange at) {
  if (record)
    scope.back().symbol = declare(name, at);
}


void Desugarer::continues(uint32_t symbol) {
  if (record)
    scope.back().symbol = symbol;
}


uint32_t Desugarer::symbolOf(StringRef name) const {
  if (!record)
    return ResolvedNames::NoLocal;
  for (size_t i = scope.size(); i-- > 0;)
    if (scope[i].kind != BindKind::Boundary && scope[i].name == name)
      return scope[i].symbol;
  return ResolvedNames::NoLocal;
}


void Desugarer::noteGlobal(StringRef name, SourceRange where, StringRef global) {
  if (record)
    record->use(spelled(where, name), ResolvedNames::NoLocal, global);
}


void Desugarer::noteUnscoped(StringRef name, SourceRange range, bool binder) {
  if (record)
    unscopedNames.push_back(UnscopedName{name, range, binder});
}


void Desugarer::resolveUnscoped() {
  if (!record)
    return;
  // An unscoped variable is one name in the whole definition: each use
  // means its (first) binder, wherever that is.
  llvm::StringMap<uint32_t> first;
  for (const UnscopedName &u : unscopedNames)
    if (u.binder) {
      uint32_t id = declare(prog.save(("$" + u.name).str()), u.range.toSM());
      record->locals[id].end = u.range.end;
      first.try_emplace(u.name, id);
    }
  for (const UnscopedName &u : unscopedNames)
    if (!u.binder)
      if (auto it = first.find(u.name); it != first.end())
        record->use(u.range.toSM(), it->second);
  unscopedNames.clear();
}


void Desugarer::recordPattern(Pat *pat, bool rule) {
  if (!record || !pat)
    return;
  switch (pat->kind) {
  case NodeKind::VarPat: {
    auto *v = llvm::cast<VarPat>(pat);
    if (v->name.empty())
      return;
    StringRef g = rule ? resolve(v->name) : StringRef();
    if (!g.empty() && book.ctrs.count(g)) {
      noteGlobal(v->name, v->range, g);
      return;
    }
    (void)bindVar(v->name, v->range);
    declared(v->name, v->range);
    return;
  }
  case NodeKind::ChnPat:
    noteUnscoped(llvm::cast<ChnPat>(pat)->name, pat->range, true);
    return;
  case NodeKind::CtrPat: {
    auto *c = llvm::cast<CtrPat>(pat);
    StringRef g = resolve(c->name);
    if (!g.empty() && book.ctrs.count(g))
      noteGlobal(c->name, pat->range, g);
    for (Pat *a : c->args)
      recordPattern(a, rule);
    return;
  }
  case NodeKind::TupPat:
  case NodeKind::SupPat:
  case NodeKind::ListPat:
    for (Pat *e : llvm::cast<SeqPat>(pat)->elems)
      recordPattern(e, rule);
    return;
  default:
    return;
  }
}


void Desugarer::recover(llvm::function_ref<void()> walk) {
  if (!record)
    return;
  // Desugared again only for its names: what it would report or add to the
  // program, or change in what is being desugared, is put back.
  bool wasMuted = diags.setMuted(true);
  ++recovering;
  size_t defs = prog.defs.size(), factDefs = facts.defs.size(), liftsMade = lifts.size();
  size_t gets = mapGets.size(), depth = scope.size();
  unsigned liftsBegun = liftCount, finished = liftsDone, locals = localDefsDone, made = freshCount;
  size_t copies = cloned;
  StringRef with = withType;
  llvm::StringMap<Unscoped> unscopedBefore = unscoped;
  struct Open {
    unsigned uses;
    StringRef liftVar;
    size_t captures = 0, selfRefs = 0;
  };
  std::vector<Open> open;
  for (const Binding &b : scope)
    open.push_back(Open{b.uses, b.liftVar, b.lift ? b.lift->captures.size() : 0,
                        b.lift ? b.lift->selfRefs.size() : 0});
  walk();
  assert(scope.size() == depth && "a recovered walk left bindings in scope");
  for (size_t i = 0; i < depth; ++i) {
    Binding &b = scope[i];
    b.uses = open[i].uses;
    b.liftVar = open[i].liftVar;
    if (b.lift && b.kind == BindKind::Boundary) {
      b.lift->captures.resize(open[i].captures);
      b.lift->selfRefs.resize(open[i].selfRefs);
    }
  }
  prog.defs.erase(prog.defs.begin() + defs, prog.defs.end());
  facts.defs.resize(std::min(facts.defs.size(), factDefs));
  lifts.resize(liftsMade);
  // Placeholders of the lifts just dropped are gone with them.
  for (auto it = placeholderOf.begin(); it != placeholderOf.end();) {
    auto cur = it++;
    if (!llvm::any_of(lifts, [&](const std::unique_ptr<Lift> &l) { return l.get() == cur->second; }))
      placeholderOf.erase(cur);
  }
  mapGets.resize(gets);
  liftCount = liftsBegun;
  liftsDone = finished;
  localDefsDone = locals;
  freshCount = made;
  cloned = copies;
  withType = with;
  unscoped = std::move(unscopedBefore);
  --recovering;
  diags.setMuted(wasMuted);
}


void Desugarer::forgetDefinitionState() {
  localDefsDone = 0;
  liftCount = 0;
  cloned = 0;
  scope.clear();
  useFree.clear();
  unscoped.clear();
  mapGets.clear();
  withType = {};
}

void Desugarer::recordNamesOf(FunDecl *fun, FileScope &f) {
  if (!recorded || recorded->file != &f)
    return;
  file = &f;
  defName = fun->name.str();
  localParent = defName;
  forgetDefinitionState();
  liftsDone = 0;
  freshCount = 0;
  checkedDef = false;
  clones.clear();
  placeholderOf.clear();
  record = recorded;
  recover([&] { (void)function(fun); });
  resolveUnscoped();
  record = nullptr;
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
  if (warnUnused)
    declared(name, range);
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
  placeholderOf[p] = lift;
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
  case TermKind::Ref: {
    // A lift's placeholder (a fold's recursive call in a `use` value, say)
    // is copied as one: its captures are appended when the lift closes.
    auto it = placeholderOf.find(t);
    if (it != placeholderOf.end() && !it->second->done && llvm::is_contained(it->second->selfRefs, t)) {
      Lift *lift = it->second;
      Term *p = placeholder(lift->name, t->loc);
      lift->selfRefs.push_back(p);
      placeholderOf[p] = lift;
      return p;
    }
    return ref(cast<core::RefTerm>(t)->name(), t->loc);
  }
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
  return lookup(coreName, range, /*note=*/false);
}


core::Term *Desugarer::lookup(StringRef name, SourceRange range, bool note) {
  auto [found, crossed] = innermostBinding([&](const Binding &b) { return b.name == name; });
  if (found) {
    Binding &b = *found;
    if (record && note && b.symbol != ResolvedNames::NoLocal)
      record->use(spelled(range, name), b.symbol);
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
      if (note)
        noteGlobal(name, range, b.target);
      return ref(b.target, at(range));
    case BindKind::Boundary:
      break;
    }
  }
  if (!note) {
    StringRef g = resolve(name);
    if (!g.empty() && (book.defs.count(g) || book.ctrs.count(g)))
      return ref(g, at(range));
  }
  return lookupGlobal(name, range);
}


core::Term *Desugarer::lookupGlobal(StringRef name, SourceRange range) {
  StringRef g = resolve(name);
  if (!g.empty() && (book.defs.count(g) || book.ctrs.count(g))) {
    noteGlobal(name, range, g);
    return ref(g, at(range));
  }
  if (!g.empty())
    noteGlobal(name, range, g); // a type: no value, but an editor still shows it
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

} // namespace bendc::frontend
