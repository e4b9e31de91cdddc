// Reads the normal form back from net memory as an HVM2 tree: `(a b)`, `{a b}`,
// `$(a b)`, `?(a b)`, `*`, `@ref`, numbers, and variables named x0, x1, ... in
// the order they first appear (as HVM2's own tests normalise them), so the text
// is the same for every thread count and backend.
#pragma once

#include "runtime/common/Book.h"
#include "runtime/common/Term.h"

#include <string>

namespace bendc::rt {

/// `load(slot)` returns the term in a slot; memory must be quiescent.
std::string readback(const Term *slots, const Book &book, Loc rootSlot = RootSlot);

} // namespace bendc::rt
