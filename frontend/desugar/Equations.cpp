// Pattern-matching equations to Core. Columns are examined left to right:
// a column of variables only binds; otherwise the first refutable pattern
// decides the column's type (constructor, number, tuple, superposition) and
// the rows are split by it, as Bend does. Rows no leaf ever picks are
// unreachable; a split with no row left is a missing case.
#include "frontend/desugar/Internal.h"

#include <deque>
#include <set>

namespace bendc::frontend {

namespace {

/// A pattern with names resolved: strings, lists and bare constructor names
/// are constructors here.
struct NPat {
  enum Kind { Var, Ctr, Num, Tup, Sup } kind = Var;
  StringRef name; // Var: empty for `*`
  bool unscoped = false; // Var: `$name`
  CtrData *ctr = nullptr;
  core::Number num;
  std::vector<NPat *> args;
  SourceRange range;
};

/// How a rule's variable gets its value at the leaf.
struct Bound {
  StringRef name;
  StringRef alias;          // the variable it names, or
  CtrData *ctr = nullptr;   // a constructor rebuilt from
  TermKind pair = TermKind::Era; // (or a tuple/sup rebuilt from)
  std::vector<StringRef> parts;
  SourceRange range;
  bool unscoped = false; // `$name = alias`
  Term *value = nullptr; // or this term (a number case's value, or pred + k)
};

struct Row {
  std::vector<NPat *> pats;
  std::vector<Bound> binds;
  unsigned rule;
};

} // namespace

class MatchCompiler {
public:
  MatchCompiler(Desugarer &d, FunDecl *fun) : d(d), fun(fun) {}

  Term *run();

private:
  NPat *normalize(Pat *p);
  NPat *make(NPat::Kind k, SourceRange r) {
    store.emplace_back();
    store.back().kind = k;
    store.back().range = r;
    return &store.back();
  }
  NPat *ctrPat(StringRef global, std::vector<NPat *> args, SourceRange r);
  Term *compile(std::vector<StringRef> args, std::vector<Row> rows, std::vector<StringRef> with);
  Term *leaf(Row &row);
  /// A rule the compiled match never reaches, desugared for its names.
  void recoverRule(const Rule &rule);
  Term *ctrColumn(std::vector<StringRef> &args, std::vector<Row> &rows, AdtData *adt,
                  const std::vector<StringRef> &with);
  Term *numColumn(std::vector<StringRef> &args, std::vector<Row> &rows,
                  const std::vector<StringRef> &with);
  Term *pairColumn(std::vector<StringRef> &args, std::vector<Row> &rows, NPat::Kind kind,
                   size_t arity, const std::vector<StringRef> &with);
  Term *passInto(Term *arm, llvm::ArrayRef<StringRef> passed, SMLoc loc);
  Term *applyTo(Term *split, llvm::ArrayRef<StringRef> passed, SMLoc loc);
  void missing(StringRef what);

  Desugarer &d;
  FunDecl *fun;
  std::deque<NPat> store;
  std::vector<bool> reached;
  bool reportedMissing = false;
  bool failed = false;
  size_t leaves = 0;
  static constexpr size_t kMaxLeaves = 100'000;
};

NPat *MatchCompiler::ctrPat(StringRef global, std::vector<NPat *> args, SourceRange r) {
  NPat *n = make(NPat::Ctr, r);
  auto it = d.book.ctrs.find(global);
  if (it == d.book.ctrs.end()) {
    d.diags.report(DiagKind::UnboundReference, r.toSM(),
                   "constructor '" + global.str() + "' is not defined");
    failed = true;
    n->kind = NPat::Var;
    return n;
  }
  n->ctr = it->second;
  if (n->ctr->fields.size() != args.size()) {
    d.diags.report(DiagKind::WrongFieldCount, r.toSM(),
                   "constructor '" + global.str() + "' has " +
                       std::to_string(n->ctr->fields.size()) + " field(s) but the pattern has " +
                       std::to_string(args.size()));
    failed = true;
    n->kind = NPat::Var;
    return n;
  }
  n->args = std::move(args);
  return n;
}

NPat *MatchCompiler::normalize(Pat *p) {
  using llvm::dyn_cast;
  if (auto *v = dyn_cast<VarPat>(p)) {
    StringRef g = v->name.empty() ? StringRef() : d.resolve(v->name);
    if (!g.empty() && d.book.ctrs.count(g)) {
      d.noteGlobal(v->name, p->range, g);
      return ctrPat(g, {}, p->range);
    }
    NPat *n = make(NPat::Var, p->range);
    n->name = v->name;
    return n;
  }
  if (auto *c = dyn_cast<CtrPat>(p)) {
    std::vector<NPat *> args;
    for (Pat *a : c->args)
      args.push_back(normalize(a));
    StringRef g = d.resolve(c->name);
    if (!g.empty() && d.book.ctrs.count(g))
      d.noteGlobal(c->name, p->range, g);
    return ctrPat(g.empty() ? c->name : g, std::move(args), p->range);
  }
  if (auto *n = dyn_cast<NumPat>(p)) {
    NPat *r = make(NPat::Num, p->range);
    r->num = n->value;
    return r;
  }
  if (auto *s = dyn_cast<StrPat>(p)) {
    std::vector<uint32_t> cps;
    for (size_t i = 0; i < s->value.size();) {
      unsigned char c = s->value[i];
      unsigned len = c < 0x80 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
      uint32_t cp = len == 1 ? c : c & (0x3F >> (len - 1));
      for (unsigned k = 1; k < len && i + k < s->value.size(); ++k)
        cp = (cp << 6) | (static_cast<unsigned char>(s->value[i + k]) & 0x3F);
      cps.push_back(cp);
      i += len;
    }
    NPat *t = ctrPat("String/Nil", {}, p->range);
    for (auto it = cps.rbegin(); it != cps.rend(); ++it) {
      NPat *ch = make(NPat::Num, p->range);
      ch->num = core::Number::u24(*it);
      t = ctrPat("String/Cons", {ch, t}, p->range);
    }
    return t;
  }
  if (auto *s = dyn_cast<SeqPat>(p)) {
    std::vector<NPat *> elems;
    for (Pat *e : s->elems)
      elems.push_back(normalize(e));
    if (s->kind == NodeKind::ListPat) {
      NPat *t = ctrPat("List/Nil", {}, p->range);
      for (auto it = elems.rbegin(); it != elems.rend(); ++it)
        t = ctrPat("List/Cons", {*it, t}, p->range);
      return t;
    }
    NPat *r = make(s->kind == NodeKind::TupPat ? NPat::Tup : NPat::Sup, p->range);
    r->args = std::move(elems);
    return r;
  }
  if (auto *c = dyn_cast<ChnPat>(p)) {
    // Bend accepts `f $x = ...`: the argument is bound to an unscoped name.
    NPat *n = make(NPat::Var, p->range);
    n->name = c->name;
    n->unscoped = true;
    return n;
  }
  d.diags.report(DiagKind::InvalidPattern, p->range.toSM(), "this pattern is not allowed in a rule");
  failed = true;
  return make(NPat::Var, p->range);
}

void MatchCompiler::missing(StringRef what) {
  if (reportedMissing)
    return;
  reportedMissing = true;
  d.diags.report(DiagKind::NonExhaustiveMatch, fun->nameRange.toSM(),
                 "non-exhaustive pattern matching rules of '" + fun->name.str() + "': " + what.str());
}

namespace {

/// Bend's shortcut for a number pattern's variable in the default case, where
/// `n` stands for `pred + k`: in the rule's body, `n - k` is `pred` itself
/// (not the sum, then the difference). Bend rewrites it by name, before
/// scoping: under a binder of the same name too, where a plain `n` is the
/// inner variable. Returns how many uses of the outer `n` are left.
unsigned usePredecessor(Term *&body, StringRef name, uint32_t k, StringRef pred,
                        core::Program &prog) {
  unsigned left = 0;
  // Each place to visit, and whether `name` is rebound there: Bend rewrites
  // `n - k` by name, under binders of the same name too, while a plain `n`
  // there is the inner variable.
  llvm::SmallVector<std::pair<Term **, bool>, 32> work{{&body, false}};
  while (!work.empty()) {
    auto [slot, shadowed] = work.pop_back_val();
    Term *t = *slot;
    auto visit = [&work, under = shadowed](std::initializer_list<Term **> places,
                                           bool rebinds = false) {
      for (Term **p : places)
        work.push_back({p, under || rebinds});
    };
    switch (t->kind) {
    case TermKind::Var:
      left += !shadowed && llvm::cast<core::VarTerm>(t)->name() == name;
      break;
    case TermKind::Link:
    case TermKind::Era:
    case TermKind::Num:
    case TermKind::Ref: break;
    case TermKind::Lam: {
      auto *lam = llvm::cast<core::LamTerm>(t);
      visit({&lam->body}, !lam->unscoped && lam->var == name);
      break;
    }
    case TermKind::App: {
      auto *app = llvm::cast<core::AppTerm>(t);
      visit({&app->fun, &app->arg});
      break;
    }
    case TermKind::Let: {
      auto *let = llvm::cast<core::LetTerm>(t);
      visit({&let->value});
      visit({&let->body}, !let->unscoped && let->var == name);
      break;
    }
    case TermKind::LetTup:
    case TermKind::Dup: {
      auto *let = llvm::cast<core::LetPairTerm>(t);
      visit({&let->value});
      visit({&let->body}, let->first == name || let->second == name);
      break;
    }
    case TermKind::Sup:
    case TermKind::Tup: {
      auto *pair = llvm::cast<core::PairTerm>(t);
      visit({&pair->first, &pair->second});
      break;
    }
    case TermKind::Opr: {
      auto *opr = llvm::cast<core::OprTerm>(t);
      auto *var = llvm::dyn_cast<core::VarTerm>(opr->lhs);
      auto *num = llvm::dyn_cast<core::NumTerm>(opr->rhs);
      if (opr->op == core::Op::Sub && var && var->name() == name && num &&
          num->value().kind == core::NumKind::U24 && num->value().bits == k) {
        *slot = prog.make<core::VarTerm>(t->loc, pred);
        break;
      }
      visit({&opr->lhs, &opr->rhs});
      break;
    }
    case TermKind::Swi: {
      auto *swi = llvm::cast<core::SwiTerm>(t);
      visit({&swi->arg, &swi->zero, &swi->succ});
      break;
    }
    }
  }
  return left;
}

} // namespace

Term *MatchCompiler::leaf(Row &row) {
  const Rule &rule = fun->rules[row.rule];
  // Rule bodies are copied into every arm that reaches them; some sets of
  // equations multiply the arms, so their number is bounded.
  if (++leaves > kMaxLeaves) {
    if (leaves == kMaxLeaves + 1)
      d.diags.report(DiagKind::TooDeep, fun->nameRange.toSM(),
                     "the equations of '" + fun->name.str() + "' expand to too many cases");
    return d.era(rule.range.begin);
  }
  reached[row.rule] = true;
  Desugarer::ScopeEnd visible(d, rule.range.end.isValid() ? rule.range.end : fun->range.end);
  size_t m = d.mark();
  std::vector<std::pair<StringRef, Term *>> lets;
  std::set<size_t> unscopedLets;
  SMLoc loc = rule.range.begin;
  for (const Bound &b : row.binds) {
    if (b.unscoped) {
      Desugarer::Unscoped &u = d.unscoped[b.name];
      u.binders.insert(b.range.begin.getPointer());
      if (!u.first.isValid())
        u.first = b.range;
      d.noteUnscoped(b.name, b.range, true);
      lets.emplace_back(b.name, d.var(b.alias, loc));
      unscopedLets.insert(lets.size() - 1);
      continue;
    }
    if (!b.alias.empty()) {
      d.bindAlias(b.name, b.alias, b.range);
      d.declared(b.name, b.range);
      continue;
    }
    Term *value = b.value;
    if (value) {
      // Built before the rule's own bindings: resolve its variables first.
      lets.emplace_back(d.bindVar(b.name, b.range), value);
      d.declared(b.name, b.range);
      continue;
    }
    if (b.ctr) {
      value = d.ref(b.ctr->name, loc);
      for (StringRef part : b.parts)
        value = d.app(value, d.var(part, loc), loc);
    } else {
      value = d.var(b.parts.back(), loc);
      for (size_t i = b.parts.size() - 1; i-- > 0;)
        value = d.prog.make<core::PairTerm>(b.pair, loc, d.var(b.parts[i], loc), value);
    }
    lets.emplace_back(d.bindVar(b.name, b.range), value);
    d.declared(b.name, b.range);
  }
  Term *body = d.expr(rule.body);
  d.pop(m);
  for (size_t i = lets.size(); i-- > 0;) {
    // A number pattern's variable in the default case (`pred + k`): as in
    // Bend, `n - k` in the body is the predecessor, and nothing computes the
    // sum when no other use is left.
    if (auto *sum = llvm::dyn_cast<core::OprTerm>(lets[i].second);
        sum && sum->op == core::Op::Add && unscopedLets.count(i) == 0)
      if (auto *pred = llvm::dyn_cast<core::VarTerm>(sum->lhs))
        if (auto *k = llvm::dyn_cast<core::NumTerm>(sum->rhs))
          if (usePredecessor(body, lets[i].first, k->value().bits & 0xFFFFFF, pred->name(),
                             d.prog) == 0)
            continue;
    body = d.prog.make<core::LetTerm>(loc, d.prog.save(lets[i].first), unscopedLets.count(i) != 0,
                                      lets[i].second, body);
  }
  return body;
}

/// Bend passes the variables a split leaves to its cases (`with`: those of
/// variable columns before it, a number's predecessor in the default case, and
/// the arguments still to examine) into every case as parameters, rather than
/// letting the cases capture them. So a case stays a function even where it
/// uses none of them: one that is a closed value would otherwise become a
/// definition of its own, which readback leaves unexpanded where the call's
/// result is printed.
/// `a` followed by `b`.
static std::vector<StringRef> joined(std::vector<StringRef> a, llvm::ArrayRef<StringRef> b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

Term *MatchCompiler::passInto(Term *arm, llvm::ArrayRef<StringRef> passed, SMLoc loc) {
  for (size_t i = passed.size(); i-- > 0;)
    arm = d.lam(passed[i], arm, loc);
  return arm;
}

Term *MatchCompiler::applyTo(Term *split, llvm::ArrayRef<StringRef> passed, SMLoc loc) {
  for (StringRef v : passed)
    split = d.app(split, d.var(v, loc), loc);
  return split;
}

Term *MatchCompiler::compile(std::vector<StringRef> args, std::vector<Row> rows,
                             std::vector<StringRef> with) {
  SMLoc loc = fun->range.begin;
  if (rows.empty()) {
    missing("a case is not covered");
    return d.era(loc);
  }
  if (args.empty())
    return leaf(rows.front());
  NPat *first = nullptr;
  for (Row &r : rows)
    if (r.pats[0]->kind != NPat::Var) {
      first = r.pats[0];
      break;
    }
  if (!first) {
    // A column of variables: bind them and move on.
    for (Row &r : rows) {
      NPat *p = r.pats[0];
      if (!p->name.empty())
        r.binds.push_back(Bound{p->name, args[0], nullptr, TermKind::Era, {}, p->range, p->unscoped});
      r.pats.erase(r.pats.begin());
    }
    with.push_back(args[0]);
    args.erase(args.begin());
    return compile(std::move(args), std::move(rows), std::move(with));
  }
  switch (first->kind) {
  case NPat::Ctr:
    return ctrColumn(args, rows, first->ctr->adt, with);
  case NPat::Num:
    return numColumn(args, rows, with);
  case NPat::Tup:
  case NPat::Sup:
    return pairColumn(args, rows, first->kind, first->args.size(), with);
  case NPat::Var:
    break;
  }
  llvm_unreachable("refutable pattern expected");
}

Term *MatchCompiler::ctrColumn(std::vector<StringRef> &args, std::vector<Row> &rows, AdtData *adt,
                               const std::vector<StringRef> &with) {
  SMLoc loc = fun->range.begin;
  StringRef arg = args[0];
  std::vector<StringRef> rest(args.begin() + 1, args.end());
  std::vector<StringRef> passed = joined(with, rest);
  for (Row &r : rows) {
    NPat *p = r.pats[0];
    if (p->kind != NPat::Var && (p->kind != NPat::Ctr || p->ctr->adt != adt)) {
      d.diags.report(DiagKind::InvalidPattern, p->range.toSM(),
                     "this pattern does not match type '" + adt->name + "' of its column");
      failed = true;
      p->kind = NPat::Var;
      p->name = {};
    }
  }
  Term *scrut = d.var(arg, loc);
  Term *split = d.encodeMatch(scrut, adt, [&](unsigned i) -> Term * {
    CtrData *ctr = adt->ctrs[i];
    std::vector<StringRef> fields;
    for (const std::string &f : ctr->fields)
      fields.push_back(d.fresh(f));
    std::vector<Row> sub;
    for (const Row &r : rows) {
      NPat *p = r.pats[0];
      if (p->kind == NPat::Ctr && p->ctr != ctr)
        continue;
      Row nr;
      nr.rule = r.rule;
      nr.binds = r.binds;
      if (p->kind == NPat::Ctr) {
        nr.pats = p->args;
      } else {
        for (size_t k = 0; k < fields.size(); ++k)
          nr.pats.push_back(make(NPat::Var, p->range));
        if (!p->name.empty())
          nr.binds.push_back(Bound{p->name, {}, ctr, TermKind::Era, fields, p->range});
      }
      nr.pats.insert(nr.pats.end(), r.pats.begin() + 1, r.pats.end());
      sub.push_back(std::move(nr));
    }
    std::vector<StringRef> subArgs = fields;
    subArgs.insert(subArgs.end(), rest.begin(), rest.end());
    size_t m = d.mark();
    for (StringRef f : fields)
      (void)d.bindVar(f, fun->range); // fresh: never renamed
    Term *t = sub.empty() ? (missing("constructor '" + ctr->name + "' is not covered"), d.era(loc))
                          : compile(subArgs, std::move(sub), with);
    d.pop(m);
    t = passInto(t, passed, loc);
    for (auto it = fields.rbegin(); it != fields.rend(); ++it)
      t = d.lam(*it, t, loc);
    return t;
  }, loc);
  return applyTo(split, passed, loc);
}

static bool sameNumber(core::Number a, core::Number b) {
  return a.kind == b.kind && a.bits == b.bits;
}

Term *MatchCompiler::numColumn(std::vector<StringRef> &args, std::vector<Row> &rows,
                               const std::vector<StringRef> &with) {
  SMLoc loc = fun->range.begin;
  StringRef arg = args[0];
  std::vector<StringRef> rest(args.begin() + 1, args.end());
  std::vector<StringRef> passed = joined(with, rest);
  std::vector<core::Number> values;
  for (Row &r : rows) {
    NPat *p = r.pats[0];
    if (p->kind == NPat::Num) {
      bool seen = false;
      for (core::Number v : values)
        seen |= sameNumber(v, p->num);
      if (!seen)
        values.push_back(p->num);
    } else if (p->kind != NPat::Var) {
      d.diags.report(DiagKind::InvalidPattern, p->range.toSM(),
                     "this pattern does not match the numbers of its column");
      failed = true;
      p->kind = NPat::Var;
      p->name = {};
    }
  }
  // As Bend compiles number patterns: the numbers in increasing order, a
  // switch on `arg - n0`, then in its successor case a switch on
  // `pred - (n1 - n0 - 1)`, and so on; a variable pattern is the case's number
  // there, and `pred + (last + 1)` in the default case. The argument is used
  // once, so a function of number patterns holds no dup.
  std::sort(values.begin(), values.end(),
            [](core::Number a, core::Number b) { return a.bits < b.bits; });
  auto u24 = [&](uint32_t v) { return d.prog.make<core::NumTerm>(loc, core::Number::u24(v)); };
  auto rowsFor = [&](const core::Number *value, Term *varValue) {
    std::vector<Row> sub;
    for (const Row &r : rows) {
      NPat *p = r.pats[0];
      if (p->kind == NPat::Num && (!value || !sameNumber(p->num, *value)))
        continue;
      Row nr;
      nr.rule = r.rule;
      nr.binds = r.binds;
      if (p->kind == NPat::Var && !p->name.empty() && p->name != "_") {
        Bound b{p->name, {}, nullptr, TermKind::Era, {}, p->range};
        b.value = varValue;
        nr.binds.push_back(b);
      }
      nr.pats.assign(r.pats.begin() + 1, r.pats.end());
      sub.push_back(std::move(nr));
    }
    return sub;
  };
  std::vector<StringRef> preds;
  for (size_t i = 0; i < values.size(); ++i)
    preds.push_back(d.fresh("pred"));
  if (values.empty()) // only variables: nothing to test
    return compile(rest, rowsFor(nullptr, d.var(arg, loc)), joined(with, arg));
  uint32_t last = values.back().bits;
  Term *recovered = d.prog.make<core::OprTerm>(loc, core::Op::Add, d.var(preds.back(), loc), u24(last + 1));
  std::vector<Row> defaults = rowsFor(nullptr, recovered);
  Term *t;
  if (defaults.empty()) {
    missing("the default case of a number is not covered");
    t = d.era(loc);
  } else {
    t = compile(rest, std::move(defaults), joined(with, preds.back()));
  }
  // Each switch of the chain passes `with` and the rest on (its default case
  // takes them after its predecessor); the inner ones are in a default case,
  // where they are the parameters of that case.
  for (size_t i = values.size(); i-- > 0;) {
    Term *hit = compile(rest, rowsFor(&values[i], u24(values[i].bits)), with);
    StringRef from = i == 0 ? arg : preds[i - 1];
    uint32_t offset = i == 0 ? values[0].bits : values[i].bits - 1 - values[i - 1].bits;
    Term *scrutinee = d.var(from, loc);
    if (offset != 0)
      scrutinee = d.prog.make<core::OprTerm>(loc, core::Op::Sub, scrutinee, u24(offset));
    t = applyTo(d.prog.make<core::SwiTerm>(loc, scrutinee, passInto(hit, passed, loc),
                                           d.lam(preds[i], passInto(t, passed, loc), loc)),
                passed, loc);
  }
  return t;
}

Term *MatchCompiler::pairColumn(std::vector<StringRef> &args, std::vector<Row> &rows,
                                NPat::Kind kind, size_t arity, const std::vector<StringRef> &with) {
  SMLoc loc = fun->range.begin;
  StringRef arg = args[0];
  std::vector<StringRef> parts;
  for (size_t i = 0; i < arity; ++i)
    parts.push_back(d.fresh(kind == NPat::Tup ? "tup" : "sup"));
  TermKind pairKind = kind == NPat::Tup ? TermKind::Tup : TermKind::Sup;
  std::vector<Row> sub;
  for (const Row &r : rows) {
    NPat *p = r.pats[0];
    Row nr;
    nr.rule = r.rule;
    nr.binds = r.binds;
    if (p->kind == kind && p->args.size() == arity) {
      nr.pats = p->args;
    } else {
      if (p->kind != NPat::Var) {
        d.diags.report(DiagKind::InvalidPattern, p->range.toSM(),
                       "this pattern does not match the others of its column");
        failed = true;
      }
      for (size_t k = 0; k < arity; ++k)
        nr.pats.push_back(make(NPat::Var, p->range));
      if (p->kind == NPat::Var && !p->name.empty())
        nr.binds.push_back(Bound{p->name, {}, nullptr, pairKind, parts, p->range});
    }
    nr.pats.insert(nr.pats.end(), r.pats.begin() + 1, r.pats.end());
    sub.push_back(std::move(nr));
  }
  std::vector<StringRef> subArgs = parts;
  subArgs.insert(subArgs.end(), args.begin() + 1, args.end());
  size_t m = d.mark();
  for (StringRef p : parts)
    (void)d.bindVar(p, fun->range); // fresh: never renamed
  Term *body = compile(subArgs, std::move(sub), with);
  d.pop(m);
  // (a, b, c) is (a, (b, c)): unpack one pair at a time.
  TermKind letKind = kind == NPat::Tup ? TermKind::LetTup : TermKind::Dup;
  std::vector<StringRef> rests;
  for (size_t i = 0; i + 2 < arity; ++i)
    rests.push_back(d.fresh("rest"));
  for (size_t i = arity - 1; i-- > 0;) {
    StringRef value = i == 0 ? arg : rests[i - 1];
    StringRef second = i + 2 == arity ? parts[i + 1] : rests[i];
    body = d.prog.make<core::LetPairTerm>(letKind, loc, parts[i], second, d.var(value, loc), body);
  }
  return body;
}

void MatchCompiler::recoverRule(const Rule &rule) {
  d.recover([&] {
    Desugarer::ScopeEnd visible(d, rule.range.end.isValid() ? rule.range.end : fun->range.end);
    size_t m = d.mark();
    for (Pat *p : rule.pats)
      d.recordPattern(p, /*rule=*/true);
    if (rule.body)
      (void)d.expr(rule.body);
    d.pop(m);
  });
}

Term *MatchCompiler::run() {
  SMLoc loc = fun->range.begin;
  if (fun->rules.empty()) {
    d.diags.report(DiagKind::SyntaxError, fun->nameRange.toSM(),
                   ("'" + fun->name + "' has a type signature but no rules").str());
    return d.era(loc);
  }
  size_t arity = fun->rules[0].pats.size();
  for (const Rule &r : fun->rules)
    if (r.pats.size() != arity) {
      d.diags.report(DiagKind::InvalidPattern, r.range.toSM(),
                     "all rules of '" + fun->name.str() + "' must have the same number of patterns");
      for (const Rule &rule : fun->rules)
        recoverRule(rule);
      return d.era(loc);
    }
  std::vector<Row> rows;
  for (unsigned i = 0; i < fun->rules.size(); ++i) {
    Row r;
    r.rule = i;
    std::vector<std::pair<StringRef, SourceRange>> names;
    for (Pat *p : fun->rules[i].pats) {
      d.collectPatternVars(p, names);
      r.pats.push_back(normalize(p));
    }
    for (size_t a = 0; a < names.size(); ++a)
      for (size_t b = 0; b < a; ++b)
        if (names[a].first == names[b].first && !d.book.ctrs.count(d.resolve(names[a].first)))
          d.diags.report(DiagKind::RepeatedBind, names[a].second.toSM(),
                         ("'" + names[a].first + "' is bound twice in this rule").str());
    rows.push_back(std::move(r));
  }
  if (failed) {
    for (const Rule &rule : fun->rules)
      recoverRule(rule);
    return d.era(loc);
  }
  // Parameters keep their names when every rule binds the same plain variable.
  std::vector<StringRef> args;
  for (size_t c = 0; c < arity; ++c) {
    StringRef common;
    bool same = true;
    for (const Row &r : rows) {
      NPat *p = r.pats[c];
      if (p->kind != NPat::Var || p->name.empty() || (!common.empty() && common != p->name))
        same = false;
      else
        common = p->name;
    }
    args.push_back(same && !common.empty() ? common : d.fresh("arg"));
  }
  reached.assign(fun->rules.size(), false);
  size_t m = d.mark();
  for (StringRef &a : args)
    a = d.bindVar(a, fun->range);
  Term *body = compile(args, std::move(rows), {});
  d.pop(m);
  for (auto it = args.rbegin(); it != args.rend(); ++it)
    body = d.lam(*it, body, loc);
  for (unsigned i = 0; i < reached.size(); ++i)
    if (!reached[i] && !reportedMissing)
      d.diags.report(DiagKind::UnreachableCase, fun->rules[i].range.toSM(),
                     "this rule of '" + fun->name.str() + "' is never reached");
  for (unsigned i = 0; i < reached.size(); ++i)
    if (!reached[i])
      recoverRule(fun->rules[i]);
  return body;
}

/// The type annotations in `p`, for an editor.
static void patternTypes(Pat *p, std::vector<const TypeExpr *> &out) {
  if (auto *v = llvm::dyn_cast_or_null<VarPat>(p)) {
    if (v->type)
      out.push_back(v->type);
  } else if (auto *s = llvm::dyn_cast_or_null<SeqPat>(p)) {
    for (Pat *e : s->elems)
      patternTypes(e, out);
  } else if (auto *c = llvm::dyn_cast_or_null<CtrPat>(p)) {
    for (Pat *a : c->args)
      patternTypes(a, out);
  }
}

core::Term *Desugarer::function(FunDecl *f) {
  SMLoc loc = f->range.begin;
  ScopeEnd visible(*this, f->range.end);
  if (record) {
    if (f->sig)
      record->types.push_back(f->sig);
    for (const Param &p : f->params)
      if (p.type)
        record->types.push_back(p.type);
    for (const Rule &r : f->rules)
      for (Pat *p : r.pats)
        patternTypes(p, record->types);
  }
  if (!f->imp)
    return MatchCompiler(*this, f).run();
  size_t m = mark();
  std::vector<StringRef> params;
  for (const Param &p : f->params)
    params.push_back(bindVar(p.name, p.range, true));
  BlockValue v = block(f->body, 0);
  if (v.assigned) {
    // (An error below.) Its names are still the variables it assigns.
    size_t assigned = mark();
    recordPattern(v.assigned);
    pop(assigned);
  }
  pop(m);
  if (v.assigned || !v.ok)
    diags.report(DiagKind::MissingReturn, f->nameRange.toSM(),
                 "function '" + f->name.str() + "' must end with a 'return' in every branch");
  Term *body = v.term;
  for (size_t i = params.size(); i-- > 0;)
    body = lam(params[i], body, loc);
  return body;
}

} // namespace bendc::frontend
