// What the desugarer's files share (frontend/Desugar.h declares the
// Desugarer; each file of this folder defines the members of one part).
#pragma once

#include "frontend/Desugar.h"

namespace bendc::frontend::desugar {

/// Where a construct's Core terms say they come from.
inline llvm::SMLoc at(SourceRange r) { return r.begin; }

/// Where `name` is written in `within` (at its start, else its first
/// whole-word occurrence); all of `within` when it is not.
llvm::SMRange spelled(SourceRange within, llvm::StringRef name);

/// The binder of a match or switch: `x = e`, or the variable matched on.
inline llvm::StringRef matchBind(llvm::StringRef bind, ast::Expr *arg) {
  if (bind == "_")
    return {}; // `match _ = value`: nothing to name
  if (!bind.empty())
    return bind;
  if (auto *v = llvm::dyn_cast<ast::VarExpr>(arg))
    return v->name;
  return {};
}

} // namespace bendc::frontend::desugar

// The desugarer's files speak of the AST's and Core's types by their own
// names.
namespace bendc::frontend {
using namespace ast;
using core::Term;
using core::TermKind;
using desugar::at;
using desugar::matchBind;
using desugar::spelled;
using llvm::SMLoc;
using llvm::StringRef;
} // namespace bendc::frontend
