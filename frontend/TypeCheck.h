// Bend's optional type checking: Hindley–Milner inference over the
// definitions that are checked (annotated, or marked `checked`), with `Any`
// for everything left untyped. Runs on Core, with the facts the desugarer
// kept about annotations and encoded matches. Internal to the frontend.
#pragma once

#include "frontend/Diagnostic.h"
#include "ir/Core.h"

namespace bendc::frontend {

struct Book;
struct TypingFacts;

/// Infers the types of the checked definitions in dependency order and
/// reports every definition whose body or annotation does not type. Records
/// in `prog.plainResults` the checked definitions whose type says they
/// return plain data (no function inside) once given as many arguments as
/// their leading λs take.
void typeCheck(core::Program &prog, const Book &book, const TypingFacts &facts,
               DiagnosticEngine &diags);

} // namespace bendc::frontend
