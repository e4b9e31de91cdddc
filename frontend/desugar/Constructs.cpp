// The branching constructs, each written once for expressions and
// statements: match and fold (and their encodings), switch, if and bend.
#include "frontend/desugar/Internal.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"

#include <functional>

namespace bendc::frontend {

// ---- matches ----------------------------------------------------------------------

bool Desugarer::planMatch(llvm::ArrayRef<Arm> arms, SourceRange range, std::vector<ArmPlan> &plan) {
  AdtData *adt = nullptr;
  const Arm *fallback = nullptr;
  std::vector<std::pair<CtrData *, const Arm *>> explicitArms;
  auto endOf = [&](const Arm *a) {
    size_t i = size_t(a - arms.data());
    return i + 1 < arms.size() ? arms[i + 1].range.begin : range.end;
  };
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
    noteGlobal(arm.name, arm.range, ctr->name);
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
    plan.push_back(ArmPlan{nullptr, fallback, true, endOf(fallback)});
    return true;
  }
  std::string missing;
  for (CtrData *c : adt->ctrs) {
    const Arm *found = nullptr;
    for (auto &[ec, ea] : explicitArms)
      if (ec == c)
        found = ea;
    if (found) {
      plan.push_back(ArmPlan{c, found, false, endOf(found)});
      continue;
    }
    if (fallback) {
      plan.push_back(ArmPlan{c, fallback, true, endOf(fallback)});
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


core::Term *Desugarer::withSwitchValue(StringRef bind, uint32_t bindSymbol, Term *value,
                                       SourceRange range, llvm::function_ref<Term *()> body) {
  if (bind.empty())
    return body();
  size_t m = mark();
  bindUse(bind, value, range);
  continues(bindSymbol);
  Term *t = body();
  pop(m);
  return t;
}


core::Term *Desugarer::switchChain(Term *arg, unsigned cases,
                                   llvm::function_ref<Term *(unsigned)> arm,
                                   llvm::function_ref<Term *(StringRef)> defaultArm,
                                   StringRef predName, SMLoc loc, SourceRange predAt) {
  // switch x {0: a; 1: b; _: c} is switch x {0: a; _: λp switch p {0: b; _: λx-2 c}}.
  std::function<Term *(Term *, unsigned)> go = [&](Term *scrut, unsigned i) -> Term * {
    Term *zero = arm(i);
    if (i + 1 == cases) {
      size_t m = mark();
      StringRef pred = predName;
      if (!predName.empty()) {
        pred = bindVar(predName, predAt.isValid() ? predAt : SourceRange(loc, loc));
        if (predAt.isValid())
          declared(predName, predAt, "_");
      }
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


core::Term *Desugarer::matchArms(StringRef bind, uint32_t bindSymbol, Term *scrutinee,
                                 const std::vector<ArmPlan> &plan, AdtData *adt,
                                 llvm::function_ref<Term *(const Arm &)> body, Lift *fold,
                                 SMLoc loc) {
  return encodeMatch(scrutinee, adt, [&](unsigned i) -> Term * {
    return armTerm(bind, bindSymbol, plan[i], body, fold, loc);
  }, loc);
}


core::Term *Desugarer::armTerm(StringRef bind, uint32_t bindSymbol, const ArmPlan &p,
                               llvm::function_ref<Term *(const Arm &)> body, Lift *fold,
                               SMLoc loc) {
  // As in Bend, a default case stands for a copy of itself per constructor
  // it covers: there too the fields are `bind.field` (those of the
  // constructor the copy is for), and `bind` (and the case's variable) mean
  // the constructor rebuilt from them.
  CtrData *ctr = p.ctr;
  ScopeEnd visible(*this, p.end);
  size_t m = mark();
  bool named = p.viaDefault && !p.arm->name.empty() && p.arm->name != "_";
  // An editor shows the fields bound at the case's label.
  llvm::SMRange label;
  if (record) {
    label = ast::spelledAt(p.arm->range.begin, p.arm->name);
    if (!label.Start.isValid())
      label = spelled(p.arm->range, bind);
  }
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
      declaredAt(name, label);
      if (record)
        record->locals[scope.back().symbol].foldResult = true;
      fieldVars.push_back(b.target);
    } else {
      fieldVars.push_back(bindVar(name, p.arm->range));
      declaredAt(name, label);
    }
  }
  auto rebuilt = [&] {
    Term *value = ref(ctr->name, loc);
    for (StringRef f : fieldVars)
      value = app(value, var(f, loc), loc);
    return value;
  };
  // (In a fold, `bind` keeps meaning the value folded.)
  if (!fold && !bind.empty()) {
    bindUse(bind, rebuilt(), p.arm->range);
    continues(bindSymbol);
  }
  Term *t;
  if (named && fold) {
    StringRef v = bindVar(p.arm->name, p.arm->range);
    declared(p.arm->name, p.arm->range);
    t = prog.make<core::LetTerm>(loc, v, false, rebuilt(), body(*p.arm));
  } else {
    if (named) {
      bindUse(p.arm->name, rebuilt(), p.arm->range);
      declared(p.arm->name, p.arm->range);
    }
    t = body(*p.arm);
  }
  pop(m);
  for (auto it = fieldVars.rbegin(); it != fieldVars.rend(); ++it)
    t = lam(*it, t, loc);
  return t;
}


uint32_t Desugarer::matchSymbol(StringRef bind, Expr *arg, SourceRange range) {
  if (!record || bind.empty())
    return ResolvedNames::NoLocal;
  // `match x`: `x` in the arms is the variable matched; `match y = e` binds `y`.
  if (auto *v = llvm::dyn_cast<VarExpr>(arg); v && v->name == bind)
    return symbolOf(bind);
  return declare(bind, spelled(range, bind));
}


std::vector<uint32_t> Desugarer::withSymbols(llvm::ArrayRef<ast::Binding> with) {
  std::vector<uint32_t> out;
  if (!record)
    return std::vector<uint32_t>(with.size(), ResolvedNames::NoLocal);
  for (const ast::Binding &w : with)
    out.push_back(w.value ? declare(w.name, spelled(w.range, w.name)) : symbolOf(w.name));
  return out;
}


void Desugarer::recoverArms(StringRef bind, uint32_t bindSymbol, llvm::ArrayRef<Arm> arms,
                            SourceRange range, llvm::function_ref<Term *(const Arm &)> bodyOf,
                            const std::vector<ArmPlan> *planned) {
  SMLoc loc = at(range);
  for (size_t i = 0; i < arms.size(); ++i) {
    const Arm &arm = arms[i];
    if (planned && llvm::any_of(*planned, [&](const ArmPlan &p) { return p.arm == &arm; }))
      continue;
    SMLoc end = i + 1 < arms.size() ? arms[i + 1].range.begin : range.end;
    StringRef g = arm.name.empty() || arm.name == "_" ? StringRef() : resolve(arm.name);
    if (!g.empty() && book.ctrs.count(g)) {
      (void)armTerm(bind, bindSymbol, ArmPlan{book.ctrs[g], &arm, false, end}, bodyOf, nullptr,
                    loc);
      continue;
    }
    ScopeEnd visible(*this, end);
    size_t m = mark();
    if (!bind.empty()) {
      bindUse(bind, era(loc), arm.range);
      continues(bindSymbol);
    }
    if (!arm.name.empty() && arm.name != "_") {
      bindUse(arm.name, era(loc), arm.range);
      declared(arm.name, arm.range);
    }
    (void)bodyOf(arm);
    pop(m);
  }
}


core::Term *Desugarer::matchTerm(StringRef bind, Expr *arg, llvm::ArrayRef<ast::Binding> with,
                                 llvm::ArrayRef<Arm> arms, bool isFold, SourceRange range,
                                 llvm::function_ref<Term *(const Arm &)> bodyOf) {
  SMLoc loc = at(range);
  ScopeEnd visible(*this, range.end);
  Term *value = expr(arg);
  std::vector<std::pair<StringRef, Term *>> withInits;
  for (const ast::Binding &w : with)
    withInits.emplace_back(w.name, w.value ? expr(w.value) : lookup(w.name, w.range));
  uint32_t bindSymbol = matchSymbol(bind, arg, range);
  std::vector<uint32_t> withSymbol = withSymbols(with);
  // The `with` variables, bound around `inner`.
  auto withLets = [&](llvm::function_ref<Term *()> inner) {
    size_t m = mark();
    std::vector<StringRef> names;
    for (size_t i = 0; i < withInits.size(); ++i) {
      names.push_back(bindVar(withInits[i].first, range));
      continues(withSymbol[i]);
    }
    Term *t = inner();
    pop(m);
    for (size_t i = withInits.size(); i-- > 0;)
      t = prog.make<core::LetTerm>(loc, names[i], false, withInits[i].second, t);
    return t;
  };
  std::vector<ArmPlan> plan;
  if (!planMatch(arms, range, plan)) {
    recover([&] {
      withLets([&] {
        recoverArms(bind, bindSymbol, arms, range, bodyOf);
        return era(loc);
      });
    });
    return era(loc);
  }
  // Arms the plan leaves out (after a default case, or repeated) are never
  // desugared but for their names.
  if (record && llvm::any_of(arms, [&](const Arm &a) {
        return llvm::none_of(plan, [&](const ArmPlan &p) { return p.arm == &a; });
      }))
    recover([&] {
      withLets([&] {
        recoverArms(bind, bindSymbol, arms, range, bodyOf, &plan);
        return era(loc);
      });
    });
  if (!plan[0].ctr) {
    // Irrefutable: as in Bend, the match's name and the case's variable
    // both stand for the value, and the `with` variables are bound.
    const Arm *a = plan[0].arm;
    ScopeEnd armVisible(*this, plan[0].end);
    size_t m = mark();
    if (!bind.empty()) {
      bindUse(bind, value, range);
      continues(bindSymbol);
    }
    if (!a->name.empty() && a->name != "_") {
      bindUse(a->name, value, a->range);
      declared(a->name, a->range);
    }
    Term *t = withLets([&] { return bodyOf(*a); });
    pop(m);
    return t;
  }
  AdtData *adt = plan[0].ctr->adt;
  if (!isFold) {
    // Each case rebinds the match's name (see matchArms): the value is
    // matched as it is.
    return withLets(
        [&] { return matchArms(bind, bindSymbol, value, plan, adt, bodyOf, nullptr, loc); });
  }
  // fold: a lifted function of the value and the `with` variables, whose
  // recursive fields call it again.
  Lift *lift = beginLift("fold");
  StringRef self = bindVar(bind.empty() ? fresh("fold") : bind, range);
  continues(bindSymbol);
  std::vector<StringRef> names;
  for (size_t i = 0; i < withInits.size(); ++i) {
    names.push_back(bindVar(withInits[i].first, range));
    continues(withSymbol[i]);
  }
  Term *body = matchArms(bind, bindSymbol, var(self, loc), plan, adt, bodyOf, lift, loc);
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
  ScopeEnd visible(*this, range.end);
  StringRef bind = matchBind(bindName, arg);
  Term *value = expr(arg);
  std::vector<std::pair<StringRef, Term *>> withInits;
  for (const ast::Binding &w : with)
    withInits.emplace_back(w.name, w.value ? expr(w.value) : lookup(w.name, w.range));
  uint32_t bindSymbol = matchSymbol(bind, arg, range);
  std::vector<uint32_t> withSymbol = withSymbols(with);
  auto armEnd = [&](size_t i) { return i + 1 < arms.size() ? arms[i + 1].range.begin : range.end; };
  // After an error in the cases, their names are still recorded.
  auto recoverCases = [&] {
    recover([&] {
      size_t m = mark();
      for (size_t i = 0; i < withInits.size(); ++i) {
        (void)bindVar(withInits[i].first, range);
        continues(withSymbol[i]);
      }
      unsigned before = 0; // the cases before a `_` one, which names the predecessor
      for (size_t i = 0; i < arms.size(); ++i) {
        ScopeEnd armVisible(*this, armEnd(i));
        size_t inArm = mark();
        if (arms[i].name != "_") {
          ++before;
        } else if (!bind.empty()) {
          StringRef pred = prog.save((bind + "-" + std::to_string(before)).str());
          (void)bindVar(pred, arms[i].range);
          declared(pred, arms[i].range, "_");
        }
        (void)withSwitchValue(bind, bindSymbol, era(loc), arms[i].range,
                              [&] { return bodyOf(arms[i]); });
        pop(inArm);
      }
      pop(m);
    });
  };
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
      recoverCases();
      return era(loc);
    }
    ++cases;
  }
  if (arms.back().name != "_" || cases == 0) {
    diags.report(DiagKind::InvalidSwitch, range.toSM(),
                 cases == 0 ? "a switch starts with case 0" : "a switch must end with a '_' case");
    recoverCases();
    return era(loc);
  }
  size_t m = mark();
  std::vector<StringRef> withNames;
  for (size_t i = 0; i < withInits.size(); ++i) {
    withNames.push_back(bindVar(withInits[i].first, range));
    continues(withSymbol[i]);
  }
  StringRef pred = bind.empty() ? fresh("pred")
                                : prog.save((bind + "-" + std::to_string(cases)).str());
  // Each case rebinds the switch's name (see withSwitchValue): the value is
  // switched on as it is.
  Term *t = switchChain(
      value, cases,
      [&](unsigned i) {
        ScopeEnd armVisible(*this, armEnd(i));
        return withSwitchValue(bind, bindSymbol,
                               prog.make<core::NumTerm>(loc, core::Number::u24(i)), arms[i].range,
                               [&] { return bodyOf(arms[i]); });
      },
      [&](StringRef p) {
        Term *n = prog.make<core::OprTerm>(loc, core::Op::Add, var(p, loc),
                                           prog.make<core::NumTerm>(loc, core::Number::u24(cases)));
        return withSwitchValue(bind, bindSymbol, n, arms.back().range,
                               [&] { return bodyOf(arms.back()); });
      },
      pred, loc, bind.empty() ? SourceRange() : arms.back().range);
  pop(m);
  for (size_t i = withInits.size(); i-- > 0;)
    t = prog.make<core::LetTerm>(loc, withNames[i], false, withInits[i].second, t);
  return t;
}


core::Term *Desugarer::withTerm(StringRef typeName, SourceRange range,
                                 llvm::function_ref<Term *()> bodyOf) {
  StringRef saved = withType;
  StringRef type = resolve(typeName);
  if (!type.empty())
    noteGlobal(typeName, range, type);
  withType = prog.save(type.empty() ? typeName.str() : type);
  size_t m = mark();
  Binding wrap;
  wrap.name = "wrap";
  wrap.kind = BindKind::Global;
  wrap.target = prog.save((withType + "/wrap").str());
  wrap.range = range;
  scope.push_back(wrap);
  Term *body = bodyOf();
  pop(m);
  withType = saved;
  return body;
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
  ScopeEnd visible(*this, range.end);
  std::vector<Term *> inits;
  // (`bend x:` starts from the outer `x`; an editor shows the state there.)
  for (const ast::Binding &b : state)
    inits.push_back(b.value ? expr(b.value) : lookup(b.name, b.range, /*note=*/false));
  Lift *lift = beginLift("bend");
  std::vector<StringRef> stateNames;
  for (const ast::Binding &b : state) {
    stateNames.push_back(bindVar(b.name, b.range));
    declared(b.name, b.range);
  }
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

} // namespace bendc::frontend
