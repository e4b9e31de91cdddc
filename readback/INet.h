// The net readback reads: Bend's INet (nodes with three ports), built from
// a tree-form net exactly as Bend's hvm_to_net builds it.
#pragma once

#include "ir/Net.h"

#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace bendc::readback {

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

/// Which subtrees are closed. Bend asks this of the tree at port 1 of every
/// CON it meets (a closed one makes the CON a tuple) and walks the tree each
/// time; numbering the trees in preorder answers it for all of them in one
/// pass: a subtree is closed when every wire leaving one of its auxiliary
/// ports ends inside its preorder interval.
void computeClosed(INet &net);

/// Builds the net of `def` as Bend's hvm_to_net does, node for node in the
/// same order: the root tree (unless the root is a variable), then both sides
/// of each redex; inside a tree, a node before its children, the second child
/// before the first. Returns nothing when the net is too large to index.
/// The caller still has to computeClosed().
std::optional<INet> buildNet(const net::Book &book, const net::Def &def);
/// The same for a run's result tree, whose references name `defNames` by id
/// (the tree has no redexes).
std::optional<INet> buildNet(const rt::ResultTree &tree,
                             const std::vector<llvm::StringRef> &defNames);

} // namespace bendc::readback
