// Readback: the normal form of @main, as the runtime writes it (HVM2 tree
// text), turned into the Bend term that `bend run` prints after `Result: `.
//
// It follows Bend 0.2.38 step by step: the tree text becomes an interaction
// net, the net a λ-term (λ, application, tuple, superposition, numbers,
// numeric operations, `switch`, unscoped `$x` variables; duplications are read
// through, pairing each superposition with the duplication on its path),
// references to generated non-recursive definitions are expanded, and encoded
// strings and lists become `"text"` and `[a, b]` again.
#pragma once

#include "ir/Core.h"
#include "ir/Net.h"

#include "llvm/ADT/StringRef.h"

#include <string>
#include <vector>

namespace bendc::lowering {

struct ReadbackResult {
  std::string text;                  // the term as Bend prints it (what follows "Result: ")
  std::vector<std::string> warnings; // readback problems, as Bend words them (one entry each)
};

/// `normalForm`: the runtime's result tree in HVM2 text (a tree, optionally
/// followed by `& a ~ b` redexes). `compiled`: the net book that was run, used
/// to expand references to generated (`__` or `%` in the name), non-recursive
/// definitions; such a definition's net is read back to a term the way Bend
/// reads a linear net (explicit `let {a b} = x;` duplications). `program`: the
/// Core program; its ADT encoding (NumScott or Scott) decides which λ-shapes
/// are list and string constructors.
///
/// A readback problem gives `<Invalid>` in the text and one warning per kind,
/// e.g. "Encountered an invalid numeric operation. (3 occurrences)". Text that
/// does not parse as a net gives an empty `text` and the single warning
/// "Failed to parse result from HVM (invalid net).".
///
/// Nothing here recurses on the C++ stack with the size of the term: a
/// million-element list reads back and prints.
struct ReadbackOptions {
  /// Bend's -l: duplications are not read through but shown as
  /// `let {a b} = x;`, and superpositions as `{a b}`.
  bool linear = false;
  /// Bend's -p: a `let` ends its line, a `switch` puts each arm on a line of
  /// its own (indented), list elements are separated by spaces.
  bool pretty = false;
};

ReadbackResult readbackBend(llvm::StringRef normalForm, const net::Book &compiled,
                            const core::Program &program, ReadbackOptions options = {});

} // namespace bendc::lowering
