// Core to HIR: each definition becomes a function of named wires. The result
// is not yet linear: a variable's wire is used once per occurrence (or not at
// all); the linearize-variables pass then adds the dups and erasers.
#pragma once

#include "frontend/Diagnostic.h"
#include "ir/Core.h"
#include "ir/Hir.h"

#include <memory>

namespace bendc::lowering {

/// Translates every Core definition. Operators take the shapes HVM2 books
/// use: a literal operand becomes a partial operator (`[+1]`), `<=` and `>=`
/// compare and then test for zero, `**` is HVM2's `^` on floats. Unbound
/// variables are reported; the result is then null.
/// `references`, if given, receives the functions each one refers to.
std::unique_ptr<hir::Module> coreToHir(const core::Program &program, DiagnosticEngine &diags,
                                       hir::FunctionReferences *references = nullptr);

/// The HVM2 number word of a Core number.
uint32_t numbOf(core::Number n);

} // namespace bendc::lowering
