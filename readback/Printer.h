// Printing a term as Bend's Display for Term writes it.
#pragma once

#include "readback/Term.h"

#include <string>

namespace bendc::readback {

/// Bend's Display, or with `pretty` its display_pretty: a `let` ends its
/// line, a `switch` puts each arm on a line of its own, list elements are
/// separated by spaces.
std::string print(const Terms &terms, TermId root, bool pretty);

} // namespace bendc::readback
