// Expanding references to generated definitions in a result, as Bend's
// expand_generated does.
#pragma once

#include "readback/Term.h"

#include "ir/Net.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringMap.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace bendc::readback {

/// Expands references to generated, non-recursive definitions (Bend's
/// expand_generated), reading each such definition's net once.
class Expander {
public:
  Expander(const net::Book &book, Terms &terms) : book(book), terms(terms) {}

  /// Replaces each expandable reference in the term `root` by a copy of its
  /// definition's body, and those in the copies in turn.
  void expand(TermId root);

private:
  /// The body of the definition `name` names, read once; none when it is
  /// not a generated, non-recursive definition of the book.
  std::optional<TermId> bodyFor(NameId name);
  /// The index of that definition, or -1.
  int32_t expandableDef(NameId name);
  /// Names the definitions and marks the recursive ones.
  void indexBook();

  const net::Book &book;
  Terms &terms;
  bool indexed = false;
  llvm::StringMap<uint32_t> defIndex;
  std::vector<bool> recursive;
  llvm::DenseMap<NameId, int32_t> defOf;
  llvm::DenseMap<uint32_t, TermId> bodies;
  llvm::DenseSet<uint32_t> reading;
};

} // namespace bendc::readback
