// The net IR: a book of interaction-net definitions in tree form, exactly what
// the HVM2 text format says (`@name = tree & a ~ b ...`). The .hvm reader and
// lowering produce it, the .hvm printer writes it, and polarity inference
// turns it into the runtime's polarized book.
#pragma once

#include "runtime/common/Readback.h"
#include "runtime/common/Term.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/Allocator.h"
#include "llvm/Support/SMLoc.h"

#include <cstdint>
#include <string>
#include <vector>

namespace bendc::net {

enum class TreeKind : uint8_t {
  Var, // a wire end, named; each name occurs twice in a definition (once:
       // the wire's other end is a free port, as HVM2 allows)
  Ref, // @name
  Era, // *
  Num, // a number, a partial operator or an operator symbol (HVM2 Numb)
  Con, // (a b)
  Dup, // {a b}
  Opr, // $(a b)
  Swi, // ?(a b)
};

/// The warning for a variable that occurs once in a definition.
inline std::string unpairedVariableMessage(llvm::StringRef var, llvm::StringRef def) {
  return ("variable '" + var + "' occurs once in @" + def +
          ": its other end is left as a free port")
      .str();
}

// A run's result tree (runtime/common/Readback.h) names its kinds as the net
// IR does: the printer and readback read it as trees of the net IR.
static_assert(TreeKind(rt::ResultTree::Kind::Var) == TreeKind::Var &&
                  TreeKind(rt::ResultTree::Kind::Ref) == TreeKind::Ref &&
                  TreeKind(rt::ResultTree::Kind::Era) == TreeKind::Era &&
                  TreeKind(rt::ResultTree::Kind::Num) == TreeKind::Num &&
                  TreeKind(rt::ResultTree::Kind::Con) == TreeKind::Con &&
                  TreeKind(rt::ResultTree::Kind::Dup) == TreeKind::Dup &&
                  TreeKind(rt::ResultTree::Kind::Opr) == TreeKind::Opr &&
                  TreeKind(rt::ResultTree::Kind::Swi) == TreeKind::Swi,
              "a result tree's kinds are the net IR's");

/// Con, Dup, Opr and Swi are nodes with two children; the rest are leaves.
inline bool isNodeKind(TreeKind kind) {
  return kind == TreeKind::Con || kind == TreeKind::Dup || kind == TreeKind::Opr ||
         kind == TreeKind::Swi;
}

/// Index of a tree in Book::trees.
struct TreeId {
  uint32_t index = ~0u;
  bool valid() const { return index != ~0u; }
  friend bool operator==(TreeId a, TreeId b) { return a.index == b.index; }
};

/// What a `(a b)` node is: a λ or an application (Function), or a pair. A
/// compiler knows; the .hvm text does not say, so trees read from text leave
/// it Unknown and shape inference (lowering/ShapeInference.h) decides it for
/// whole classes of nodes that must agree.
enum class ConRole : uint8_t { Unknown, Function, Pair };

struct Tree {
  TreeKind kind = TreeKind::Era;
  ConRole role = ConRole::Unknown; // Con: a λ/application or a pair (next to kind: 16 bytes in all)
  /// Var: index into Book::names (the variable's name); Ref: index into
  /// Book::names (the definition's name); Num: the Numb.
  uint32_t value = 0;
  TreeId fst, snd; // children of Con, Dup, Opr and Swi

  Tree() = default;
  Tree(TreeKind kind, uint32_t value, TreeId fst, TreeId snd, ConRole role = ConRole::Unknown)
      : kind(kind), role(role), value(value), fst(fst), snd(snd) {}
};
static_assert(sizeof(Tree) == 16, "a book holds millions of trees");

/// Which side of a redex is positive, where a compiler knows; the .hvm text
/// does not say.
enum class PositiveSide : uint8_t { Unknown, Lhs, Rhs };

struct Redex {
  bool parallel = false; // written `&!`
  PositiveSide positive = PositiveSide::Unknown;
  TreeId lhs, rhs;
  llvm::SMLoc loc;
};

struct Def {
  uint32_t name; // index into Book::names
  TreeId root;
  std::vector<Redex> redexes;
  llvm::SMLoc loc;
  /// Every `(a b)` of it says its role and every redex its positive side:
  /// the polarity of each tree follows from its parent's, with nothing to
  /// infer (the root is positive).
  bool polarized = false;
  /// Its nodes (trees with children), where the compiler that made it
  /// counted them; UnknownSize for definitions read from text.
  static constexpr uint32_t UnknownSize = ~0u;
  uint32_t nodeCount = UnknownSize;
};

struct Book {
  std::vector<Tree> trees;
  /// Where trees were written, for those read from text (Book::loc): the
  /// trees from `locsBegin` on, as far as there are entries. Trees a
  /// compiler makes have none, and take no room here.
  std::vector<llvm::SMLoc> locs;
  uint32_t locsBegin = 0;
  /// Interned variable and definition names: the keys of `nameIds`, whose
  /// entries stay where they are made (and go all at once).
  std::vector<llvm::StringRef> names;
  llvm::StringMap<uint32_t, llvm::BumpPtrAllocator> nameIds;
  std::vector<Def> defs; // in source order
  /// The definition reduction starts from: `main`, unless a program names
  /// another entry point (-e).
  std::string entry = "main";

  Book() = default;
  Book(Book &&) = default;
  Book &operator=(Book &&) = default;
  Book(const Book &) = delete; // `names` point into this book's own table
  Book &operator=(const Book &) = delete;

  uint32_t intern(llvm::StringRef name) {
    auto [it, inserted] = nameIds.try_emplace(name, uint32_t(names.size()));
    if (inserted)
      names.push_back(it->first());
    return it->second;
  }
  TreeId add(Tree t) {
    trees.push_back(t);
    return TreeId{uint32_t(trees.size() - 1)};
  }
  TreeId add(Tree t, llvm::SMLoc at) {
    TreeId id = add(t);
    if (at.isValid())
      setLoc(id, at);
    return id;
  }
  /// Where `id` was written, or no place.
  llvm::SMLoc loc(TreeId id) const {
    return id.index >= locsBegin && id.index - locsBegin < locs.size() ? locs[id.index - locsBegin]
                                                                     : llvm::SMLoc();
  }
  void setLoc(TreeId id, llvm::SMLoc at) {
    if (locs.empty())
      locsBegin = id.index;
    if (id.index < locsBegin) {
      locs.insert(locs.begin(), locsBegin - id.index, llvm::SMLoc());
      locsBegin = id.index;
    }
    if (id.index - locsBegin >= locs.size())
      locs.resize(id.index - locsBegin + 1);
    locs[id.index - locsBegin] = at;
  }
  const Tree &operator[](TreeId id) const { return trees[id.index]; }
  Tree &operator[](TreeId id) { return trees[id.index]; }
};

/// Two read-only views of trees with the same accessors, for code written
/// once over a book's trees and a run's result tree (the printer, readback).
struct BookTrees {
  using Id = TreeId;
  const Book &book;
  TreeKind kind(Id t) const { return book[t].kind; }
  uint32_t value(Id t) const { return book[t].value; }
  Id fst(Id t) const { return book[t].fst; }
  Id snd(Id t) const { return book[t].snd; }
};
struct ResultTrees {
  using Id = uint32_t; // an index into ResultTree::nodes
  const rt::ResultTree &tree;
  TreeKind kind(Id t) const { return TreeKind(tree.nodes[t].kind); }
  uint32_t value(Id t) const { return tree.nodes[t].value; }
  Id fst(Id t) const { return tree.nodes[t].fst; }
  Id snd(Id t) const { return tree.nodes[t].snd; }
};

/// Calls `fn(id)` once for every tree of `def`: its root, the sides of its
/// redexes and all below them, a parent before its children. `fn` may turn
/// the tree it is given into a leaf; its children are then not visited.
template <class Fn> void forEachTree(const Book &book, const Def &def, Fn fn) {
  llvm::SmallVector<TreeId, 32> work{def.root};
  for (const Redex &r : def.redexes)
    work.append({r.rhs, r.lhs});
  while (!work.empty()) {
    TreeId id = work.pop_back_val();
    fn(id);
    if (const Tree &t = book[id]; isNodeKind(t.kind))
      work.append({t.snd, t.fst});
  }
}

/// Checks a book a compiler made against what lowering promises: every tree
/// of a definition within the book, with children exactly where it has
/// them; every variable name twice in its definition; every reference to a
/// definition of the book; every number a valid HVM2 number (a type or
/// operator tag HVM2 knows); every definition's counted nodes its nodes; a
/// definition said to be polarized says the role of each `(a b)` and the
/// positive side of each redex. Returns the problems found, one message
/// each. A definition read from text (its nodes not counted) may leave a
/// variable once (HVM2 allows a free port): that rule is not checked there.
std::vector<std::string> verify(const Book &book);

} // namespace bendc::net
