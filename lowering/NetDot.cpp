#include "lowering/NetDot.h"

#include "runtime/common/NumericText.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/ErrorHandling.h"

#include <cstdint>
#include <vector>

namespace bendc::lowering {

namespace {

using net::TreeId;
using net::TreeKind;

constexpr uint32_t NoNode = ~0u;

/// Where a wire end attaches: a graph node and one of its ports (0: the node
/// itself, 1 or 2: an auxiliary port).
struct Place {
  uint32_t node = NoNode;
  unsigned port = 0;
};

/// The side of a node an auxiliary port is drawn on.
const char *compass(unsigned port) { return port == 1 ? "sw" : "se"; }

class DotWriter {
public:
  DotWriter(llvm::raw_ostream &os, const net::Book &book) : os(os), book(book) {}

  void writeDef(uint32_t index, const net::Def &def);

private:
  uint32_t addNode(llvm::StringRef label, llvm::StringRef attrs);
  uint32_t addTreeNode(const net::Tree &tree);
  void drawTree(TreeId top, Place parent);
  uint32_t drawRedexSide(TreeId side);
  void occurrence(TreeId var, Place at);
  void drawDangling(uint32_t name, Place at);
  void writeEnds(Place from, Place to);

  /// What is known of a variable name in the definition being drawn.
  struct VarState {
    Place first;
    bool paired = false;
  };

  llvm::raw_ostream &os;
  const net::Book &book;
  uint32_t nextNode = 0;
  llvm::DenseMap<uint32_t, VarState> vars; // by name, for one definition
  std::vector<uint32_t> varOrder;          // names in order of first occurrence
  std::vector<std::pair<TreeId, Place>> stack;
};

uint32_t DotWriter::addNode(llvm::StringRef label, llvm::StringRef attrs) {
  uint32_t id = nextNode++;
  os << "    n" << id << " [label=\"" << escapeDot(label) << "\", " << attrs << "];\n";
  return id;
}

uint32_t DotWriter::addTreeNode(const net::Tree &tree) {
  switch (tree.kind) {
  case TreeKind::Con: return addNode("( )", "shape=circle");
  case TreeKind::Dup: return addNode("{ }", "shape=circle");
  case TreeKind::Opr: return addNode("$", "shape=circle");
  case TreeKind::Swi: return addNode("?", "shape=circle");
  case TreeKind::Era: return addNode("*", "shape=circle");
  case TreeKind::Num: return addNode(rt::num::showNumb(tree.value), "shape=box");
  case TreeKind::Ref: return addNode("@" + book.names[tree.value].str(), "shape=box");
  case TreeKind::Var: break;
  }
  llvm_unreachable("a variable is an edge, not a node");
}

/// Draws the tree `top` and links it to `parent` (when there is one); an
/// explicit stack keeps deep trees off the call stack.
void DotWriter::drawTree(TreeId top, Place parent) {
  stack.clear();
  stack.push_back({top, parent});
  while (!stack.empty()) {
    auto [t, at] = stack.back();
    stack.pop_back();
    const net::Tree &tree = book[t];
    if (tree.kind == TreeKind::Var) {
      occurrence(t, at);
      continue;
    }
    uint32_t id = addTreeNode(tree);
    if (at.node != NoNode) {
      os << "    n" << at.node << " -> n" << id;
      if (at.port != 0)
        os << " [label=\"" << at.port << "\", tailport=" << compass(at.port) << "]";
      os << ";\n";
    }
    if (net::isNodeKind(tree.kind)) {
      stack.push_back({tree.snd, {id, 2}});
      stack.push_back({tree.fst, {id, 1}});
    }
  }
}

/// Draws one side of a redex and returns the graph node of its principal
/// port: the tree's top node, or a point where a variable meets the redex.
uint32_t DotWriter::drawRedexSide(TreeId side) {
  if (book[side].kind == TreeKind::Var) {
    uint32_t point = addNode("", "shape=point");
    occurrence(side, {point, 0});
    return point;
  }
  uint32_t top = nextNode;
  drawTree(side, {});
  return top;
}

void DotWriter::writeEnds(Place from, Place to) {
  if (from.port != 0)
    os << ", taillabel=\"" << from.port << "\", tailport=" << compass(from.port);
  if (to.port != 0)
    os << ", headlabel=\"" << to.port << "\", headport=" << compass(to.port);
}

void DotWriter::occurrence(TreeId var, Place at) {
  uint32_t name = book[var].value;
  auto [it, inserted] = vars.try_emplace(name, VarState{at});
  if (inserted) {
    varOrder.push_back(name);
    return;
  }
  if (it->second.paired) {
    drawDangling(name, at);
    return;
  }
  it->second.paired = true;
  Place first = it->second.first;
  os << "    n" << first.node << " -> n" << at.node << " [dir=none, style=dashed, label=\""
     << escapeDot(book.names[name]) << "\"";
  writeEnds(first, at);
  os << "];\n";
}

void DotWriter::drawDangling(uint32_t name, Place at) {
  uint32_t end = addNode(book.names[name], "shape=box, color=red, fontcolor=red");
  os << "    n" << at.node << " -> n" << end << " [dir=none, style=dashed, color=red";
  writeEnds(at, {end, 0});
  os << "];\n";
}

void DotWriter::writeDef(uint32_t index, const net::Def &def) {
  os << "  subgraph cluster_" << index << " {\n";
  os << "    label=\"@" << escapeDot(book.names[def.name]) << "\";\n";
  uint32_t root = addNode("root", "shape=plaintext");
  drawTree(def.root, {root, 0});
  for (const net::Redex &redex : def.redexes) {
    uint32_t lhs = drawRedexSide(redex.lhs);
    uint32_t rhs = drawRedexSide(redex.rhs);
    os << "    n" << lhs << " -> n" << rhs << " [dir=none, color=red, style=bold";
    if (redex.parallel)
      os << ", label=\"&!\", fontcolor=red";
    os << "];\n";
  }
  for (uint32_t name : varOrder) {
    const VarState &state = vars.find(name)->second;
    if (!state.paired)
      drawDangling(name, state.first);
  }
  vars.clear();
  varOrder.clear();
  os << "  }\n";
}

} // namespace

std::string escapeDot(llvm::StringRef text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
    case '"': out += "\\\""; break;
    case '\\': out += "\\\\"; break;
    case '\n': out += "\\n"; break;
    case '\r': break;
    default: out += c; break;
    }
  }
  return out;
}

void printDot(llvm::raw_ostream &os, const net::Book &book, llvm::ArrayRef<llvm::StringRef> only) {
  llvm::StringSet<> wanted;
  for (llvm::StringRef name : only)
    wanted.insert(name);
  DotWriter writer(os, book);
  os << "digraph net {\n";
  for (uint32_t i = 0; i < book.defs.size(); ++i) {
    const net::Def &def = book.defs[i];
    if (!wanted.empty() && !wanted.contains(book.names[def.name]))
      continue;
    writer.writeDef(i, def);
  }
  os << "}\n";
}

} // namespace bendc::lowering
