#include "lowering/Polarize.h"
#include "lowering/RedexOrder.h"
#include "runtime/common/Interact.h"
#include "lowering/ShapeInference.h"

#include "runtime/common/NumericText.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/ErrorHandling.h"

#include <cassert>
#include <string>
#include <utility>
#include <vector>

namespace bendc::lowering {

namespace {

using net::TreeId;
using net::TreeKind;

constexpr uint32_t NoIndex = ~0u;

/// Union-find whose elements carry a parity relative to their root: two
/// elements of one set have equal or opposite polarities, and joining sets
/// with a relation that closes an odd cycle is a contradiction.
class ParityUnionFind {
public:
  struct Root {
    uint32_t root;
    bool parity; // of the element relative to `root`
  };

  explicit ParityUnionFind(size_t size) : parent(size), parity(size, 0), rank(size, 0) {
    for (size_t i = 0; i < size; ++i)
      parent[i] = uint32_t(i);
  }

  Root find(uint32_t x) {
    uint32_t root = x;
    bool total = false;
    while (parent[root] != root) {
      total ^= parity[root];
      root = parent[root];
    }
    // Path compression: point every element on the way straight at the root.
    bool p = total;
    while (parent[x] != root && parent[x] != x) {
      uint32_t next = parent[x];
      bool own = parity[x];
      parent[x] = root;
      parity[x] = p;
      p ^= own;
      x = next;
    }
    return {root, total};
  }

  /// Records that `a` and `b` have opposite (`differ`) or equal polarities;
  /// false when that contradicts what is already known.
  bool unite(uint32_t a, uint32_t b, bool differ) {
    Root ra = find(a), rb = find(b);
    if (ra.root == rb.root)
      return (ra.parity ^ rb.parity) == differ;
    if (rank[ra.root] < rank[rb.root])
      std::swap(ra, rb);
    parent[rb.root] = ra.root;
    parity[rb.root] = ra.parity ^ rb.parity ^ differ;
    if (rank[ra.root] == rank[rb.root])
      ++rank[ra.root];
    return true;
  }

  bool sameSet(uint32_t a, uint32_t b) { return find(a).root == find(b).root; }

private:
  std::vector<uint32_t> parent;
  std::vector<uint8_t> parity;
  std::vector<uint8_t> rank;
};

/// Where a tree sits in its definition.
struct Position {
  enum Kind : uint8_t { Slot, Root, RedexSide };
  Kind kind = Root;
  uint32_t index = 0; // Slot: local slot (2*node + i); RedexSide: 2*redex + side

  // Kept per tree in 4 bytes: the kind in the top two bits.
  static constexpr uint32_t kIndexBits = 30;
  uint32_t packed() const {
    assert(index < (1u << kIndexBits) && "more slots or redexes than a position holds");
    return uint32_t(kind) << kIndexBits | index;
  }
  static Position unpack(uint32_t p) {
    return {Kind(p >> kIndexBits), p & ((1u << kIndexBits) - 1)};
  }
};

/// How a tree's polarity relates to its parent's.
enum class Rel : uint8_t { Free, Pos, Same, Opp };

struct Item {
  TreeId tree;
  Position pos;
  Rel rel = Rel::Free;
  uint32_t parent = NoIndex; // for Same and Opp
  bool switchCases = false;  // the first child of ?(...): a (z s) there is a tuple
};

/// A tree of a definition whose polarities are given (net::Def::polarized).
struct KnownItem {
  TreeId tree;
  Position pos;
  bool positive;
  bool switchCases = false;
};

/// Whether a book has definitions whose polarities are left to infer.
bool anyToInfer(const net::Book &book) {
  return llvm::any_of(book.defs, [](const net::Def &d) { return !d.polarized; });
}

class Polarizer {
public:
  Polarizer(const net::Book &book, DiagnosticEngine &diags)
      : book(book), diags(diags), inferring(anyToInfer(book)),
        // The union-find holds trees only where some polarity is inferred.
        uf(inferring ? book.trees.size() + 1 : 1),
        positive(inferring ? uint32_t(book.trees.size()) : 0),
        flags(book.trees.size(), 0), firstUse(book.names.size(), NoIndex),
        useCount(book.names.size(), 0) {}

  std::optional<rt::Book> run();

private:
  bool indexDefinitions();

  // Constraints.
  bool constrain();
  bool walk(Item start);
  bool visit(const Item &item, std::vector<Item> &stack);
  // A polarized definition, laid out in one walk.
  bool layOut(uint32_t id);
  bool layOutTree(const KnownItem &item);
  void placeTerm(Position pos, rt::Term term, bool positive);
  // Joining the variables of the definition laid out or built.
  void startJoining();
  bool joinVariables(rt::DefInfo &defInfo);
  bool joinFrom(uint32_t end);
  bool joinRedexes();
  uint32_t crossRedex(Position pos);
  void emitSides(uint32_t a, uint32_t b);
  uint32_t freeSlot();
  uint32_t spareSlot = NoIndex; // the other slot of freeSlot's last node
  /// A variable occurrence of the definition being laid out or built.
  struct Occurrence {
    TreeId tree;
    uint32_t pos;               // packed Position
    uint32_t partner = NoIndex; // the name's other occurrence
    bool positive = false;
    bool joined = false;        // given its term
  };
  std::vector<Occurrence> occurrences;
  // By redex side (2 * redex + side): the occurrence there (NoIndex: a
  // tree), and the tree's term and polarity.
  std::vector<uint32_t> sideOccurrence;
  std::vector<rt::Term> sideTerm;
  std::vector<uint8_t> sidePositive;
  bool visitVar(TreeId t);
  uint32_t referTo(TreeId t);
  bool checkUseCounts();
  void applyDefaults();
  bool fail(TreeId at, const std::string &what);
  bool failLoop(TreeId var) {
    return fail(var, "variable '" + varName(var) + "' only links redexes into a closed loop");
  }

  // The runtime definition.
  bool build(rt::DefInfo &info);
  bool isPositive(TreeId t);
  rt::Term termOf(TreeId t);
  void setAt(Position pos, rt::Term term);

  void propagateSafety();
  std::string varName(TreeId t) const { return book.names[book[t].value].str(); }

  const net::Book &book;
  DiagnosticEngine &diags;
  bool inferring; // some definition is not polarized
  rt::Book out;
  std::vector<uint32_t> defOfName;               // name -> definition id
  /// (definition, a definition that refers to it), one per reference.
  std::vector<std::pair<uint32_t, uint32_t>> references;

  ParityUnionFind uf;
  uint32_t positive; // the union-find element that stands for "positive"

  // Per tree, for the whole book (every tree belongs to one definition),
  // packed: a book holds millions of trees.
  enum Flag : uint8_t {
    Seen = 1, // some definition visited it
  };
  std::vector<uint8_t> flags;
  /// A node tree's local node index; a variable occurrence's twin (its
  /// occurrence, once build has recorded them).
  std::vector<uint32_t> link;
  std::vector<uint32_t> where; // a variable occurrence's Position, packed
  uint32_t &nodeIndex(TreeId t) { return link[t.index]; }
  uint32_t &partner(uint32_t t) { return link[t]; }
  Position whereIs(uint32_t t) const { return Position::unpack(where[t]); }

  // Per name, reset after each definition.
  std::vector<uint32_t> firstUse;
  std::vector<uint32_t> useCount;
  std::vector<uint32_t> usedNames;

  // What the first pass learns about each definition, for the later passes.
  // Their trees (pre-order) and free `(a b)` nodes, one definition after
  // another.
  std::vector<TreeId> allTrees, allCons;
  std::vector<TreeId> oprNodes; // the $(a b) nodes of the definition being constrained
  struct DefState {
    uint32_t treesBegin = 0, treesEnd = 0, consBegin = 0, consEnd = 0;
    size_t rootConCount = 0;
    uint32_t nodeCount = 0;
    bool hasDup = false;
  };
  std::vector<DefState> states;
  llvm::ArrayRef<TreeId> consOf(const DefState &st) const {
    return llvm::ArrayRef<TreeId>(allCons).slice(st.consBegin, st.consEnd - st.consBegin);
  }
  ShapeClasses shapes;

  bool constrainDefinition(uint32_t id);
  void select(uint32_t id);
  bool relationKnown(TreeId con) { return uf.sameSet(book[con].fst.index, con.index); }
  /// Whether a `(a b)` whose relation is known is a LAM or an APP.
  bool functionRelation(TreeId con) {
    return uf.find(book[con].fst.index).parity != uf.find(con.index).parity;
  }
  void applyShape(uint32_t cls);
  void decideShapes();

  // The definition being polarized.
  uint32_t defId = 0;
  const net::Def *def = nullptr;
  llvm::ArrayRef<TreeId> trees;    // pre-order
  llvm::ArrayRef<TreeId> conNodes; // (a b) nodes whose first child is free
  size_t rootConCount = 0;         // how many of them are in the root tree
  uint32_t consBegin = 0;          // where its (a b) nodes start in allCons
  // Scratch of applyDefaults.
  llvm::DenseSet<uint32_t> spine;
  std::vector<TreeId> arguments;
  std::vector<uint8_t> redexUsed;
  std::vector<Item> walkStack; // walk()'s
  std::vector<KnownItem> knownStack; // layOut()'s
  /// The `(a b)` trees of polarized definitions, where others are inferred:
  /// what they are is known to shape inference from the start.
  std::vector<TreeId> polarizedCons;
  uint32_t nodeCount = 0;
  uint32_t slotBase = 0;
  bool unknownRoles = false; // some `(a b)` does not say whether it is a function
  rt::DefInfo *info = nullptr;
  bool hasDup = false;
};

std::optional<rt::Book> Polarizer::run() {
  if (!indexDefinitions())
    return std::nullopt;
  // A polarized definition is laid out alone, in one walk: its polarities
  // are given, and what its `(a b)` nodes are is known to inference from the
  // start. The others' constraints come first, every definition checked in
  // the book's order.
  out.defs.resize(book.defs.size());
  if (inferring) {
    link.assign(book.trees.size(), NoIndex);
    where.resize(book.trees.size());
    states.resize(book.defs.size());
    allTrees.reserve(book.trees.size()); // each tree is in one definition
  }
  bool ok = true;
  for (uint32_t id = 0; id < book.defs.size(); ++id) {
    if (book.defs[id].polarized) {
      ok &= layOut(id);
    } else {
      ok &= constrainDefinition(id);
    }
  }
  if (!ok)
    return std::nullopt;
  // Then which `(a b)` is a function and which a pair flows between
  // definitions (see ShapeInference.h), starting from what each definition
  // alone already says, so that inference never joins a known function with
  // a known pair. Only text needs this.
  // (A book whose every `(a b)` says what it is has no classes: every
  // tree's class is None, and there is nothing to decide.)
  if (unknownRoles) {
    std::vector<net::ConRole> known(book.trees.size(), net::ConRole::Unknown);
    for (TreeId con : polarizedCons)
      known[con.index] = book[con].role; // a polarized definition says each role
    for (const DefState &st : states)
      for (TreeId con : consOf(st))
        if (relationKnown(con))
          known[con.index] = functionRelation(con) ? net::ConRole::Function : net::ConRole::Pair;
    shapes = inferShapes(book, known);
    decideShapes();
  }
  for (uint32_t id = 0; id < book.defs.size(); ++id) {
    if (book.defs[id].polarized)
      continue;
    select(id);
    applyDefaults();
    if (!build(out.defs[id]))
      return std::nullopt;
  }
  propagateSafety();
  // Definitions the runtime can call without building them.
  for (rt::DefInfo &d : out.defs) {
    rt::analyzeSwitch(d, out.slots.data());
    rt::planNumbers(d, out.slots.data(), out.plans);
  }
  orderRedexes(out);
  return std::move(out);
}

bool Polarizer::indexDefinitions() {
  defOfName.assign(book.names.size(), NoIndex);
  // The runtime book at its full size at once: two slots per node, and a
  // tree of n nodes has n + 1 leaves, so there are fewer slots than trees.
  out.names.reserve(book.defs.size());
  out.slots.reserve(book.trees.size());
  size_t redexes = 0;
  for (const net::Def &d : book.defs)
    redexes += d.redexes.size();
  out.redexes.reserve(2 * redexes);
  bool ok = true;
  for (uint32_t id = 0; id < book.defs.size(); ++id) {
    const net::Def &d = book.defs[id];
    if (defOfName[d.name] != NoIndex) {
      diags.report(DiagKind::HvmDuplicateDefinition, d.loc,
                   "duplicate definition of @" + book.names[d.name].str());
      ok = false;
      continue;
    }
    defOfName[d.name] = id;
    out.names.push_back(book.names[d.name].str());
  }
  auto main = book.nameIds.find(book.entry);
  if (main == book.nameIds.end() || defOfName[main->second] == NoIndex) {
    diags.report(DiagKind::HvmMissingMain, llvm::SMLoc(),
                 "the book has no @" + book.entry + " definition");
    return false;
  }
  out.mainId = defOfName[main->second];
  return ok;
}

bool Polarizer::constrainDefinition(uint32_t id) {
  defId = id;
  def = &book.defs[id];
  DefState &st = states[id];
  st.treesBegin = uint32_t(allTrees.size());
  st.consBegin = consBegin = uint32_t(allCons.size());
  oprNodes.clear();
  nodeCount = 0;
  hasDup = false;
  bool ok = constrain() && checkUseCounts();
  // An operator node the definition leaves undecided is negative, before
  // anything else is chosen (so shape inference sees it as it always did).
  if (ok)
    for (TreeId opr : oprNodes)
      if (!uf.sameSet(opr.index, positive))
        uf.unite(opr.index, positive, true);
  for (uint32_t name : usedNames) {
    firstUse[name] = NoIndex;
    useCount[name] = 0;
  }
  usedNames.clear();
  st.treesEnd = uint32_t(allTrees.size());
  st.consEnd = uint32_t(allCons.size());
  st.rootConCount = rootConCount;
  st.nodeCount = nodeCount;
  st.hasDup = hasDup;
  return ok;
}

/// Makes definition `id` the current one for the passes after constraints.
void Polarizer::select(uint32_t id) {
  defId = id;
  def = &book.defs[id];
  DefState &st = states[id];
  trees = llvm::ArrayRef<TreeId>(allTrees).slice(st.treesBegin, st.treesEnd - st.treesBegin);
  conNodes = consOf(st);
  rootConCount = st.rootConCount;
  nodeCount = st.nodeCount;
  hasDup = st.hasDup;
}

/// Gives every `(a b)` of a class whose shape is known the matching relation
/// between the node and its first child. A member whose polarities already say
/// otherwise keeps them (the shapes were a guess from a conflicting program).
void Polarizer::applyShape(uint32_t cls) {
  bool function = shapes.shape(cls) == net::ConRole::Function;
  for (TreeId con : shapes.members(cls))
    if (!relationKnown(con))
      uf.unite(book[con].fst.index, con.index, function);
}

/// Shapes known from the constraints (a number in a pair, a switch's cases)
/// or from inference spread to their classes, and back to polarities, until
/// nothing changes.
void Polarizer::decideShapes() {
  for (bool changed = true; changed;) {
    changed = false;
    for (const DefState &st : states)
      for (TreeId con : consOf(st)) {
        uint32_t cls = shapes.classOf(con);
        if (cls == ShapeClasses::None ||
            relationKnown(con) == (shapes.shape(cls) != net::ConRole::Unknown))
          continue;
        // A class whose shape inference already knew, or one a member decides.
        if (shapes.shape(cls) == net::ConRole::Unknown)
          shapes.decide(cls, functionRelation(con) ? net::ConRole::Function : net::ConRole::Pair);
        applyShape(cls);
        changed = true;
      }
  }
}

bool Polarizer::fail(TreeId at, const std::string &what) {
  diags.report(DiagKind::HvmPolarity, book.loc(at),
               "cannot polarize @" + book.names[def->name].str() + ": " + what);
  return false;
}

// Constraints are added top-down, so a contradiction shows up at the tree (or
// the second end of the variable) that cannot take the polarity its context
// asks for.
bool Polarizer::constrain() {
  if (!walk(Item{def->root, {Position::Root, 0}, Rel::Pos}))
    return false;
  rootConCount = allCons.size() - consBegin;
  for (uint32_t r = 0; r < def->redexes.size(); ++r) {
    const net::Redex &redex = def->redexes[r];
    if (!walk(Item{redex.lhs, {Position::RedexSide, 2 * r}, Rel::Free}) ||
        !walk(Item{redex.rhs, {Position::RedexSide, 2 * r + 1}, Rel::Opp, redex.lhs.index}))
      return false;
  }
  return true;
}

bool Polarizer::walk(Item start) {
  std::vector<Item> &stack = walkStack; // its buffer serves every walk
  stack.assign(1, start);
  while (!stack.empty()) {
    Item item = stack.back();
    stack.pop_back();
    if (!visit(item, stack))
      return false;
  }
  return true;
}

bool Polarizer::visit(const Item &item, std::vector<Item> &stack) {
  TreeId t = item.tree;
  assert(t.valid() && t.index < book.trees.size() && "tree id out of range");
  if (flags[t.index] & Seen)
    return fail(t, "this tree is used twice");
  flags[t.index] |= Seen;
  allTrees.push_back(t);

  // `t` is new to the union-find, so relating it to its parent cannot fail.
  switch (item.rel) {
  case Rel::Free: break;
  case Rel::Pos: uf.unite(t.index, positive, false); break;
  case Rel::Same: uf.unite(t.index, item.parent, false); break;
  case Rel::Opp: uf.unite(t.index, item.parent, true); break;
  }

  const net::Tree &tree = book[t];
  switch (tree.kind) {
  case TreeKind::Era: return true;
  case TreeKind::Num:
    if (!uf.unite(t.index, positive, false))
      return fail(t, "number " + rt::num::showNumb(tree.value) + " would be negative");
    return true;
  case TreeKind::Ref:
    if (referTo(t) == NoIndex)
      return false;
    if (!uf.unite(t.index, positive, false))
      return fail(t, "reference @" + book.names[tree.value].str() + " would be negative");
    return true;
  case TreeKind::Var: where[t.index] = item.pos.packed(); return visitVar(t);
  default: break;
  }

  uint32_t node = nodeCount++;
  nodeIndex(t) = node;
  Item fst{tree.fst, {Position::Slot, 2 * node}, Rel::Same, t.index};
  Item snd{tree.snd, {Position::Slot, 2 * node + 1}, Rel::Same, t.index};
  switch (tree.kind) {
  case TreeKind::Con:
    // A compiler that knows what a `(a b)` is says so; nothing is guessed
    // for it (a function's first child has the other polarity, a pair's the
    // same).
    unknownRoles |= tree.role == net::ConRole::Unknown;
    fst.rel = item.switchCases                          ? Rel::Pos
              : tree.role == net::ConRole::Function ? Rel::Opp
              : tree.role == net::ConRole::Pair     ? Rel::Same
                                                    : Rel::Free;
    if (!item.switchCases)
      allCons.push_back(t);
    break;
  case TreeKind::Dup: hasDup = true; break;
  case TreeKind::Opr:
    // Usually negative, -(+operand -result); HVM2 also lets two operator
    // nodes meet (they annihilate), where one of them is the positive twin
    // +(-operand +result). Undecided ones are made negative once the
    // definition's constraints are in (constrainDefinition).
    fst.rel = Rel::Opp;
    oprNodes.push_back(t);
    break;
  case TreeKind::Swi:
    if (!uf.unite(t.index, positive, true))
      return fail(t, "switch node would be positive");
    fst.rel = Rel::Pos;
    fst.switchCases = true;
    break;
  default: llvm_unreachable("leaves are handled above");
  }
  stack.push_back(snd);
  stack.push_back(fst);
  return true;
}

/// The definition the reference `t` names, noted as one the current
/// definition refers to; NoIndex (reported) where there is none.
uint32_t Polarizer::referTo(TreeId t) {
  uint32_t name = book[t].value;
  uint32_t target = defOfName[name];
  if (target == NoIndex) {
    diags.report(DiagKind::HvmUnboundReference, book.loc(t),
                 "reference to undefined definition @" + book.names[name].str());
    return NoIndex;
  }
  references.push_back({target, defId});
  return target;
}

bool Polarizer::visitVar(TreeId t) {
  uint32_t name = book[t].value;
  uint32_t count = ++useCount[name];
  if (count == 1) {
    firstUse[name] = t.index;
    usedNames.push_back(name);
    return true;
  }
  if (count > 2)
    return true; // reported by checkUseCounts
  uint32_t first = firstUse[name];
  partner(t.index) = first;
  partner(first) = t.index;
  if (uf.unite(t.index, first, true))
    return true;
  const char *both = "have the same polarity at both ends";
  if (uf.sameSet(first, positive))
    both = isPositive(TreeId{first}) ? "be positive at both ends" : "be negative at both ends";
  return fail(t, "variable '" + varName(t) + "' would " + both);
}

// Laying out a polarized definition, whose trees say their polarities
// through their parents': the root is positive, a redex says which side is,
// and a child has its parent's polarity but for the argument of a λ or an
// application (the other one) and the first child of an operator or a
// switch (positive). Nothing is inferred; what contradicts the rules is
// reported as inference would. The trees are walked in the order constrain
// walks them (so nodes are numbered alike), each term placed as its tree is
// met; variables are joined at the end, as build does.
bool Polarizer::layOut(uint32_t id) {
  defId = id;
  def = &book.defs[id];
  rt::DefInfo &defInfo = out.defs[id];
  info = &defInfo;
  slotBase = uint32_t(out.slots.size());
  defInfo.firstSlot = slotBase;
  defInfo.firstRedex = uint32_t(out.redexes.size());
  nodeCount = 0;
  hasDup = false;
  startJoining();
  auto walkFrom = [&](KnownItem start) {
    std::vector<KnownItem> &stack = knownStack;
    stack.assign(1, start);
    while (!stack.empty()) {
      KnownItem item = stack.back();
      stack.pop_back();
      if (!layOutTree(item))
        return false;
    }
    return true;
  };
  bool ok = walkFrom(KnownItem{def->root, {Position::Root, 0}, true});
  for (uint32_t r = 0; ok && r < def->redexes.size(); ++r) {
    const net::Redex &redex = def->redexes[r];
    if (redex.positive == net::PositiveSide::Unknown) {
      ok = fail(redex.lhs, "a redex does not say which side is positive");
      break;
    }
    bool lhsPositive = redex.positive == net::PositiveSide::Lhs;
    ok = walkFrom(KnownItem{redex.lhs, {Position::RedexSide, 2 * r}, lhsPositive}) &&
         walkFrom(KnownItem{redex.rhs, {Position::RedexSide, 2 * r + 1}, !lhsPositive});
  }
  if (ok) {
    // checkUseCounts points at a name's first tree.
    for (uint32_t name : usedNames)
      firstUse[name] = occurrences[firstUse[name]].tree.index;
    ok = checkUseCounts();
  }
  for (uint32_t name : usedNames) {
    firstUse[name] = NoIndex;
    useCount[name] = 0;
  }
  usedNames.clear();
  defInfo.nodeCount = nodeCount;
  defInfo.safe = !hasDup;
  if (!ok)
    return false;
  return joinVariables(defInfo);
}

bool Polarizer::layOutTree(const KnownItem &item) {
  TreeId t = item.tree;
  assert(t.valid() && t.index < book.trees.size() && "tree id out of range");
  if (flags[t.index] & Seen)
    return fail(t, "this tree is used twice");
  flags[t.index] |= Seen;
  const net::Tree &tree = book[t];
  bool pos = item.positive;
  rt::Term term = 0;
  switch (tree.kind) {
  case TreeKind::Var: {
    uint32_t k = uint32_t(occurrences.size());
    occurrences.push_back({t, item.pos.packed(), NoIndex, pos});
    if (item.pos.kind == Position::RedexSide)
      sideOccurrence[item.pos.index] = k;
    uint32_t name = tree.value;
    uint32_t count = ++useCount[name];
    if (count == 1) {
      firstUse[name] = k;
      usedNames.push_back(name);
      return true;
    }
    if (count > 2)
      return true; // reported by checkUseCounts
    uint32_t first = firstUse[name];
    occurrences[first].partner = k;
    occurrences[k].partner = first;
    if (occurrences[first].positive != pos)
      return true;
    return fail(t, "variable '" + varName(t) + "' would " +
                       (pos ? "be positive at both ends" : "be negative at both ends"));
  }
  case TreeKind::Era: term = pos ? rt::nulTerm() : rt::eraTerm(); break;
  case TreeKind::Num:
    if (!pos)
      return fail(t, "number " + rt::num::showNumb(tree.value) + " would be negative");
    term = rt::numTerm(tree.value);
    break;
  case TreeKind::Ref: {
    uint32_t target = referTo(t);
    if (target == NoIndex)
      return false;
    if (!pos)
      return fail(t, "reference @" + book.names[tree.value].str() + " would be negative");
    term = rt::refTerm(target);
    break;
  }
  case TreeKind::Con:
  case TreeKind::Dup:
  case TreeKind::Opr:
  case TreeKind::Swi: {
    uint32_t node = nodeCount++;
    out.slots.push_back(rt::makeTerm(rt::tag::Free, 0));
    out.slots.push_back(rt::makeTerm(rt::tag::Free, 0));
    KnownItem fst{tree.fst, {Position::Slot, 2 * node}, pos};
    KnownItem snd{tree.snd, {Position::Slot, 2 * node + 1}, pos};
    if (tree.kind == TreeKind::Con) {
      if (tree.role == net::ConRole::Unknown)
        return fail(t, "a node of a polarized definition does not say what it is");
      if (item.switchCases)
        fst.positive = true;
      else if (tree.role == net::ConRole::Function)
        fst.positive = !pos;
      if (inferring && !item.switchCases)
        polarizedCons.push_back(t);
      term = rt::nodeTerm(rt::tag::node(rt::Kind::Con, pos, fst.positive), node);
    } else if (tree.kind == TreeKind::Dup) {
      hasDup = true;
      term = rt::nodeTerm(rt::tag::node(rt::Kind::Dup, pos, pos), node);
    } else {
      if (pos)
        return fail(t, tree.kind == TreeKind::Opr ? "operator node would be positive"
                                                  : "switch node would be positive");
      fst.positive = true;
      fst.switchCases = tree.kind == TreeKind::Swi;
      term = rt::nodeTerm(tree.kind == TreeKind::Opr ? rt::tag::Opr : rt::tag::Swi, node);
    }
    knownStack.push_back(snd);
    knownStack.push_back(fst);
    break;
  }
  }
  placeTerm(item.pos, term, pos);
  return true;
}

void Polarizer::placeTerm(Position pos, rt::Term term, bool positive) {
  if (pos.kind == Position::RedexSide) {
    sideTerm[pos.index] = term;
    sidePositive[pos.index] = positive;
    return;
  }
  setAt(pos, term);
}

/// Empties the occurrences and the redex sides' tables for the definition.
void Polarizer::startJoining() {
  occurrences.clear();
  spareSlot = NoIndex;
  size_t sides = 2 * def->redexes.size();
  sideOccurrence.assign(sides, NoIndex);
  sideTerm.assign(sides, 0);
  sidePositive.assign(sides, 0);
}

/// Joins the variables of the definition laid out or built: each occurrence
/// in a slot or at the root first, in pre-order, then the redexes.
bool Polarizer::joinVariables(rt::DefInfo &defInfo) {
  redexUsed.assign(def->redexes.size(), 0);
  for (uint32_t k = 0; k < occurrences.size(); ++k)
    if (Position::unpack(occurrences[k].pos).kind != Position::RedexSide &&
        !occurrences[k].joined && !joinFrom(k))
      return false;
  if (!joinRedexes())
    return false;
  defInfo.redexCount = uint32_t(out.redexes.size() - defInfo.firstRedex) / 2;
  assert(rt::isPositive(defInfo.root) && "a definition's root must be positive");
  return true;
}

/// Follows the wire from the variable occurrence `end`, in a slot or at the
/// root, through redexes whose sides are variables, to the tree or the
/// variable occurrence at its other end, and gives both ends their terms.
bool Polarizer::joinFrom(uint32_t end) {
  uint32_t u = occurrences[end].partner;
  for (;;) {
    if (u == NoIndex) {
      // The wire ends in a free port: a negative end waits forever, a
      // positive one points at a slot that nothing fills.
      occurrences[end].joined = true;
      setAt(Position::unpack(occurrences[end].pos),
            occurrences[end].positive ? rt::varTerm(freeSlot()) : rt::subTerm());
      return true;
    }
    Position pos = Position::unpack(occurrences[u].pos);
    if (pos.kind != Position::RedexSide) {
      occurrences[end].joined = occurrences[u].joined = true;
      uint32_t neg = occurrences[end].positive ? u : end;
      uint32_t posEnd = occurrences[end].positive ? end : u;
      Position negAt = Position::unpack(occurrences[neg].pos);
      assert(negAt.kind == Position::Slot && "a negative end is always in a slot");
      setAt(negAt, rt::subTerm());
      setAt(Position::unpack(occurrences[posEnd].pos), rt::varTerm(negAt.index));
      return true;
    }
    uint32_t across = crossRedex(pos);
    if (across == NoIndex)
      return failLoop(occurrences[end].tree);
    if (sideOccurrence[across] == NoIndex) {
      occurrences[end].joined = true;
      setAt(Position::unpack(occurrences[end].pos), sideTerm[across]);
      return true;
    }
    u = occurrences[sideOccurrence[across]].partner;
  }
}

/// Goes through the redex whose side is at `pos`: the other side, or NoIndex
/// where the wire went through it before (the variables close a loop).
uint32_t Polarizer::crossRedex(Position pos) {
  uint32_t redex = pos.index / 2;
  if (redexUsed[redex])
    return NoIndex;
  redexUsed[redex] = 1;
  return pos.index ^ 1;
}

/// Emits the redexes between trees, following wires through redexes whose
/// sides are variables (`& T ~ x & x ~ U` is `& T ~ U`). Redexes left over
/// link only variables to each other in a closed loop.
bool Polarizer::joinRedexes() {
  for (uint32_t r = 0; r < def->redexes.size(); ++r) {
    if (redexUsed[r])
      continue;
    uint32_t lhs = 2 * r, rhs = 2 * r + 1;
    bool lhsVar = sideOccurrence[lhs] != NoIndex, rhsVar = sideOccurrence[rhs] != NoIndex;
    if (lhsVar && rhsVar)
      continue;
    redexUsed[r] = 1;
    if (!lhsVar && !rhsVar) {
      emitSides(lhs, rhs);
      continue;
    }
    uint32_t start = lhsVar ? rhs : lhs;
    uint32_t var = sideOccurrence[lhsVar ? lhs : rhs];
    for (;;) {
      uint32_t u = occurrences[var].partner;
      if (u == NoIndex) {
        // A tree wired to a free port: it stays there, in a slot of its own.
        setAt({Position::Slot, freeSlot()}, sideTerm[start]);
        break;
      }
      Position pos = Position::unpack(occurrences[u].pos);
      assert(pos.kind == Position::RedexSide && "slot ends are joined first");
      uint32_t across = crossRedex(pos);
      if (across == NoIndex)
        return failLoop(occurrences[var].tree);
      if (sideOccurrence[across] == NoIndex) {
        emitSides(start, across);
        break;
      }
      var = sideOccurrence[across];
    }
  }
  // Redexes left over join variables only: a chain between two free
  // ports, which is dropped, or a closed loop.
  for (uint32_t r = 0; r < def->redexes.size(); ++r) {
    if (redexUsed[r])
      continue;
    redexUsed[r] = 1;
    for (uint32_t side : {2 * r, 2 * r + 1})
      for (uint32_t var = sideOccurrence[side]; var != NoIndex;) {
        uint32_t u = occurrences[var].partner;
        if (u == NoIndex || Position::unpack(occurrences[u].pos).kind != Position::RedexSide)
          break;
        uint32_t across = crossRedex(Position::unpack(occurrences[u].pos));
        if (across == NoIndex)
          return failLoop(def->redexes[r].lhs);
        var = sideOccurrence[across];
      }
  }
  return true;
}

/// A slot of a node of its own that nothing else uses, holding SUB: where
/// a wire ending in a free port goes.
uint32_t Polarizer::freeSlot() {
  if (spareSlot != NoIndex)
    return std::exchange(spareSlot, NoIndex);
  uint32_t node = info->nodeCount++;
  out.slots.push_back(rt::subTerm());
  out.slots.push_back(rt::subTerm());
  spareSlot = 2 * node + 1;
  return 2 * node;
}

void Polarizer::emitSides(uint32_t a, uint32_t b) {
  if (sidePositive[a])
    std::swap(a, b);
  out.redexes.push_back(sideTerm[a]);
  out.redexes.push_back(sideTerm[b]);
}

bool Polarizer::checkUseCounts() {
  bool ok = true;
  for (uint32_t name : usedNames) {
    uint32_t count = useCount[name];
    if (count == 2)
      continue;
    if (count == 1) {
      // Its wire ends in a free port, as HVM2 leaves it (see joinFrom).
      diags.report(DiagKind::HvmUnpairedVariable, book.loc(TreeId{firstUse[name]}),
                   net::unpairedVariableMessage(book.names[name], book.names[def->name]));
      continue;
    }
    std::string times = count == 1 ? "1 time" : std::to_string(count) + " times";
    diags.report(DiagKind::HvmVariableCount, book.loc(TreeId{firstUse[name]}),
                 "variable '" + book.names[name].str() + "' occurs " + times + " in @" +
                     book.names[def->name].str() + ", but a variable must occur exactly twice");
    ok = false;
  }
  return ok;
}

// What the constraints leave open is chosen as in the λ-calculus: a free
// `(a b)` becomes LAM or APP, and a redex with no constraint at all stores its
// left side as the negative one.
//
// Order matters, because one choice can decide another through a variable.
// Redex spines go first, in pre-order: `@f ~ (a (b r))` is a call, so its
// spine is surely made of APPs, and what they decide about variables tells a
// pattern in a binder (`((b d) f)` takes apart what is passed in: UNT) from a
// curried function. The root tree follows, in pre-order, so a binder (which
// comes before its uses) is the one that becomes a LAM: `(b (a (a b)))` is
// λb.λa.(a, b). The rest of the redex trees, the arguments of calls, come last:
// what they build from the parameters (`@f ~ ((a (b c)) r)`, a tuple of them)
// follows from the binders.
void Polarizer::applyDefaults() {
  auto decide = [&](TreeId con) {
    uint32_t cls = shapes.classOf(con);
    if (relationKnown(con)) {
      if (cls != ShapeClasses::None && shapes.shape(cls) == net::ConRole::Unknown) {
        shapes.decide(cls, functionRelation(con) ? net::ConRole::Function : net::ConRole::Pair);
        applyShape(cls);
      }
      return;
    }
    if (cls == ShapeClasses::None) {
      uf.unite(book[con].fst.index, con.index, true);
      return;
    }
    if (shapes.shape(cls) == net::ConRole::Unknown)
      shapes.decide(cls, net::ConRole::Function);
    applyShape(cls);
    if (!relationKnown(con))
      uf.unite(book[con].fst.index, con.index, true);
  };
  // (Where every `(a b)` of the book says what it is, only redexes are left.)
  if (unknownRoles) {
    // A redex side's spine: the side and the second child of each `(a b)` on it.
    spine.clear();
    for (const net::Redex &redex : def->redexes)
      for (TreeId t : {redex.lhs, redex.rhs})
        for (; book[t].kind == TreeKind::Con; t = book[t].snd)
          spine.insert(t.index);
    arguments.clear();
    for (size_t i = rootConCount; i < conNodes.size(); ++i)
      if (spine.count(conNodes[i].index))
        decide(conNodes[i]);
      else
        arguments.push_back(conNodes[i]);
    for (size_t i = 0; i < rootConCount; ++i)
      decide(conNodes[i]);
    for (TreeId con : arguments)
      decide(con);
  }
  for (const net::Redex &redex : def->redexes)
    if (!uf.sameSet(redex.lhs.index, positive))
      uf.unite(redex.lhs.index, positive, true);
}

bool Polarizer::isPositive(TreeId t) {
  ParityUnionFind::Root r = uf.find(t.index), p = uf.find(positive);
  assert(r.root == p.root && "polarity left undecided");
  return r.parity == p.parity;
}

rt::Term Polarizer::termOf(TreeId t) {
  const net::Tree &tree = book[t];
  switch (tree.kind) {
  case TreeKind::Num: return rt::numTerm(tree.value);
  case TreeKind::Ref: return rt::refTerm(defOfName[tree.value]);
  case TreeKind::Era: return isPositive(t) ? rt::nulTerm() : rt::eraTerm();
  case TreeKind::Con:
    return rt::nodeTerm(rt::tag::node(rt::Kind::Con, isPositive(t), isPositive(tree.fst)),
                        nodeIndex(t));
  case TreeKind::Dup: {
    bool pos = isPositive(t);
    return rt::nodeTerm(rt::tag::node(rt::Kind::Dup, pos, pos), nodeIndex(t));
  }
  case TreeKind::Opr:
    return rt::nodeTerm(rt::tag::node(rt::Kind::Opr, isPositive(t), isPositive(tree.fst)),
                        nodeIndex(t));
  case TreeKind::Swi: return rt::nodeTerm(rt::tag::Swi, nodeIndex(t));
  case TreeKind::Var: break;
  }
  llvm_unreachable("variables have no term of their own");
}

void Polarizer::setAt(Position pos, rt::Term term) {
  switch (pos.kind) {
  case Position::Slot: out.slots[slotBase + pos.index] = term; return;
  case Position::Root: info->root = term; return;
  case Position::RedexSide: break;
  }
  llvm_unreachable("redex sides hold no variables after substitution");
}

bool Polarizer::build(rt::DefInfo &defInfo) {
  info = &defInfo;
  slotBase = uint32_t(out.slots.size());
  defInfo.firstSlot = slotBase;
  defInfo.nodeCount = nodeCount;
  defInfo.firstRedex = uint32_t(out.redexes.size());
  defInfo.safe = !hasDup;
  out.slots.resize(size_t(slotBase) + 2 * size_t(nodeCount), rt::makeTerm(rt::tag::Free, 0));

  for (TreeId t : trees) {
    const net::Tree &tree = book[t];
    if (!net::isNodeKind(tree.kind))
      continue;
    TreeId children[2] = {tree.fst, tree.snd};
    for (unsigned i = 0; i < 2; ++i)
      if (book[children[i]].kind != TreeKind::Var)
        out.slots[slotBase + 2 * nodeIndex(t) + i] = termOf(children[i]);
  }
  if (book[def->root].kind != TreeKind::Var)
    defInfo.root = termOf(def->root);

  // The variables and the redex sides as layOut records them, joined the
  // same way: a variable's twin, until now a tree, becomes its occurrence.
  startJoining();
  for (uint32_t side = 0; side < sideTerm.size(); ++side) {
    const net::Redex &redex = def->redexes[side / 2];
    TreeId t = side % 2 ? redex.rhs : redex.lhs;
    if (book[t].kind != TreeKind::Var) {
      sideTerm[side] = termOf(t);
      sidePositive[side] = isPositive(t);
    }
  }
  for (TreeId t : trees) {
    if (book[t].kind != TreeKind::Var)
      continue;
    uint32_t k = uint32_t(occurrences.size());
    occurrences.push_back({t, where[t.index], partner(t.index), isPositive(t)});
    if (whereIs(t.index).kind == Position::RedexSide)
      sideOccurrence[whereIs(t.index).index] = k;
    partner(t.index) = k;
  }
  for (Occurrence &o : occurrences)
    if (o.partner != NoIndex)
      o.partner = partner(o.partner);
  return joinVariables(defInfo);
}

// As HVM2 does: a definition that refers to an unsafe one is unsafe too.
void Polarizer::propagateSafety() {
  // The definitions that refer to each one: users[userBegin[d]..userBegin[d+1]).
  std::vector<uint32_t> userBegin(out.defs.size() + 1, 0), users(references.size());
  for (auto [target, user] : references)
    ++userBegin[target + 1];
  for (size_t d = 0; d < out.defs.size(); ++d)
    userBegin[d + 1] += userBegin[d];
  std::vector<uint32_t> filled(userBegin.begin(), userBegin.end() - 1);
  for (auto [target, user] : references)
    users[filled[target]++] = user;
  std::vector<uint32_t> stack;
  for (uint32_t id = 0; id < out.defs.size(); ++id)
    if (!out.defs[id].safe)
      stack.push_back(id);
  while (!stack.empty()) {
    uint32_t id = stack.back();
    stack.pop_back();
    for (uint32_t k = userBegin[id]; k < userBegin[id + 1]; ++k) {
      uint32_t user = users[k];
      if (!out.defs[user].safe)
        continue;
      out.defs[user].safe = false;
      stack.push_back(user);
    }
  }
}

} // namespace

std::optional<rt::Book> polarize(const net::Book &book, DiagnosticEngine &diags) {
  return Polarizer(book, diags).run();
}

} // namespace bendc::lowering
