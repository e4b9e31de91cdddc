#include "ir/Net.h"

#include "runtime/common/Numeric.h"

#include "llvm/ADT/DenseMap.h"

namespace bendc::net {

std::vector<std::string> verify(const Book &book) {
  std::vector<std::string> problems;
  llvm::DenseMap<uint32_t, unsigned> defined; // definition names
  for (const Def &d : book.defs)
    if (d.name < book.names.size() && !defined.try_emplace(d.name, 0).second)
      problems.push_back((llvm::Twine("@") + book.names[d.name] + " is defined twice").str());
  llvm::DenseMap<uint32_t, unsigned> uses; // variable names, per definition
  for (const Def &d : book.defs) {
    if (d.name >= book.names.size()) {
      problems.push_back("a definition has no name");
      continue;
    }
    std::string where = (llvm::Twine(" in @") + book.names[d.name]).str();
    auto inBook = [&](TreeId id) { return id.valid() && id.index < book.trees.size(); };
    bool whole = inBook(d.root);
    for (const Redex &r : d.redexes) {
      whole = whole && inBook(r.lhs) && inBook(r.rhs);
      if (d.polarized && r.positive == PositiveSide::Unknown)
        problems.push_back("a redex says no positive side" + where);
    }
    if (!whole) {
      problems.push_back("a tree lies outside the book" + where);
      continue;
    }
    uses.clear();
    uint32_t nodes = 0;
    bool broken = false;
    // As forEachTree, but a child outside the book is reported, not read.
    llvm::SmallVector<TreeId, 32> work{d.root};
    for (const Redex &r : d.redexes)
      work.append({r.rhs, r.lhs});
    while (!work.empty()) {
      const Tree &t = book[work.pop_back_val()];
      if (isNodeKind(t.kind)) {
        ++nodes;
        if (!inBook(t.fst) || !inBook(t.snd)) {
          problems.push_back("a node's child lies outside the book" + where);
          broken = true;
          continue;
        }
        if (t.kind == TreeKind::Con && d.polarized && t.role == ConRole::Unknown)
          problems.push_back("a node `(a b)` says no role in a polarized definition" + where);
        work.append({t.snd, t.fst});
        continue;
      }
      switch (t.kind) {
      case TreeKind::Var:
        if (t.value >= book.names.size())
          problems.push_back("a variable has no name" + where);
        else
          ++uses[t.value];
        break;
      case TreeKind::Ref:
        if (t.value >= book.names.size() || !defined.count(t.value))
          problems.push_back((llvm::Twine("reference to @") +
                              (t.value < book.names.size() ? book.names[t.value] : "?") +
                              ", which the book does not define" + where)
                                 .str());
        break;
      case TreeKind::Num: {
        uint32_t tag = rt::num::typeOf(t.value);
        if (tag > rt::num::LastOp || (tag == rt::num::TySym && (t.value >> 5) > rt::num::LastOp))
          problems.push_back("a number with an unknown tag" + where);
        break;
      }
      default: break;
      }
    }
    if (broken)
      continue;
    bool fromText = d.nodeCount == Def::UnknownSize;
    for (auto &[name, count] : uses)
      if (count != 2 && !(fromText && count == 1))
        problems.push_back((llvm::Twine("variable '") + book.names[name] + "' occurs " +
                            llvm::Twine(count) + " times" + where)
                               .str());
    if (d.nodeCount != Def::UnknownSize && d.nodeCount != nodes)
      problems.push_back((llvm::Twine("the definition counts ") + llvm::Twine(d.nodeCount) +
                          " nodes and has " + llvm::Twine(nodes) + where)
                             .str());
  }
  return problems;
}

} // namespace bendc::net
