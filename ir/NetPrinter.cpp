#include "ir/NetPrinter.h"

#include "runtime/common/NumericText.h"

#include <vector>

namespace bendc::net {

namespace {

/// Work item of the printer: a tree to print, or (when the tree is invalid)
/// one character that closes or separates nodes. An explicit stack keeps deep
/// trees off the call stack.
struct Item {
  net::TreeId tree;
  char text = 0;
};

const char *opener(net::TreeKind kind) {
  switch (kind) {
  case net::TreeKind::Con: return "(";
  case net::TreeKind::Dup: return "{";
  case net::TreeKind::Opr: return "$(";
  case net::TreeKind::Swi: return "?(";
  default: llvm_unreachable("not a node");
  }
}

} // namespace

void printTree(llvm::raw_ostream &os, const net::Book &book, net::TreeId root) {
  llvm::SmallVector<Item, 32> stack{{root}};
  while (!stack.empty()) {
    Item item = stack.back();
    stack.pop_back();
    if (!item.tree.valid()) {
      os << item.text;
      continue;
    }
    const net::Tree &t = book[item.tree];
    switch (t.kind) {
    case net::TreeKind::Var: os << book.names[t.value]; continue;
    case net::TreeKind::Ref: os << '@' << book.names[t.value]; continue;
    case net::TreeKind::Era: os << '*'; continue;
    case net::TreeKind::Num: os << rt::num::showNumb(t.value); continue;
    default: break;
    }
    os << opener(t.kind);
    stack.push_back({{}, t.kind == net::TreeKind::Dup ? '}' : ')'});
    stack.push_back({t.snd});
    stack.push_back({{}, ' '});
    stack.push_back({t.fst});
  }
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
