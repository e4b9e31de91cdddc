// Draws the net IR as a Graphviz graph: a picture of a small net is read
// faster than its text.
//
// The drawing is one `digraph net`, with one `subgraph cluster_<n>` per
// definition (n: the definition's index in the book), labelled `@name`.
// Inside a cluster:
//   - a `root` node (plain text) and one graph node per tree node: `( )` CON,
//     `{ }` DUP, `$` OPR, `?` SWI (circles), `*` ERA, a number as HVM2 prints
//     it and `@name` for a reference (boxes);
//   - an edge from a node to each of its children, labelled with the port
//     (`1`, `2`) and leaving from the port's side (south-west, south-east);
//   - one dashed edge without arrowheads per variable, between the places of
//     its two occurrences, labelled with the variable's name and, at each
//     end, the port it sits in;
//   - one bold red edge without arrowheads per redex, between the principal
//     ports of its two trees (labelled `&!` when the redex is parallel);
//     a redex side that is a variable is drawn as a small point;
//   - a variable that does not occur exactly twice ends, past its second
//     occurrence, at a red box with its name.
// Graph nodes are named `n0`, `n1`, ... in the order the definitions and
// their trees (root first, then each redex left side, right side; a node
// before its children) are visited, so equal books give equal text.
#pragma once

#include "ir/Net.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

#include <string>

namespace bendc::lowering {

/// Writes `book` as a Graphviz digraph. With `only` non-empty, just the
/// definitions with those names are drawn (in book order; names that are not
/// defined are ignored). Trees of any depth are drawn without recursion.
void printDot(llvm::raw_ostream &os, const net::Book &book,
              llvm::ArrayRef<llvm::StringRef> only = {});

/// `text` as the inside of a double-quoted Graphviz string: `"` and `\` are
/// escaped, line breaks become `\n`.
std::string escapeDot(llvm::StringRef text);

} // namespace bendc::lowering
