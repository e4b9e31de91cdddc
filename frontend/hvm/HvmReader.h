// Reads a book in the HVM2 2.0.22 text format into the net IR.
#pragma once

#include "support/Diagnostic.h"
#include "ir/Net.h"

#include "llvm/ADT/STLFunctionalExtras.h"

#include <optional>

namespace bendc::hvm {

/// Parses every definition of the buffer `bufferId` of `sm` and checks the
/// book: no variable occurs more than twice in its definition (one that
/// occurs once is warned about: its wire ends in a free port), references name
/// existing definitions, names are unique and `@main` exists. Syntax errors do
/// not stop the reader: it reports them all, going on at the next definition.
/// Returns the book, or nothing when any error was reported.
std::optional<net::Book> readBook(llvm::SourceMgr &sm, unsigned bufferId,
                                     DiagnosticEngine &diags);

/// Reads definitions that are part of a larger book (a Bend program's `hvm`
/// definitions), checked as readBook checks a book, except that a
/// reference may also name a definition `definedOutside` accepts and the
/// buffer need not define `@main`.
std::optional<net::Book>
readDefinitions(llvm::SourceMgr &sm, unsigned bufferId, DiagnosticEngine &diags,
                   llvm::function_ref<bool(llvm::StringRef)> definedOutside);

} // namespace bendc::hvm
