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

} // namespace bendc::frontend
