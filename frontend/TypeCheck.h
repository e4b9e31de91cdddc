// Bend's optional type checking: Hindley–Milner inference over the
// definitions that are checked (annotated, or marked `checked`), with `Any`
// for everything left untyped. Runs on Core, with the facts the desugarer
// kept about annotations and encoded matches. Internal to the frontend.
#pragma once

#include "support/Diagnostic.h"
#include "ir/Core.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringMap.h"

#include <string>

namespace bendc::frontend {

struct Book;
struct TypingFacts;

/// What type checking learned, for editors: the type scheme of every
/// definition and constructor it knows, and the type of each variable at its
/// uses in checked definitions (keyed by where the use starts).
struct TypeInfo {
  llvm::StringMap<std::string> schemes;
  llvm::DenseMap<const char *, std::string> uses;
};

/// Infers the types of the checked definitions in dependency order and
/// reports every definition whose body or annotation does not type. Marks
/// as `plainResult` the checked definitions whose type says they return
/// plain data (no function inside) once given as many arguments as their
/// leading λs take.
/// When `info` is given, it receives the types found.
void typeCheck(core::Program &prog, const Book &book, const TypingFacts &facts,
               DiagnosticEngine &diags, TypeInfo *info = nullptr);

} // namespace bendc::frontend
