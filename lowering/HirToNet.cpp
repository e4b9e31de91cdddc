#include "lowering/HirToNet.h"

#include "llvm/ADT/SmallVector.h"

#include <algorithm>
#include <cassert>
#include <string>

namespace bendc::lowering {

using namespace hir;
using net::TreeKind;

namespace {

/// A port of a node: node * 3 + port (0 principal, 1 and 2 auxiliary).
using End = uint32_t;
constexpr End NoEnd = ~0u;
constexpr End RootEnd = 0; // node 0 is the definition's root (only port 0)

struct Node {
  TreeKind kind;
  uint32_t value = 0; // Num: the Numb; Ref: the name's index
  net::ConRole role = net::ConRole::Unknown;
  bool positive = true; // its principal port gives a value (a λ, a pair, a number)
  bool alive = true;
};

/// One definition's net as nodes and the wires between their ports. One
/// graph serves every definition in turn (`reset`), keeping its buffers.
class NetGraph {
public:
  NetGraph() { reset(); }

  void reset() {
    nodes.clear();
    peers.clear();
    nodes.push_back({TreeKind::Var});
    peers.resize(3, NoEnd);
  }

  uint32_t node(TreeKind kind, bool positive, uint32_t value = 0,
                net::ConRole role = net::ConRole::Unknown) {
    nodes.push_back({kind, value, role, positive});
    peers.resize(nodes.size() * 3, NoEnd);
    return uint32_t(nodes.size() - 1);
  }
  static End end(uint32_t node, unsigned port) { return node * 3 + port; }
  void connect(End a, End b) {
    peers[a] = b;
    peers[b] = a;
  }
  End peer(End e) const { return peers[e]; }

  /// Bend's eta reduction, repeated until nothing changes.
  /// Returns whether a pair of nodes cancelled out.
  bool etaReduce() {
    bool changed = true, cancelled = false;
    while (changed) {
      changed = false;
      for (uint32_t n = 1; n < nodes.size(); ++n) {
        if (!nodes[n].alive || (nodes[n].kind != TreeKind::Con && nodes[n].kind != TreeKind::Dup))
          continue;
        End a = peer(end(n, 1)), b = peer(end(n, 2));
        if (a == NoEnd || b == NoEnd)
          continue;
        uint32_t m = a / 3;
        // (x y) ... (x y): the two nodes cancel out.
        if (m != n && m == b / 3 && a % 3 == 1 && b % 3 == 2 && nodes[m].alive &&
            nodes[m].kind == nodes[n].kind) {
          End pn = peer(end(n, 0)), pm = peer(end(m, 0));
          nodes[n].alive = nodes[m].alive = false;
          cancelled = true;
          if (pn == end(m, 0)) // the pair annihilated itself: nothing is left
            continue;
          connect(pn, pm);
          changed = true;
          continue;
        }
        // (* *) is *.
        auto erased = [&](End e) { return e % 3 == 0 && nodes[e / 3].kind == TreeKind::Era; };
        if (erased(a) && erased(b) && a / 3 != 0 && b / 3 != 0) {
          nodes[a / 3].alive = nodes[b / 3].alive = false;
          nodes[n].kind = TreeKind::Era;
          changed = true;
        }
      }
    }
    return cancelled;
  }

  /// Nests the nodes into trees and writes the definition into `book`.
  /// False when some node is in no tree (a cycle through principal ports).
  /// `freshIds[k]`: the name index of the k-th variable name in `book`,
  /// shared by every definition so each name is interned once.
  bool build(net::Book &book, net::Def &def, std::vector<uint32_t> &freshIds) {
    placed.assign(nodes.size(), false);
    uint32_t innerNodes = 0;
    unsigned varCount = 0;
    varNames.assign(peers.size(), ~0u);
    auto varName = [&](End e) {
      End other = peer(e);
      uint32_t &slot = varNames[std::min(e, other)];
      if (slot == ~0u) {
        unsigned k = varCount++;
        while (freshIds.size() <= k)
          freshIds.push_back(book.intern(freshName(unsigned(freshIds.size()))));
        slot = freshIds[k];
      }
      return slot;
    };
    // Builds the tree seen from `e` (an auxiliary port or the root): the
    // node whose principal port is at the other end, or a variable. Trees
    // are made in pre-order, a node's first child right after it, so a frame
    // only says whose second child the tree it builds is, if any.
    auto treeAt = [&](End from) -> net::TreeId {
      net::TreeId result{uint32_t(book.trees.size())};
      work.clear();
      work.push_back({from, NoParent});
      while (!work.empty()) {
        Frame f = work.pop_back_val();
        End other = peer(f.from);
        net::TreeId id;
        if (other == NoEnd) {
          id = book.add(leaf(TreeKind::Era));
        } else if (other % 3 != 0 || other / 3 == 0) {
          id = book.add(leaf(TreeKind::Var, varName(f.from)));
        } else {
          uint32_t n = other / 3;
          placed[n] = true;
          const Node &node = nodes[n];
          net::Tree tree = leaf(node.kind, node.value);
          tree.role = node.role;
          bool inner = net::isNodeKind(node.kind);
          if (inner) {
            tree.fst = net::TreeId{uint32_t(book.trees.size()) + 1};
            ++innerNodes;
          }
          id = book.add(tree);
          if (inner) {
            work.push_back({end(n, 2), id.index});
            work.push_back({end(n, 1), NoParent});
          }
        }
        if (f.sndOf != NoParent)
          book.trees[f.sndOf].snd = id;
      }
      return result;
    };
    def.root = treeAt(RootEnd);
    for (uint32_t n = 1; n < nodes.size(); ++n) {
      if (!nodes[n].alive || placed[n])
        continue;
      End other = peer(end(n, 0));
      if (other == NoEnd || other % 3 != 0 || other / 3 == 0)
        continue;
      uint32_t m = other / 3;
      if (placed[m])
        continue;
      // Two principal ports: a redex, each side a tree (the tree at the
      // other end of a port).
      net::Redex r;
      assert(nodes[n].positive != nodes[m].positive && "a redex joins a value and its consumer");
      r.positive = nodes[n].positive ? net::PositiveSide::Lhs : net::PositiveSide::Rhs;
      r.lhs = treeAt(end(m, 0));
      r.rhs = treeAt(end(n, 0));
      def.redexes.push_back(r);
    }
    for (uint32_t n = 1; n < nodes.size(); ++n)
      if (nodes[n].alive && !placed[n])
        return false;
    def.nodeCount = innerNodes;
    return true;
  }

private:
  static net::Tree leaf(TreeKind kind, uint32_t value = 0) {
    net::Tree t;
    t.kind = kind;
    t.value = value;
    return t;
  }

  /// A tree to build: the one seen from `from`, and the tree whose second
  /// child it is (NoParent: the tree itself, or a first child, which is
  /// always the tree made right after its parent).
  struct Frame {
    End from;
    uint32_t sndOf;
  };
  static constexpr uint32_t NoParent = ~0u;

  /// a, b, ..., z, aa, ab, ...: the k-th name, most significant letter first.
  static std::string freshName(unsigned k) {
    std::string s;
    do {
      s.push_back(char('a' + k % 26));
      k /= 26;
    } while (k-- > 0);
    std::reverse(s.begin(), s.end());
    return s;
  }

  std::vector<Node> nodes;
  std::vector<End> peers;
  // Scratch of `build`, kept between definitions.
  std::vector<bool> placed;
  std::vector<uint32_t> varNames;
  llvm::SmallVector<Frame, 32> work;
};

/// Lowers functions into a NetGraph, one at a time, reusing its buffers.
class Lowerer {
public:
  Lowerer(const Module &module, net::Book &book)
      : module(module), book(book) {}

  /// The book's name for `name`, that of the function `id` (Function::id,
  /// as references hold it; NoFunction for none): interned once per
  /// function, then found by its id. The name is checked, so a reference
  /// whose id another function has costs a lookup, never a wrong name.
  uint32_t functionName(FunctionId fid, llvm::StringRef name) {
    if (!fid.valid())
      return book.intern(name);
    uint32_t id = fid.index;
    if (id >= nameById.size())
      nameById.resize(size_t(id) + 1, NoName);
    uint32_t &known = nameById[id];
    if (known == NoName || book.names[known] != name)
      known = book.intern(name);
    return known;
  }
  static constexpr uint32_t NoName = ~0u;

  NetGraph &lower(const Function &f) {
    g.reset();
    defEnd.assign(f.wireCount(), NoEnd);
    useEnd.assign(f.wireCount(), NoEnd);
    fn = &f;
    useEnd[f.body().result] = RootEnd;
    block(f.body());
    for (WireId w : f.wires.ids())
      if (defEnd[w] != NoEnd && useEnd[w] != NoEnd)
        g.connect(defEnd[w], useEnd[w]);
    return g;
  }

private:
  void block(const Block &b) {
    for (const Inst &i : fn->instsOf(b))
      inst(i);
  }

  void inst(const Inst &i) {
    using net::ConRole;
    // A node is positive where its principal port gives the value (`defEnd`).
    auto bin = [&](TreeKind k, bool positive, ConRole role = ConRole::Unknown) {
      return g.node(k, positive, 0, role);
    };
    auto E = [](uint32_t n, unsigned p) { return NetGraph::end(n, p); };
    switch (i.kind) {
    case InstKind::Lam: {
      uint32_t n = bin(TreeKind::Con, true, ConRole::Function);
      defEnd[i.outs[0]] = E(n, 0);
      const Block &body = fn->block(i.blocks[0]);
      defEnd[body.params[0]] = E(n, 1);
      useEnd[body.result] = E(n, 2);
      block(body);
      return;
    }
    case InstKind::App:
    case InstKind::Opr: {
      uint32_t n = i.kind == InstKind::App ? bin(TreeKind::Con, false, ConRole::Function)
                                           : bin(TreeKind::Opr, false);
      useEnd[i.ins[0]] = E(n, 0);
      useEnd[i.ins[1]] = E(n, 1);
      defEnd[i.outs[0]] = E(n, 2);
      return;
    }
    case InstKind::OprNum: {
      uint32_t n = bin(TreeKind::Opr, false);
      uint32_t k = g.node(TreeKind::Num, true, i.numb);
      useEnd[i.ins[0]] = E(n, 0);
      g.connect(E(n, 1), E(k, 0));
      defEnd[i.outs[0]] = E(n, 2);
      return;
    }
    case InstKind::Sup:
    case InstKind::Tup: {
      uint32_t n = i.kind == InstKind::Sup ? bin(TreeKind::Dup, true)
                                           : bin(TreeKind::Con, true, ConRole::Pair);
      defEnd[i.outs[0]] = E(n, 0);
      useEnd[i.ins[0]] = E(n, 1);
      useEnd[i.ins[1]] = E(n, 2);
      return;
    }
    case InstKind::Dup:
    case InstKind::Untup: {
      uint32_t n = i.kind == InstKind::Dup ? bin(TreeKind::Dup, false)
                                           : bin(TreeKind::Con, false, ConRole::Pair);
      useEnd[i.ins[0]] = E(n, 0);
      defEnd[i.outs[0]] = E(n, 1);
      defEnd[i.outs[1]] = E(n, 2);
      return;
    }
    case InstKind::Era: defEnd[i.outs[0]] = E(g.node(TreeKind::Era, true), 0); return;
    case InstKind::Erase: useEnd[i.ins[0]] = E(g.node(TreeKind::Era, false), 0); return;
    case InstKind::Num: defEnd[i.outs[0]] = E(g.node(TreeKind::Num, true, i.numb), 0); return;
    case InstKind::Ref:
      defEnd[i.outs[0]] = E(g.node(TreeKind::Ref, true, functionName(i.callee, i.ref)), 0);
      return;
    case InstKind::Match:
      llvm_unreachable("matches are expanded before lowering");
    case InstKind::Swi: {
      uint32_t swi = bin(TreeKind::Swi, false);
      uint32_t cases = bin(TreeKind::Con, true, ConRole::Pair);
      useEnd[i.ins[0]] = E(swi, 0);
      g.connect(E(swi, 1), E(cases, 0));
      armInto(fn->block(i.blocks[0]), E(cases, 1));
      armInto(fn->block(i.blocks[1]), E(cases, 2));
      End acc = E(swi, 2);
      for (size_t k = 1; k < i.ins.size(); ++k) {
        uint32_t app = bin(TreeKind::Con, false, ConRole::Function);
        g.connect(acc, E(app, 0));
        useEnd[i.ins[k]] = E(app, 1);
        acc = E(app, 2);
      }
      defEnd[i.outs[0]] = acc;
      return;
    }
    }
  }

  /// Puts an arm's value at `port`: its block's result directly, or a λ
  /// chain over its params.
  void armInto(const Block &arm, End port) {
    End at = port;
    for (WireId p : arm.params) {
      uint32_t lam = g.node(TreeKind::Con, true, 0, net::ConRole::Function);
      g.connect(at, NetGraph::end(lam, 0));
      defEnd[p] = NetGraph::end(lam, 1);
      at = NetGraph::end(lam, 2);
    }
    useEnd[arm.result] = at;
    block(arm);
  }

  const Module &module;
  net::Book &book;
  std::vector<uint32_t> nameById; // by Function::id; NoName: not interned yet
  NetGraph g;
  const Function *fn = nullptr; // the function being lowered
  IdTable<WireId, End> defEnd, useEnd;
};

} // namespace

net::TreeId copyTree(const net::Book &from, net::TreeId id, net::Book &to) {
  const net::Tree &t = from[id];
  net::Tree copy = t;
  if (t.kind == TreeKind::Var || t.kind == TreeKind::Ref)
    copy.value = to.intern(from.names[t.value]);
  if (net::isNodeKind(t.kind)) {
    copy.fst = copyTree(from, t.fst, to);
    copy.snd = copyTree(from, t.snd, to);
  }
  return to.add(copy, from.loc(id));
}

struct NetLowering::State {
  State(const Module &module, const NetOptions &options, net::Book &book, DiagnosticEngine &diags)
      : module(module), options(options), book(book), diags(diags), lowerer(module, book),
        first(book.defs.size()), lowered(module.idCount(), false), slot(module.idCount(), NoSlot) {
    for (const Function &fn : module.functions())
      slot[fn.id.index] = slots++;
  }

  /// Lowers `fn` into `def`.
  void lower(const Function &fn, net::Def &def) {
    NetGraph &g = lowerer.lower(fn);
    bool reduced = options.eta && g.etaReduce();
    // HVM2 books start at @main, whatever the program calls its entry point.
    def.name = fn.name == module.entry ? book.intern(options.entryName)
                                       : lowerer.functionName(fn.id, fn.name);
    def.loc = fn.loc;
    def.polarized = true;
    if (!g.build(book, def, freshIds)) {
      diags.report(DiagKind::ViciousCycle, fn.loc,
                   "the net of '" + fn.name.str() +
                       "' has a cycle through principal ports that nothing can reduce");
      ok = false;
      return;
    }
    // What eta reduction leaves of a call that only passes its arguments on
    // (`f a = (g a)`) is the call itself, `a & @g ~ a`, as Bend writes it:
    // `@f = @g` would say that f is g, which -Oinline would take at its word.
    if (reduced && def.redexes.empty() && book[def.root].kind == TreeKind::Ref) {
      if (freshIds.empty())
        freshIds.push_back(book.intern("a"));
      net::TreeId ref = def.root;
      def.root = book.add(net::Tree(TreeKind::Var, freshIds[0], {}, {}));
      net::Redex r;
      r.positive = net::PositiveSide::Lhs;
      r.lhs = ref;
      r.rhs = book.add(net::Tree(TreeKind::Var, freshIds[0], {}, {}));
      def.redexes.push_back(r);
    }
  }

  const Module &module;
  const NetOptions &options;
  net::Book &book;
  DiagnosticEngine &diags;
  Lowerer lowerer;
  std::vector<uint32_t> freshIds;
  size_t first;             // where the module's definitions start in the book
  // By function id, for the functions the module had at the start:
  std::vector<bool> lowered;   // handed over already
  std::vector<uint32_t> slot;  // the definition's place after `first` (in module order)
  static constexpr uint32_t NoSlot = ~0u; // a function taken out
  uint32_t slots = 0;          // how many places
  std::vector<net::Def> later; // of the new functions, in order
  // Their trees, apart until `finish`: the book's trees then follow its
  // definitions, as the passes after lowering walk them.
  std::vector<net::Tree> laterTrees;
  bool ok = true;
};

NetLowering::NetLowering(const Module &module, const NetOptions &options, net::Book &book,
                         DiagnosticEngine &diags, size_t expectedWires)
    : state(std::make_unique<State>(module, options, book, diags)) {
  // Programs come to about one tree per wire (a node, or the two leaves of
  // a variable for the two wires a dup makes of one): room for them at once
  // rather than growing (and copying) the trees as they come.
  size_t wires = expectedWires;
  if (!wires)
    for (const Function &fn : module.functions())
      wires += fn.wireCount();
  // Floating moves about 40% of a program into new functions: their trees
  // come to some 60% of the others, and join the book's at the end (room
  // for them too, so that they do not move the rest then).
  book.trees.reserve(book.trees.size() + wires + wires * 2 / 3);
  book.defs.resize(book.defs.size() + state->slots);
  state->laterTrees.reserve(wires * 2 / 3);
}

NetLowering::~NetLowering() = default;

void NetLowering::lowerAt(hir::FunctionId id) {
  State &s = *state;
  assert(id.index < s.lowered.size() && s.slot[id.index] != State::NoSlot && !s.lowered[id.index] &&
         "lowered twice, or not a function of the module at the start");
  s.lowered[id.index] = true;
  s.lower(s.module.function(id), s.book.defs[s.first + s.slot[id.index]]);
}

void NetLowering::lowerNew(const Function &fn) {
  State &s = *state;
  s.later.emplace_back();
  std::swap(s.book.trees, s.laterTrees);
  s.lower(fn, s.later.back());
  std::swap(s.book.trees, s.laterTrees);
}

bool NetLowering::finish() {
  State &s = *state;
  for (uint32_t k = 0; k < s.lowered.size(); ++k)
    if (!s.lowered[k] && s.slot[k] != State::NoSlot)
      lowerAt(hir::FunctionId(k));
  // The new functions' trees, renumbered to follow the others.
  uint32_t offset = uint32_t(s.book.trees.size());
  auto moved = [&](net::TreeId &t) {
    if (t.valid())
      t.index += offset;
  };
  s.book.trees.reserve(s.book.trees.size() + s.laterTrees.size());
  for (net::Tree &t : s.laterTrees) {
    moved(t.fst);
    moved(t.snd);
    s.book.trees.push_back(t);
  }
  s.laterTrees.clear();
  s.book.defs.reserve(s.book.defs.size() + s.later.size());
  for (net::Def &d : s.later) {
    moved(d.root);
    for (net::Redex &r : d.redexes) {
      moved(r.lhs);
      moved(r.rhs);
    }
    s.book.defs.push_back(std::move(d));
  }
  s.later.clear();
  return s.ok;
}

bool lowerToNet(const Module &module, const NetOptions &options, net::Book &book,
                DiagnosticEngine &diags) {
  NetLowering lowering(module, options, book, diags);
  return lowering.finish();
}

} // namespace bendc::lowering
