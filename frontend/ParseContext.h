// State the parser's actions share: the arena, diagnostics and the module
// being built. Actions only build nodes; every check lives in later phases.
#pragma once

#include "frontend/Ast.h"
#include "support/Diagnostic.h"
#include "frontend/ParseValue.h"

#include "llvm/ADT/SmallVector.h"

#include <cstring>

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
  /// A collected list as the syntax trees keep it: its storage when the
  /// list fills it, else a copy of its size (the storage serves the next
  /// lists), so that the trees take no room for what lists might have held.
  template <typename T> llvm::ArrayRef<T> list(Seq<T> s) {
    if (s.size == s.capacity)
      return llvm::ArrayRef<T>(s.data, s.size);
    llvm::ArrayRef<T> kept = ast.list(llvm::ArrayRef<T>(s.data, s.size));
    release(s.data, sizeof(T) * s.capacity);
    return kept;
  }

  /// `s` with `x` at its end. `s` is used up: only the result may grow.
  template <typename T> Seq<T> append(Seq<T> s, const typename Seq<T>::value_type &x) {
    if (s.size == s.capacity)
      grow(s);
    s.data[s.size++] = x;
    return s;
  }
  /// The one-element list.
  template <typename T> Seq<T> single(const T &x) { return append(Seq<T>{}, x); }
  /// `s` with `x` in front. `s` is used up, as for append.
  template <typename T> Seq<T> prepend(const typename Seq<T>::value_type &x, Seq<T> s) {
    if (s.size == s.capacity)
      grow(s);
    std::memmove(static_cast<void *>(s.data + 1), s.data, sizeof(T) * s.size);
    s.data[0] = x;
    ++s.size;
    return s;
  }

  /// Adds a fun-syntax rule; consecutive rules of one name form one function.
  /// `ret` is the result type of a signature (`f (x: T) : R`), null without one.
  void addRule(llvm::StringRef name, SourceRange nameRange, ast::Rule rule, ast::TypeExpr *ret);
  /// `checked`/`unchecked` before an imp `def`'s name.
  void setCheckMode(ast::FunDecl *def, llvm::StringRef marker, SourceRange at);
  /// Completes an imp `def` head: its function type from its annotations.
  void setImpSignature(ast::FunDecl *def, ast::TypeExpr *ret);

  // ---- types ----
  ast::TypeExpr *type(ast::TypeExpr::Kind kind, SourceRange r, llvm::StringRef name = {},
                      llvm::ArrayRef<ast::TypeExpr *> args = {});
  /// A lone name: a builtin type (`u24`, `Any`, `_`, ...) or a name to resolve.
  ast::TypeExpr *typeName(SourceRange r, llvm::StringRef name);
  /// `from[0] -> ... -> to`; a missing piece is `Any`.
  ast::TypeExpr *arrows(llvm::ArrayRef<ast::TypeExpr *> from, ast::TypeExpr *to, SourceRange r);
  void addDecl(ast::Decl *decl) {
    flush();
    module.decls.push_back(decl);
  }
  /// Groups rules of a local `def` into one function.
  ast::FunDecl *localDef(Seq<std::pair<SourceRange, ast::Rule>> rules);
  /// Closes the function whose rules are still being collected.
  void flush();

  /// `(head args...)`; `headAt` is where the head is written, so that a
  /// parenthesized `(*)` stays the eraser.
  ast::Expr *app(SourceRange r, ast::Expr *head, SourceRange headAt, Seq<ast::Expr *> args);
  ast::Expr *callRef(SourceRange r, llvm::StringRef name, llvm::ArrayRef<ast::Expr *> args);

private:
  /// Gives `s` room for twice its elements (at least four). Storage a list
  /// outgrew is kept for the next list to need that much: only the lists
  /// the syntax trees keep stay in the arena.
  template <typename T> void grow(Seq<T> &s) {
    uint32_t capacity = s.capacity ? s.capacity * 2 : 4;
    void *mem = storage(sizeof(T) * capacity);
    if (s.size)
      std::memcpy(mem, static_cast<const void *>(s.data), sizeof(T) * s.size);
    if (s.capacity)
      release(s.data, sizeof(T) * s.capacity);
    s.data = static_cast<T *>(mem);
    s.capacity = capacity;
  }
  void *storage(size_t bytes);
  void release(void *mem, size_t bytes);
  /// Storage given back, by size: `bytes` is a power of two times a
  /// element's size, so lists of one element type find their own sizes.
  llvm::SmallVector<std::pair<size_t, llvm::SmallVector<void *, 8>>, 16> spare;

  ast::FunDecl *current = nullptr;
  std::vector<ast::Rule> pendingRules;
};

} // namespace bendc::parse
