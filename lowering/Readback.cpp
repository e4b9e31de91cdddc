// Readback of a normal form to Bend text, step by step as Bend 0.2.38 does it:
//
//   tree text ─NetTextParser─► INet (nodes with three ports, Bend's INet)
//   INet ─Reader─► term ─Expander─► generated references expanded
//   term ─Resugar─► strings, then lists ─print─► text
//
// A generated definition of the compiled book goes net::Def ─buildNet─► INet
// ─Reader (linear)─► term. Every walk over the result uses an explicit stack:
// results can be lists of millions of elements, nested that deep.
#include "lowering/Readback.h"

#include "runtime/common/Numeric.h"
#include "runtime/common/NumericText.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/ConvertUTF.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/Unicode.h"

#include <algorithm>
#include <cassert>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <numeric>
#include <optional>
#include <set>

namespace bendc::lowering {

namespace {

namespace num = rt::num;

// ---------------------------------------------------------------------------
// Names
// ---------------------------------------------------------------------------

/// A variable or definition name: either a fresh one, numbered (0 is `a`, 25
/// is `z`, 26 is `ab`, 27 is `bb`: base 26, least significant letter first,
/// as Bend names readback variables), or an interned string.
using NameId = uint32_t;
constexpr NameId NoName = ~0u;
constexpr NameId InternedBit = 1u << 31;

class NameTable {
public:
  static NameId fresh(uint64_t n) {
    assert(n < InternedBit && "too many fresh names");
    return NameId(n);
  }
  NameId intern(llvm::StringRef s) {
    auto [it, inserted] = ids.try_emplace(s, NameId(strs.size()) | InternedBit);
    if (inserted)
      strs.push_back(it->first());
    return it->second;
  }
  void append(std::string &out, NameId n) const {
    if (n & InternedBit) {
      out += strs[n & ~InternedBit];
      return;
    }
    uint64_t v = n;
    do {
      out += char('a' + v % 26);
      v /= 26;
    } while (v != 0);
  }
  std::string str(NameId n) const {
    std::string s;
    append(s, n);
    return s;
  }

private:
  llvm::StringMap<NameId> ids;
  std::vector<llvm::StringRef> strs;
};

// ---------------------------------------------------------------------------
// Terms: Bend's `Term`, the subset readback produces
// ---------------------------------------------------------------------------

using TermId = uint32_t;
constexpr TermId NoTerm = ~0u;

enum class TK : uint8_t { Var, Link, Lam, App, Let, Fan, Era, Num, Str, List, Oper, Swt, Ref, Err };
/// A binder: `*`, `x` or the unscoped `$x`.
enum class Pat : uint8_t { Erased, Var, Chn };
enum class FanKind : uint8_t { Tup, Dup };

/// One term node. Fields by kind:
///   Var, Link, Ref: name1.            Lam: pat1/name1 binds in a (body).
///   App: a fun, b arg.                Let: {pat1 pat2} = a; b (sub: FanKind).
///   Fan: (a, b) or {a b} (sub).       Oper: (sub: core::Op) a b.
///   Swt: switch name1 = a { 0: b; _: c; }
///   Num: sub core::NumKind, a value (u24, i24 as int32, f24 as float bits).
///   Str: a indexes Terms::strs.       List: a indexes Terms::lists.
struct TermNode {
  TK kind = TK::Err;
  uint8_t sub = 0;
  Pat pat1 = Pat::Erased, pat2 = Pat::Erased;
  NameId name1 = NoName, name2 = NoName;
  uint32_t a = 0, b = 0, c = 0;
};
static_assert(sizeof(TermNode) == 24, "a term node is kept small: results can be huge");

struct Terms {
  std::vector<TermNode> nodes;
  std::vector<std::vector<TermId>> lists;
  std::vector<std::u32string> strs;
  NameTable names;

  TermNode &operator[](TermId t) { return nodes[t]; }
  const TermNode &operator[](TermId t) const { return nodes[t]; }

  TermId add(const TermNode &n) {
    nodes.push_back(n);
    return TermId(nodes.size() - 1);
  }
  TermId leaf(TK kind) {
    TermNode n;
    n.kind = kind;
    return add(n);
  }
  TermId named(TK kind, NameId name) {
    TermNode n;
    n.kind = kind;
    n.name1 = name;
    return add(n);
  }
  TermId lam(Pat pat, NameId name, TermId body) {
    TermNode n;
    n.kind = TK::Lam;
    n.pat1 = pat;
    n.name1 = name;
    n.a = body;
    return add(n);
  }
  TermId pair(TK kind, uint8_t sub, TermId a, TermId b) {
    TermNode n;
    n.kind = kind;
    n.sub = sub;
    n.a = a;
    n.b = b;
    return add(n);
  }
  TermId number(core::NumKind kind, uint32_t value) {
    TermNode n;
    n.kind = TK::Num;
    n.sub = uint8_t(kind);
    n.a = value;
    return add(n);
  }

  /// Calls `f` on each child, in Bend's order. `f` may add nodes.
  template <typename F> void forEachChild(TermId t, F &&f) {
    TermNode n = nodes[t];
    switch (n.kind) {
    case TK::Lam: f(n.a); return;
    case TK::App:
    case TK::Let:
    case TK::Fan:
    case TK::Oper:
      f(n.a);
      f(n.b);
      return;
    case TK::Swt:
      f(n.a);
      f(n.b);
      f(n.c);
      return;
    case TK::List:
      for (size_t i = 0; i < lists[n.a].size(); ++i)
        f(lists[n.a][i]);
      return;
    default: return;
    }
  }

  /// A deep copy of `src`.
  TermId clone(TermId src) {
    TermId root = add(nodes[src]);
    std::vector<TermId> work{root};
    auto copyChild = [&](uint32_t &slot) {
      TermId copy = add(nodes[slot]);
      slot = copy;
      work.push_back(copy);
    };
    while (!work.empty()) {
      TermId t = work.back();
      work.pop_back();
      TermNode n = nodes[t];
      switch (n.kind) {
      case TK::Lam: copyChild(n.a); break;
      case TK::App:
      case TK::Let:
      case TK::Fan:
      case TK::Oper:
        copyChild(n.a);
        copyChild(n.b);
        break;
      case TK::Swt:
        copyChild(n.a);
        copyChild(n.b);
        copyChild(n.c);
        break;
      case TK::Str: {
        std::u32string s = strs[n.a];
        n.a = uint32_t(strs.size());
        strs.push_back(std::move(s));
        break;
      }
      case TK::List: {
        std::vector<TermId> els = lists[n.a];
        for (TermId &e : els)
          copyChild(e);
        n.a = uint32_t(lists.size());
        lists.push_back(std::move(els));
        break;
      }
      default: break;
      }
      nodes[t] = n;
    }
    return root;
  }
};

// ---------------------------------------------------------------------------
// The net: Bend's INet, built from trees exactly as its hvm_to_net builds it
// ---------------------------------------------------------------------------

enum class NodeKind : uint8_t { Rot, Era, Con, Dup, Ref, Num, Opr, Swi };

/// A port: node index and slot (0 principal, 1 and 2 auxiliary).
using Port = uint32_t;
constexpr Port portOf(uint32_t node, uint32_t slot) { return node << 2 | slot; }
constexpr uint32_t nodeOf(Port p) { return p >> 2; }
constexpr uint32_t slotOf(Port p) { return p & 3; }
/// Node 0 is the root node; the net hangs from its port 1.
constexpr Port RootPort = portOf(0, 1);
constexpr uint32_t MaxNodes = 1u << 29;

struct INet {
  struct Node {
    NodeKind kind;
    uint32_t data; // Num: the HVM2 number word; Ref: index into *names
    Port ports[3];
  };
  std::vector<Node> nodes;
  const std::vector<llvm::StringRef> *names = nullptr;
  /// Whether the tree below each node is closed: no wire leaves it.
  std::vector<bool> closed;
  /// Whether the tree below each node holds an operator or a switch, which
  /// take a value in at their principal port rather than make one.
  std::vector<bool> consumes;

  Port enter(Port p) const { return nodes[nodeOf(p)].ports[slotOf(p)]; }
  NodeKind kindAt(Port p) const { return nodes[nodeOf(p)].kind; }
};

NodeKind nodeKind(net::TreeKind k) {
  switch (k) {
  case net::TreeKind::Era: return NodeKind::Era;
  case net::TreeKind::Ref: return NodeKind::Ref;
  case net::TreeKind::Num: return NodeKind::Num;
  case net::TreeKind::Con: return NodeKind::Con;
  case net::TreeKind::Dup: return NodeKind::Dup;
  case net::TreeKind::Opr: return NodeKind::Opr;
  case net::TreeKind::Swi: return NodeKind::Swi;
  case net::TreeKind::Var: break;
  }
  llvm_unreachable("variables are wires, not nodes");
}

/// Which subtrees are closed. Bend asks this of the tree at port 1 of every
/// CON it meets (a closed one makes the CON a tuple) and walks the tree each
/// time; numbering the trees in preorder answers it for all of them in one
/// pass: a subtree is closed when every wire leaving one of its auxiliary
/// ports ends inside its preorder interval.
void computeClosed(INet &net) {
  size_t n = net.nodes.size();
  std::vector<int32_t> tin(n, -1), tout(n, -1), lo(n, INT32_MAX), hi(n, INT32_MIN);
  std::vector<uint32_t> order;
  order.reserve(n);
  net.consumes.assign(n, false);
  auto childAt = [&](uint32_t x, uint32_t slot) -> uint32_t {
    Port q = net.nodes[x].ports[slot];
    if (slotOf(q) != 0 || nodeOf(q) == 0 || nodeOf(q) == x)
      return 0;
    return nodeOf(q);
  };
  std::vector<uint32_t> stack;
  for (uint32_t x = 1; x < n; ++x) {
    Port up = net.nodes[x].ports[0];
    if (slotOf(up) != 0 && nodeOf(up) != 0 && nodeOf(up) != x)
      continue; // hangs from another node's auxiliary port
    stack.push_back(x);
    while (!stack.empty()) {
      uint32_t y = stack.back();
      stack.pop_back();
      tin[y] = int32_t(order.size());
      order.push_back(y);
      for (uint32_t slot : {2u, 1u})
        if (uint32_t c = childAt(y, slot); c != 0 && tin[c] < 0)
          stack.push_back(c);
    }
  }
  for (size_t k = order.size(); k-- > 0;) {
    uint32_t y = order[k];
    int32_t last = tin[y], l = INT32_MAX, h = INT32_MIN;
    NodeKind kind = net.nodes[y].kind;
    bool feeds = kind == NodeKind::Opr || kind == NodeKind::Swi;
    for (uint32_t slot : {1u, 2u}) {
      Port q = net.nodes[y].ports[slot];
      if (q == portOf(y, slot))
        continue; // a wire with one end: it loops on itself
      if (uint32_t c = childAt(y, slot); c != 0 && tin[c] > tin[y]) {
        feeds = feeds || net.consumes[c];
        last = std::max(last, tout[c]);
        l = std::min(l, lo[c]);
        h = std::max(h, hi[c]);
        continue;
      }
      int32_t other = nodeOf(q) == 0 ? -1 : tin[nodeOf(q)];
      l = std::min(l, other);
      h = std::max(h, other);
    }
    tout[y] = last;
    net.consumes[y] = feeds;
    lo[y] = l;
    hi[y] = h;
  }
  net.closed.assign(n, false);
  for (uint32_t y : order)
    net.closed[y] = lo[y] >= tin[y] && hi[y] <= tout[y];
}

/// Builds the net of `def` as Bend's hvm_to_net does, node for node in the
/// same order: the root tree (unless the root is a variable), then both sides
/// of each redex; inside a tree, a node before its children, the second child
/// before the first. Returns nothing when the net is too large to index.
/// The caller still has to computeClosed().
std::optional<INet> buildNet(const net::Book &book, const net::Def &def) {
  INet net;
  net.names = &book.names;
  net.nodes.push_back({NodeKind::Rot, 0, {portOf(0, 2), portOf(0, 1), portOf(0, 0)}});

  // A redex joining two variables joins their wires.
  llvm::DenseMap<uint32_t, uint32_t> joined;
  auto find = [&](uint32_t v) {
    for (auto it = joined.find(v); it != joined.end(); it = joined.find(v))
      v = it->second;
    return v;
  };
  for (const net::Redex &r : def.redexes) {
    const net::Tree &l = book[r.lhs], &rr = book[r.rhs];
    if (l.kind == net::TreeKind::Var && rr.kind == net::TreeKind::Var) {
      uint32_t a = find(l.value), b = find(rr.value);
      if (a != b)
        joined[a] = b;
    }
  }

  // Wire keys: 0 is the root; tags keep the key spaces apart.
  constexpr uint64_t RootKey = 0, VarTag = 1ull << 62, FreshTag = 2ull << 62,
                     RedexTag = 3ull << 62;
  const net::Tree &rootTree = book[def.root];
  bool rootIsVar = rootTree.kind == net::TreeKind::Var;
  uint32_t rootVar = rootIsVar ? find(rootTree.value) : ~0u;
  auto varKey = [&](uint32_t v) -> uint64_t {
    v = find(v);
    return v == rootVar ? RootKey : VarTag | v;
  };

  llvm::DenseMap<uint64_t, Port> open;
  auto link = [&](Port a, Port b) {
    net.nodes[nodeOf(a)].ports[slotOf(a)] = b;
    net.nodes[nodeOf(b)].ports[slotOf(b)] = a;
  };
  auto connect = [&](Port p, uint64_t key) {
    if (key == RootKey)
      return link(p, RootPort);
    auto [it, inserted] = open.try_emplace(key, p);
    if (!inserted) {
      link(p, it->second);
      open.erase(it);
    }
  };

  uint64_t freshCount = 0;
  bool tooLarge = false;
  std::vector<std::pair<uint64_t, net::TreeId>> stack;
  auto emit = [&](uint64_t key, net::TreeId id) {
    stack.push_back({key, id});
    while (!stack.empty()) {
      auto [k, tid] = stack.back();
      stack.pop_back();
      if (net.nodes.size() >= MaxNodes) {
        tooLarge = true;
        stack.clear();
        return;
      }
      const net::Tree &t = book[tid];
      uint32_t x = uint32_t(net.nodes.size());
      INet::Node node{nodeKind(t.kind), 0, {portOf(x, 0), portOf(x, 1), portOf(x, 2)}};
      if (t.kind == net::TreeKind::Era || t.kind == net::TreeKind::Ref ||
          t.kind == net::TreeKind::Num) {
        node.data = t.value;
        net.nodes.push_back(node);
        connect(portOf(x, 0), k);
        link(portOf(x, 1), portOf(x, 2));
        continue;
      }
      auto child = [&](net::TreeId c) -> uint64_t {
        const net::Tree &ct = book[c];
        if (ct.kind == net::TreeKind::Var)
          return varKey(ct.value);
        uint64_t fk = FreshTag | freshCount++;
        stack.push_back({fk, c});
        return fk;
      };
      uint64_t fst = child(t.fst);
      uint64_t snd = child(t.snd);
      net.nodes.push_back(node);
      connect(portOf(x, 0), k);
      connect(portOf(x, 1), fst);
      connect(portOf(x, 2), snd);
    }
  };

  if (!rootIsVar)
    emit(RootKey, def.root);
  for (size_t i = 0; i < def.redexes.size(); ++i) {
    const net::Redex &r = def.redexes[i];
    bool lv = book[r.lhs].kind == net::TreeKind::Var, rv = book[r.rhs].kind == net::TreeKind::Var;
    if (lv && rv)
      continue;
    if (lv) {
      emit(varKey(book[r.lhs].value), r.rhs);
    } else if (rv) {
      emit(varKey(book[r.rhs].value), r.lhs);
    } else {
      emit(RedexTag | i, r.lhs);
      emit(RedexTag | i, r.rhs);
    }
  }
  if (tooLarge)
    return std::nullopt;
  return net;
}

// ---------------------------------------------------------------------------
// Net to term (Bend's net_to_term)
// ---------------------------------------------------------------------------

enum class ReadbackError : uint8_t { InvalidNumericMatch, InvalidNumericOp, ReachedRoot, Cyclic };

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

class Expander;

/// Replaces the free occurrences of `from` in `t` by the variable `to`.
void substVar(Terms &terms, TermId t, NameId from, NameId to) {
  std::vector<TermId> work{t};
  while (!work.empty()) {
    TermId x = work.back();
    work.pop_back();
    TermNode &n = terms[x];
    switch (n.kind) {
    case TK::Var:
      if (n.name1 == from)
        n.name1 = to;
      break;
    case TK::Lam:
      if (!(n.pat1 == Pat::Var && n.name1 == from))
        work.push_back(n.a);
      break;
    case TK::Let:
      work.push_back(n.a);
      if (!(n.pat1 == Pat::Var && n.name1 == from) && !(n.pat2 == Pat::Var && n.name2 == from))
        work.push_back(n.b);
      break;
    case TK::Swt:
      work.push_back(n.a);
      if (n.name1 != from) {
        work.push_back(n.b);
        work.push_back(n.c);
      }
      break;
    default: terms.forEachChild(x, [&](TermId c) { work.push_back(c); }); break;
    }
  }
}

/// Reads a net back to a term. Non-linear (what `bend run` does): a
/// duplication is read through to the value it copies, and a superposition
/// met on the way picks the side that duplication came from. Linear: a
/// duplication becomes `let {a b} = value;` above its uses.
class Reader {
public:
  Reader(const INet &net, Terms &terms, Expander &expander, bool linear)
      : net(net), terms(terms), expander(expander), linear(linear) {
    if (!linear)
      visits.assign(net.nodes.size() * 4, 0);
  }

  /// Reading a generated definition for Expander: Bend inserts such a
  /// definition as the term its book holds, where a switch names no
  /// variable and its successor arm is still `λp body`.
  bool definitionForm = false;

  /// The whole term: the root, the duplications found on the way (linear),
  /// then variables used outside their binder become unscoped `$x`.
  TermId readNet();
  const std::vector<ReadbackError> &errors() const { return errs; }

private:
  enum class FK : uint8_t { Lam, Tup, App, DupAux, SupPaired, Decay, Opr, Swi };
  struct Frame {
    FK kind;
    uint8_t step = 0;
    uint8_t slot = 0;  // with node: the port this frame reads
    Pat pat = Pat::Erased;
    uint32_t node = 0;
    uint32_t aux = 0;  // Lam: binder name; Opr: state index; Swi: switch name;
                       // SupPaired: the DUP slot it answers
    uint32_t aux2 = 0; // Swi: the node holding both arms
    TermId t0 = NoTerm, t1 = NoTerm;
    uint64_t state = 0; // non-linear: the DUP path when the read began (dupState)
  };
  static_assert(sizeof(Frame) == 32, "one frame per level of a deep term");
  /// The arguments of a numeric operation, gathered in order as Bend does.
  struct OprState {
    Port ports[3];
    uint8_t nPorts = 0, next = 0, nArgs = 0, nTypes = 0, nOps = 0;
    bool flipped = false, partial = false;
    bool argIsNum[3] = {};
    uint32_t argVal[3] = {};
    TermId argTerm[3] = {};
    uint32_t types[3] = {}, ops[3] = {};
  };
  struct Action {
    bool read;
    Port port;
    TermId term;
  };
  static Action readAt(Port p) { return {true, p, NoTerm}; }
  static Action done(TermId t) { return {false, 0, t}; }

  TermId read(Port start);
  bool begin(Port p, std::vector<Frame> &stack, TermId &out);
  Action step(std::vector<Frame> &stack, TermId in);
  Action finish(std::vector<Frame> &stack, TermId t);
  Action stepOpr(std::vector<Frame> &stack, TermId in);
  Action stepSwi(std::vector<Frame> &stack, TermId in);
  TermId oprTerm(const OprState &s);

  void error(ReadbackError e) { errs.push_back(e); }
  NameId varName(Port p) {
    auto [it, inserted] = portNames.try_emplace(p, NameId(0));
    if (inserted)
      it->second = NameTable::fresh(nextName++);
    return it->second;
  }
  /// A binder's name; none when the variable goes to an eraser.
  std::pair<Pat, NameId> declName(Port p) {
    if (net.kindAt(net.enter(p)) == NodeKind::Era)
      return {Pat::Erased, NoName};
    return {Pat::Var, varName(p)};
  }
  NameId refName(uint32_t index) {
    auto [it, inserted] = refNames.try_emplace(index, NoName);
    if (inserted)
      it->second = terms.names.intern((*net.names)[index]);
    return it->second;
  }
  /// Whether `p` is a port a value comes out of for certain: a number, a
  /// reference or an eraser, the result of an operator or a switch, or that
  /// of a definition's call.
  bool producer(Port p) const {
    NodeKind k = net.kindAt(p);
    if (slotOf(p) == 0)
      return k == NodeKind::Num || k == NodeKind::Ref || k == NodeKind::Era;
    if (slotOf(p) != 2)
      return false;
    if (k == NodeKind::Opr || k == NodeKind::Swi)
      return true;
    Port fun = net.enter(portOf(nodeOf(p), 0));
    return k == NodeKind::Con && slotOf(fun) == 0 && net.kindAt(fun) == NodeKind::Ref;
  }
  bool isTup(uint32_t node, bool followLets = true) const {
    Port p = net.enter(portOf(node, 1));
    if (net.kindAt(p) == NodeKind::Era)
      return false;
    // In a definition, a λ's variable goes where it is used, never to an
    // operator's or a switch's result: there the node holds that result as
    // its first element. (A result's net reads as Bend reads it: a λ.)
    if (definitionForm && slotOf(p) == 2 &&
        (net.kindAt(p) == NodeKind::Opr || net.kindAt(p) == NodeKind::Swi))
      return true;
    // Nor is a tree that feeds an operator or a switch ever a pair's
    // element: there the λ's variable is read (and perhaps duplicated first)
    // by a computation whose result is dropped (`λa let * = (& a 0); ...`),
    // which a pure program may leave out.
    if (definitionForm && slotOf(p) == 0 && net.consumes[nodeOf(p)])
      return false;
    // Two first ports joined are a variable's binder and its use: where the
    // other node was read as a λ, or takes a pair apart, this one holds that
    // variable as an element.
    if (definitionForm && slotOf(p) == 1 && net.kindAt(p) == NodeKind::Con &&
        (lambdas.count(nodeOf(p)) || (followLets && tupleLet(nodeOf(p)))))
      return true;
    if (slotOf(p) != 0)
      return p == portOf(node, 1);
    return net.closed[nodeOf(p)];
  }
  /// A CON whose principal port meets a pair's: in a definition's net,
  /// `let (a, b) = pair` (a CON taking the pair apart). Met by a λ instead,
  /// it stays an application.
  bool tupleLet(uint32_t node) const {
    Port other = net.enter(portOf(node, 0));
    return linear && slotOf(other) == 0 && net.kindAt(other) == NodeKind::Con &&
           isTup(nodeOf(other), /*followLets=*/false);
  }
  bool erasedFirst(uint32_t node) const {
    return net.kindAt(net.enter(portOf(node, 1))) == NodeKind::Era;
  }
  void insertSplit(TermId root, FanKind fan, Pat p1, NameId n1, Pat p2, NameId n2, TermId val);
  void fixUnscoped(TermId root);

  const INet &net;
  Terms &terms;
  Expander &expander;
  bool linear;

  llvm::DenseMap<Port, NameId> portNames;
  uint64_t nextName = 0;
  llvm::DenseMap<uint32_t, NameId> refNames;
  std::vector<ReadbackError> errs;
  std::vector<uint8_t> dupPath;         // non-linear: the DUP slots we came through
  std::vector<uint64_t> dupHashes{0};   // non-linear: a hash of each prefix of dupPath
  std::vector<uint32_t> visits;         // non-linear: reads of each port on the current path
  uint64_t reads = 0;                   // non-linear: ports read so far
  std::vector<OprState> oprStates;      // one per Opr frame on the stack
  std::set<uint32_t> scope;             // linear: DUP and tuple-let nodes to bind, by node index
  llvm::DenseSet<uint32_t> seenFans;    // linear
  // linear: CON nodes read as a λ or pair, as an application, and those
  // whose first variable was read. One of the last that is neither may take
  // a value apart: `let (a, b) = value` (see readNet).
  llvm::DenseSet<uint32_t> built, applied;
  llvm::DenseSet<uint32_t> lambdas;     // linear: CON nodes read as a λ
  std::set<uint32_t> firstBinders;
  llvm::DenseSet<Port> seen;            // linear
  // A port read again inside its own reading, with the same DUP path, means
  // the read never ends (it is a function of the two): Bend's non-linear
  // readback loops forever there; here it gives a cyclic term. Read again
  // with another path, it may end (a Church numeral's duplications are read
  // through once per application), so it goes on, within bounds for nets
  // whose reading grows without end: a DUP path (a loop through a
  // duplication that never meets its superposition makes it grow each
  // turn), and a budget of reads (beyond any printable size).
  static constexpr size_t MaxDupPath = size_t(1) << 12;
  static constexpr uint64_t MaxReads = uint64_t(1) << 26;

  uint64_t dupState() const { return dupHashes.back() ^ (uint64_t(dupPath.size()) << 56); }
  void pushDup(uint8_t slot) {
    dupPath.push_back(slot);
    uint64_t h = (dupHashes.back() ^ (slot + 1)) * 0x9E3779B97F4A7C15ull;
    dupHashes.push_back(h ^ (h >> 29));
  }
  uint8_t popDup() {
    uint8_t slot = dupPath.back();
    dupPath.pop_back();
    dupHashes.pop_back();
    return slot;
  }
  /// The reads under way (port and DUP path, hashed), to find one begun
  /// again inside itself.
  llvm::DenseSet<uint64_t> active;
  static uint64_t readKey(Port p, uint64_t state) {
    uint64_t h = (state ^ uint64_t(p)) * 0xBF58476D1CE4E5B9ull;
    return (h ^ (h >> 31)) & ~uint64_t(3); // clear of DenseSet's two reserved keys
  }
};

/// Expands references to generated, non-recursive definitions (Bend's
/// expand_generated), reading each such definition's net once.
class Expander {
public:
  Expander(const net::Book &book, Terms &terms) : book(book), terms(terms) {}

  void expand(TermId root) {
    std::vector<TermId> work{root};
    while (!work.empty()) {
      TermId t = work.back();
      work.pop_back();
      // A definition whose body is a reference (bendc compiles `λa (f a)`
      // to `f`) expands to that one's body in turn; a recursive one is never
      // expanded, so this ends.
      while (terms[t].kind == TK::Ref) {
        std::optional<TermId> body = bodyFor(terms[t].name1);
        if (!body)
          break;
        TermId copy = terms.clone(*body);
        terms[t] = terms[copy];
      }
      terms.forEachChild(t, [&](TermId c) { work.push_back(c); });
    }
  }

private:
  static bool isGenerated(llvm::StringRef name) {
    return name.contains("__") || name.contains('%');
  }

  std::optional<TermId> bodyFor(NameId name) {
    auto [it, inserted] = defOf.try_emplace(name, -1);
    if (inserted)
      it->second = expandableDef(name);
    int32_t def = it->second;
    if (def < 0)
      return std::nullopt;
    if (auto b = bodies.find(uint32_t(def)); b != bodies.end())
      return b->second;
    if (!reading.insert(uint32_t(def)).second)
      return std::nullopt;
    std::optional<INet> net = buildNet(book, book.defs[def]);
    std::optional<TermId> body;
    if (net) {
      computeClosed(*net);
      Reader reader(*net, terms, *this, /*linear=*/true);
      reader.definitionForm = true;
      body = reader.readNet();
      bodies[uint32_t(def)] = *body;
    }
    reading.erase(uint32_t(def));
    return body;
  }

  int32_t expandableDef(NameId name) {
    std::string text = terms.names.str(name);
    if (!isGenerated(text))
      return -1;
    if (!indexed)
      indexBook();
    auto it = defIndex.find(text);
    if (it == defIndex.end() || recursive[it->second])
      return -1;
    return int32_t(it->second);
  }

  /// Names the definitions and marks the recursive ones: those on a cycle of
  /// references (Tarjan's strongly connected components, without recursion).
  void indexBook() {
    indexed = true;
    size_t n = book.defs.size();
    for (size_t i = 0; i < n; ++i)
      defIndex.try_emplace(book.names[book.defs[i].name], uint32_t(i));
    std::vector<llvm::SmallVector<uint32_t, 4>> edges(n);
    for (size_t i = 0; i < n; ++i)
      net::forEachTree(book, book.defs[i], [&](net::TreeId id) {
        if (const net::Tree &t = book[id]; t.kind == net::TreeKind::Ref)
          if (auto it = defIndex.find(book.names[t.value]); it != defIndex.end())
            edges[i].push_back(it->second);
      });
    recursive.assign(n, false);
    constexpr uint32_t Unvisited = ~0u;
    std::vector<uint32_t> index(n, Unvisited), low(n, 0);
    std::vector<bool> onStack(n, false);
    std::vector<uint32_t> sccStack;
    std::vector<std::pair<uint32_t, uint32_t>> calls; // (node, next edge)
    uint32_t counter = 0;
    for (uint32_t s = 0; s < n; ++s) {
      if (index[s] != Unvisited)
        continue;
      calls.push_back({s, 0});
      index[s] = low[s] = counter++;
      sccStack.push_back(s);
      onStack[s] = true;
      while (!calls.empty()) {
        auto &[v, e] = calls.back();
        if (e < edges[v].size()) {
          uint32_t w = edges[v][e++];
          if (w == v)
            recursive[v] = true;
          if (index[w] == Unvisited) {
            index[w] = low[w] = counter++;
            sccStack.push_back(w);
            onStack[w] = true;
            calls.push_back({w, 0});
          } else if (onStack[w]) {
            low[v] = std::min(low[v], index[w]);
          }
          continue;
        }
        uint32_t done = v;
        calls.pop_back();
        if (!calls.empty())
          low[calls.back().first] = std::min(low[calls.back().first], low[done]);
        if (low[done] != index[done])
          continue;
        size_t first = sccStack.size();
        do {
          --first;
        } while (sccStack[first] != done);
        bool cycle = sccStack.size() - first > 1;
        for (size_t k = first; k < sccStack.size(); ++k) {
          onStack[sccStack[k]] = false;
          if (cycle)
            recursive[sccStack[k]] = true;
        }
        sccStack.resize(first);
      }
    }
  }

  const net::Book &book;
  Terms &terms;
  bool indexed = false;
  llvm::StringMap<uint32_t> defIndex;
  std::vector<bool> recursive;
  llvm::DenseMap<NameId, int32_t> defOf;
  llvm::DenseMap<uint32_t, TermId> bodies;
  llvm::DenseSet<uint32_t> reading;
};

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

bool commutes(core::Op op) {
  using core::Op;
  return op == Op::Add || op == Op::Mul || op == Op::Eq || op == Op::Ne || op == Op::And ||
         op == Op::Or || op == Op::Xor;
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

// ---------------------------------------------------------------------------
// Resugaring strings and lists (Bend's resugar_strings and resugar_lists)
// ---------------------------------------------------------------------------

class Resugar {
public:
  Resugar(Terms &terms, core::AdtEncoding encoding)
      : terms(terms), scott(encoding == core::AdtEncoding::Scott) {
    NameTable &n = terms.names;
    strNil = n.intern("String/Nil");
    strCons = n.intern("String/Cons");
    strConsTag = n.intern("String/Cons/tag");
    listNil = n.intern("List/Nil");
    listCons = n.intern("List/Cons");
    listConsTag = n.intern("List/Cons/tag");
  }

  void strings(TermId root) {
    std::vector<int8_t> mixedMemo(terms.nodes.size(), -1), commonMemo(terms.nodes.size(), -1);
    auto encoded = [&](TermId t, TermId &h, TermId &tl) {
      return encodedCons(t, strConsTag, h, tl) && isU24(h);
    };
    auto common = [&](TermId t, TermId &h, TermId &tl) {
      return commonCons(t, strCons, h, tl) && isU24(h);
    };
    auto either = [&](TermId t, TermId &h, TermId &tl) {
      return encoded(t, h, tl) || common(t, h, tl);
    };
    std::vector<TermId> work{root};
    while (!work.empty()) {
      TermId t = work.back();
      work.pop_back();
      if (isRef(t, strNil)) {
        makeStr(t, {});
        continue;
      }
      TermId h = NoTerm, tl = NoTerm;
      // A constructor value continues as values or calls; a call, as calls.
      if (encoded(t, h, tl) && reachesNil(tl, strNil, mixedMemo, either)) {
        makeStr(t, collectChars(h, tl, either));
        continue;
      }
      if (common(t, h, tl) && reachesNil(tl, strNil, commonMemo, common)) {
        makeStr(t, collectChars(h, tl, common));
        continue;
      }
      terms.forEachChild(t, [&](TermId c) { work.push_back(c); });
    }
  }

  void lists(TermId root) {
    std::vector<int8_t> memo(terms.nodes.size(), -1);
    auto either = [&](TermId t, TermId &h, TermId &tl) {
      return encodedCons(t, listConsTag, h, tl) || commonCons(t, listCons, h, tl);
    };
    std::vector<TermId> work{root};
    while (!work.empty()) {
      TermId t = work.back();
      work.pop_back();
      TermId h = NoTerm, tl = NoTerm;
      if (isRef(t, listNil)) {
        makeList(t, {});
      } else if (either(t, h, tl) && reachesNil(tl, listNil, memo, either)) {
        std::vector<TermId> els{h};
        for (TermId x = tl; !isRef(x, listNil);) {
          bool ok = either(x, h, x);
          assert(ok && "the chain was checked");
          (void)ok;
          els.push_back(h);
        }
        makeList(t, std::move(els));
      }
      terms.forEachChild(t, [&](TermId c) { work.push_back(c); });
    }
  }

private:
  bool isRef(TermId t, NameId name) const {
    return terms[t].kind == TK::Ref && terms[t].name1 == name;
  }
  bool isU24(TermId t) const {
    return terms[t].kind == TK::Num && terms[t].sub == uint8_t(core::NumKind::U24);
  }
  bool isApp(TermId t, TermId &fun, TermId &arg) const {
    if (terms[t].kind != TK::App)
      return false;
    fun = terms[t].a;
    arg = terms[t].b;
    return true;
  }
  bool isVar(TermId t, NameId name) const {
    return terms[t].kind == TK::Var && terms[t].name1 == name;
  }

  /// A constructor value. NumScott: `λx (x Ctr/tag head tail)`.
  /// Scott: `λ* λx (x head tail)`.
  bool encodedCons(TermId t, NameId tagRef, TermId &head, TermId &tail) const {
    const TermNode &lam = terms[t];
    if (lam.kind != TK::Lam)
      return false;
    TermId f = NoTerm, g = NoTerm, v = NoTerm;
    if (scott) {
      if (lam.pat1 != Pat::Erased)
        return false;
      const TermNode &inner = terms[lam.a];
      if (inner.kind != TK::Lam || inner.pat1 != Pat::Var)
        return false;
      return isApp(inner.a, f, tail) && isApp(f, v, head) && isVar(v, inner.name1);
    }
    TermId tag = NoTerm;
    return lam.pat1 == Pat::Var && isApp(lam.a, f, tail) && isApp(f, g, head) &&
           isApp(g, v, tag) && isVar(v, lam.name1) && isRef(tag, tagRef);
  }
  /// A constructor call: `(Ctr head tail)`.
  bool commonCons(TermId t, NameId ctr, TermId &head, TermId &tail) const {
    TermId f = NoTerm, r = NoTerm;
    return isApp(t, f, tail) && isApp(f, r, head) && isRef(r, ctr);
  }

  /// Whether following tails from `t` with `next` reaches `nil`; remembers
  /// the answer for every node on the way, so that a long chain that fails
  /// is walked once, not once per suffix.
  template <typename Next>
  bool reachesNil(TermId t, NameId nil, std::vector<int8_t> &memo, Next &&next) {
    std::vector<TermId> path;
    bool result;
    for (TermId x = t;;) {
      if (x < memo.size() && memo[x] >= 0) {
        result = memo[x] != 0;
        break;
      }
      path.push_back(x);
      TermId h = NoTerm, tl = NoTerm;
      if (isRef(x, nil)) {
        result = true;
        break;
      }
      if (!next(x, h, tl)) {
        result = false;
        break;
      }
      x = tl;
    }
    for (TermId x : path)
      if (x < memo.size())
        memo[x] = result ? 1 : 0;
    return result;
  }

  template <typename Next> std::u32string collectChars(TermId head, TermId tail, Next &&next) {
    std::u32string s;
    s += charOf(terms[head].a);
    TermId h = NoTerm;
    for (TermId x = tail; !isRef(x, strNil);) {
      bool ok = next(x, h, x);
      assert(ok && "the chain was checked");
      (void)ok;
      s += charOf(terms[h].a);
    }
    return s;
  }
  static char32_t charOf(uint32_t v) {
    bool valid = v <= 0x10FFFF && !(v >= 0xD800 && v <= 0xDFFF);
    return valid ? char32_t(v) : char32_t(0xFFFD);
  }

  void makeStr(TermId t, std::u32string s) {
    TermNode n;
    n.kind = TK::Str;
    n.a = uint32_t(terms.strs.size());
    terms.strs.push_back(std::move(s));
    terms[t] = n;
  }
  void makeList(TermId t, std::vector<TermId> els) {
    TermNode n;
    n.kind = TK::List;
    n.a = uint32_t(terms.lists.size());
    terms.lists.push_back(std::move(els));
    terms[t] = n;
  }

  Terms &terms;
  bool scott;
  NameId strNil, strCons, strConsTag, listNil, listCons, listConsTag;
};

// ---------------------------------------------------------------------------
// Printing (Bend's Display for Term)
// ---------------------------------------------------------------------------

/// Whether Rust's `{:?}` for strings writes `c` as `\u{...}`: control,
/// format, separator (but ' '), private-use and unassigned characters, and
/// combining marks. LLVM's Unicode tables stand in for Rust's, which may be
/// newer: a character assigned since then is escaped here and not by Bend.
bool escapesAsUnicode(char32_t c) {
  if (c < 0x20 || c == 0x7F)
    return true;
  if (c < 0x7F)
    return false;
  if (c == 0xA0 || c == 0xAD || c == 0x1680 || (c >= 0x2000 && c <= 0x200F) ||
      (c >= 0x2028 && c <= 0x202F) || (c >= 0x205F && c <= 0x206F) || c == 0x3000 ||
      c == 0xFEFF || (c >= 0xE000 && c <= 0xF8FF) || c >= 0xF0000)
    return true;
  if (!llvm::sys::unicode::isPrintable(int(c)))
    return true;
  char buf[8];
  char *end = buf;
  if (!llvm::ConvertCodePointToUTF8(unsigned(c), end))
    return true;
  return llvm::sys::unicode::columnWidthUTF8(llvm::StringRef(buf, size_t(end - buf))) == 0;
}

void appendStringLiteral(std::string &out, const std::u32string &s) {
  out += '"';
  for (char32_t c : s) {
    switch (c) {
    case U'\t': out += "\\t"; continue;
    case U'\r': out += "\\r"; continue;
    case U'\n': out += "\\n"; continue;
    case U'\\': out += "\\\\"; continue;
    case U'"': out += "\\\""; continue;
    case U'\0': out += "\\0"; continue;
    default: break;
    }
    if (escapesAsUnicode(c)) {
      char buf[16];
      std::snprintf(buf, sizeof buf, "\\u{%x}", unsigned(c));
      out += buf;
      continue;
    }
    char buf[8];
    char *end = buf;
    if (llvm::ConvertCodePointToUTF8(unsigned(c), end))
      out.append(buf, size_t(end - buf));
  }
  out += '"';
}

/// u24 plain, i24 always signed, f24 with three decimals (Rust's `{:.3}`:
/// exact, ties to even, `-0.000`, `NaN`, `inf`).
void appendNumber(std::string &out, core::NumKind kind, uint32_t value) {
  switch (kind) {
  case core::NumKind::U24: out += std::to_string(value); return;
  case core::NumKind::I24: {
    int64_t v = int32_t(value);
    out += v < 0 ? '-' : '+';
    out += std::to_string(v < 0 ? -v : v);
    return;
  }
  case core::NumKind::F24: {
    float f = num::bitsFloat(value);
    if (std::isnan(f)) {
      out += "NaN";
      return;
    }
    if (std::isinf(f)) {
      out += f < 0 ? "-inf" : "inf";
      return;
    }
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.3f", double(f));
    out += buf;
    return;
  }
  }
}

/// Bend's Display, or with `pretty` its display_pretty: a `let` ends its
/// line, a `switch` puts each arm on a line of its own, list elements are
/// separated by spaces.
std::string print(const Terms &terms, TermId root, bool pretty) {
  struct Item {
    enum Kind : uint8_t { Term, AppHead, Text, Indent } kind;
    TermId t;
    const char *text;
    unsigned tab = 0; // pretty: the indentation of the term's lines
  };
  std::string out;
  auto pattern = [&](Pat p, NameId n) {
    if (p == Pat::Erased) {
      out += '*';
      return;
    }
    if (p == Pat::Chn)
      out += '$';
    terms.names.append(out, n);
  };
  std::vector<Item> stack{{Item::Term, root, nullptr, 0}};
  unsigned tab = 0;
  auto term = [&](TermId t, unsigned extra = 0) { stack.push_back({Item::Term, t, nullptr, tab + extra}); };
  auto text = [&](const char *s) { stack.push_back({Item::Text, NoTerm, s}); };
  auto newline = [&](unsigned extra) { // pretty: a line break, then the indentation
    stack.push_back({Item::Indent, NoTerm, nullptr, tab + extra});
    text("\n");
  };
  while (!stack.empty()) {
    Item it = stack.back();
    stack.pop_back();
    if (it.kind == Item::Text) {
      out += it.text;
      continue;
    }
    if (it.kind == Item::Indent) {
      out.append(it.tab, ' ');
      continue;
    }
    tab = it.tab;
    const TermNode &n = terms[it.t];
    if (it.kind == Item::AppHead && n.kind == TK::App) {
      // `((f a) b)` prints as `(f a b)`.
      term(n.b);
      text(" ");
      stack.push_back({Item::AppHead, n.a, nullptr, tab});
      continue;
    }
    switch (n.kind) {
    case TK::Var: terms.names.append(out, n.name1); break;
    case TK::Link:
      out += '$';
      terms.names.append(out, n.name1);
      break;
    case TK::Ref: terms.names.append(out, n.name1); break;
    case TK::Era: out += '*'; break;
    case TK::Err: out += pretty ? "<Error>" : "<Invalid>"; break; // as Bend's two displays
    case TK::Num: appendNumber(out, core::NumKind(n.sub), n.a); break;
    case TK::Str: appendStringLiteral(out, terms.strs[n.a]); break;
    case TK::Lam:
      out += "λ";
      pattern(n.pat1, n.name1);
      out += ' ';
      term(n.a);
      break;
    case TK::App:
      out += '(';
      text(")");
      term(n.b);
      text(" ");
      stack.push_back({Item::AppHead, n.a, nullptr, tab});
      break;
    case TK::Let: {
      bool dup = FanKind(n.sub) == FanKind::Dup;
      out += "let ";
      out += dup ? '{' : '(';
      pattern(n.pat1, n.name1);
      out += dup ? " " : ", ";
      pattern(n.pat2, n.name2);
      out += dup ? '}' : ')';
      out += " = ";
      term(n.b);
      if (pretty)
        newline(0);
      text(pretty ? ";" : "; ");
      term(n.a);
      break;
    }
    case TK::Fan: {
      bool dup = FanKind(n.sub) == FanKind::Dup;
      out += dup ? '{' : '(';
      text(dup ? "}" : ")");
      term(n.b);
      text(dup ? " " : ", ");
      term(n.a);
      break;
    }
    case TK::List: {
      const std::vector<TermId> &els = terms.lists[n.a];
      out += '[';
      text("]");
      for (size_t i = els.size(); i-- > 0;) {
        term(els[i]);
        if (i != 0)
          text(pretty ? " " : ", ");
      }
      break;
    }
    case TK::Oper:
      out += '(';
      out += core::opSymbol(core::Op(n.sub));
      out += ' ';
      text(")");
      term(n.b);
      text(" ");
      term(n.a);
      break;
    case TK::Swt:
      out += "switch ";
      if (n.name1 != NoName) { // a generated definition's switch names no variable
        terms.names.append(out, n.name1);
        out += " = ";
      }
      if (pretty) {
        stack.push_back({Item::Text, NoTerm, "}"});
        stack.push_back({Item::Indent, NoTerm, nullptr, tab});
        text(";\n");
        term(n.c, 4);
        text("_: ");
        stack.push_back({Item::Indent, NoTerm, nullptr, tab + 2});
        text(";\n");
        term(n.b, 4);
        text("0: ");
        stack.push_back({Item::Indent, NoTerm, nullptr, tab + 2});
        text(" {\n");
        term(n.a);
        break;
      }
      text("; }");
      term(n.c);
      text("; _: ");
      term(n.b);
      text(" { 0: ");
      term(n.a);
      break;
    }
  }
  return out;
}

// ---------------------------------------------------------------------------
// Parsing the tree text
// ---------------------------------------------------------------------------

/// Parses HVM2 net text (`tree (& [!] tree ~ tree)*`) straight into an INet,
/// without recursion and without an intermediate tree: a result can hold
/// millions of nodes. Nodes are numbered in text order; a linear readback
/// (-l) binds duplications in that order, which agrees with Bend's on every
/// result tested.
class NetTextParser {
public:
  NetTextParser(llvm::StringRef text, std::vector<llvm::StringRef> &refNames)
      : text(text), refNames(refNames) {}

  std::optional<INet> parse() {
    size_t nodes = 0;
    for (char c : text)
      nodes += c == '(' || c == '{' ? 2 : 0;
    net.nodes.reserve(std::min<size_t>(nodes + 2, MaxNodes));
    net.nodes.push_back({NodeKind::Rot, 0, {portOf(0, 2), portOf(0, 1), portOf(0, 0)}});
    net.names = &refNames;
    if (!parseTree({Attach::ToRoot, 0, {}}))
      return std::nullopt;
    skipSpace();
    while (peek() == '&') {
      ++pos;
      if (peek() == '!')
        ++pos;
      Attach lhs{Attach::Capture, 0, {}};
      if (!parseTree(lhs))
        return std::nullopt;
      skipSpace();
      if (peek() != '~')
        return std::nullopt;
      ++pos;
      Attach rhs = captured.empty() ? Attach{Attach::ToPort, capturedPort, {}}
                                    : Attach{Attach::ToVar, 0, captured};
      captured = {};
      if (!parseTree(rhs))
        return std::nullopt;
      skipSpace();
    }
    if (pos != text.size() || tooLarge)
      return std::nullopt;
    // A redex joining two variables joins their wires.
    for (auto [a, b] : joins) {
      auto ia = openVars.find(a), ib = openVars.find(b);
      if (ia == openVars.end() || ib == openVars.end())
        continue;
      Port pa = ia->second, pb = ib->second;
      openVars.erase(a);
      openVars.erase(b);
      link(pa, pb);
    }
    return std::move(net);
  }

private:
  /// Where a tree's principal port goes.
  struct Attach {
    enum Kind : uint8_t { ToPort, ToRoot, ToVar, Capture } kind;
    Port port;           // ToPort: an auxiliary port of the parent or the other redex side
    llvm::StringRef var; // ToVar: the variable on the other redex side
  };

  char peek() const { return pos < text.size() ? text[pos] : '\0'; }
  void skipSpace() {
    while (pos < text.size() && (text[pos] == ' ' || text[pos] == '\t' || text[pos] == '\n' ||
                                 text[pos] == '\r'))
      ++pos;
  }
  static bool isNameChar(char c) {
    return llvm::isAlnum(c) || (unsigned char)c >= 0x80 || c == '_' || c == '.' || c == '-' ||
           c == '/' || c == '$' || c == '%' || c == ':' || c == '\'';
  }
  llvm::StringRef takeName() {
    size_t start = pos;
    while (pos < text.size() && isNameChar(text[pos]))
      ++pos;
    return text.slice(start, pos);
  }
  std::optional<uint32_t> parseNumber() {
    if (peek() == '[') {
      size_t close = text.find(']', pos);
      if (close == llvm::StringRef::npos)
        return std::nullopt;
      llvm::StringRef inside = text.slice(pos + 1, close);
      pos = close + 1;
      return num::parseNumbSymbol(inside);
    }
    size_t start = pos;
    while (pos < text.size() && (llvm::isAlnum(text[pos]) || text[pos] == '+' ||
                                 text[pos] == '-' || text[pos] == '.'))
      ++pos;
    llvm::StringRef lit = text.slice(start, pos);
    if (std::optional<uint32_t> n = num::parseNumbLiteral(lit))
      return n;
    // HVM2 writes large and tiny floats as `1e16`, with no dot.
    double d;
    if (!lit.contains_insensitive("x") && !lit.getAsDouble(d))
      return num::makeF24(float(d));
    return std::nullopt;
  }

  void link(Port a, Port b) {
    net.nodes[nodeOf(a)].ports[slotOf(a)] = b;
    net.nodes[nodeOf(b)].ports[slotOf(b)] = a;
  }
  void useVar(llvm::StringRef name, Port p) {
    if (name == rootVar)
      return link(p, RootPort);
    auto [it, inserted] = openVars.try_emplace(name, p);
    if (!inserted) {
      Port other = it->second;
      openVars.erase(it);
      link(p, other);
    }
  }
  uint32_t addNode(NodeKind kind, uint32_t data, const Attach &at) {
    if (net.nodes.size() >= MaxNodes) {
      tooLarge = true;
      return 0;
    }
    uint32_t x = uint32_t(net.nodes.size());
    net.nodes.push_back({kind, data, {portOf(x, 0), portOf(x, 1), portOf(x, 2)}});
    Port p = portOf(x, 0);
    switch (at.kind) {
    case Attach::ToPort: link(at.port, p); break;
    case Attach::ToRoot: link(p, RootPort); break;
    case Attach::ToVar: useVar(at.var, p); break;
    case Attach::Capture: capturedPort = p; break;
    }
    return x;
  }
  void addVar(llvm::StringRef name, const Attach &at) {
    switch (at.kind) {
    case Attach::ToPort: useVar(name, at.port); break;
    case Attach::ToRoot: rootVar = name; break;
    case Attach::ToVar: joins.push_back({at.var, name}); break;
    case Attach::Capture: captured = name; break;
    }
  }
  uint32_t refIndex(llvm::StringRef name) {
    auto [it, inserted] = refIds.try_emplace(name, uint32_t(refNames.size()));
    if (inserted)
      refNames.push_back(name); // a piece of the text, which outlives the net
    return it->second;
  }

  bool parseTree(Attach at) {
    struct Open {
      uint32_t node;
      uint8_t filled;
      char close;
    };
    std::vector<Open> open;
    auto here = [&]() -> Attach {
      if (open.empty())
        return at;
      return {Attach::ToPort, portOf(open.back().node, open.back().filled + 1u), {}};
    };
    for (;;) {
      skipSpace();
      if (tooLarge)
        return false;
      char c = peek();
      auto opener = [&](NodeKind kind, char close) {
        open.push_back({addNode(kind, 0, here()), 0, close});
      };
      if (c == '(' || c == '{') {
        ++pos;
        opener(c == '(' ? NodeKind::Con : NodeKind::Dup, c == '(' ? ')' : '}');
        continue;
      }
      if (c == '$' || c == '?') {
        if (pos + 1 >= text.size() || text[pos + 1] != '(')
          return false;
        pos += 2;
        opener(c == '$' ? NodeKind::Opr : NodeKind::Swi, ')');
        continue;
      }
      std::optional<uint32_t> leaf; // the node of a leaf, none for a variable
      if (c == '*') {
        ++pos;
        leaf = addNode(NodeKind::Era, 0, here());
      } else if (c == '@') {
        ++pos;
        llvm::StringRef name = takeName();
        if (name.empty())
          return false;
        leaf = addNode(NodeKind::Ref, refIndex(name), here());
      } else if (llvm::isDigit(c) || c == '+' || c == '-' || c == '[') {
        std::optional<uint32_t> n = parseNumber();
        if (!n)
          return false;
        leaf = addNode(NodeKind::Num, *n, here());
      } else {
        llvm::StringRef name = takeName();
        if (name.empty())
          return false;
        addVar(name, here());
      }
      if (leaf && !tooLarge)
        link(portOf(*leaf, 1), portOf(*leaf, 2));
      // The leaf fills a slot; close every node that thereby gets both.
      for (;;) {
        if (open.empty())
          return !tooLarge;
        if (++open.back().filled < 2)
          break;
        skipSpace();
        if (peek() != open.back().close)
          return false;
        ++pos;
        open.pop_back();
      }
    }
  }

  llvm::StringRef text;
  size_t pos = 0;
  std::vector<llvm::StringRef> &refNames;
  llvm::StringMap<uint32_t> refIds;
  INet net;
  llvm::StringRef rootVar;
  llvm::StringMap<Port> openVars;
  std::vector<std::pair<llvm::StringRef, llvm::StringRef>> joins;
  llvm::StringRef captured; // a variable as the left side of a redex
  Port capturedPort = 0;    // the principal port of a tree as the left side of a redex
  bool tooLarge = false;
};

std::vector<std::string> warningTexts(const std::vector<ReadbackError> &errs) {
  // One line per kind, in the order the kinds first occurred.
  llvm::SmallVector<std::pair<ReadbackError, size_t>, 4> counts;
  for (ReadbackError e : errs) {
    auto it = std::find_if(counts.begin(), counts.end(), [&](auto &c) { return c.first == e; });
    if (it == counts.end())
      counts.push_back({e, 1});
    else
      ++it->second;
  }
  std::vector<std::string> out;
  for (auto [e, count] : counts) {
    std::string msg = errorText(e);
    if (count > 1)
      msg += " (" + std::to_string(count) + " occurrences)";
    out.push_back(std::move(msg));
  }
  return out;
}

} // namespace

ReadbackResult readbackBend(llvm::StringRef normalForm, const net::Book &compiled,
                            const core::Program &program, ReadbackOptions options) {
  ReadbackResult result;
  Terms terms;
  Expander expander(compiled, terms);
  TermId root;
  {
    std::vector<llvm::StringRef> refNames;
    std::optional<INet> net = NetTextParser(normalForm, refNames).parse();
    if (!net) {
      result.warnings.push_back("Failed to parse result from HVM (invalid net).");
      return result;
    }
    computeClosed(*net);
    terms.nodes.reserve(net->nodes.size() + net->nodes.size() / 4 + 16);
    Reader reader(*net, terms, expander, options.linear);
    root = reader.readNet();
    result.warnings = warningTexts(reader.errors());
  }
  expander.expand(root);
  Resugar resugar(terms, program.encoding);
  resugar.strings(root);
  resugar.lists(root);
  result.text = print(terms, root, options.pretty);
  return result;
}

} // namespace bendc::lowering
