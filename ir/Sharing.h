// Sharing recovery on Core: work written twice is done once.
//
// Three phases per definition, after Accelerate's: *prune* gives every
// subterm a stable name (a structural hash, confirmed by an equality check
// modulo the names of variables bound inside) and counts its occurrences;
// *float* finds, for a repeated subterm, the lowest term that dominates every
// occurrence; *bind* let-binds the subterm there and puts the bound variable
// at each occurrence. Linearization then duplicates the one result.
//
// Which subterms are shared (the rule; see Sharing.cpp for each case):
//  1. It is work: an application or an operator with a call of a function
//     inside (building constructors is not: their nodes are in the net).
//  2. Its value is plain: a number, a constructor given all its fields whose
//     values are plain, a saturated call of a definition that returns plain
//     values on every path (a greatest fixpoint over the program, where a
//     variable the program uses as a number — an operand, a switch's
//     scrutinee or predecessor — counts as one), a match arm's variable for
//     a plain field (a field is plain when every value the definitions main
//     reaches store in it is, in the same greatest fixpoint; a constructor
//     used otherwise than given all its fields, or a net definition main
//     reaches, makes no field plain), or the result of a checked definition
//     whose type is data with no function inside. Duplicating such a value
//     is exact; duplicating a λ whose body itself duplicates, or a
//     superposition, is not with one DUP label, and a value of unknown shape
//     might be either.
//  3. No occurrence is under a λ below the binding point, except the λs that
//     bind a switch's predecessor or a match arm's fields: moving work out of
//     a λ would run it even when the λ is never applied.
//  4. Every variable it uses is bound above the binding point; it uses no
//     unscoped variable.
//  5. At least two occurrences can run in one evaluation: occurrences in
//     different arms of one switch or match exclude each other.
//  6. The program has no superposition anywhere: a variable could hold one.
//  7. Outside the entry point, it has a free variable. A closed term is a
//     combinator, which float-combinators makes a definition of its own;
//     HVM2 expands a reference to it only where a use of it is reduced, so
//     where none is (inside data the result holds) Bend prints the call
//     unevaluated. Shared, it would run: a value, or a hang, where Bend
//     shows the call.
#pragma once

#include "ir/Core.h"

namespace bendc::core {

struct SharingStats {
  unsigned shared = 0; // subterms let-bound once instead of computed again
};

/// Rewrites the program's own (non-builtin) definitions in place.
SharingStats recoverSharing(Program &program);

} // namespace bendc::core
