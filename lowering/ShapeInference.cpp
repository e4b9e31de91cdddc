#include "lowering/ShapeInference.h"

#include "llvm/ADT/DenseMap.h"

#include <utility>

namespace bendc {

uint32_t ShapeClasses::add(ConShape s) {
  uint32_t id = uint32_t(parent.size());
  parent.push_back(id);
  shapes.push_back(s);
  membersOf.emplace_back();
  return id;
}

bool ShapeClasses::merge(uint32_t a, uint32_t b) {
  a = find(a);
  b = find(b);
  if (a == b)
    return true;
  if (shapes[a] != ConShape::Unknown && shapes[b] != ConShape::Unknown && shapes[a] != shapes[b])
    return false;
  if (membersOf[a].size() < membersOf[b].size())
    std::swap(a, b);
  parent[b] = a;
  if (shapes[a] == ConShape::Unknown)
    shapes[a] = shapes[b];
  membersOf[a].insert(membersOf[a].end(), membersOf[b].begin(), membersOf[b].end());
  membersOf[b].clear();
  membersOf[b].shrink_to_fit();
  return true;
}

bool ShapeClasses::decide(uint32_t cls, ConShape s) {
  uint32_t r = find(cls);
  if (shapes[r] == ConShape::Unknown) {
    shapes[r] = s;
    return true;
  }
  return shapes[r] == s;
}

namespace {

using net::TreeId;
using net::TreeKind;

/// Types of wires, unified in place (union-find). A type is unknown or
/// Con(class, A, B).
class Types {
public:
  explicit Types(ShapeClasses &classes) : classes(classes) {}

  uint32_t fresh() { return push(false, 0, 0, 0); }
  uint32_t con(uint32_t cls, uint32_t a, uint32_t b) { return push(true, cls, a, b); }

  void unify(uint32_t x, uint32_t y) {
    work.push_back({x, y});
    while (!work.empty()) {
      auto [a, b] = work.back();
      work.pop_back();
      a = find(a);
      b = find(b);
      if (a == b)
        continue;
      if (!nodes[a].isCon) {
        nodes[a].parent = b;
        continue;
      }
      if (!nodes[b].isCon) {
        nodes[b].parent = a;
        continue;
      }
      if (!classes.merge(nodes[a].cls, nodes[b].cls)) {
        classes.noteConflict();
        continue; // a function used as a pair somewhere: learn nothing from it
      }
      nodes[b].parent = a;
      work.push_back({nodes[a].a, nodes[b].a});
      work.push_back({nodes[a].b, nodes[b].b});
    }
  }

private:
  struct Node {
    uint32_t parent;
    bool isCon;
    uint32_t cls, a, b;
  };
  uint32_t push(bool isCon, uint32_t cls, uint32_t a, uint32_t b) {
    uint32_t id = uint32_t(nodes.size());
    nodes.push_back({id, isCon, cls, a, b});
    return id;
  }
  uint32_t find(uint32_t x) {
    while (nodes[x].parent != x) {
      nodes[x].parent = nodes[nodes[x].parent].parent;
      x = nodes[x].parent;
    }
    return x;
  }

  ShapeClasses &classes;
  std::vector<Node> nodes;
  std::vector<std::pair<uint32_t, uint32_t>> work;
};

} // namespace

ShapeClasses inferShapes(const net::Book &book) {
  ShapeClasses classes;
  classes.resize(book.trees.size());
  Types types(classes);

  // One type per tree (the wire at its principal port) and per definition.
  std::vector<uint32_t> typeOf(book.trees.size());
  for (uint32_t &t : typeOf)
    t = types.fresh();
  llvm::DenseMap<uint32_t, uint32_t> defType; // definition name -> type of its root
  for (const net::Def &d : book.defs)
    defType.try_emplace(d.name, types.fresh());

  uint32_t pairClass = classes.add(ConShape::Pair);
  uint32_t funClass = classes.add(ConShape::Function);

  // Walks one definition's trees; variables are scoped to the definition.
  llvm::DenseMap<uint32_t, uint32_t> varType;
  std::vector<TreeId> stack;
  auto walk = [&](TreeId root) {
    stack.push_back(root);
    while (!stack.empty()) {
      TreeId t = stack.back();
      stack.pop_back();
      if (!t.valid() || t.index >= book.trees.size())
        continue;
      const net::Tree &tree = book[t];
      uint32_t self = typeOf[t.index];
      switch (tree.kind) {
      case TreeKind::Var: {
        auto [it, inserted] = varType.try_emplace(tree.value, self);
        if (!inserted)
          types.unify(self, it->second);
        break;
      }
      case TreeKind::Ref: {
        auto it = defType.find(tree.value);
        if (it != defType.end())
          types.unify(self, it->second);
        break;
      }
      case TreeKind::Con: {
        uint32_t cls = classes.add(ConShape::Unknown);
        classes.setClass(t, cls);
        types.unify(self, types.con(cls, typeOf[tree.fst.index], typeOf[tree.snd.index]));
        break;
      }
      case TreeKind::Dup:
        types.unify(self, typeOf[tree.fst.index]);
        types.unify(self, typeOf[tree.snd.index]);
        break;
      case TreeKind::Swi: {
        // ?((zero succ) result): zero has the result's type, succ takes the
        // predecessor to it.
        uint32_t result = typeOf[tree.snd.index];
        uint32_t succ = types.con(funClass, types.fresh(), result);
        types.unify(typeOf[tree.fst.index], types.con(pairClass, result, succ));
        break;
      }
      case TreeKind::Num:
      case TreeKind::Era:
      case TreeKind::Opr: // numbers carry no type
        break;
      }
      if (net::isNodeKind(tree.kind)) {
        stack.push_back(tree.snd);
        stack.push_back(tree.fst);
      }
    }
  };
  for (const net::Def &d : book.defs) {
    varType.clear();
    walk(d.root);
    types.unify(typeOf[d.root.index], defType[d.name]);
    for (const net::Redex &r : d.redexes) {
      walk(r.lhs);
      walk(r.rhs);
      types.unify(typeOf[r.lhs.index], typeOf[r.rhs.index]);
    }
  }
  return classes;
}

} // namespace bendc
