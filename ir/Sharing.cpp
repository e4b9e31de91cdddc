#include "ir/Sharing.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/Hashing.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/Casting.h"
#include "llvm/Support/Compiler.h"

#include <algorithm>
#include <cassert>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

namespace bendc::core {

namespace {

using llvm::cast;
using llvm::dyn_cast;

/// The leading λs of a definition: how many arguments a saturated call has.
unsigned arityOf(const Term *t) {
  unsigned n = 0;
  while (auto *lam = dyn_cast<LamTerm>(t)) {
    if (lam->unscoped)
      break;
    ++n;
    t = lam->body;
  }
  return n;
}

const Term *stripLams(const Term *t, unsigned n) {
  for (unsigned k = 0; k < n; ++k)
    t = cast<LamTerm>(t)->body;
  return t;
}

/// The head of the application spine `t` (`t` itself when it is no
/// application), its arguments appended to `args` last first.
const Term *spineHead(const Term *t, llvm::SmallVectorImpl<const Term *> &args) {
  while (auto *a = dyn_cast<AppTerm>(t)) {
    args.push_back(a->arg);
    t = a->fun;
  }
  return t;
}

/// Which terms evaluate to plain values, which a DUP copies exactly: numbers
/// and, where the type checker proved it or constructors show it, data with
/// no function inside. Definitions: those the checker proved to return plain
/// data, and a greatest fixpoint over the rest, so a recursive definition
/// whose other paths give numbers, or constructors holding plain values,
/// counts too. A variable holds a number when the program uses it as one (an
/// operand or a switch's scrutinee: anything else there would be a type
/// error), when it is a switch's predecessor, or when it is let-bound to a
/// plain value.
///
/// All of it is worked out on demand: a definition's variables when a term
/// of it is first asked about, and whether a definition returns plain values
/// when a call of it is (the fixpoint then runs over the definitions that
/// call reaches, which settles them as the whole program's fixpoint would).
/// Sharing only rewrites a definition by let-binding a plain term that it
/// repeats, which keeps every answer as it was.
class PlainValues {
public:
  explicit PlainValues(const Program &program)
      : program(program), stage(program.defs.size(), Unknown), arity(program.defs.size(), NoArity),
        numeric(program.defs.size(), true), proven(program.defs.size(), false),
        analyzed(program.defs.size(), false), users(program.defs.size()) {
    for (const AdtInfo &adt : program.adts)
      for (const AdtInfo::Ctr &c : adt.ctrs)
        ctrFields[c.name.data()] = unsigned(c.fields.size());
    settleFields();
  }

  bool isConstructor(llvm::StringRef name) const { return ctrFields.count(name.data()) != 0; }

  /// Whether `t`, a term of definition `def`, evaluates to a plain value (as
  /// far as the program shows). Answers are kept: a long list of
  /// constructors is asked about at every cell.
  bool isPlain(const Term *t, uint32_t def) {
    analyze(def);
    return isPlain(t);
  }

private:
  enum Stage : uint8_t { Unknown, Pending, Settled };
  static constexpr unsigned NoArity = ~0u;

  bool isPlain(const Term *t) {
    if (running)
      return decide(t); // answers may still change
    auto known = memo.find(t);
    if (known != memo.end())
      return known->second;
    bool plain = decide(t);
    memo[t] = plain;
    return plain;
  }

  /// Finds which variables of definition `id` hold numbers, once.
  void analyze(uint32_t id) {
    if (analyzed[id])
      return;
    analyzed[id] = true;
    scopes.clear();
    findNumericVariables(program.defs[id].body, scopes, false);
  }

  unsigned arityAt(uint32_t id) {
    if (arity[id] == NoArity)
      arity[id] = arityOf(program.defs[id].body);
    return arity[id];
  }

  /// The greatest fixpoint from `id` over the definitions it reaches: each
  /// starts plain, and one that is not given what the others are now is
  /// marked and its users asked again. What makes a definition plain is a
  /// conjunction, so an answer of "no" is final, and a "yes" depends only on
  /// the definitions it asked about.
  void settle(uint32_t id) {
    running = true;
    discover(id);
    while (!pending.empty() || !changed.empty()) {
      if (!pending.empty()) {
        uint32_t next = pending.pop_back_val();
        if (!proven[next])
          evaluate(next);
        continue;
      }
      uint32_t no = changed.pop_back_val();
      llvm::SmallVector<uint32_t, 2> asked = std::move(users[no]);
      for (uint32_t user : asked)
        if (numeric[user] && !proven[user])
          evaluate(user);
    }
    for (uint32_t d : inRun) {
      stage[d] = Settled;
      users[d].clear();
    }
    inRun.clear();
    running = false;
  }

  void discover(uint32_t id) {
    stage[id] = Pending;
    proven[id] = program.defs[id].plainResult;
    analyze(id);
    inRun.push_back(id);
    pending.push_back(id);
  }

  void evaluate(uint32_t id) {
    uint32_t outer = asking;
    asking = id;
    if (!isPlain(stripLams(program.defs[id].body, arityAt(id)))) {
      numeric[id] = false;
      changed.push_back(id);
    }
    asking = outer;
  }

  bool decide(const Term *t) {
    switch (t->kind) {
    case TermKind::Num:
    case TermKind::Opr: return true;
    case TermKind::Var: {
      auto *v = cast<VarTerm>(t);
      if (numericVars.count(v))
        return true;
      if (auto field = fieldOfVar.find(v); field != fieldOfVar.end())
        return !notPlainFields.count(field->second);
      auto let = letValueOf.find(v);
      return let != letValueOf.end() && isPlain(let->second);
    }
    case TermKind::Swi: {
      auto *s = cast<SwiTerm>(t);
      auto *succ = dyn_cast<LamTerm>(s->succ);
      return isPlain(s->zero) && succ && !succ->unscoped && isPlain(succ->body);
    }
    case TermKind::Let: return isPlain(cast<LetTerm>(t)->body);
    case TermKind::LetTup:
    case TermKind::Dup: return isPlain(cast<LetPairTerm>(t)->body);
    case TermKind::Ref: {
      llvm::StringRef name = cast<RefTerm>(t)->name();
      auto ctr = ctrFields.find(name.data());
      if (ctr != ctrFields.end())
        return ctr->second == 0;
      return callIsPlain(name, 0);
    }
    case TermKind::App: {
      auto *app = cast<AppTerm>(t);
      const MatchShape *m = program.matchShape(app);
      DecodedMatch match;
      if (m && decodeMatch(program.encoding, app, *m, match)) {
        for (const DecodedMatch::Arm &arm : match.arms)
          if (!isPlain(arm.body))
            return false;
        return true;
      }
      llvm::SmallVector<const Term *, 4> args;
      auto *ref = dyn_cast<RefTerm>(spineHead(t, args));
      if (!ref)
        return false;
      // A constructor given all its fields is plain when they are.
      auto ctr = ctrFields.find(ref->name().data());
      if (ctr != ctrFields.end()) {
        if (ctr->second != args.size())
          return false;
        for (const Term *arg : args)
          if (!isPlain(arg))
            return false;
        return true;
      }
      return callIsPlain(ref->name(), unsigned(args.size()));
    }
    default: return false;
    }
  }

  /// A constructor's field: the constructor's name (its pointer) and the
  /// field's place.
  using Field = std::pair<const char *, unsigned>;
  struct Binder {
    bool numeric = false;
    const Term *letValue = nullptr;
    std::optional<Field> field; // a match arm's λ that takes this field
    llvm::SmallVector<const VarTerm *, 4> uses;
  };
  using Scopes = llvm::StringMap<llvm::SmallVector<Binder, 2>>;

  /// `asNumber`: `t` sits where only a number makes sense.
  void findNumericVariables(const Term *t, Scopes &scopes, bool asNumber) {
    auto within = [&](llvm::StringRef name, Binder b, auto &&body) {
      if (name.empty())
        return body();
      // A map's values stay in place as it grows.
      llvm::SmallVector<Binder, 2> &shadowed = scopes[name];
      shadowed.push_back(std::move(b));
      body();
      Binder done = shadowed.pop_back_val();
      for (const VarTerm *v : done.uses) {
        if (done.numeric)
          numericVars.insert(v);
        else if (done.letValue)
          letValueOf[v] = done.letValue;
        else if (done.field)
          fieldOfVar[v] = *done.field;
      }
    };
    switch (t->kind) {
    case TermKind::Var: {
      auto *v = cast<VarTerm>(t);
      auto s = scopes.find(v->name());
      if (s == scopes.end() || s->second.empty())
        return;
      s->second.back().uses.push_back(v);
      s->second.back().numeric |= asNumber;
      return;
    }
    case TermKind::Link:
    case TermKind::Era:
    case TermKind::Num:
    case TermKind::Ref: return;
    case TermKind::Lam: {
      auto *lam = cast<LamTerm>(t);
      if (lam->unscoped)
        return findNumericVariables(lam->body, scopes, false);
      Binder b;
      if (auto field = fieldLams.find(lam); field != fieldLams.end())
        b.field = field->second;
      return within(lam->var, std::move(b), [&] { findNumericVariables(lam->body, scopes, false); });
    }
    case TermKind::App: {
      // A match's arms take the matched constructor's fields as λs.
      auto *app = cast<AppTerm>(t);
      DecodedMatch match;
      if (const MatchShape *m = program.matchShape(app);
          m && m->ctrs.size() == m->fields.size() && decodeMatch(program.encoding, app, *m, match) &&
          match.arms.size() == m->ctrs.size())
        for (size_t k = 0; k < match.arms.size(); ++k)
          for (size_t j = 0; j < match.arms[k].fields.size(); ++j)
            fieldLams[match.arms[k].fields[j]] = Field(m->ctrs[k].data(), unsigned(j));
      findNumericVariables(app->fun, scopes, false);
      return findNumericVariables(app->arg, scopes, false);
    }
    case TermKind::Let: {
      auto *let = cast<LetTerm>(t);
      findNumericVariables(let->value, scopes, false);
      if (let->unscoped)
        return findNumericVariables(let->body, scopes, false);
      Binder b;
      b.letValue = let->value;
      return within(let->var, std::move(b), [&] { findNumericVariables(let->body, scopes, false); });
    }
    case TermKind::LetTup:
    case TermKind::Dup: {
      auto *let = cast<LetPairTerm>(t);
      findNumericVariables(let->value, scopes, false);
      return within(let->first, Binder(), [&] {
        within(let->second, Binder(), [&] { findNumericVariables(let->body, scopes, false); });
      });
    }
    case TermKind::Sup:
    case TermKind::Tup:
      findNumericVariables(cast<PairTerm>(t)->first, scopes, false);
      return findNumericVariables(cast<PairTerm>(t)->second, scopes, false);
    case TermKind::Opr:
      findNumericVariables(cast<OprTerm>(t)->lhs, scopes, true);
      return findNumericVariables(cast<OprTerm>(t)->rhs, scopes, true);
    case TermKind::Swi: {
      auto *s = cast<SwiTerm>(t);
      findNumericVariables(s->arg, scopes, true);
      findNumericVariables(s->zero, scopes, false);
      auto *succ = dyn_cast<LamTerm>(s->succ);
      if (!succ || succ->unscoped)
        return findNumericVariables(s->succ, scopes, false);
      Binder pred;
      pred.numeric = true;
      return within(succ->var, std::move(pred), [&] { findNumericVariables(succ->body, scopes, false); });
    }
    }
  }

  /// Which constructor fields hold plain values: the greatest fixpoint in
  /// which a field is plain when every value the definitions main reaches
  /// store in it is (a match arm's variable for that field is then plain
  /// too). A constructor used otherwise than given all its fields (passed
  /// as a function, applied in part) may have anything stored in them; and
  /// where main reaches a definition written as a net, which Core does not
  /// show, no field is taken for plain.
  void settleFields() {
    struct Site {
      Field field;
      const Term *value;
      uint32_t def;
    };
    std::vector<Site> sites;
    llvm::DenseSet<const char *> escaped; // constructors used otherwise
    llvm::DenseSet<const Term *> inner;   // applications inside a constructor's spine
    bool opaque = false;
    llvm::StringSet<> netNames;
    for (const HvmDefinition &h : program.hvmDefs)
      netNames.insert(h.name);
    const Definition *main = program.find(program.entry);
    uint32_t entry = main ? uint32_t(main - program.defs.data()) : Program::NoDefinition;
    if (entry == Program::NoDefinition)
      opaque = true;
    std::vector<bool> reached(program.defs.size(), false);
    llvm::SmallVector<uint32_t, 64> work;
    if (!opaque) {
      reached[entry] = true;
      work.push_back(entry);
    }
    while (!work.empty() && !opaque) {
      uint32_t def = work.pop_back_val();
      forEachTerm(program.defs[def].body, [&](const Term *t) {
        if (auto *ref = dyn_cast<RefTerm>(t)) {
          if (netNames.contains(ref->name()))
            opaque = true;
          auto ctr = ctrFields.find(ref->name().data());
          if (!inner.count(t) && ctr != ctrFields.end() && ctr->second > 0)
            escaped.insert(ctr->first); // not at the head of an application
          uint32_t to = program.definitionOf(ref->name());
          if (to != Program::NoDefinition && !reached[to]) {
            reached[to] = true;
            work.push_back(to);
          }
          return;
        }
        auto *app = dyn_cast<AppTerm>(t);
        if (!app || inner.count(t))
          return;
        llvm::SmallVector<const Term *, 4> args;
        auto *ref = dyn_cast<RefTerm>(spineHead(app, args));
        auto ctr = ref ? ctrFields.find(ref->name().data()) : ctrFields.end();
        if (ctr == ctrFields.end())
          return;
        // The rest of the spine is this application's, not one of its own.
        for (const Term *h = app; auto *a = dyn_cast<AppTerm>(h); h = a->fun)
          inner.insert(a->fun);
        if (ctr->second != args.size()) {
          escaped.insert(ctr->first);
          return;
        }
        for (size_t k = 0; k < args.size(); ++k) // args are last first
          sites.push_back({Field(ctr->first, unsigned(args.size() - 1 - k)), args[k], def});
      });
    }
    for (const auto &[name, fields] : ctrFields)
      if (opaque || escaped.count(name))
        for (unsigned j = 0; j < fields; ++j)
          notPlainFields.insert(Field(name, j));
    if (opaque)
      return;
    // Each round asks again with what the last one found; a field that is
    // not plain stays so, and answers only ever turn from yes to no.
    for (bool changed = true; changed;) {
      changed = false;
      for (const Site &site : sites)
        if (!notPlainFields.count(site.field) && !isPlain(site.value, site.def)) {
          notPlainFields.insert(site.field);
          changed = true;
        }
      if (changed)
        forgetAnswers();
    }
    // A fixpoint: every value stored in a field taken for plain is plain.
    assert(llvm::all_of(sites, [&](const Site &site) {
      return notPlainFields.count(site.field) || isPlain(site.value, site.def);
    }));
  }

  /// Drops every answer about terms and definitions (not about variables).
  void forgetAnswers() {
    memo.clear();
    std::fill(stage.begin(), stage.end(), Unknown);
    std::fill(numeric.begin(), numeric.end(), true);
    for (auto &u : users)
      u.clear();
  }

  bool callIsPlain(llvm::StringRef name, unsigned args) {
    uint32_t id = program.definitionOf(name);
    if (id == Program::NoDefinition || arityAt(id) != args)
      return false;
    if (stage[id] == Settled)
      return numeric[id];
    if (!running) {
      settle(id);
      return numeric[id];
    }
    if (stage[id] == Unknown)
      discover(id);
    users[id].push_back(asking);
    return numeric[id];
  }

  const Program &program;
  // By definition.
  std::vector<Stage> stage;
  std::vector<unsigned> arity;   // how many λs lead its body (NoArity: not counted yet)
  std::vector<bool> numeric;     // returns plain data when given that many arguments
  std::vector<bool> proven;      // by the type checker
  std::vector<bool> analyzed;    // its variables looked at
  // While settling: the definitions that asked about each one, the one
  // asking now, and what is left to do.
  std::vector<llvm::SmallVector<uint32_t, 2>> users;
  uint32_t asking = 0;
  bool running = false;
  llvm::SmallVector<uint32_t, 16> pending, changed, inRun;
  llvm::DenseMap<const char *, unsigned> ctrFields; // constructors: how many fields
  Scopes scopes;
  llvm::DenseMap<const Term *, bool> memo;
  llvm::DenseSet<const VarTerm *> numericVars;
  llvm::DenseMap<const VarTerm *, const Term *> letValueOf;
  llvm::DenseMap<const LamTerm *, Field> fieldLams;  // match arms' λs, by the field they take
  llvm::DenseMap<const VarTerm *, Field> fieldOfVar; // variables bound by those
  llvm::DenseSet<Field> notPlainFields;
};

/// One definition's terms in preorder: the subterm of node i is the range
/// [i, i + size). Rebuilt after every rewrite.
struct Node {
  Term *term;
  Term **slot;       // where the parent (or the definition) holds it
  int parent;        // -1 for the body
  int binder = -1;   // a variable: the node that binds it (-1: none)
  unsigned binderSlot = 0; // which of that node's names (a pair binds two)
  unsigned size = 1; // nodes in the subterm
  uint64_t hash = 0;
  bool hasCall = false;     // a call of a function (not a constructor) inside
  bool hasUnscoped = false; // `$x` or λ$x somewhere inside
  bool crossable = false;   // a λ work may move out of (switch predecessor, match fields)
};

/// Which values are plain, from the first time sharing asks, and whether
/// the program has a superposition, from the first time it would share:
/// most programs repeat no work, and then neither is ever needed.
class LazyPlainValues {
public:
  explicit LazyPlainValues(const Program &program)
      : program(program), constructors(program.constructorNames()) {}
  bool isConstructor(llvm::StringRef name) const { return constructors.contains(name.data()); }
  /// See core::isCall.
  bool isCall(const AppTerm *app) const { return core::isCall(app, constructors); }
  PlainValues &get() {
    if (!values)
      values.emplace(program);
    return *values;
  }
  /// Some definition holds a superposition: then nothing is shared (rule 6).
  bool hasSuperposition() {
    if (!superposition) {
      superposition = false;
      for (const Definition &d : program.defs)
        forEachTerm(d.body, [&](const Term *t) { *superposition |= t->kind == TermKind::Sup; });
    }
    return *superposition;
  }

private:
  const Program &program;
  llvm::DenseSet<const char *> constructors; // by the name's pointer (Core.h)
  std::optional<PlainValues> values;
  std::optional<bool> superposition;
};

class DefinitionSharing {
public:
  DefinitionSharing(Program &program, LazyPlainValues &numbers, unsigned &counter)
      : program(program), numbers(numbers), counter(counter) {}

  /// Rule 6 held: the program has a superposition, so nothing is shared.
  bool stopped = false;

  /// The definition to work on next (its body, and its place in the
  /// program; whether it is the entry point); the buffers serve every one.
  void start(Term **definitionBody, uint32_t id, bool entryPoint) {
    body = definitionBody;
    defId = id;
    entry = entryPoint;
  }

  /// Shares one repeated subterm; false when none qualifies.
  bool shareOne() {
    build();
    // Group the candidates by stable name: hash, then equality. Whether a
    // value is plain is asked only of terms whose hash repeats.
    llvm::DenseMap<uint64_t, llvm::SmallVector<int, 4>> byHash;
    for (int i = 0; i < int(nodes.size()); ++i)
      if (isWork(i))
        byHash[nodes[i].hash].push_back(i);
    std::vector<llvm::SmallVector<int, 4>> classes;
    for (auto &entry : byHash) {
      if (entry.second.size() < 2 || !anyTwoSame(entry.second))
        continue;
      PlainValues &plain = numbers.get();
      llvm::erase_if(entry.second, [&](int i) { return !plain.isPlain(nodes[i].term, defId); });
      if (entry.second.size() < 2)
        continue;
      // Bound variables are not hashed, so one bucket may hold many classes
      // (`(f a)`, `(f b)`, ...); comparisons per term are bounded.
      constexpr size_t MaxClassesPerBucket = 32;
      std::vector<llvm::SmallVector<int, 4>> local;
      for (int i : entry.second) {
        bool placed = false;
        for (size_t k = 0; k < local.size() && k < MaxClassesPerBucket; ++k)
          if (same(local[k].front(), i)) {
            local[k].push_back(i);
            placed = true;
            break;
          }
        if (!placed)
          local.push_back({i});
      }
      for (auto &c : local)
        if (c.size() >= 2)
          classes.push_back(std::move(c));
    }
    // The largest first (its occurrences contain the smaller ones); ties in
    // source order, so the result does not depend on hash order.
    std::sort(classes.begin(), classes.end(), [&](const auto &a, const auto &b) {
      if (nodes[a.front()].size != nodes[b.front()].size)
        return nodes[a.front()].size > nodes[b.front()].size;
      return a.front() < b.front();
    });
    for (auto &c : classes) {
      int at = lowestCommonAncestor(c);
      if (at < 0 || (!entry && closed(c.front())) || !canFloat(c, at) || runs(c, at) < 2)
        continue;
      if (numbers.hasSuperposition()) {
        stopped = true; // before anything was shared
        return false;
      }
      bind(c, at);
      return true;
    }
    return false;
  }

private:
  // --- prune: stable names ------------------------------------------------

  void build() {
    nodes.clear();
    scopes.clear();
    crossableLams.clear();
    visit(body, -1);
  }

  /// Where `app` stands for a match, its arms' field λs (and NumScott's
  /// λtag) may be crossed. Apart from `visit`, whose frame is on the stack
  /// once per level of the term: a list literal is as deep as it is long.
  LLVM_ATTRIBUTE_NOINLINE void noteMatchLams(AppTerm *app) {
    const MatchShape *m = program.matchShape(app);
    DecodedMatch match;
    if (!m || !decodeMatch(program.encoding, app, *m, match))
      return;
    for (const DecodedMatch::Arm &arm : match.arms)
      for (const LamTerm *field : arm.fields)
        crossableLams.insert(field);
    if (program.encoding == AdtEncoding::NumScott)
      crossableLams.insert(cast<LamTerm>(app->arg)); // λtag: the switch on the tag
  }

  int visit(Term **slot, int parent) {
    int me = int(nodes.size());
    nodes.push_back({*slot, slot, parent});
    Term *t = *slot;
    uint64_t h = llvm::hash_value(unsigned(t->kind));
    auto child = [&](Term **s) {
      int c = visit(s, me);
      h = llvm::hash_combine(h, nodes[c].hash);
      nodes[me].hasCall |= nodes[c].hasCall;
      nodes[me].hasUnscoped |= nodes[c].hasUnscoped;
    };
    auto bindIn = [&](llvm::StringRef name, auto &&inside, unsigned slot = 0) {
      if (name.empty())
        return inside();
      auto &shadowed = scopes[name]; // a map's values stay in place as it grows
      shadowed.push_back({me, slot});
      inside();
      shadowed.pop_back();
    };
    switch (t->kind) {
    case TermKind::Var: {
      auto *v = cast<VarTerm>(t);
      auto s = scopes.find(v->name());
      if (s != scopes.end() && !s->second.empty())
        std::tie(nodes[me].binder, nodes[me].binderSlot) = s->second.back();
      else
        h = llvm::hash_combine(h, v->name()); // a global name
      // A bound variable's name is not hashed: equal terms may name their
      // binders differently. `same` tells the binders apart.
      break;
    }
    case TermKind::Link:
      nodes[me].hasUnscoped = true;
      h = llvm::hash_combine(h, cast<LinkTerm>(t)->name());
      break;
    case TermKind::Ref: h = llvm::hash_combine(h, cast<RefTerm>(t)->name()); break;
    case TermKind::Num: {
      Number n = cast<NumTerm>(t)->value();
      h = llvm::hash_combine(h, unsigned(n.kind), n.bits);
      break;
    }
    case TermKind::Era: break;
    case TermKind::Lam: {
      auto *lam = cast<LamTerm>(t);
      if (lam->unscoped) {
        nodes[me].hasUnscoped = true;
        child(&lam->body);
        break;
      }
      h = llvm::hash_combine(h, lam->var.empty());
      bindIn(lam->var, [&] { child(&lam->body); });
      break;
    }
    case TermKind::App: {
      auto *app = cast<AppTerm>(t);
      // The innermost application of a spine names what is applied:
      // building constructors is no work (their nodes are in the net).
      if (app->fun->kind != TermKind::App)
        nodes[me].hasCall = numbers.isCall(app);
      noteMatchLams(app);
      child(&app->fun);
      child(&app->arg);
      break;
    }
    case TermKind::Let: {
      auto *let = cast<LetTerm>(t);
      if (let->unscoped)
        nodes[me].hasUnscoped = true;
      h = llvm::hash_combine(h, let->var.empty());
      child(&let->value);
      if (let->unscoped)
        child(&let->body);
      else
        bindIn(let->var, [&] { child(&let->body); });
      break;
    }
    case TermKind::LetTup:
    case TermKind::Dup: {
      auto *let = cast<LetPairTerm>(t);
      h = llvm::hash_combine(h, let->first.empty(), let->second.empty());
      child(&let->value);
      bindIn(let->first, [&] { bindIn(let->second, [&] { child(&let->body); }, 1); });
      break;
    }
    case TermKind::Sup:
    case TermKind::Tup: {
      auto *pair = cast<PairTerm>(t);
      child(&pair->first);
      child(&pair->second);
      break;
    }
    case TermKind::Opr: {
      auto *opr = cast<OprTerm>(t);
      h = llvm::hash_combine(h, unsigned(opr->op));
      child(&opr->lhs);
      child(&opr->rhs);
      break;
    }
    case TermKind::Swi: {
      auto *swi = cast<SwiTerm>(t);
      child(&swi->arg);
      child(&swi->zero);
      int succ = int(nodes.size());
      child(&swi->succ);
      if (nodes[succ].term->kind == TermKind::Lam)
        nodes[succ].crossable = true; // binds the predecessor
      break;
    }
    }
    Node &n = nodes[me];
    n.size = unsigned(nodes.size()) - unsigned(me);
    n.hash = h;
    if (auto *lam = dyn_cast<LamTerm>(t); lam && crossableLams.count(lam))
      n.crossable = true;
    return me;
  }

  /// Rules 1 and 4 (no unscoped variable); rule 2 is asked of the terms
  /// that repeat.
  bool isWork(int i) const {
    const Node &n = nodes[i];
    if (n.hasUnscoped || !n.hasCall)
      return false;
    return n.term->kind == TermKind::App || n.term->kind == TermKind::Opr;
  }

  bool inside(int i, int root) const { return i >= root && i < root + int(nodes[root].size); }

  /// Whether two of `terms` are the same (then sharing may need to know
  /// which are plain); after a bounded number of comparisons, assumes so.
  bool anyTwoSame(llvm::ArrayRef<int> terms) const {
    constexpr unsigned MaxComparisons = 256;
    unsigned compared = 0;
    for (size_t a = 0; a < terms.size(); ++a)
      for (size_t b = a + 1; b < terms.size(); ++b) {
        if (++compared > MaxComparisons || same(terms[a], terms[b]))
          return true;
      }
    return false;
  }

  /// Equal up to the names of variables bound inside: corresponding nodes
  /// sit at the same offsets, so a variable bound inside must point to the
  /// binder at its own offset; one bound outside, to the very same binder.
  bool same(int a, int b) const {
    if (nodes[a].size != nodes[b].size)
      return false;
    for (int k = 0; k < int(nodes[a].size); ++k) {
      const Node &x = nodes[a + k], &y = nodes[b + k];
      if (x.term->kind != y.term->kind || x.hash != y.hash)
        return false;
      if (!sameLocal(x.term, y.term))
        return false;
      if (x.term->kind == TermKind::Var) {
        bool boundInside = x.binder >= 0 && inside(x.binder, a);
        if (boundInside ? y.binder != x.binder - a + b : y.binder != x.binder)
          return false;
        if (x.binderSlot != y.binderSlot)
          return false;
        if (x.binder < 0 && cast<VarTerm>(x.term)->name() != cast<VarTerm>(y.term)->name())
          return false;
      }
    }
    return true;
  }

  /// The parts of a node that are not children.
  static bool sameLocal(const Term *x, const Term *y) {
    switch (x->kind) {
    case TermKind::Num:
      return cast<NumTerm>(x)->value().kind == cast<NumTerm>(y)->value().kind &&
             cast<NumTerm>(x)->value().bits == cast<NumTerm>(y)->value().bits;
    case TermKind::Ref: return cast<RefTerm>(x)->name() == cast<RefTerm>(y)->name();
    case TermKind::Opr: return cast<OprTerm>(x)->op == cast<OprTerm>(y)->op;
    case TermKind::Lam:
      return cast<LamTerm>(x)->unscoped == cast<LamTerm>(y)->unscoped &&
             cast<LamTerm>(x)->var.empty() == cast<LamTerm>(y)->var.empty();
    case TermKind::Let:
      return cast<LetTerm>(x)->unscoped == cast<LetTerm>(y)->unscoped &&
             cast<LetTerm>(x)->var.empty() == cast<LetTerm>(y)->var.empty();
    case TermKind::LetTup:
    case TermKind::Dup:
      return cast<LetPairTerm>(x)->first.empty() == cast<LetPairTerm>(y)->first.empty() &&
             cast<LetPairTerm>(x)->second.empty() == cast<LetPairTerm>(y)->second.empty();
    case TermKind::Link: return false; // never shared
    default: return true;
    }
  }

  // --- float: the binding point --------------------------------------------

  int lowestCommonAncestor(const llvm::SmallVectorImpl<int> &occurrences) const {
    int at = occurrences.front();
    for (int o : occurrences)
      while (at >= 0 && !inside(o, at))
        at = nodes[at].parent;
    return at;
  }

  /// Rule 7: a term with no free variable, which float-combinators makes a
  /// definition of its own outside the entry point.
  bool closed(int term) const {
    for (int k = term; k < term + int(nodes[term].size); ++k) {
      int b = nodes[k].binder;
      if (nodes[k].term->kind == TermKind::Var && !(b >= 0 && inside(b, term)))
        return false;
    }
    return true;
  }

  /// Rules 3 and 4.
  bool canFloat(const llvm::SmallVectorImpl<int> &occurrences, int at) const {
    for (int o : occurrences)
      for (int p = nodes[o].parent; p != at; p = nodes[p].parent)
        if (nodes[p].term->kind == TermKind::Lam && !nodes[p].crossable)
          return false;
    int first = occurrences.front();
    for (int k = first; k < first + int(nodes[first].size); ++k) {
      int b = nodes[k].binder;
      if (nodes[k].term->kind != TermKind::Var || b < 0 || inside(b, first))
        continue;
      if (!(inside(at, b) && at != b))
        return false;
    }
    return true;
  }

  /// Rule 5: how many occurrences one evaluation of `at` may run. A switch
  /// runs one of its arms; a match (its arms are the switch chain inside a
  /// NumScott encoding, or the arguments of a Scott one) one of its arms.
  unsigned runs(const llvm::SmallVectorImpl<int> &occurrences, int at) const {
    llvm::DenseSet<int> marked;
    for (int o : occurrences)
      for (int p = o; p >= 0 && !marked.count(p); p = nodes[p].parent)
        marked.insert(p);
    llvm::DenseSet<int> isOcc(occurrences.begin(), occurrences.end());
    return runsIn(at, marked, isOcc);
  }

  unsigned runsIn(int i, const llvm::DenseSet<int> &marked, const llvm::DenseSet<int> &isOcc) const {
    if (!marked.count(i))
      return 0;
    if (isOcc.count(i))
      return 1;
    llvm::SmallVector<unsigned, 3> child;
    for (int c = i + 1; c < i + int(nodes[i].size); c += int(nodes[c].size))
      child.push_back(runsIn(c, marked, isOcc));
    const Term *t = nodes[i].term;
    if (t->kind == TermKind::Swi)
      return child[0] + std::max(child[1], child[2]);
    auto *app = dyn_cast<AppTerm>(t);
    const MatchShape *m =
        app && program.encoding == AdtEncoding::Scott ? program.matchShape(app) : nullptr;
    if (m) {
      // (x arm0 ... armN): the arms are the last arguments of the spine.
      unsigned arms = 0;
      int at = i;
      for (size_t k = 0; k < m->fields.size() && nodes[at].term->kind == TermKind::App; ++k) {
        int fun = at + 1, arg = fun + int(nodes[fun].size);
        arms = std::max(arms, runsIn(arg, marked, isOcc));
        at = fun;
      }
      return runsIn(at, marked, isOcc) + arms;
    }
    unsigned sum = 0;
    for (unsigned c : child)
      sum += c;
    return sum;
  }

  // --- bind ----------------------------------------------------------------

  void bind(const llvm::SmallVectorImpl<int> &occurrences, int at) {
    assert(occurrences.size() >= 2 && "a term is shared when it occurs twice");
    assert(llvm::all_of(occurrences, [&](int o) { return inside(o, at) && o != at; }) &&
           "the binding point lies above every occurrence");
    assert(llvm::all_of(occurrences, [&](int o) { return same(occurrences.front(), o); }) &&
           "the occurrences are one term");
    Term *value = nodes[occurrences.front()].term;
    llvm::StringRef name = program.save("%shared" + std::to_string(counter++));
    for (int o : occurrences)
      *nodes[o].slot = program.make<VarTerm>(nodes[o].term->loc, name);
    Term *scope = *nodes[at].slot;
    *nodes[at].slot = program.make<LetTerm>(scope->loc, name, false, value, scope);
  }

  Program &program;
  LazyPlainValues &numbers;
  Term **body = nullptr;
  uint32_t defId = 0;
  bool entry = false; // the definition is the entry point
  unsigned &counter;
  std::vector<Node> nodes;
  llvm::StringMap<llvm::SmallVector<std::pair<int, unsigned>, 4>> scopes;
  llvm::DenseSet<const LamTerm *> crossableLams;
};

} // namespace

SharingStats recoverSharing(Program &program) {
  SharingStats stats;
  LazyPlainValues numbers(program);
  unsigned counter = 0;
  DefinitionSharing sharing(program, numbers, counter);
  const Definition *entry = program.find(program.entry);
  for (size_t id = 0; id < program.defs.size(); ++id) {
    Definition &d = program.defs[id];
    if (d.builtin)
      continue;
    // Two occurrences of a shared term hold two calls: a definition with
    // fewer has nothing to share (most have none or one), and costs at most
    // one walk (none where the program check counted them) instead of a
    // name for every subterm.
    unsigned calls = 0;
    if (program.refs.callsOf.size() == program.defs.size())
      calls = program.refs.callsOf[id];
    else
      forEachTerm(d.body, [&](const Term *t) {
        if (auto *app = dyn_cast<AppTerm>(t); app && app->fun->kind != TermKind::App)
          calls += numbers.isCall(app);
      });
    if (calls < 2)
      continue;
    // The next definition it will look into, fetched while it does this one.
    if (program.refs.callsOf.size() == program.defs.size())
      for (size_t next = id + 1; next < program.defs.size(); ++next)
        if (!program.defs[next].builtin && program.refs.callsOf[next] >= 2) {
          program.prefetch(next);
          break;
        }
    sharing.start(&d.body, uint32_t(id), &d == entry);
    // Each rewrite can reveal another (a shared term inside a shared term).
    for (unsigned round = 0; round < 1000 && sharing.shareOne(); ++round)
      ++stats.shared;
    if (sharing.stopped)
      break; // at the first term it would have shared: nothing was
  }
  return stats;
}

} // namespace bendc::core
