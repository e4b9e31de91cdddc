// The reference graph of a net book, for LLVM's graph algorithms
// (llvm::scc_iterator): one node per definition, an edge for each reference
// to a definition of the book, and an entry node that refers to every
// definition, so that one walk reaches them all. Built from a net book, or
// filled in by its user.
#pragma once

#include "ir/Net.h"

#include "llvm/ADT/GraphTraits.h"

#include <cstdint>
#include <vector>

namespace bendc::net {

struct RefGraph {
  static constexpr uint32_t EntryId = ~0u;
  struct Node {
    uint32_t def; // index into Book::defs; EntryId for the entry node
    std::vector<Node *> refs;
  };

  /// A reference names the first definition of its name; one naming no
  /// definition of the book is no edge.
  explicit RefGraph(const Book &book);
  /// `count` definitions and no reference yet: for a book in another form
  /// (the runtime's), whose references the caller adds with `refer`.
  explicit RefGraph(uint32_t count);
  void refer(uint32_t from, uint32_t to) { defs[from].refs.push_back(&defs[to]); }
  RefGraph(const RefGraph &) = delete; // nodes point at each other
  RefGraph &operator=(const RefGraph &) = delete;

  /// For each definition, whether it lies on a cycle of references
  /// (including a reference to itself).
  std::vector<bool> recursive();

  std::vector<Node> defs; // by definition index
  Node entry{EntryId, {}};
};

} // namespace bendc::net

template <> struct llvm::GraphTraits<bendc::net::RefGraph *> {
  using NodeRef = bendc::net::RefGraph::Node *;
  using ChildIteratorType = std::vector<NodeRef>::iterator;
  static NodeRef getEntryNode(bendc::net::RefGraph *g) { return &g->entry; }
  static ChildIteratorType child_begin(NodeRef n) { return n->refs.begin(); }
  static ChildIteratorType child_end(NodeRef n) { return n->refs.end(); }
};
