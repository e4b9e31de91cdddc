// Shared state of resolution and desugaring: the book of every definition,
// type and constructor of the program, and the per-definition desugarer that
// turns AST into Core. Internal to the frontend.
#pragma once

#include "frontend/Ast.h"
#include "support/Diagnostic.h"
#include "ir/Core.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringMap.h"

#include <deque>
#include <memory>
#include <string>
#include <vector>

namespace bendc::frontend {

struct AdtData;
struct FileScope;

struct CtrData {
  std::string name; // global name, `Type/Ctr`
  AdtData *adt = nullptr;
  unsigned index = 0;
  std::vector<std::string> fields;
  std::vector<bool> recursive;
  std::vector<const ast::TypeExpr *> fieldTypes; // null: `Any`
  SourceRange range;
};

struct AdtData {
  std::string name;
  std::vector<CtrData *> ctrs;
  std::vector<llvm::StringRef> params; // type variables: `type List(T)`
  const FileScope *file = nullptr;     // where field types are resolved
  SourceRange range;
  bool builtin = false;
};

/// One source file: its name prefix and what its names mean.
struct FileScope {
  std::string prefix;                 // "" for the main file and the prelude
  // Local or imported name -> global name; their entries go all at once.
  llvm::StringMap<std::string, llvm::BumpPtrAllocator> names;
  llvm::StringMap<std::string, llvm::BumpPtrAllocator> imported; // the names imports bound
  std::vector<std::string> locals;    // this file's own top-level names, unprefixed
  std::string dir;                    // the file's folder
  bool builtin = false;
  ast::Module module;
};

struct DefData {
  llvm::StringRef name; // its key in Book::defs
  ast::FunDecl *fun = nullptr;
  ast::HvmDecl *hvm = nullptr;
  FileScope *file = nullptr;
  bool builtin = false;
  /// A function's place in core::Program::defs, once desugared.
  uint32_t coreIndex = NoCoreIndex;
  static constexpr uint32_t NoCoreIndex = ~0u;
};

struct Book {
  /// Its entries stay where they are made: DefData::name is the key, and
  /// defOrder points at them. They go all at once, with the book.
  llvm::StringMap<DefData, llvm::BumpPtrAllocator> defs;
  std::vector<DefData *> defOrder;
  llvm::StringMap<CtrData *, llvm::BumpPtrAllocator> ctrs;
  llvm::StringMap<AdtData *, llvm::BumpPtrAllocator> adts;
  std::deque<CtrData> ctrStore;
  std::deque<AdtData> adtStore;

  /// The global a name means in `file`, or "" when it means nothing.
  llvm::StringRef resolve(const FileScope &file, llvm::StringRef name) const;
};

/// What type checking needs beyond Core: which definitions are checked,
/// their annotated types, and where the encoded matches are.
struct TypingFacts {
  struct Def {
    const ast::TypeExpr *sig = nullptr; // null: `Any`, or inferred when generated
    const FileScope *file = nullptr;
    bool checked = false;
    bool generated = false; // lifted out of another definition
    SourceRange name;       // where the definition is named, for messages
    bool annotated = false; // `sig` was written (not made up for `def f(x)`)
    bool known = false;     // set by the desugarer (not so for constructors)
  };
  /// By place in core::Program::defs, and in core::Program::hvmDefs.
  std::vector<Def> defs, hvmDefs;
  /// What is known of the `k`th entry of `table` (defs or hvmDefs), or null.
  static const Def *of(const std::vector<Def> &table, size_t k) {
    return k < table.size() && table[k].known ? &table[k] : nullptr;
  }
  static void set(std::vector<Def> &table, size_t k, Def d) {
    if (table.size() <= k)
      table.resize(k + 1);
    d.known = true;
    table[k] = d;
  }
  /// A `match` encoded in Core: the term that stands for it, what it
  /// scrutinizes and, per constructor, the arm as a λ over its fields.
  struct Match {
    core::Term *scrutinee;
    const AdtData *adt;
    std::vector<core::Term *> arms;
  };
  llvm::DenseMap<const core::Term *, Match> matches;
  /// The entry definition when command-line arguments were applied to it
  /// (it is checked with them, as in Bend), and where the first one is.
  llvm::StringRef appliedEntry;
  SourceRange firstArgument;
};

/// What the desugarer decided about the names of one file, for an editor:
/// each local binder the source wrote, and each name it resolved, to one of
/// them or to a global. Scoping is the desugarer's alone; an index reads it
/// here. Filled only where a Desugarer is given one.
struct ResolvedNames {
  static constexpr uint32_t NoLocal = ~0u;
  struct Local {
    llvm::StringRef name; // as the source spells it: `x`, `x.head`, `n-1`, `$x`
    llvm::SMRange at;     // where it is bound
    llvm::SMLoc end;      // the furthest place it is visible
    bool foldResult = false; // a fold's recursive field: the fold's result on it
    uint32_t sameAs = NoLocal; // another local this one turned out to be
  };
  struct Use {
    llvm::SMRange at;
    uint32_t local = NoLocal; // or, when NoLocal, the global:
    llvm::StringRef global;   // a definition, constructor or type
  };
  const FileScope *file = nullptr; // the file whose names are recorded
  std::vector<Local> locals;
  std::vector<Use> uses;
  /// The annotations of the file's definitions, local ones included.
  std::vector<const ast::TypeExpr *> types;

  /// The local bound at `at` as `name`, made on first sight: a piece of
  /// source desugared twice (a rule body copied into several arms) binds
  /// the same local.
  uint32_t local(llvm::StringRef name, llvm::SMRange at);
  /// A name at `at` means `local` (or `global`); the first meaning of a
  /// place is kept.
  void use(llvm::SMRange at, uint32_t local, llvm::StringRef global = {});
  /// The local `id` is, after merges.
  uint32_t find(uint32_t id) const {
    while (locals[id].sameAs != NoLocal)
      id = locals[id].sameAs;
    return id;
  }
  /// `from` and `into` are one variable (what the branches of an `if`
  /// assign), known by `into`'s binder.
  void merge(uint32_t from, uint32_t into);
  /// The binder written at `at` as `name` binds `local` again (`x += 1`).
  void same(llvm::StringRef name, llvm::SMRange at, uint32_t local) {
    localAt.try_emplace({at.Start.getPointer(), name.data()}, local);
  }

private:
  llvm::DenseMap<std::pair<const char *, const char *>, uint32_t> localAt;
  llvm::DenseSet<const char *> used;
};

/// Desugars the definitions of a book into a Core program.
class Desugarer {
public:
  Desugarer(Book &book, core::Program &prog, DiagnosticEngine &diags)
      : book(book), prog(prog), diags(diags) {}

  /// Constructor definitions (and NumScott tags) for every ADT.
  void emitConstructors();
  /// One definition (and whatever it lifts out).
  void emitDefinition(DefData &def);
  /// `bend run prog ARG...`: the terms written as arguments are desugared in
  /// the entry's file with nothing else in scope, and the entry's (already
  /// emitted) body becomes `(body args...)`.
  void applyArguments(const DefData &entry, llvm::ArrayRef<ast::Expr *> args);
  const TypingFacts &typingFacts() const { return facts; }
  /// Records the names of `names->file` in `names` from now on.
  void recordNames(ResolvedNames *names) { recorded = names; }
  /// A definition the book does not hold (a second one of a name): its
  /// names are recorded all the same, with nothing else made or reported.
  void recordNamesOf(ast::FunDecl *fun, FileScope &file);

private:
  /// Records in Program::refs what the definitions made since the last
  /// call refer to, while their terms are still in cache (the program
  /// check reads them rather than walking every term again).
  void noteReferences();
  llvm::DenseSet<const char *> constructorNames; // Program::constructorNames, once made
  bool constructorsNamed = false;
  friend class MatchCompiler;

  // ---- scopes -------------------------------------------------------------
  struct Lift; // a definition being lifted out of another (fold, bend, local def)
  enum class BindKind : uint8_t { Var, Alias, Use, LocalFun, Fork, FoldRec, Global, Boundary };
  struct Binding {
    llvm::StringRef name;
    BindKind kind = BindKind::Var;
    llvm::StringRef target; // Alias: the Core variable; Global: the definition; FoldRec: raw field;
                            // Var: the Core variable when it is not `name` (renamed, see bindVar)
    llvm::StringRef liftVar; // FoldRec, Use, LocalFun: the variable a lifted definition
                             // takes it as, where one uses it (see lookup)
    core::Term *use = nullptr; // Use: the value, copied at each occurrence
    std::vector<llvm::StringRef> useFree; // Use: the Core variables free in the value
    Lift *lift = nullptr;
    unsigned uses = 0;
    SourceRange range;
    uint32_t symbol = ResolvedNames::NoLocal; // the source binder it stands for, when recorded
    bool warnUnused = false;
  };
  struct Lift {
    std::string name; // a local definition's is final; the others' are until nameLifts
    std::string kind; // "fold", "bend", ...; empty for a local definition
    Lift *namingParent = nullptr; // the definition Bend lifts it out of, if not the top-level one
    std::string topName;          // the top-level one's name
    unsigned doneOrder = 0;       // lifts finish inner ones first
    std::vector<std::string> captures;
    std::vector<core::Term *> selfRefs; // placeholders patched when the lift closes
    bool done = false;
    bool sortCaptures = false; // a local definition: its captures go in name order
  };
  /// Names the lifts made since `firstLift` as Bend 0.2.38 does, in the
  /// definitions made since `firstDef` and the references to them. Bend
  /// lifts local definitions first, then every bend, then every fold, each
  /// pass numbering per kind and per definition, inner terms first: a fold
  /// in a bend's body is `f__bend0__fold0`, two nested folds are
  /// `f__fold0` (the inner one) and `f__fold1`.
  /// `alsoIn`: terms not yet in a definition that may refer to them.
  void nameLifts(size_t firstLift, size_t firstDef, llvm::ArrayRef<core::Term *> alsoIn = {});

  /// Binds a source variable; returns the Core variable that stands for it,
  /// which its binder must use. That is `name` unless a `use` in scope refers
  /// to an outer `name`: then a fresh one, so that the copies of the `use`
  /// value are not captured (as in Bend, where names are made unique first).
  [[nodiscard]] llvm::StringRef bindVar(llvm::StringRef name, SourceRange range,
                                        bool warnUnused = false);
  /// The Core variable a binder of `name` made now uses (see bindVar).
  llvm::StringRef coreName(llvm::StringRef name);
  void bindAlias(llvm::StringRef name, llvm::StringRef target, SourceRange range);
  /// `name` stands for (a copy of) `value` wherever it is used: Bend's `use`.
  void bindUse(llvm::StringRef name, core::Term *value, SourceRange range);
  void pop(size_t mark);
  size_t mark() const { return scope.size(); }
  /// `note`: a name the source wrote, recorded where names are.
  core::Term *lookup(llvm::StringRef name, SourceRange range, bool note = true);
  /// The Core variable `coreName` as seen from here (captured by the lifts
  /// crossed), whatever source name it is bound by.
  core::Term *lookupCore(llvm::StringRef coreName, SourceRange range);
  /// What a FoldRec, Use or LocalFun binding stands for where it is bound.
  core::Term *boundValue(Binding &b, SourceRange range);
  /// Whether a lookup that crossed `crossed` (the innermost lift boundary on
  /// the way, or null) reaches `b` from inside another definition.
  static bool fromElsewhere(const Binding &b, const Lift *crossed);
  core::Term *lookupGlobal(llvm::StringRef name, SourceRange range);
  /// The innermost binding that `accepts` (counted as a use), and the
  /// first lift boundary crossed on the way out to it (null when none);
  /// {null, null} when there is none.
  template <class Accepts> std::pair<Binding *, Lift *> innermostBinding(Accepts accepts);
  /// The Core variable `v`, captured by `crossed` (when a lift was crossed).
  core::Term *capturedVar(llvm::StringRef v, Lift *crossed, SourceRange range);
  llvm::StringRef resolve(llvm::StringRef name) const { return book.resolve(*file, name); }

  // ---- recorded names (see ResolvedNames) -------------------------------------
  // Each does nothing unless names are recorded.
  /// The local written at `at` as `name`, visible up to scopeEnd.
  uint32_t declare(llvm::StringRef name, llvm::SMRange at);
  /// The innermost binding, just made, is the source binder of `name`,
  /// written in `where` (as `written`, when it is not spelled `name`).
  void declared(llvm::StringRef name, SourceRange where, llvm::StringRef written = {});
  void declaredAt(llvm::StringRef name, llvm::SMRange at);
  /// The innermost binding, just made, stands for `symbol`, the local a name
  /// meant before it (`match x` rebinding `x` in its arms, `x += 1`).
  void continues(uint32_t symbol);
  /// The local that `name` means here.
  uint32_t symbolOf(llvm::StringRef name) const;
  /// `name`, written in `where`, means the global `global`.
  void noteGlobal(llvm::StringRef name, SourceRange where, llvm::StringRef global);
  void noteUnscoped(llvm::StringRef name, SourceRange range, bool binder);
  /// Ties the uses of each unscoped variable of the definition to its binder.
  void resolveUnscoped();
  /// Binds the variables of `pat` where nothing else does (an assignment no
  /// statement follows, a rule never reached), so that they are recorded;
  /// in a `rule`, a name of a constructor is one.
  void recordPattern(ast::Pat *pat, bool rule = false);
  /// Desugars a piece of source given up on after an error anyway, for its
  /// names alone: nothing is reported, and nothing made is kept.
  void recover(llvm::function_ref<void()> walk);
  /// Forgets what the last definition left: its scope, its lifts and local
  /// definitions counted, its unscoped variables, map reads and `with` type.
  void forgetDefinitionState();
  unsigned recovering = 0; // recover calls under way
  /// Where the bindings made now stop being visible (for an editor).
  llvm::SMLoc scopeEnd;
  struct ScopeEnd {
    ScopeEnd(Desugarer &d, llvm::SMLoc end) : d(d), saved(d.scopeEnd) {
      if (end.isValid())
        d.scopeEnd = end;
    }
    ~ScopeEnd() { d.scopeEnd = saved; }
    Desugarer &d;
    llvm::SMLoc saved;
  };
  llvm::StringRef fresh(llvm::StringRef base);

  // ---- lifting --------------------------------------------------------------
  Lift *beginLift(llvm::StringRef kind);
  /// Closes a lift: defines `name = λcaptures body` and returns the call
  /// `(name captures...)` as seen from the enclosing scope.
  core::Term *endLift(Lift *lift, core::Term *body, SourceRange range);
  /// Closes a lift without making it a definition: `body` under one λ per
  /// capture, in the order they were met. The caller applies it to them.
  core::Term *closeLift(Lift *lift, core::Term *body, SourceRange range);
  core::Term *selfRef(Lift *lift, SourceRange range);
  core::Term *placeholder(llvm::StringRef name, llvm::SMLoc loc);

  // ---- terms ----------------------------------------------------------------
  core::Term *expr(ast::Expr *e);
  core::Term *app(core::Term *f, core::Term *a, llvm::SMLoc loc) {
    return prog.make<core::AppTerm>(loc, f, a);
  }
  core::Term *var(llvm::StringRef name, llvm::SMLoc loc) { return prog.make<core::VarTerm>(loc, name); }
  core::Term *ref(llvm::StringRef name, llvm::SMLoc loc) {
    return prog.make<core::RefTerm>(loc, prog.save(name));
  }
  core::Term *era(llvm::SMLoc loc) { return prog.make<core::EraTerm>(loc); }
  core::Term *lam(llvm::StringRef v, core::Term *body, llvm::SMLoc loc) {
    return prog.make<core::LamTerm>(loc, v, false, body);
  }
  core::Term *callGlobal(llvm::StringRef name, std::vector<core::Term *> args, SourceRange range);
  core::Term *lambda(ast::LamExpr *e);
  core::Term *application(ast::Expr *fun, llvm::ArrayRef<ast::Expr *> args,
                          llvm::ArrayRef<ast::Binding> kwargs, SourceRange range);
  core::Term *ctrLiteral(ast::CtrExpr *e);
  core::Term *list(ast::SeqExpr *e);
  core::Term *string(llvm::StringRef text, SourceRange range);
  core::Term *tuple(llvm::ArrayRef<ast::Expr *> elems, core::TermKind kind, SourceRange range);
  core::Term *letExpr(ast::LetExpr *e);
  core::Term *matchExpr(ast::MatchExpr *e);
  // Constructs written both as expressions (fun syntax) and as statements
  // (imp syntax): one head, the arms' bodies desugared by the caller.
  /// `switch bind = arg with ... { 0: ...; _: ... }`; `bodyOf` desugars an arm.
  core::Term *switchTerm(llvm::StringRef bind, ast::Expr *arg, llvm::ArrayRef<ast::Binding> with,
                         llvm::ArrayRef<ast::Arm> arms, SourceRange range,
                         llvm::function_ref<core::Term *(const ast::Arm &)> bodyOf);
  /// `if c0 then0 elif c1 then1 ... else otherwise`.
  core::Term *ifTerm(llvm::ArrayRef<ast::Expr *> conds, SourceRange range,
                     llvm::function_ref<core::Term *(size_t)> thenOf,
                     llvm::function_ref<core::Term *()> otherwise);
  /// `with Type { body }`: `wrap` in the body means `Type/wrap`, and `ask`
  /// binds through `Type/bind`.
  core::Term *withTerm(llvm::StringRef type, SourceRange range,
                       llvm::function_ref<core::Term *()> bodyOf);
  /// `bend state... { when cond: step; else: base }`, lifted to a definition
  /// that `fork` calls again.
  core::Term *bendTerm(llvm::ArrayRef<ast::Binding> state, ast::Expr *cond, SourceRange range,
                       llvm::function_ref<core::Term *()> stepOf,
                       llvm::function_ref<core::Term *()> baseOf);
  core::Term *openExpr(ast::OpenExpr *e);
  core::Term *askExpr(ast::Pat *pat, core::Term *value, llvm::function_ref<core::Term *()> rest,
                      SourceRange range);
  core::Term *localDef(ast::FunDecl *def, llvm::function_ref<core::Term *()> rest);
  core::Term *mapLiteral(ast::MapExpr *e);
  core::Term *comprehension(ast::ComprehensionExpr *e);

  /// Binds a pattern (var, tuple, sup, `$x`, `*`) to `value` around `rest`.
  core::Term *bindPattern(ast::Pat *pat, core::Term *value, llvm::function_ref<core::Term *()> rest);
  void collectPatternVars(ast::Pat *pat, std::vector<std::pair<llvm::StringRef, SourceRange>> &out);

  // ---- matches --------------------------------------------------------------
  struct ArmPlan {
    CtrData *ctr;
    const ast::Arm *arm; // null: nothing covers this constructor
    bool viaDefault;
    llvm::SMLoc end = {}; // where the arm's names stop being visible
  };
  /// Resolves the arms of a match to the constructors of one type.
  bool planMatch(llvm::ArrayRef<ast::Arm> arms, SourceRange range, std::vector<ArmPlan> &plan);
  /// `match` encoded for the chosen ADT encoding; `armTerm(i)` gives the i-th
  /// constructor's arm as a function of its fields.
  core::Term *encodeMatch(core::Term *scrutinee, AdtData *adt,
                          llvm::function_ref<core::Term *(unsigned)> armTerm, llvm::SMLoc loc);
  core::Term *encodeMatchTerm(core::Term *scrutinee, unsigned n,
                              llvm::function_ref<core::Term *(unsigned)> armTerm, llvm::SMLoc loc);
  /// `body()` with `bind` (if any) standing for `value` (a Use binding): as in
  /// Bend, inside a switch's arms the matched name means the number the arm
  /// stands for, so arms never duplicate the scrutinee.
  core::Term *withSwitchValue(llvm::StringRef bind, uint32_t bindSymbol, core::Term *value,
                              SourceRange range, llvm::function_ref<core::Term *()> body);
  /// `predAt`: the default case, where `predName` is written.
  core::Term *switchChain(core::Term *arg, unsigned cases, llvm::function_ref<core::Term *(unsigned)> arm,
                          llvm::function_ref<core::Term *(llvm::StringRef)> defaultArm,
                          llvm::StringRef predName, llvm::SMLoc loc, SourceRange predAt = {});
  /// A `match` or `fold` (expression or statement) whose cases' bodies
  /// `bodyOf` desugars.
  core::Term *matchTerm(llvm::StringRef bind, ast::Expr *arg, llvm::ArrayRef<ast::Binding> with,
                        llvm::ArrayRef<ast::Arm> arms, bool isFold, SourceRange range,
                        llvm::function_ref<core::Term *(const ast::Arm &)> bodyOf);
  /// `bindSymbol`: the local that `bind` is (see matchSymbol).
  core::Term *matchArms(llvm::StringRef bind, uint32_t bindSymbol, core::Term *scrutinee,
                        const std::vector<ArmPlan> &plan, AdtData *adt,
                        llvm::function_ref<core::Term *(const ast::Arm &)> body, Lift *fold,
                        llvm::SMLoc loc);
  /// One case of matchArms: the constructor's fields bound around its body.
  core::Term *armTerm(llvm::StringRef bind, uint32_t bindSymbol, const ArmPlan &p,
                      llvm::function_ref<core::Term *(const ast::Arm &)> body, Lift *fold,
                      llvm::SMLoc loc);
  /// The local that a match's or switch's name `bind` is in its arms, where
  /// names are recorded.
  uint32_t matchSymbol(llvm::StringRef bind, ast::Expr *arg, SourceRange range);
  /// The locals that the `with` variables of a match or switch are.
  std::vector<uint32_t> withSymbols(llvm::ArrayRef<ast::Binding> with);
  /// After an error in a match's arms: each (but those `planned`)
  /// desugared for its names.
  void recoverArms(llvm::StringRef bind, uint32_t bindSymbol, llvm::ArrayRef<ast::Arm> arms,
                   SourceRange range, llvm::function_ref<core::Term *(const ast::Arm &)> bodyOf,
                   const std::vector<ArmPlan> *planned = nullptr);

  // ---- imp statements ---------------------------------------------------------
  struct BlockValue {
    core::Term *term = nullptr;
    ast::Pat *assigned = nullptr; // null: the block returns
    bool monadic = false;         // it ends with `pat <- value`: bind, not assign
    bool ok = true;
  };
  BlockValue block(ast::Block stmts, size_t index);
  BlockValue statement(ast::Stmt *s, ast::Block stmts, size_t index);
  BlockValue branchy(ast::Stmt *s, ast::Block stmts, size_t index,
                     llvm::function_ref<core::Term *(llvm::function_ref<BlockValue(ast::Block)>)> build);
  core::Term *continueWith(ast::Pat *pat, core::Term *value, ast::Block stmts, size_t index,
                           BlockValue &out);
  bool samePattern(ast::Pat *a, ast::Pat *b) const;
  /// `name`, written in `range`, is assigned anew from its old value
  /// (`x += 1`, `m[k] = v`): the same local to an editor.
  void updates(llvm::StringRef name, SourceRange range);
  /// Where the branches of a statement assign the same variables, those of
  /// `other` are the ones `first` binds.
  void sameVariables(ast::Pat *first, ast::Pat *other);
  core::Term *wrapMapGets(size_t from, core::Term *body);

  // ---- equations --------------------------------------------------------------
  core::Term *function(ast::FunDecl *fun);

  Book &book;
  ast::AstContext synth; // nodes the desugarer makes up (`m[k] = v` targets)
  core::Program &prog;
  DiagnosticEngine &diags;
  FileScope *file = nullptr;
  std::string defName;
  unsigned liftCount = 0; // lifts begun in this definition (their provisional names)
  unsigned liftsDone = 0; // and finished
  std::string localParent; // what local definitions are named after
  unsigned localDefsDone = 0; // local definitions of this top-level one finished so far
  unsigned freshCount = 0;
  std::vector<Binding> scope;
  /// How many `use` bindings in scope have each Core variable free in their value.
  llvm::StringMap<unsigned> useFree;
  std::vector<std::unique_ptr<Lift>> lifts;
  llvm::StringRef withType; // inside `with Type`
  struct MapGet {
    llvm::StringRef var, map;
    core::Term *key;
    SourceRange range;
  };
  std::vector<MapGet> mapGets;
public:
  // Unscoped variables of the current definition: where each is bound and used
  // (a body compiled into several match arms is still one occurrence).
  struct Unscoped {
    llvm::SmallPtrSet<const char *, 2> binders, uses;
    SourceRange first;
  };

private:
  llvm::StringMap<Unscoped> unscoped;
  void checkUnscoped();
  ResolvedNames *recorded = nullptr; // given by the caller
  ResolvedNames *record = nullptr;   // recorded, in its file; else null
  struct UnscopedName {
    llvm::StringRef name;
    SourceRange range;
    bool binder;
  };
  std::vector<UnscopedName> unscopedNames; // of the definition, where recorded
  core::Term *clone(core::Term *t);
  core::Term *cloneNode(core::Term *t);
  TypingFacts facts;
  bool checkedDef = false; // the definition being emitted is type-checked
  llvm::DenseMap<const core::Term *, core::Term *> clones; // original -> copy, for match facts
  /// The lift each of its placeholders (selfRef) stands for, until patched.
  llvm::DenseMap<const core::Term *, Lift *> placeholderOf;
  size_t cloned = 0;
  static constexpr size_t kMaxCloned = 4'000'000;
};

} // namespace bendc::frontend
