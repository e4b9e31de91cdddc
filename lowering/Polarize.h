// Polarity inference: turns a net book in tree form (what a .hvm file says,
// without polarities) into the runtime's polarized book.
#pragma once

#include "support/Diagnostic.h"
#include "ir/Net.h"
#include "runtime/common/Book.h"

#include <optional>

namespace bendc::lowering {

/// Gives every tree of every definition a polarity and builds the runtime
/// book. A definition's root is positive, a redex joins a negative and a
/// positive tree, numbers and references are positive, the two ends of a
/// variable have opposite polarities, `(a b)` keeps its own polarity in `b`,
/// `{a b}` in both children, `?(a b)` is negative with `a` positive, `$(a b)`
/// has the polarity opposite to `a` (negative where the net leaves it open:
/// positive only where two operator nodes meet or one is a result), and the
/// first child of `?(...)`, when it is `(z s)`, is a tuple. A variable that
/// occurs once is a wire ending in a free port (warned about).
/// Choices left open are made as in the λ-calculus: `(a b)` becomes a LAM or
/// an APP, and a redex with no constraint stores its left side as negative.
///
/// The result: definitions in book order (`mainId` is `@main`'s index);
/// `DefInfo::firstSlot` indexes `Book::slots` (two terms per node),
/// `DefInfo::firstRedex` indexes `Book::redexes` (two terms per redex, the
/// negative one first). Variables written as a root or a redex side are
/// substituted away, so every VAR term points at a SUB slot of its own
/// definition. A definition is unsafe when it holds a `{a b}` tree or refers,
/// directly or not, to an unsafe definition.
///
/// Contradictions, unbound references, a missing `@main` and variables
/// used more than twice are reported; the result is then nothing.
std::optional<rt::Book> polarize(const net::Book &book, DiagnosticEngine &diags);

} // namespace bendc::lowering
