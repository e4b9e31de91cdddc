#include "ir/NetPrinter.h"

#include "runtime/common/NumericText.h"

#include <vector>

namespace bendc::net {

namespace {

const char *opener(net::TreeKind kind) {
  switch (kind) {
  case net::TreeKind::Con: return "(";
  case net::TreeKind::Dup: return "{";
  case net::TreeKind::Opr: return "$(";
  case net::TreeKind::Swi: return "?(";
  default: llvm_unreachable("not a node");
  }
}

/// Prints the tree `root` of `src` (a book, or a run's result tree): an
/// explicit stack of trees to print, or of one character that closes or
/// separates nodes, keeps deep trees off the call stack. `src.name(kind,
/// value)` writes a variable's or a reference's name.
template <class Source, class Id>
void printFrom(llvm::raw_ostream &os, const Source &src, Id root) {
  struct Item {
    Id tree;
    char text; // 0: print `tree`
  };
  llvm::SmallVector<Item, 32> stack{{root, 0}};
  while (!stack.empty()) {
    Item item = stack.pop_back_val();
    if (item.text) {
      os << item.text;
      continue;
    }
    TreeKind kind = src.kind(item.tree);
    switch (kind) {
    case TreeKind::Var: src.name(os, kind, src.value(item.tree)); continue;
    case TreeKind::Ref:
      os << '@';
      src.name(os, kind, src.value(item.tree));
      continue;
    case TreeKind::Era: os << '*'; continue;
    case TreeKind::Num: os << rt::num::showNumb(src.value(item.tree)); continue;
    default: break;
    }
    os << opener(kind);
    stack.push_back({item.tree, kind == TreeKind::Dup ? '}' : ')'});
    stack.push_back({src.snd(item.tree), 0});
    stack.push_back({item.tree, ' '});
    stack.push_back({src.fst(item.tree), 0});
  }
}

struct BookSource : BookTrees {
  void name(llvm::raw_ostream &os, TreeKind, uint32_t value) const { os << book.names[value]; }
};

struct ResultSource : ResultTrees {
  llvm::ArrayRef<std::string> defNames;
  void name(llvm::raw_ostream &os, TreeKind kind, uint32_t value) const {
    if (kind == TreeKind::Var)
      os << 'x' << value;
    else
      os << (value < defNames.size() ? llvm::StringRef(defNames[value]) : llvm::StringRef("?"));
  }
};

} // namespace

void printTree(llvm::raw_ostream &os, const net::Book &book, net::TreeId root) {
  printFrom(os, BookSource{{book}}, root);
}

std::string resultText(const rt::ResultTree &tree, llvm::ArrayRef<std::string> defNames) {
  std::string text;
  llvm::raw_string_ostream os(text);
  if (!tree.nodes.empty())
    printFrom(os, ResultSource{{tree}, defNames}, uint32_t(0));
  return text;
}

std::string treeText(const Book &book, TreeId tree) {
  std::string text;
  llvm::raw_string_ostream os(text);
  printTree(os, book, tree);
  return text;
}

void printBook(llvm::raw_ostream &os, const net::Book &book) {
  for (const net::Def &def : book.defs) {
    os << '@' << book.names[def.name] << " = ";
    printTree(os, book, def.root);
    for (const net::Redex &redex : def.redexes) {
      os << (redex.parallel ? "\n  &! " : "\n  & ");
      printTree(os, book, redex.lhs);
      os << " ~ ";
      printTree(os, book, redex.rhs);
    }
    os << '\n';
  }
}

} // namespace bendc::net
