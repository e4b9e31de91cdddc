// Expressions of both syntaxes that are not a branching construct:
// literals (strings, lists, tuples, maps, constructors), λs, applications,
// lets and the patterns they bind, `with`/`ask`, local definitions,
// comprehensions and `open`.
#include "frontend/desugar/Internal.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/ConvertUTF.h"

#include <functional>
#include <map>
#include <optional>

namespace bendc::frontend {

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
    noteUnscoped(c->name, e->range, false);
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
    ScopeEnd visible(*this, e->range.end);
    size_t m = mark();
    bindUse(u->name, value, e->range);
    declared(u->name, e->range);
    Term *next = expr(u->next);
    pop(m);
    return next;
  }
  case NodeKind::AskExpr: {
    auto *a = cast<AskExpr>(e);
    Term *value = expr(a->value);
    ScopeEnd visible(*this, e->range.end);
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
    ScopeEnd visible(*this, e->range.end);
    return bendTerm(be->state, be->cond, e->range, [&] { return expr(be->step); },
                    [&] { return expr(be->base); });
  }
  case NodeKind::OpenExpr:
    return openExpr(cast<OpenExpr>(e));
  case NodeKind::WithExpr:
    return withTerm(cast<WithExpr>(e)->type, e->range,
                    [&] { return expr(cast<WithExpr>(e)->body); });
  case NodeKind::LocalDefExpr: {
    auto *d = cast<LocalDefExpr>(e);
    ScopeEnd visible(*this, e->range.end);
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
  ScopeEnd visible(*this, e->range.end);
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
    noteUnscoped(c->name, c->range, true);
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
  if (def != book.defs.end() || (!g.empty() && book.ctrs.count(g)))
    noteGlobal(v->name, v->range, g);
  // After an error, the arguments are desugared for their names alone.
  auto recoverArguments = [&] {
    recover([&] {
      for (Expr *a : args)
        (void)expr(a);
      for (const ast::Binding &k : kwargs)
        if (k.value)
          (void)expr(k.value);
    });
  };
  if (!g.empty() && book.ctrs.count(g)) {
    names = book.ctrs[g]->fields;
  } else if (def != book.defs.end() && def->second.fun && def->second.fun->imp) {
    // An imp definition's parameters, as written.
    for (const ast::Param &p : def->second.fun->params)
      names.push_back(p.name.str());
  } else {
    diags.report(DiagKind::InvalidArgument, range.toSM(),
                 "named arguments need a call to a definition or constructor by name");
    recoverArguments();
    return era(loc);
  }
  std::vector<Expr *> slots(names.size(), nullptr);
  if (args.size() > names.size()) {
    diags.report(DiagKind::InvalidArgument, range.toSM(), "too many arguments for '" + g.str() + "'");
    recoverArguments();
    return era(loc);
  }
  for (size_t i = 0; i < args.size(); ++i)
    slots[i] = args[i];
  for (const ast::Binding &k : kwargs) {
    auto it = llvm::find(names, k.name.str());
    if (it == names.end() || slots[it - names.begin()]) {
      diags.report(DiagKind::InvalidArgument, k.range.toSM(),
                   "'" + g.str() + "' has no parameter '" + k.name.str() + "' left to name");
      recoverArguments();
      return era(loc);
    }
    slots[it - names.begin()] = k.value;
  }
  Term *t = ref(g, loc);
  for (size_t i = 0; i < slots.size(); ++i) {
    if (!slots[i]) {
      diags.report(DiagKind::InvalidArgument, range.toSM(),
                   "missing argument '" + names[i] + "' in the call to '" + g.str() + "'");
      recoverArguments();
      return era(loc);
    }
    t = app(t, expr(slots[i]), loc);
  }
  return t;
}


core::Term *Desugarer::ctrLiteral(CtrExpr *e) {
  SMLoc loc = at(e->range);
  StringRef g = resolve(e->name);
  auto recoverFields = [&] {
    recover([&] {
      for (const ast::Binding &f : e->fields)
        if (f.value)
          (void)expr(f.value);
    });
  };
  if (g.empty() || !book.ctrs.count(g)) {
    diags.report(DiagKind::UnboundReference, e->range.toSM(),
                 "constructor '" + e->name.str() + "' is not defined");
    recoverFields();
    return era(loc);
  }
  noteGlobal(e->name, e->range, g);
  CtrData *ctr = book.ctrs[g];
  std::vector<Expr *> slots(ctr->fields.size(), nullptr);
  for (const ast::Binding &f : e->fields) {
    auto it = llvm::find(ctr->fields, f.name.str());
    if (it == ctr->fields.end() || slots[it - ctr->fields.begin()]) {
      diags.report(DiagKind::InvalidArgument, f.range.toSM(),
                   "constructor '" + g.str() + "' has no field '" + f.name.str() + "' left to set");
      recoverFields();
      return era(loc);
    }
    slots[it - ctr->fields.begin()] = f.value;
  }
  Term *t = ref(g, loc);
  for (size_t i = 0; i < slots.size(); ++i) {
    if (!slots[i]) {
      diags.report(DiagKind::WrongFieldCount, e->range.toSM(),
                   "missing field '" + ctr->fields[i] + "' of constructor '" + g.str() + "'");
      recoverFields();
      return era(loc);
    }
    t = app(t, expr(slots[i]), loc);
  }
  return t;
}


core::Term *Desugarer::letExpr(LetExpr *e) {
  Term *value = expr(e->value);
  ScopeEnd visible(*this, e->range.end);
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
    noteUnscoped(c->name, c->range, true);
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
    for (auto &[n, r] : names) {
      StringRef written = n;
      n = bindVar(n, r);
      declared(written, r);
    }
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
  declaredAt(def->name, def->nameRange.toSM());
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
  ScopeEnd visible(*this, e->range.end);
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
    declared(e->bind, SourceRange(e->term->range.end, e->range.end));
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


core::Term *Desugarer::openExpr(OpenExpr *e) {
  SMLoc loc = at(e->range);
  ScopeEnd visible(*this, e->range.end);
  StringRef type = resolve(e->type);
  auto it = book.adts.find(type);
  if (type.empty() || it == book.adts.end()) {
    diags.report(DiagKind::InvalidOpen, e->range.toSM(),
                 "type '" + e->type.str() + "' of an 'open' is not defined");
    recover([&] { (void)expr(e->body); });
    return era(loc);
  }
  noteGlobal(e->type, e->range, type);
  AdtData *adt = it->second;
  if (adt->ctrs.size() != 1) {
    diags.report(DiagKind::InvalidOpen, e->range.toSM(),
                 "type '" + adt->name + "' of an 'open' has more than one constructor");
    recover([&] { (void)expr(e->body); });
    return era(loc);
  }
  Arm arm{adt->ctrs[0]->name, e->range, e->body, {}};
  std::vector<ArmPlan> plan{ArmPlan{adt->ctrs[0], &arm, false, e->range.end}};
  Term *scrut = lookup(e->var, e->range);
  return matchArms(e->var, symbolOf(e->var), scrut, plan, adt,
                   [&](const Arm &a) { return expr(a.body); }, nullptr, loc);
}

} // namespace bendc::frontend
