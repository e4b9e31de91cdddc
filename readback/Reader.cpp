#include "readback/Reader.h"
#include "readback/Expander.h"

#include "runtime/common/Numeric.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/ErrorHandling.h"

#include <algorithm>
#include <numeric>
#include <optional>

namespace bendc::readback {

namespace num = rt::num;

const char *errorText(ReadbackError e) {
  switch (e) {
  case ReadbackError::InvalidNumericMatch: return "Encountered an invalid 'switch'.";
  case ReadbackError::InvalidNumericOp: return "Encountered an invalid numeric operation.";
  case ReadbackError::ReachedRoot:
    return "Unable to interpret the HVM result as a valid Bend term. (Reached Root)";
  case ReadbackError::Cyclic:
    return "Unable to interpret the HVM result as a valid Bend term. (Cyclic Term)";
  }
  llvm_unreachable("unknown readback error");
}

namespace {

/// A number node's word read as a term of the type `typ` says (a symbol means
/// u24); a partially applied operator alone is not a term.
TermId numberTerm(Terms &terms, uint32_t val, uint32_t typ) {
  switch (num::typeOf(typ)) {
  case num::TySym:
  case num::TyU24: return terms.number(core::NumKind::U24, (val >> 5) & 0xFFFFFF);
  case num::TyI24: return terms.number(core::NumKind::I24, uint32_t(num::i24Of(val)));
  case num::TyF24: return terms.number(core::NumKind::F24, num::floatBits(num::f24Of(val)));
  default: return terms.leaf(TK::Err);
  }
}

bool isFlippedOp(uint32_t op) {
  return op == num::FpSub || op == num::FpDiv || op == num::FpRem || op == num::FpShl ||
         op == num::FpShr;
}

/// The Bend operator for an HVM2 operator tag; f24 reads `^` as `**`.
std::optional<core::Op> bendOp(uint32_t op, uint32_t typ) {
  switch (op) {
  case num::OpAdd: return core::Op::Add;
  case num::OpSub:
  case num::FpSub: return core::Op::Sub;
  case num::OpMul: return core::Op::Mul;
  case num::OpDiv:
  case num::FpDiv: return core::Op::Div;
  case num::OpRem:
  case num::FpRem: return core::Op::Rem;
  case num::OpEq: return core::Op::Eq;
  case num::OpNeq: return core::Op::Ne;
  case num::OpLt: return core::Op::Lt;
  case num::OpGt: return core::Op::Gt;
  // On f24 these are atan2 and log, which Bend cannot read back.
  case num::OpAnd: return typ == num::TyF24 ? std::nullopt : std::optional(core::Op::And);
  case num::OpOr: return typ == num::TyF24 ? std::nullopt : std::optional(core::Op::Or);
  case num::OpXor: return typ == num::TyF24 ? core::Op::Pow : core::Op::Xor;
  case num::OpShl:
  case num::FpShl: return core::Op::Shl;
  case num::OpShr:
  case num::FpShr: return core::Op::Shr;
  default: return std::nullopt;
  }
}

bool commutes(core::Op op) {
  using core::Op;
  return op == Op::Add || op == Op::Mul || op == Op::Eq || op == Op::Ne || op == Op::And ||
         op == Op::Or || op == Op::Xor;
}

/// An order for `n` items in which one that uses a name comes before the one
/// that binds it, and which otherwise keeps theirs (as it does for items in a
/// cycle, which a term never has).
template <typename Uses, typename Binds>
std::vector<size_t> splitOrder(size_t n, Uses &&usesOf, Binds &&bindsOf) {
  llvm::DenseMap<NameId, size_t> binder;
  for (size_t i = 0; i < n; ++i)
    bindsOf(i, [&](NameId name) { binder[name] = i; });
  std::vector<llvm::SmallVector<size_t, 2>> waiting(n); // items that wait for each
  std::vector<size_t> waits(n, 0);
  for (size_t i = 0; i < n; ++i)
    usesOf(i, [&](NameId name) {
      auto it = binder.find(name);
      if (it != binder.end() && it->second != i) {
        waiting[i].push_back(it->second);
        ++waits[it->second];
      }
    });
  std::set<size_t> ready;
  for (size_t i = 0; i < n; ++i)
    if (waits[i] == 0)
      ready.insert(i);
  std::vector<size_t> order;
  std::vector<bool> placed(n, false);
  while (!ready.empty()) {
    size_t i = *ready.begin();
    ready.erase(ready.begin());
    order.push_back(i);
    placed[i] = true;
    for (size_t j : waiting[i])
      if (--waits[j] == 0)
        ready.insert(j);
  }
  for (size_t i = 0; i < n; ++i)
    if (!placed[i])
      order.push_back(i);
  return order;
}

} // namespace

TermId Reader::read(Port start) {
  std::vector<Frame> stack;
  Action act = readAt(start);
  for (;;) {
    if (act.read) {
      TermId out;
      act = begin(act.port, stack, out) ? done(out) : step(stack, NoTerm);
      continue;
    }
    if (stack.empty())
      return act.term;
    act = step(stack, act.term);
  }
}

/// Starts reading port `p`: gives the term at once, or pushes the frame that
/// will build it (and returns false).
bool Reader::begin(Port p, std::vector<Frame> &stack, TermId &out) {
  if (linear) {
    if (!seen.insert(p).second) {
      error(ReadbackError::Cyclic);
      out = terms.named(TK::Var, terms.names.intern("..."));
      return true;
    }
  } else {
    if ((visits[p] != 0 && (dupPath.size() > MaxDupPath || active.count(readKey(p, dupState())))) ||
        ++reads > MaxReads) {
      error(ReadbackError::Cyclic);
      out = terms.named(TK::Var, terms.names.intern("..."));
      return true;
    }
    ++visits[p];
  }
  uint64_t entry = linear ? 0 : dupState(); // before this read changes the path
  auto now = [&](TermId t) {
    out = t;
    if (!linear)
      --visits[p];
    return true;
  };
  uint32_t x = nodeOf(p), slot = slotOf(p);
  auto push = [&](FK kind) {
    Frame f;
    f.kind = kind;
    f.slot = uint8_t(slot);
    f.node = x;
    f.state = entry;
    if (!linear)
      active.insert(readKey(p, entry));
    stack.push_back(f);
    return false;
  };
  const INet::Node &node = net.nodes[x];
  switch (node.kind) {
  case NodeKind::Era: return now(terms.leaf(TK::Era));
  case NodeKind::Ref: return now(terms.named(TK::Ref, refName(node.data)));
  case NodeKind::Num: return now(numberTerm(terms, node.data, node.data));
  case NodeKind::Rot: error(ReadbackError::ReachedRoot); return now(terms.leaf(TK::Err));
  case NodeKind::Con:
    // Entered at its second port, a node is an application or takes a pair
    // apart (a λ's second port is its body, which nothing enters); entered
    // at its first, a λ's variable or a let's: which one shows once the
    // reading ends (a λ is entered at its principal port too), see readNet.
    // In a definition, one whose first element is dropped and whose value
    // is computed takes that value apart too: `let (*, a) = switch ...;`.
    if (slot == 2 && (tupleLet(x) || (definitionForm && erasedFirst(x) &&
                                      producer(net.enter(portOf(x, 0)))))) {
      if (seenFans.insert(x).second)
        scope.insert(x);
      return now(terms.named(TK::Var, varName(p)));
    }
    if (slot == 1) {
      if (linear)
        firstBinders.insert(x);
      return now(terms.named(TK::Var, varName(p)));
    }
    if (slot == 2) {
      if (linear)
        applied.insert(x);
      return push(FK::App);
    }
    if (linear)
      built.insert(x);
    if (isTup(x))
      return push(FK::Tup);
    {
      auto [pat, name] = declName(portOf(x, 1));
      if (linear)
        lambdas.insert(x);
      push(FK::Lam);
      stack.back().pat = pat;
      stack.back().aux = name;
    }
    return false;
  case NodeKind::Dup:
    if (slot == 0) {
      if (!linear && !dupPath.empty()) {
        uint8_t from = popDup();
        push(FK::SupPaired);
        stack.back().aux = from;
        return false;
      }
      return push(FK::Decay);
    }
    if (!linear) {
      pushDup(uint8_t(slot));
      return push(FK::DupAux);
    }
    if (seenFans.insert(x).second)
      scope.insert(x);
    return now(terms.named(TK::Var, varName(p)));
  case NodeKind::Opr:
    if (slot != 2) {
      error(ReadbackError::InvalidNumericOp);
      return now(terms.leaf(TK::Err));
    }
    push(FK::Opr);
    stack.back().aux = uint32_t(oprStates.size());
    oprStates.emplace_back();
    return false;
  case NodeKind::Swi:
    if (slot != 2) {
      error(ReadbackError::InvalidNumericMatch);
      return now(terms.leaf(TK::Err));
    }
    return push(FK::Swi);
  }
  llvm_unreachable("unknown node kind");
}

Reader::Action Reader::finish(std::vector<Frame> &stack, TermId t) {
  Port origin = portOf(stack.back().node, stack.back().slot);
  uint64_t state = stack.back().state;
  stack.pop_back();
  if (!linear) {
    --visits[origin];
    active.erase(readKey(origin, state));
  }
  return done(t);
}

Reader::Action Reader::step(std::vector<Frame> &stack, TermId in) {
  Frame &f = stack.back();
  uint32_t x = f.node;
  switch (f.kind) {
  case FK::Lam:
    if (f.step++ == 0)
      return readAt(net.enter(portOf(x, 2)));
    return finish(stack, terms.lam(f.pat, f.aux, in));
  case FK::Tup:
  case FK::App: {
    bool tup = f.kind == FK::Tup;
    switch (f.step++) {
    case 0: return readAt(net.enter(portOf(x, tup ? 1 : 0)));
    case 1: f.t0 = in; return readAt(net.enter(portOf(x, tup ? 2 : 1)));
    default:
      return finish(stack, tup ? terms.pair(TK::Fan, uint8_t(FanKind::Tup), f.t0, in)
                               : terms.pair(TK::App, 0, f.t0, in));
    }
  }
  case FK::DupAux:
    if (f.step++ == 0)
      return readAt(net.enter(portOf(x, 0)));
    popDup();
    return finish(stack, in);
  case FK::SupPaired:
    if (f.step++ == 0)
      return readAt(net.enter(portOf(x, f.aux)));
    pushDup(uint8_t(f.aux));
    return finish(stack, in);
  case FK::Decay:
    switch (f.step++) {
    case 0: {
      // `{a b}` whose ports go straight into a twin `{a b}`: the pair is the
      // value that twin took apart, so read that value instead.
      Port fst = net.enter(portOf(x, 1)), snd = net.enter(portOf(x, 2));
      if (slotOf(fst) == 1 && slotOf(snd) == 2 && nodeOf(fst) == nodeOf(snd) &&
          net.kindAt(fst) == net.nodes[x].kind) {
        scope.erase(nodeOf(fst));
        f.step = 10;
        return readAt(net.enter(portOf(nodeOf(fst), 0)));
      }
      return readAt(fst);
    }
    case 1: f.t0 = in; return readAt(net.enter(portOf(x, 2)));
    case 2: return finish(stack, terms.pair(TK::Fan, uint8_t(FanKind::Dup), f.t0, in));
    default: return finish(stack, in);
    }
  case FK::Opr: return stepOpr(stack, in);
  case FK::Swi: return stepSwi(stack, in);
  }
  llvm_unreachable("unknown frame kind");
}

Reader::Action Reader::stepOpr(std::vector<Frame> &stack, TermId in) {
  Frame &f = stack.back();
  uint32_t x = f.node;
  auto isPartial = [&](Port p) {
    return net.kindAt(p) == NodeKind::Num && num::typeOf(net.nodes[nodeOf(p)].data) >= num::OpAdd;
  };
  auto fail = [&] {
    error(ReadbackError::InvalidNumericOp);
    oprStates.pop_back();
    return finish(stack, terms.leaf(TK::Err));
  };
  if (f.step == 0) {
    f.step = 1;
    OprState &s = oprStates[f.aux];
    Port p0 = net.enter(portOf(x, 0)), p1 = net.enter(portOf(x, 1));
    if (isPartial(p1) || isPartial(p0)) {
      // One node, a partially applied operator `[op n]` on its principal
      // port or (operands flipped) on its operand port.
      s.flipped = isPartial(p1);
      s.partial = true;
      s.ports[0] = p0;
      s.ports[1] = p1;
      s.nPorts = 2;
    } else if (net.kindAt(p0) == NodeKind::Opr) {
      // Two nodes: the operator and the first operand, then the second.
      uint32_t top = nodeOf(p0);
      s.ports[0] = net.enter(portOf(top, 0));
      s.ports[1] = net.enter(portOf(top, 1));
      s.ports[2] = p1;
      s.nPorts = 3;
    } else {
      return fail();
    }
  } else {
    OprState &s = oprStates[f.aux];
    s.argIsNum[s.nArgs] = false;
    s.argTerm[s.nArgs++] = in;
    ++s.next;
  }
  OprState &s = oprStates[f.aux];
  while (s.next < s.nPorts) {
    Port p = s.ports[s.next];
    if (net.kindAt(p) != NodeKind::Num)
      return readAt(p);
    uint32_t val = net.nodes[nodeOf(p)].data, typ = num::typeOf(val);
    if (typ == num::TySym) {
      s.ops[s.nOps++] = num::symOf(val);
    } else if (typ <= num::TyF24) {
      s.types[s.nTypes++] = typ;
      s.argIsNum[s.nArgs] = true;
      s.argVal[s.nArgs++] = val;
    } else {
      s.ops[s.nOps++] = typ;
      s.argIsNum[s.nArgs] = true;
      s.argVal[s.nArgs++] = val;
    }
    ++s.next;
  }
  TermId t = oprTerm(s);
  if (terms[t].kind == TK::Err)
    error(ReadbackError::InvalidNumericOp);
  oprStates.pop_back();
  return finish(stack, t);
}

TermId Reader::oprTerm(const OprState &s) {
  // Bend reads two typed numbers as an error: its compiler never applies an
  // operator to two literals. bendc's may, once the lets around them are
  // gone (`(* (let * = []; 0) (let * = (1, 2); 3))`); in a definition, two
  // numbers of one type read as that operation.
  bool sameTypes = definitionForm && s.nTypes == 2 && s.types[0] == s.types[1];
  if ((s.nTypes > 1 && !sameTypes) || s.nArgs != 2 || s.nOps != 1)
    return terms.leaf(TK::Err);
  uint32_t typ = s.nTypes == 1 ? s.types[0] : num::TyU24;
  TermId args[2];
  for (int i = 0; i < 2; ++i)
    args[i] = s.argIsNum[i] ? numberTerm(terms, s.argVal[i], typ) : s.argTerm[i];
  if (s.flipped != isFlippedOp(s.ops[0]))
    std::swap(args[0], args[1]);
  std::optional<core::Op> op = bendOp(s.ops[0], typ);
  if (!op)
    return terms.leaf(TK::Err);
  // Bend compiles `x + 1` to `[+1]` on x, unflipped, as the operator
  // commutes: in a definition's source the number was on the right.
  if (definitionForm && s.partial && commutes(*op) && terms[args[0]].kind == TK::Num &&
      terms[args[1]].kind != TK::Num)
    std::swap(args[0], args[1]);
  return terms.pair(TK::Oper, uint8_t(*op), args[0], args[1]);
}

Reader::Action Reader::stepSwi(std::vector<Frame> &stack, TermId in) {
  Frame &f = stack.back();
  uint32_t x = f.node;
  switch (f.step++) {
  case 0: return readAt(net.enter(portOf(x, 0)));
  case 1: {
    f.t0 = in;
    f.aux = definitionForm              ? NoName
            : terms[in].kind == TK::Var ? terms[in].name1
                                        : NameTable::fresh(nextName++);
    uint32_t sel = nodeOf(net.enter(portOf(x, 1)));
    if (net.nodes[sel].kind != NodeKind::Con) {
      error(ReadbackError::InvalidNumericMatch);
      return finish(stack, terms.leaf(TK::Err));
    }
    f.aux2 = sel;
    return readAt(net.enter(portOf(sel, 1)));
  }
  case 2: f.t1 = in; return readAt(net.enter(portOf(f.aux2, 2)));
  default: break;
  }
  // The successor arm is `λp body`, perhaps behind a generated definition;
  // its body becomes the arm, with `p` renamed `<name>-1`.
  // (A generated definition's switch stays as its book holds it: no name,
  // the arm still a λ.)
  TermId arg = f.t0, zero = f.t1, succ = in;
  NameId bnd = f.aux;
  if (!definitionForm) {
    expander.expand(succ);
    const TermNode s = terms[succ];
    if (s.kind == TK::Lam && s.pat1 != Pat::Chn) {
      if (s.pat1 == Pat::Var)
        substVar(terms, s.a, s.name1, terms.names.intern(terms.names.str(bnd) + "-1"));
      succ = s.a;
    } else {
      error(ReadbackError::InvalidNumericMatch);
    }
  }
  TermNode swt;
  swt.kind = TK::Swt;
  swt.name1 = bnd;
  swt.a = arg;
  swt.b = zero;
  swt.c = succ;
  return finish(stack, terms.add(swt));
}

/// Puts `let {fst snd} = val;` (or `let (fst, snd) = val;`) at the lowest term
/// holding every use of the two names (the first, in post-order, whose uses
/// reach the total), or around the whole term.
void Reader::insertSplit(TermId root, FanKind fan, Pat p1, NameId n1, Pat p2, NameId n2,
                         TermId val) {
  auto isUse = [&](TermId t) {
    const TermNode &n = terms[t];
    return n.kind == TK::Var && ((p1 == Pat::Var && n.name1 == n1) || (p2 == Pat::Var && n.name1 == n2));
  };
  struct Visit {
    TermId t;
    uint32_t parent; // index in the stack; ~0u for the root
    size_t count;
    bool expanded;
  };
  std::vector<TermId> above; // what walk found lies in these, innermost first
  auto walk = [&](size_t threshold) -> std::optional<TermId> {
    std::vector<Visit> stack{{root, ~0u, 0, false}};
    while (!stack.empty()) {
      size_t i = stack.size() - 1;
      if (!stack[i].expanded) {
        stack[i].expanded = true;
        stack[i].count = isUse(stack[i].t) ? 1 : 0;
        llvm::SmallVector<TermId, 4> kids;
        terms.forEachChild(stack[i].t, [&](TermId c) { kids.push_back(c); });
        for (size_t k = kids.size(); k-- > 0;)
          stack.push_back({kids[k], uint32_t(i), 0, false});
        continue;
      }
      // Every child of this term is done and has added its count.
      Visit v = stack[i];
      stack.pop_back();
      if (v.count >= threshold) {
        for (uint32_t k = v.parent; k != ~0u; k = stack[k].parent)
          above.push_back(stack[k].t);
        return v.t;
      }
      if (v.parent != ~0u)
        stack[v.parent].count += v.count;
    }
    return std::nullopt;
  };
  // First pass: count every use; second: find where they all meet.
  auto meeting = [&]() -> std::optional<TermId> {
    size_t uses = 0;
    std::vector<TermId> work{root};
    while (!work.empty()) {
      TermId t = work.back();
      work.pop_back();
      uses += isUse(t) ? 1 : 0;
      terms.forEachChild(t, [&](TermId c) { work.push_back(c); });
    }
    return walk(uses);
  };
  // A definition's `let {a b} = x;` comes first under the binder of `x`,
  // where Bend's linearization put it in the source it prints.
  auto underBinder = [&]() -> std::optional<TermId> {
    if (!definitionForm || fan != FanKind::Dup || terms[val].kind != TK::Var)
      return std::nullopt;
    NameId x = terms[val].name1;
    std::vector<TermId> work{root};
    while (!work.empty()) {
      TermId t = work.back();
      work.pop_back();
      const TermNode &n = terms[t];
      if (n.kind == TK::Lam && n.pat1 == Pat::Var && n.name1 == x)
        return n.a;
      if (n.kind == TK::Let && ((n.pat1 == Pat::Var && n.name1 == x) || (n.pat2 == Pat::Var && n.name2 == x)))
        return n.b;
      terms.forEachChild(t, [&](TermId c) { work.push_back(c); });
    }
    return std::nullopt;
  };
  // Elsewhere in a definition, a split comes first in the body, case or
  // let around the place where its uses meet, where its source has it, not
  // inside an operand: up through operations, applications, pairs, a let's
  // value and a switch's scrutinee, never past a binder.
  auto statementAbove = [&](TermId meet) -> TermId {
    if (!definitionForm)
      return meet;
    TermId t = meet;
    for (TermId up : above) {
      const TermNode &n = terms[up];
      bool statement = n.kind == TK::Lam || (n.kind == TK::Let && n.b == t) ||
                       (n.kind == TK::Swt && n.a != t);
      if (statement)
        break;
      t = up;
    }
    return t;
  };
  // (A binder's body is already such a place.)
  std::optional<TermId> at = underBinder();
  if (!at) {
    at = meeting();
    assert(at && "the uses always meet at the root");
    at = statementAbove(*at);
  }
  TermId moved = terms.add(terms[*at]);
  TermNode let;
  let.kind = TK::Let;
  let.sub = uint8_t(fan);
  let.pat1 = p1;
  let.name1 = n1;
  let.pat2 = p2;
  let.name2 = n2;
  let.a = val;
  let.b = moved;
  terms[*at] = let;
}

/// Bend's collect_unscoped + apply_unscoped: a variable used where no binder
/// of its name is in scope is unscoped; its uses and binders get a `$`.
void Reader::fixUnscoped(TermId root) {
  llvm::DenseMap<NameId, uint32_t> inScope;
  llvm::DenseSet<NameId> unscoped;
  enum class Do : uint8_t { Visit, Bind, Unbind };
  struct Item {
    Do what;
    TermId t;    // Visit
    NameId name; // Bind, Unbind
  };
  std::vector<Item> work{{Do::Visit, root, NoName}};
  auto visit = [&](TermId t) { work.push_back({Do::Visit, t, NoName}); };
  // Pushed in reverse: bind `name`, visit `body`, unbind.
  auto under = [&](Pat p, NameId name, TermId body) {
    if (p != Pat::Var)
      return visit(body);
    work.push_back({Do::Unbind, NoTerm, name});
    visit(body);
    work.push_back({Do::Bind, NoTerm, name});
  };
  while (!work.empty()) {
    Item it = work.back();
    work.pop_back();
    if (it.what == Do::Bind) {
      ++inScope[it.name];
      continue;
    }
    if (it.what == Do::Unbind) {
      --inScope[it.name];
      continue;
    }
    const TermNode n = terms[it.t];
    switch (n.kind) {
    case TK::Var: {
      auto s = inScope.find(n.name1);
      if (s == inScope.end() || s->second == 0)
        unscoped.insert(n.name1);
      break;
    }
    case TK::Lam: under(n.pat1, n.name1, n.a); break;
    case TK::Let:
      // The value sees neither name; the body sees both.
      if (n.pat2 == Pat::Var)
        work.push_back({Do::Unbind, NoTerm, n.name2});
      under(n.pat1, n.name1, n.b);
      if (n.pat2 == Pat::Var)
        work.push_back({Do::Bind, NoTerm, n.name2});
      visit(n.a);
      break;
    case TK::Swt:
      // The zero arm sees no new name, the successor arm sees `<name>-1`
      // (where the switch names one).
      if (n.name1 != NoName)
        under(Pat::Var, terms.names.intern(terms.names.str(n.name1) + "-1"), n.c);
      else
        visit(n.c);
      visit(n.b);
      visit(n.a);
      break;
    default: terms.forEachChild(it.t, visit); break;
    }
  }
  if (unscoped.empty())
    return;
  std::vector<TermId> all{root};
  while (!all.empty()) {
    TermId t = all.back();
    all.pop_back();
    TermNode &n = terms[t];
    if (n.kind == TK::Var && unscoped.contains(n.name1))
      n.kind = TK::Link;
    if ((n.kind == TK::Lam || n.kind == TK::Let) && n.pat1 == Pat::Var && unscoped.contains(n.name1))
      n.pat1 = Pat::Chn;
    if (n.kind == TK::Let && n.pat2 == Pat::Var && unscoped.contains(n.name2))
      n.pat2 = Pat::Chn;
    terms.forEachChild(t, [&](TermId c) { all.push_back(c); });
  }
}

TermId Reader::readNet() {
  TermId root = read(net.enter(RootPort));
  // A CON whose first variable was read but which nothing read as a λ, a pair
  // or an application takes a value apart, as `let (a, b) = value;` of the
  // definition's source does: read that value from its principal port.
  auto letsOfPairs = [&] {
    for (uint32_t x : firstBinders)
      if (!built.count(x) && !applied.count(x) &&
          (tupleLet(x) || (definitionForm && producer(net.enter(portOf(x, 0))))) &&
          seenFans.insert(x).second)
        scope.insert(x);
    firstBinders.clear();
  };
  letsOfPairs();
  struct Split {
    FanKind fan;
    Pat p1, p2;
    NameId n1, n2;
    TermId val;
  };
  std::vector<Split> splits;
  while (!scope.empty()) {
    uint32_t x = *scope.begin();
    scope.erase(scope.begin());
    TermId val = read(net.enter(portOf(x, 0)));
    auto [p1, n1] = declName(portOf(x, 1));
    auto [p2, n2] = declName(portOf(x, 2));
    bool tuple = net.nodes[x].kind == NodeKind::Con;
    splits.push_back({tuple ? FanKind::Tup : FanKind::Dup, p1, p2, n1, n2, val});
    letsOfPairs();
  }
  // A split goes where the uses of its names meet, so in a definition one
  // whose value reads a name that another binds (`let {c d} = b;` after
  // `let {a b} = x;`) goes in first: the other's place then takes that use
  // into account. (A result keeps Bend's order, unscoped names and all.)
  std::vector<size_t> order(splits.size());
  std::iota(order.begin(), order.end(), size_t(0));
  if (definitionForm)
    order = splitOrder(splits.size(), [&](size_t i, auto &&use) {
         std::vector<TermId> work{splits[i].val};
         while (!work.empty()) {
           TermId t = work.back();
           work.pop_back();
           if (terms[t].kind == TK::Var)
             use(terms[t].name1);
           terms.forEachChild(t, [&](TermId c) { work.push_back(c); });
         }
       }, [&](size_t i, auto &&bind) {
         if (splits[i].p1 == Pat::Var)
           bind(splits[i].n1);
         if (splits[i].p2 == Pat::Var)
           bind(splits[i].n2);
       });
  for (size_t i : order) {
    const Split &sp = splits[i];
    insertSplit(root, sp.fan, sp.p1, sp.n1, sp.p2, sp.n2, sp.val);
  }
  fixUnscoped(root);
  return root;
}

} // namespace bendc::readback
