// Lexing and parsing of one .bend buffer.
#pragma once

#include "frontend/Ast.h"
#include "support/Diagnostic.h"

#include <string>

namespace bendc::parse {

/// Parses `buffer` (NUL-terminated, owned by a SourceMgr) into `module`.
/// Syntax errors are reported and parsing resumes at the next definition.
void parseBuffer(llvm::StringRef buffer, ast::AstContext &ctx, DiagnosticEngine &diags,
                 ast::Module &module);

/// Parses `buffer` as one fun-syntax term and nothing after it. Returns null
/// after a syntax error (reported; there is no recovery inside a term).
ast::Expr *parseTerm(llvm::StringRef buffer, ast::AstContext &ctx, DiagnosticEngine &diags);

/// One token per line: `line:col kind text`, for `--emit=tokens`.
std::string dumpTokens(llvm::StringRef buffer, const llvm::SourceMgr &sm, DiagnosticEngine &diags);

} // namespace bendc::parse
