// State the parser's actions share: the arena, diagnostics and the module
// being built. Actions only build nodes; every check lives in later phases.
#pragma once

#include "frontend/Ast.h"
#include "frontend/Diagnostic.h"

namespace bendc::parse {

struct ParseContext {
  ParseContext(ast::AstContext &ast, DiagnosticEngine &diags, ast::Module &module)
      : ast(ast), diags(diags), module(module) {}

  ast::AstContext &ast;
  DiagnosticEngine &diags;
  ast::Module &module;
  bool termOnly = false;     // parsing one term, not a file
  ast::Expr *term = nullptr; // that term, once parsed

  template <typename T, typename... Args> T *make(Args &&...args) {
    return ast.make<T>(std::forward<Args>(args)...);
  }
  template <typename T> llvm::ArrayRef<T> list(const std::vector<T> &v) { return ast.list(v); }

  /// Adds a fun-syntax rule; consecutive rules of one name form one function.
  /// `ret` is the result type of a signature (`f (x: T) : R`), null without one.
  void addRule(llvm::StringRef name, SourceRange nameRange, ast::Rule rule, ast::TypeExpr *ret);
  /// `checked`/`unchecked` before an imp `def`'s name.
  void setCheckMode(ast::FunDecl *def, llvm::StringRef marker, SourceRange at);
  /// Completes an imp `def` head: its function type from its annotations.
  void setImpSignature(ast::FunDecl *def, ast::TypeExpr *ret);

  // ---- types ----
  ast::TypeExpr *type(ast::TypeExpr::Kind kind, SourceRange r, llvm::StringRef name = {},
                      const std::vector<ast::TypeExpr *> &args = {});
  /// A lone name: a builtin type (`u24`, `Any`, `_`, ...) or a name to resolve.
  ast::TypeExpr *typeName(SourceRange r, llvm::StringRef name);
  /// `from[0] -> ... -> to`; a missing piece is `Any`.
  ast::TypeExpr *arrows(const std::vector<ast::TypeExpr *> &from, ast::TypeExpr *to, SourceRange r);
  void addDecl(ast::Decl *decl) {
    flush();
    module.decls.push_back(decl);
  }
  /// Groups rules of a local `def` into one function.
  ast::FunDecl *localDef(const std::vector<std::pair<SourceRange, ast::Rule>> &rules);
  /// Closes the function whose rules are still being collected.
  void flush();

  ast::Expr *app(SourceRange r, ast::Expr *head, std::vector<ast::Expr *> args);
  ast::Expr *callRef(SourceRange r, llvm::StringRef name, std::vector<ast::Expr *> args);

private:
  ast::FunDecl *current = nullptr;
  std::vector<ast::Rule> pendingRules;
};

} // namespace bendc::parse
