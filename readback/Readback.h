// Readback: the normal form of a run, turned into the Bend term that
// `bend run` prints after `Result: `.
//
// It follows Bend 0.2.38 step by step (each step in its own file):
//
//   net IR ─buildNet─► INet (INet.h: nodes with three ports, Bend's INet)
//   INet ─Reader─► term (Reader.h) ─Expander─► generated references expanded
//   term ─resugar─► strings, then lists (Resugar.h) ─print─► text (Printer.h)
//
// The net becomes a λ-term (λ, application, tuple, superposition, numbers,
// numeric operations, `switch`, unscoped `$x` variables; duplications are read
// through, pairing each superposition with the duplication on its path). A
// generated definition of the compiled book that the result refers to goes
// the same way, read linearly. Every walk uses an explicit stack: results can
// be lists of millions of elements, nested that deep.
#pragma once

#include "ir/Core.h"
#include "ir/Net.h"
#include "runtime/common/Readback.h"

#include "llvm/ADT/ArrayRef.h"

#include <string>
#include <vector>

namespace bendc::readback {

struct Options {
  /// Bend's -l: duplications are not read through but shown as
  /// `let {a b} = x;`, and superpositions as `{a b}`.
  bool linear = false;
  /// Bend's -p: a `let` ends its line, a `switch` puts each arm on a line of
  /// its own (indented), list elements are separated by spaces.
  bool pretty = false;
};

struct Result {
  std::string text;                  // the term as Bend prints it (what follows "Result: ")
  std::vector<std::string> warnings; // readback problems, as Bend words them (one entry each)
};

/// `normalForm`: the result as a net, its first definition (a tree,
/// optionally with redexes).
/// `compiled`: the net book that was run, used to expand references to
/// generated (`__` or `%` in the name), non-recursive definitions; such a
/// definition's net is read back to a term the way Bend reads a linear net
/// (explicit `let {a b} = x;` duplications). `program`: the Core program; its
/// ADT encoding (NumScott or Scott) decides which λ-shapes are list and string
/// constructors.
///
/// A readback problem gives `<Invalid>` in the text and one warning per kind,
/// e.g. "Encountered an invalid numeric operation. (3 occurrences)". A net too
/// large to index, or a book with no definition, gives an empty `text` and
/// the single warning "Failed to parse result from HVM (invalid net).".
Result toBend(const net::Book &normalForm, const net::Book &compiled,
              const core::Program &program, Options options = {});

/// The same for a run's result tree as the runtime hands it back, whose
/// references name `defNames` (the run book's names) by id: what a run
/// prints, read with no net IR in between (a result can hold millions of
/// nodes). The tree is let go as soon as its net is built.
Result toBend(rt::ResultTree normalForm, llvm::ArrayRef<std::string> defNames,
              const net::Book &compiled, const core::Program &program, Options options = {});

} // namespace bendc::readback
