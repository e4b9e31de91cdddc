// Writes the net IR in the HVM2 2.0.22 text format.
#pragma once

#include "ir/Net.h"

#include "llvm/Support/raw_ostream.h"

namespace bendc {

/// One `@name = tree` line per definition in book order, each redex on its own
/// line as `  & a ~ b` (or `  &! a ~ b` when parallel). readHvmBook reads the
/// text back to the same book.
void printHvmBook(llvm::raw_ostream &os, const net::Book &book);

/// One tree, as it appears in a definition.
void printHvmTree(llvm::raw_ostream &os, const net::Book &book, net::TreeId tree);

} // namespace bendc
