// Shape inference for the `(a b)` nodes of a .hvm book: is each one a function
// (LAM/APP) or a pair (TUP/UNT)? HVM2's text does not say; the polarized
// runtime must know, or a pair built in one definition meets a pattern that
// was guessed to be an application in another.
//
// Every wire gets a type; `(a b)` gives its wire a type Con(k, A, B) with a
// shape class k; the two ends of a wire, both sides of a redex and the copies
// of a `{a b}` share a type. Unification puts the `(a b)` nodes that can meet
// into classes that must share a shape. Numbers carry no type at all, so a
// tree of depth-indexed pairs with numbers at the leaves unifies without
// conflict. On top of plain unification, so that the books Bend writes type:
//  - let-polymorphism: definitions are typed callees first, one strongly
//    connected component of the reference graph at a time, and each reference
//    to an earlier one takes a fresh copy of its type. A class stands for
//    nodes of the book, so copies keep the classes: a helper used at two
//    shapes ties each use to its own nodes, not the two uses to each other;
//  - constructors and matches: Bend's data are `λm. m tag f1 .. fn`, taken
//    apart by `(?((case0 case1) r) r)`, a switch on the tag. Each match on a
//    value gets its own answer type (the type of a value does not fix what a
//    match on it returns, which plain unification would say), and a switch
//    applied to a known tag ties only that tag's branch;
//  - the host: an IO program's result is read by the host, which takes each
//    call's argument apart as a tuple and builds the Result it answers with.
// Conflicts (a function used as a pair) are skipped: the classes then say
// less, and polarity inference falls back on its defaults.
#pragma once

#include "ir/Net.h"

#include "llvm/ADT/ArrayRef.h"

#include <cstdint>
#include <vector>

namespace bendc::lowering {

class ShapeClasses {
public:
  static constexpr uint32_t None = ~0u;

  /// The class of a `(a b)` tree (None for other trees, and for every tree
  /// when no inference ran).
  uint32_t classOf(net::TreeId t) const {
    return t.index < classOfTree.size() ? classOfTree[t.index] : None;
  }
  net::ConRole shape(uint32_t cls) const { return shapes[find(cls)]; }
  /// Fixes the shape of a class; false if it already had the other shape.
  bool decide(uint32_t cls, net::ConRole s);
  /// The `(a b)` trees of a class (valid until the next decide()).
  const std::vector<net::TreeId> &members(uint32_t cls) const { return membersOf[find(cls)]; }
  unsigned conflicts() const { return conflictCount; }

  // Building (used by inferShapes).
  uint32_t add(net::ConRole s);
  /// Joins two classes; false (and nothing joined) when their shapes differ.
  bool merge(uint32_t a, uint32_t b);
  void setClass(net::TreeId t, uint32_t cls) {
    classOfTree[t.index] = cls;
    membersOf[find(cls)].push_back(t);
  }
  void resize(size_t trees) { classOfTree.assign(trees, None); }
  void noteConflict() { ++conflictCount; }

private:
  uint32_t find(uint32_t c) const {
    while (parent[c] != c)
      c = parent[c];
    return c;
  }

  std::vector<uint32_t> classOfTree;
  std::vector<uint32_t> parent;
  std::vector<net::ConRole> shapes;
  std::vector<std::vector<net::TreeId>> membersOf;
  unsigned conflictCount = 0;
};

/// `known` (empty, or one per tree) gives the shapes of `(a b)` trees that
/// are already certain; a class never joins a function with a pair.
ShapeClasses inferShapes(const net::Book &book, llvm::ArrayRef<net::ConRole> known = {});

} // namespace bendc::lowering
