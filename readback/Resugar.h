// Resugaring, as Bend's resugar_strings and resugar_lists do: encoded
// strings and lists in a term become `"text"` and `[a, b]` again.
#pragma once

#include "readback/Term.h"

#include "ir/Core.h"

namespace bendc::readback {

/// Strings first, then lists, in place under `root`. `encoding` (NumScott or
/// Scott) decides which λ-shapes are the constructors.
void resugar(Terms &terms, TermId root, core::AdtEncoding encoding);

} // namespace bendc::readback
