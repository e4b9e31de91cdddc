// The surface AST of a Bend file: both syntaxes, arena-owned, with source
// ranges. Node kinds are listed once in Ast.def; isa/cast/dyn_cast work on
// every class through classof.
#pragma once

#include "support/SourceRange.h"
#include "ir/Core.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Allocator.h"
#include "llvm/Support/Casting.h"
#include "llvm/Support/StringSaver.h"

#include <vector>

namespace llvm {
class raw_ostream;
class SourceMgr;
} // namespace llvm

namespace bendc::ast {

enum class NodeKind : uint8_t {
#define AST_NODE(Name, Category) Name##Category,
#include "frontend/Ast.def"
};

enum class Category : uint8_t { Expr, Pat, Stmt, Decl };

Category categoryOf(NodeKind kind);
llvm::StringRef nodeKindName(NodeKind kind);

struct Node {
  NodeKind kind;
  SourceRange range;

protected:
  Node(NodeKind kind, SourceRange range) : kind(kind), range(range) {}
};

#define AST_CATEGORY(Cat)                                                      \
  struct Cat : Node {                                                          \
    static bool classof(const Node *n) { return categoryOf(n->kind) == Category::Cat; } \
                                                                               \
  protected:                                                                   \
    using Node::Node;                                                          \
  };
AST_CATEGORY(Expr)
AST_CATEGORY(Pat)
AST_CATEGORY(Stmt)
AST_CATEGORY(Decl)
#undef AST_CATEGORY

#define AST_CLASS(Name, Cat)                                                   \
  static bool classof(const Node *n) { return n->kind == NodeKind::Name##Cat; } \
  static constexpr NodeKind Kind = NodeKind::Name##Cat;

using Block = llvm::ArrayRef<Stmt *>;
struct FunDecl;

/// A type annotation as written (`u24`, `List(T)`, `(List T)`, `a -> b`,
/// `(a, b)`). Names are resolved by the type checker: a name that is a type
/// is a constructor, any other name a type variable.
struct TypeExpr {
  enum class Kind : uint8_t { Name, Apply, Arrow, Tuple, Any, None, Hole, U24, I24, F24 };
  Kind kind;
  SourceRange range;
  llvm::StringRef name;               // Name, Apply
  llvm::ArrayRef<TypeExpr *> args;    // Apply: arguments; Arrow: from, to; Tuple: elements
};
/// How `checked`/`unchecked` was written before a function's name.
enum class CheckMode : uint8_t { Default, Checked, Unchecked };

/// `name = value` in calls, constructors, `with` clauses and `bend` states.
struct Binding {
  llvm::StringRef name;
  SourceRange range;
  Expr *value = nullptr; // null: the variable of the same name
};

/// One arm of match/fold/switch: a constructor name, a number or `_`.
struct Arm {
  llvm::StringRef name; // empty: `*`
  SourceRange range;
  Expr *body = nullptr; // fun syntax
  Block block;          // imp syntax
};

// ---- expressions ----------------------------------------------------------

struct VarExpr : Expr {
  llvm::StringRef name;
  VarExpr(SourceRange r, llvm::StringRef n) : Expr(Kind, r), name(n) {}
  AST_CLASS(Var, Expr)
};
struct ChnExpr : Expr {
  llvm::StringRef name;
  ChnExpr(SourceRange r, llvm::StringRef n) : Expr(Kind, r), name(n) {}
  AST_CLASS(Chn, Expr)
};
struct EraExpr : Expr {
  explicit EraExpr(SourceRange r) : Expr(Kind, r) {}
  AST_CLASS(Era, Expr)
};
struct NumExpr : Expr {
  core::Number value;
  NumExpr(SourceRange r, core::Number v) : Expr(Kind, r), value(v) {}
  AST_CLASS(Num, Expr)
};
struct StrExpr : Expr {
  llvm::StringRef value; // decoded UTF-8
  StrExpr(SourceRange r, llvm::StringRef v) : Expr(Kind, r), value(v) {}
  AST_CLASS(Str, Expr)
};
/// List, Tup and Sup: a sequence of elements.
struct SeqExpr : Expr {
  llvm::ArrayRef<Expr *> elems;
  SeqExpr(NodeKind k, SourceRange r, llvm::ArrayRef<Expr *> e) : Expr(k, r), elems(e) {}
  static bool classof(const Node *n) {
    return n->kind == NodeKind::ListExpr || n->kind == NodeKind::TupExpr ||
           n->kind == NodeKind::SupExpr;
  }
};
struct LamExpr : Expr {
  Pat *param;
  Expr *body;
  LamExpr(SourceRange r, Pat *p, Expr *b) : Expr(Kind, r), param(p), body(b) {}
  AST_CLASS(Lam, Expr)
};
struct AppExpr : Expr {
  Expr *fun;
  llvm::ArrayRef<Expr *> args;
  AppExpr(SourceRange r, Expr *f, llvm::ArrayRef<Expr *> a) : Expr(Kind, r), fun(f), args(a) {}
  AST_CLASS(App, Expr)
};
struct CallExpr : Expr {
  Expr *fun;
  llvm::ArrayRef<Expr *> args;
  llvm::ArrayRef<Binding> kwargs;
  CallExpr(SourceRange r, Expr *f, llvm::ArrayRef<Expr *> a, llvm::ArrayRef<Binding> k)
      : Expr(Kind, r), fun(f), args(a), kwargs(k) {}
  AST_CLASS(Call, Expr)
};
/// `Type/Ctr { field: value, ... }`
struct CtrExpr : Expr {
  llvm::StringRef name;
  llvm::ArrayRef<Binding> fields;
  CtrExpr(SourceRange r, llvm::StringRef n, llvm::ArrayRef<Binding> f)
      : Expr(Kind, r), name(n), fields(f) {}
  AST_CLASS(Ctr, Expr)
};
struct OpExpr : Expr {
  core::Op op;
  Expr *lhs, *rhs;
  OpExpr(SourceRange r, core::Op o, Expr *a, Expr *b) : Expr(Kind, r), op(o), lhs(a), rhs(b) {}
  AST_CLASS(Op, Expr)
};
struct LetExpr : Expr {
  Pat *pat;
  Expr *value, *next;
  LetExpr(SourceRange r, Pat *p, Expr *v, Expr *n) : Expr(Kind, r), pat(p), value(v), next(n) {}
  AST_CLASS(Let, Expr)
};
struct UseExpr : Expr {
  llvm::StringRef name;
  Expr *value, *next;
  UseExpr(SourceRange r, llvm::StringRef nm, Expr *v, Expr *n)
      : Expr(Kind, r), name(nm), value(v), next(n) {}
  AST_CLASS(Use, Expr)
};
struct AskExpr : Expr {
  Pat *pat;
  Expr *value, *next;
  AskExpr(SourceRange r, Pat *p, Expr *v, Expr *n) : Expr(Kind, r), pat(p), value(v), next(n) {}
  AST_CLASS(Ask, Expr)
};
struct MatchExpr : Expr {
  llvm::StringRef bind; // empty: none
  Expr *arg;
  llvm::ArrayRef<Binding> with;
  llvm::ArrayRef<Arm> arms;
  bool fold;
  MatchExpr(SourceRange r, llvm::StringRef b, Expr *a, llvm::ArrayRef<Binding> w,
            llvm::ArrayRef<Arm> arms, bool fold)
      : Expr(Kind, r), bind(b), arg(a), with(w), arms(arms), fold(fold) {}
  AST_CLASS(Match, Expr)
};
struct SwitchExpr : Expr {
  llvm::StringRef bind;
  Expr *arg;
  llvm::ArrayRef<Binding> with;
  llvm::ArrayRef<Arm> arms; // names "0", "1", ..., "_"
  SwitchExpr(SourceRange r, llvm::StringRef b, Expr *a, llvm::ArrayRef<Binding> w,
             llvm::ArrayRef<Arm> arms)
      : Expr(Kind, r), bind(b), arg(a), with(w), arms(arms) {}
  AST_CLASS(Switch, Expr)
};
struct IfExpr : Expr {
  llvm::ArrayRef<Expr *> conds, thens;
  Expr *otherwise;
  IfExpr(SourceRange r, llvm::ArrayRef<Expr *> c, llvm::ArrayRef<Expr *> t, Expr *e)
      : Expr(Kind, r), conds(c), thens(t), otherwise(e) {}
  AST_CLASS(If, Expr)
};
struct BendExpr : Expr {
  llvm::ArrayRef<Binding> state;
  Expr *cond, *step, *base;
  BendExpr(SourceRange r, llvm::ArrayRef<Binding> s, Expr *c, Expr *st, Expr *b)
      : Expr(Kind, r), state(s), cond(c), step(st), base(b) {}
  AST_CLASS(Bend, Expr)
};
struct OpenExpr : Expr {
  llvm::StringRef type, var;
  Expr *body;
  OpenExpr(SourceRange r, llvm::StringRef t, llvm::StringRef v, Expr *b)
      : Expr(Kind, r), type(t), var(v), body(b) {}
  AST_CLASS(Open, Expr)
};
struct WithExpr : Expr {
  llvm::StringRef type;
  Expr *body;
  WithExpr(SourceRange r, llvm::StringRef t, Expr *b) : Expr(Kind, r), type(t), body(b) {}
  AST_CLASS(With, Expr)
};
struct LocalDefExpr : Expr {
  FunDecl *def;
  Expr *next;
  LocalDefExpr(SourceRange r, FunDecl *d, Expr *n) : Expr(Kind, r), def(d), next(n) {}
  AST_CLASS(LocalDef, Expr)
};
struct MapExpr : Expr {
  llvm::ArrayRef<Expr *> keys, values;
  MapExpr(SourceRange r, llvm::ArrayRef<Expr *> k, llvm::ArrayRef<Expr *> v)
      : Expr(Kind, r), keys(k), values(v) {}
  AST_CLASS(Map, Expr)
};
struct MapGetExpr : Expr {
  llvm::StringRef map;
  Expr *key;
  MapGetExpr(SourceRange r, llvm::StringRef m, Expr *k) : Expr(Kind, r), map(m), key(k) {}
  AST_CLASS(MapGet, Expr)
};
struct ComprehensionExpr : Expr {
  Expr *term;
  llvm::StringRef bind;
  Expr *iter, *cond; // cond may be null
  ComprehensionExpr(SourceRange r, Expr *t, llvm::StringRef b, Expr *i, Expr *c)
      : Expr(Kind, r), term(t), bind(b), iter(i), cond(c) {}
  AST_CLASS(Comprehension, Expr)
};

// ---- patterns -------------------------------------------------------------

struct VarPat : Pat {
  llvm::StringRef name; // empty: `*`
  TypeExpr *type = nullptr; // `(x: T)` in a signature
  VarPat(SourceRange r, llvm::StringRef n, TypeExpr *t = nullptr) : Pat(Kind, r), name(n), type(t) {}
  AST_CLASS(Var, Pat)
};
struct ChnPat : Pat {
  llvm::StringRef name;
  ChnPat(SourceRange r, llvm::StringRef n) : Pat(Kind, r), name(n) {}
  AST_CLASS(Chn, Pat)
};
struct NumPat : Pat {
  core::Number value;
  NumPat(SourceRange r, core::Number v) : Pat(Kind, r), value(v) {}
  AST_CLASS(Num, Pat)
};
struct StrPat : Pat {
  llvm::StringRef value;
  StrPat(SourceRange r, llvm::StringRef v) : Pat(Kind, r), value(v) {}
  AST_CLASS(Str, Pat)
};
struct CtrPat : Pat {
  llvm::StringRef name;
  llvm::ArrayRef<Pat *> args;
  CtrPat(SourceRange r, llvm::StringRef n, llvm::ArrayRef<Pat *> a) : Pat(Kind, r), name(n), args(a) {}
  AST_CLASS(Ctr, Pat)
};
/// Tup, Sup and List patterns.
struct SeqPat : Pat {
  llvm::ArrayRef<Pat *> elems;
  SeqPat(NodeKind k, SourceRange r, llvm::ArrayRef<Pat *> e) : Pat(k, r), elems(e) {}
  static bool classof(const Node *n) {
    return n->kind == NodeKind::TupPat || n->kind == NodeKind::SupPat ||
           n->kind == NodeKind::ListPat;
  }
};
/// `m[key]` as an assignment target.
struct MapSetPat : Pat {
  llvm::StringRef map;
  Expr *key;
  MapSetPat(SourceRange r, llvm::StringRef m, Expr *k) : Pat(Kind, r), map(m), key(k) {}
  AST_CLASS(MapSet, Pat)
};

// ---- imp statements -------------------------------------------------------

struct AssignStmt : Stmt {
  Pat *pat;
  Expr *value;
  AssignStmt(SourceRange r, Pat *p, Expr *v) : Stmt(Kind, r), pat(p), value(v) {}
  AST_CLASS(Assign, Stmt)
};
struct AskStmt : Stmt {
  Pat *pat;
  Expr *value;
  AskStmt(SourceRange r, Pat *p, Expr *v) : Stmt(Kind, r), pat(p), value(v) {}
  AST_CLASS(Ask, Stmt)
};
struct InPlaceStmt : Stmt {
  Pat *target;
  core::Op op;
  bool mapper; // `@=`: apply a function
  Expr *value;
  InPlaceStmt(SourceRange r, Pat *t, core::Op o, bool m, Expr *v)
      : Stmt(Kind, r), target(t), op(o), mapper(m), value(v) {}
  AST_CLASS(InPlace, Stmt)
};
struct ReturnStmt : Stmt {
  Expr *value;
  ReturnStmt(SourceRange r, Expr *v) : Stmt(Kind, r), value(v) {}
  AST_CLASS(Return, Stmt)
};
struct IfStmt : Stmt {
  llvm::ArrayRef<Expr *> conds;
  llvm::ArrayRef<Block> thens;
  Block otherwise;
  IfStmt(SourceRange r, llvm::ArrayRef<Expr *> c, llvm::ArrayRef<Block> t, Block e)
      : Stmt(Kind, r), conds(c), thens(t), otherwise(e) {}
  AST_CLASS(If, Stmt)
};
struct MatchStmt : Stmt {
  llvm::StringRef bind;
  Expr *arg;
  llvm::ArrayRef<Binding> with;
  llvm::ArrayRef<Arm> arms;
  bool fold;
  MatchStmt(SourceRange r, llvm::StringRef b, Expr *a, llvm::ArrayRef<Binding> w,
            llvm::ArrayRef<Arm> arms, bool fold)
      : Stmt(Kind, r), bind(b), arg(a), with(w), arms(arms), fold(fold) {}
  AST_CLASS(Match, Stmt)
};
struct SwitchStmt : Stmt {
  llvm::StringRef bind;
  Expr *arg;
  llvm::ArrayRef<Binding> with;
  llvm::ArrayRef<Arm> arms;
  SwitchStmt(SourceRange r, llvm::StringRef b, Expr *a, llvm::ArrayRef<Binding> w,
             llvm::ArrayRef<Arm> arms)
      : Stmt(Kind, r), bind(b), arg(a), with(w), arms(arms) {}
  AST_CLASS(Switch, Stmt)
};
struct BendStmt : Stmt {
  llvm::ArrayRef<Binding> state;
  Expr *cond;
  Block step, base;
  BendStmt(SourceRange r, llvm::ArrayRef<Binding> s, Expr *c, Block st, Block b)
      : Stmt(Kind, r), state(s), cond(c), step(st), base(b) {}
  AST_CLASS(Bend, Stmt)
};
struct WithStmt : Stmt {
  llvm::StringRef type;
  Block body;
  WithStmt(SourceRange r, llvm::StringRef t, Block b) : Stmt(Kind, r), type(t), body(b) {}
  AST_CLASS(With, Stmt)
};
struct OpenStmt : Stmt {
  llvm::StringRef type, var;
  OpenStmt(SourceRange r, llvm::StringRef t, llvm::StringRef v) : Stmt(Kind, r), type(t), var(v) {}
  AST_CLASS(Open, Stmt)
};
struct UseStmt : Stmt {
  llvm::StringRef name;
  Expr *value;
  UseStmt(SourceRange r, llvm::StringRef n, Expr *v) : Stmt(Kind, r), name(n), value(v) {}
  AST_CLASS(Use, Stmt)
};
struct DefStmt : Stmt {
  FunDecl *def;
  DefStmt(SourceRange r, FunDecl *d) : Stmt(Kind, r), def(d) {}
  AST_CLASS(Def, Stmt)
};

// ---- declarations ---------------------------------------------------------

struct Rule {
  llvm::ArrayRef<Pat *> pats;
  Expr *body;
  SourceRange range;
};
struct Param {
  llvm::StringRef name;
  SourceRange range;
  TypeExpr *type = nullptr; // null: not annotated
};

/// A function: fun equations (rules) or an imp `def` (params + body).
struct FunDecl : Decl {
  llvm::StringRef name;
  SourceRange nameRange;
  llvm::ArrayRef<Rule> rules;
  llvm::ArrayRef<Param> params;
  Block body;
  bool imp = false;
  CheckMode mode = CheckMode::Default;
  bool annotated = false; // a signature, or a typed parameter or return
  TypeExpr *sig = nullptr; // the whole function type; null: `Any`
  /// Type-checked: asked for with `checked`, or annotated and not `unchecked`.
  bool checked() const {
    return mode == CheckMode::Checked || (mode == CheckMode::Default && annotated);
  }
  FunDecl(SourceRange r, llvm::StringRef n, SourceRange nr) : Decl(Kind, r), name(n), nameRange(nr) {}
  AST_CLASS(Fun, Decl)
};
struct Field {
  llvm::StringRef name;
  SourceRange range;
  bool recursive;
  TypeExpr *type = nullptr; // null: `Any`
};
struct CtrDef {
  llvm::StringRef name;
  SourceRange range;
  llvm::ArrayRef<Field> fields;
};
struct TypeDecl : Decl {
  llvm::StringRef name;
  SourceRange nameRange;
  llvm::ArrayRef<llvm::StringRef> params;
  llvm::ArrayRef<CtrDef> ctrs;
  bool object;
  TypeDecl(SourceRange r, llvm::StringRef n, SourceRange nr, llvm::ArrayRef<llvm::StringRef> p,
           llvm::ArrayRef<CtrDef> c, bool obj)
      : Decl(Kind, r), name(n), nameRange(nr), params(p), ctrs(c), object(obj) {}
  AST_CLASS(Type, Decl)
};
struct HvmDecl : Decl {
  llvm::StringRef name;
  llvm::StringRef text;
  TypeExpr *type = nullptr; // `hvm name -> type:`; null: `Any`
  HvmDecl(SourceRange r, llvm::StringRef n, llvm::StringRef t, TypeExpr *ty = nullptr)
      : Decl(Kind, r), name(n), text(t), type(ty) {}
  AST_CLASS(Hvm, Decl)
};
struct ImportItem {
  llvm::StringRef name, alias; // alias empty: none
  SourceRange range;
};
/// `from path import items`, `from path import *`, `import path [as alias]`.
struct ImportDecl : Decl {
  llvm::StringRef path;
  SourceRange pathRange;
  llvm::ArrayRef<ImportItem> items;
  bool star = false;
  bool from = false;
  llvm::StringRef alias;
  ImportDecl(SourceRange r, llvm::StringRef p, SourceRange pr) : Decl(Kind, r), path(p), pathRange(pr) {}
  AST_CLASS(Import, Decl)
};
#undef AST_CLASS

/// Owns every node of one or more parsed files.
class AstContext {
public:
  template <typename T, typename... Args> T *make(Args &&...args) {
    return new (arena.Allocate(sizeof(T), alignof(T))) T(std::forward<Args>(args)...);
  }
  template <typename T> llvm::ArrayRef<T> list(llvm::ArrayRef<T> v) {
    if (v.empty())
      return {};
    T *mem = static_cast<T *>(arena.Allocate(sizeof(T) * v.size(), alignof(T)));
    std::uninitialized_copy(v.begin(), v.end(), mem);
    return llvm::ArrayRef<T>(mem, v.size());
  }
  template <typename T> llvm::ArrayRef<T> list(const std::vector<T> &v) {
    return list(llvm::ArrayRef<T>(v));
  }
  void *allocate(size_t bytes, size_t align) { return arena.Allocate(bytes, llvm::Align(align)); }
  llvm::StringRef save(llvm::StringRef s) { return saver.save(s); }
  /// The memory the syntax trees take.
  size_t bytes() const { return arena.getBytesAllocated(); }

private:
  llvm::BumpPtrAllocator arena;
  llvm::StringSaver saver{arena};
};

struct Module {
  std::vector<Decl *> decls;
};

/// A type in imp syntax: `List(T) -> (u24, a)`.
void printType(llvm::raw_ostream &os, const TypeExpr *type, bool nested = false);

/// Where `name` is written at `at` (as a whole word); invalid when the text
/// there spells something else. Nodes keep one range for a whole construct: this finds a
/// name inside it, for an editor.
llvm::SMRange spelledAt(llvm::SMLoc at, llvm::StringRef name);
/// The first whole-word `name` inside `within`; invalid when there is none.
llvm::SMRange spelledIn(SourceRange within, llvm::StringRef name);

/// An indented dump, one node per line with its line:col, for `--emit=ast`.
void printModule(llvm::raw_ostream &os, const Module &module, const llvm::SourceMgr &sm);

} // namespace bendc::ast
