// From parsed files to Core: imports, name resolution, ADTs, pattern
// matching, imp statements and the builtin prelude.
#pragma once

#include "support/Diagnostic.h"
#include "frontend/Frontend.h"
#include "ir/Core.h"

#include <memory>

namespace bendc::frontend {

/// Parses the main buffer, the prelude and every imported file, then
/// desugars the whole program to Core. Fills `index` when given.
std::unique_ptr<core::Program> buildProgram(llvm::SourceMgr &sm, unsigned mainBuffer,
                                            const FrontendOptions &opts, DiagnosticEngine &diags,
                                            ProgramIndex *index = nullptr);

} // namespace bendc::frontend
