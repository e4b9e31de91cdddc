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

  template <typename T, typename... Args> T *make(Args &&...args) {
    return ast.make<T>(std::forward<Args>(args)...);
  }
  template <typename T> llvm::ArrayRef<T> list(const std::vector<T> &v) { return ast.list(v); }

  /// Adds a fun-syntax rule; consecutive rules of one name form one function.
  void addRule(llvm::StringRef name, SourceRange nameRange, ast::Rule rule, bool typed);
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
