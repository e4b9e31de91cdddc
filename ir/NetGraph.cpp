#include "ir/NetGraph.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SCCIterator.h"

namespace bendc::net {

RefGraph::RefGraph(const Book &book) {
  llvm::DenseMap<uint32_t, uint32_t> defOfName;
  for (uint32_t id = 0; id < book.defs.size(); ++id)
    defOfName.try_emplace(book.defs[id].name, id);
  defs.resize(book.defs.size());
  for (uint32_t id = 0; id < book.defs.size(); ++id) {
    Node &node = defs[id];
    node.def = id;
    entry.refs.push_back(&node);
    forEachTree(book, book.defs[id], [&](TreeId t) {
      if (book[t].kind == TreeKind::Ref)
        if (auto it = defOfName.find(book[t].value); it != defOfName.end())
          node.refs.push_back(&defs[it->second]);
    });
  }
}

RefGraph::RefGraph(uint32_t count) : defs(count) {
  for (uint32_t id = 0; id < count; ++id) {
    defs[id].def = id;
    entry.refs.push_back(&defs[id]);
  }
}

std::vector<bool> RefGraph::recursive() {
  std::vector<bool> out(defs.size(), false);
  for (auto it = llvm::scc_begin(this); !it.isAtEnd(); ++it) {
    const std::vector<Node *> &component = *it;
    if (component.size() == 1 && component[0] == &entry)
      continue;
    bool cycle = component.size() > 1 || it.hasCycle();
    for (Node *node : component)
      out[node->def] = cycle;
  }
  return out;
}

} // namespace bendc::net
