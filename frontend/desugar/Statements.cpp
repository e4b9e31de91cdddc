// Imp statements: a block desugars statement by statement, each taking the
// rest of the block as its continuation; branching statements join their
// branches' assignments (branchy).
#include "frontend/desugar/Internal.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"

#include <functional>

namespace bendc::frontend {

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


void Desugarer::updates(StringRef name, SourceRange range) {
  if (!record)
    return;
  uint32_t symbol = symbolOf(name);
  if (symbol != ResolvedNames::NoLocal)
    record->same(name, spelled(range, name), symbol);
}


void Desugarer::sameVariables(Pat *first, Pat *other) {
  if (!record || !first || !other)
    return;
  if (auto *v = llvm::dyn_cast<VarPat>(first)) {
    auto *o = llvm::cast<VarPat>(other);
    if (!v->name.empty())
      record->merge(declare(o->name, spelled(o->range, o->name)),
                    declare(v->name, spelled(v->range, v->name)));
    return;
  }
  auto *a = llvm::dyn_cast<SeqPat>(first);
  auto *b = llvm::dyn_cast<SeqPat>(other);
  if (a && b)
    for (size_t i = 0; i < a->elems.size() && i < b->elems.size(); ++i)
      sameVariables(a->elems[i], b->elems[i]);
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
    if (!last)
      recover([&] { (void)block(stmts, index + 1); });
    return out;
  }
  case NodeKind::AssignStmt: {
    auto *a = cast<AssignStmt>(s);
    Term *value = expr(a->value);
    if (auto *ms = llvm::dyn_cast<MapSetPat>(a->pat)) {
      Term *key = expr(ms->key);
      value = callGlobal("Map/set", {lookup(ms->map, ms->range), key, value}, s->range);
      updates(ms->map, ms->range);
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
    if (auto *v = llvm::dyn_cast<VarPat>(ip->target)) {
      Term *old = lookup(v->name, v->range);
      updates(v->name, v->range);
      return assign(v, combine(old));
    }
    if (auto *ms = llvm::dyn_cast<MapSetPat>(ip->target)) {
      Term *key = expr(ms->key);
      StringRef x = fresh("old");
      Term *f = ip->mapper ? rhs : lam(x, prog.make<core::OprTerm>(loc, ip->op, var(x, loc), rhs), loc);
      Term *value = callGlobal("Map/map", {lookup(ms->map, ms->range), key, f}, s->range);
      updates(ms->map, ms->range);
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
      if (record)
        (void)declare(u->name, spelled(s->range, u->name));
      out.term = value;
      out.ok = false;
      return out;
    }
    size_t m = mark();
    bindUse(u->name, value, s->range);
    declared(u->name, s->range);
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
    if (it != book.adts.end() && !type.empty())
      noteGlobal(o->type, s->range, type);
    if (type.empty() || it == book.adts.end() || it->second->ctrs.size() != 1) {
      diags.report(DiagKind::InvalidOpen, s->range.toSM(),
                   it == book.adts.end() || type.empty()
                       ? "type '" + o->type.str() + "' of an 'open' is not defined"
                       : "type '" + type.str() + "' of an 'open' has more than one constructor");
      out.term = era(loc);
      recover([&] { (void)block(stmts, index + 1); });
      return out;
    }
    AdtData *adt = it->second;
    Arm arm{adt->ctrs[0]->name, s->range, nullptr, {}};
    std::vector<ArmPlan> plan{ArmPlan{adt->ctrs[0], &arm, false, scopeEnd}};
    BlockValue rest;
    Term *scrut = lookup(o->var, s->range);
    rest.term = matchArms(o->var, symbolOf(o->var), scrut, plan, adt, [&](const Arm &) {
      rest = block(stmts, index + 1);
      return rest.term;
    }, nullptr, loc);
    return rest;
  }
  case NodeKind::DefStmt: {
    auto *d = cast<DefStmt>(s);
    if (last) {
      diags.report(DiagKind::MissingReturn, s->range.toSM(), "a block cannot end with 'def'");
      recover([&] { (void)localDef(d->def, [&] { return era(loc); }); });
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
      ScopeEnd visible(*this, s->range.end);
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
      return withTerm(ws->type, s->range, [&] { return branch(ws->body).term; });
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
  // A branch desugared only for its names (after an error) is not one of
  // the branches; what it assigns is still named.
  std::vector<BlockValue> branches, recovered;
  size_t gets = mapGets.size();
  unsigned level = recovering;
  Term *value = build([&](Block b) {
    BlockValue v = block(b, 0);
    (recovering == level ? branches : recovered).push_back(v);
    return v;
  });
  // Where the statement ends the block after an error: the names of the
  // rest, after those the branches assign (the first branch's innermost).
  auto recoverRest = [&] {
    recover([&] {
      size_t m = mark();
      for (size_t i = recovered.size(); i-- > 0;)
        recordPattern(recovered[i].assigned);
      for (size_t i = branches.size(); i-- > 0;)
        recordPattern(branches[i].assigned);
      if (!last)
        (void)block(stmts, index + 1);
      pop(m);
    });
  };
  BlockValue out;
  bool allReturn = true, allAssign = true;
  for (const BlockValue &b : branches) {
    allReturn &= b.assigned == nullptr;
    allAssign &= b.assigned != nullptr;
  }
  if (branches.empty()) {
    out.term = wrapMapGets(gets, value);
    if (!recovered.empty())
      recoverRest();
    return out;
  }
  if (allReturn) {
    if (!last)
      diags.report(DiagKind::UnreachableCase, stmts[index + 1]->range.toSM(),
                   "every branch before this statement returns, so it is unreachable");
    out.term = wrapMapGets(gets, value);
    if (!last || !recovered.empty())
      recoverRest();
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
    recoverRest();
    out.term = era(loc);
    return out;
  }
  // The branches assign one variable, bound below where the first one
  // assigns it.
  for (size_t i = 1; i < branches.size(); ++i)
    sameVariables(pat, branches[i].assigned);
  for (const BlockValue &r : recovered)
    if (r.assigned && samePattern(pat, r.assigned))
      sameVariables(pat, r.assigned);
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

} // namespace bendc::frontend
