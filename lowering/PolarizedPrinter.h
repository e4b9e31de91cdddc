// Prints the runtime's polarized book (runtime/common/Book.h) as text a person
// can read: every term shows its polarity and its kind, so what the linker
// and the rules will see is on the page.
//
// One block per definition, in book order, separated by a blank line:
//
//   // #<id>: <n> nodes, <r> redexes, safe|unsafe[, entry point]
//   @<name> = <root>
//     & <negative> ~ <positive>        one line per redex, as stored
//
// and the terms, each with its polarity sign:
//
//   term ::= +LAM(t, t) | -APP(t, t)   function: λ, application
//          | +TUP(t, t) | -UNT(t, t)   pair: built, taken apart
//          | +SUP(t, t) | -DUP(t, t)
//          | -OPR(t, t) | -SWI(t, t)
//          | +OPR~(t, t) | +SWI~(t, t) twins with every polarity flipped
//          | +VAR xK | -SUB xK         the two ends of variable K
//          | +NUL | -ERA               erasers
//          | +NUM <number>             as HVM2 prints it
//          | +REF @<name>
//
// A node's children are its auxiliary slots in order. Variables are named x0,
// x1, ... in the order they first appear in a definition's text; inside the
// book a VAR points at the slot of its SUB, which is how the two are paired.
//
// A malformed book still prints: a term whose polarity its place does not
// expect is marked `!` (as in `!+NUM 1` in a negative slot), and the text
// says `<empty>`, `<freed>`, `<tag 0xNN>`, `<node N out of range>`,
// `<node N again>` (a node reached twice) or `@#N` (a reference to no
// definition) where it finds them; nodes that no term reaches are listed on a
// last line, `  // unreached nodes: 3, 5`.
//
// Trees of any depth are printed without recursion.
#pragma once

#include "runtime/common/Book.h"

#include "llvm/Support/raw_ostream.h"

#include <cstdint>

namespace bendc::lowering {

/// Every definition of `book`, one block each.
void printPolarizedBook(llvm::raw_ostream &os, const rt::Book &book);

/// The block of definition `id` alone (without a blank line after it).
void printPolarizedDef(llvm::raw_ostream &os, const rt::Book &book, uint32_t id);

} // namespace bendc::lowering
