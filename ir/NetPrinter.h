// The net IR's printer: the HVM2 2.0.22 text format.
#pragma once

#include "ir/Net.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/raw_ostream.h"

#include <string>

namespace bendc::net {

/// One `@name = tree` line per definition in book order, each redex on its own
/// line as `  & a ~ b` (or `  &! a ~ b` when parallel). hvm::readBook (frontend/hvm) reads the
/// text back to the same book.
void printBook(llvm::raw_ostream &os, const Book &book);

/// One tree, as it appears in a definition.
void printTree(llvm::raw_ostream &os, const Book &book, TreeId tree);

/// The same as a string.
std::string treeText(const Book &book, TreeId tree);

/// A run's result tree in the same syntax, as a string: variables named x0,
/// x1, ... in the tree's numbering, references by `defNames` (the runtime
/// book's names, by definition id).
std::string resultText(const rt::ResultTree &tree, llvm::ArrayRef<std::string> defNames);

} // namespace bendc::net
