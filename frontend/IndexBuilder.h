// Building a ProgramIndex from the resolver's book and the parsed files.
// Internal to the frontend.
#pragma once

#include "frontend/Desugar.h"
#include "frontend/Index.h"
#include "frontend/TypeCheck.h"

#include <vector>

namespace llvm {
class SourceMgr;
}

namespace bendc::frontend {

/// Declarations of every file in `files`, and the references and local
/// variables of `mainFile` as the desugarer resolved them (`names`), with
/// the types `types` holds.
void buildIndex(ProgramIndex &index, const llvm::SourceMgr &sm, const Book &book,
                llvm::ArrayRef<const FileScope *> files, const FileScope &mainFile,
                const ResolvedNames &names, TypeInfo types);

} // namespace bendc::frontend
