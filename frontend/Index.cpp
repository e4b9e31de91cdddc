// The editor's index: declarations from the parsed files, then one walk over
// the main file that follows Bend's scoping (λ and let binders, rule
// patterns, match fields `x.field`, switch predecessors `x-N`, imp
// assignments, bend states, open) to tie each name to what it means.
#include "frontend/IndexBuilder.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/Allocator.h"
#include "llvm/Support/StringSaver.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <cstring>

namespace bendc::frontend {

using namespace ast;
using llvm::SMLoc;
using llvm::SMRange;
using llvm::StringRef;
using Kind = ProgramIndex::Kind;

// ---- queries ---------------------------------------------------------------

static uintptr_t addr(SMLoc l) { return reinterpret_cast<uintptr_t>(l.getPointer()); }

static bool holds(SMRange r, SMLoc loc) {
  return r.Start.isValid() && r.End.isValid() && addr(r.Start) <= addr(loc) &&
         addr(loc) <= addr(r.End);
}

const ProgramIndex::Reference *ProgramIndex::referenceAt(SMLoc loc) const {
  const Reference *best = nullptr;
  for (const Reference &r : references)
    if (holds(r.range, loc) &&
        (!best || addr(r.range.End) - addr(r.range.Start) <
                      addr(best->range.End) - addr(best->range.Start)))
      best = &r;
  return best;
}

std::string ProgramIndex::typeAt(const Reference &ref) const {
  const Symbol &s = symbols[ref.symbol];
  if (s.kind != Kind::Variable)
    return s.type;
  if (auto it = useTypes.find(ref.range.Start.getPointer()); it != useTypes.end())
    return it->second;
  // At its binder: the type at any use.
  for (const Reference &r : references)
    if (r.symbol == ref.symbol)
      if (auto it = useTypes.find(r.range.Start.getPointer()); it != useTypes.end())
        return it->second;
  return s.type;
}

std::vector<unsigned> ProgramIndex::variablesAt(SMLoc loc) const {
  std::vector<unsigned> out;
  for (unsigned i = 0; i < symbols.size(); ++i)
    if (symbols[i].kind == Kind::Variable && holds(symbols[i].range, loc))
      out.push_back(i);
  return out;
}

// ---- building --------------------------------------------------------------

namespace {

std::string qualify(StringRef prefix, StringRef name) {
  return prefix.empty() ? name.str() : (prefix + "/" + name).str();
}

std::string typeText(const TypeExpr *t) {
  std::string s;
  llvm::raw_string_ostream os(s);
  printType(os, t);
  return s;
}

bool isNameChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '.' || c == '/' || c == '-';
}

/// `name` where the text at `at` spells it; invalid otherwise.
SMRange nameAt(SMLoc at, StringRef name) {
  if (!at.isValid() || name.empty() || std::strncmp(at.getPointer(), name.data(), name.size()) != 0)
    return {};
  return SMRange(at, SMLoc::getFromPointer(at.getPointer() + name.size()));
}

/// The first whole-word `name` inside `within`; invalid when there is none.
SMRange nameIn(SourceRange within, StringRef name) {
  if (!within.begin.isValid() || !within.end.isValid() || name.empty())
    return {};
  StringRef text(within.begin.getPointer(), size_t(addr(within.end) - addr(within.begin)));
  for (size_t at = text.find(name); at != StringRef::npos; at = text.find(name, at + 1)) {
    bool startOk = at == 0 || !isNameChar(text[at - 1]);
    size_t end = at + name.size();
    bool endOk = end >= text.size() || !isNameChar(text[end]);
    if (startOk && endOk)
      return nameAt(SMLoc::getFromPointer(text.data() + at), name);
  }
  return {};
}

/// The `#` comment lines right above the line holding `at`, without the `#`.
std::string docAbove(const llvm::SourceMgr &sm, SMLoc at) {
  if (!at.isValid())
    return {};
  unsigned id = sm.FindBufferContainingLoc(at);
  if (id == 0)
    return {};
  const char *begin = sm.getMemoryBuffer(id)->getBufferStart();
  const char *line = at.getPointer();
  while (line > begin && line[-1] != '\n')
    --line;
  std::vector<StringRef> lines;
  while (line > begin) {
    const char *prev = line - 1; // the '\n' ending the line above
    while (prev > begin && prev[-1] != '\n')
      --prev;
    StringRef text = StringRef(prev, size_t(line - 1 - prev)).trim();
    if (!text.startswith("#") || text.startswith("#{") || text.startswith("#}"))
      break;
    text = text.drop_front();
    text.consume_front(" ");
    lines.push_back(text.rtrim());
    line = prev;
  }
  std::string doc;
  for (auto it = lines.rbegin(); it != lines.rend(); ++it) {
    if (!doc.empty())
      doc += '\n';
    doc += it->str();
  }
  return doc;
}

class Indexer {
public:
  Indexer(ProgramIndex &index, const llvm::SourceMgr &sm, const Book &book, TypeInfo &types)
      : index(index), sm(sm), book(book), types(types) {}

  void declare(const FileScope &f, bool main);
  /// A fold's recursive fields stand for the fold's result on them, which
  /// the checker does not type at the use: their use types are dropped.
  void dropFoldResultTypes(TypeInfo &types) const {
    for (const ProgramIndex::Reference &r : index.references)
      if (foldResults.count(r.symbol))
        types.uses.erase(r.range.Start.getPointer());
  }
  void globalsOf(const FileScope &f);
  void walk(const FileScope &f);

private:
  unsigned add(ProgramIndex::Symbol s) {
    index.symbols.push_back(std::move(s));
    return unsigned(index.symbols.size() - 1);
  }
  void ref(SMRange r, unsigned symbol) {
    if (r.Start.isValid())
      index.references.push_back({r, symbol});
  }
  std::string functionType(const FunDecl *fun, const std::string &global, bool &inferred);

  // ---- scopes ----------------------------------------------------------------
  size_t mark() const { return scope.size(); }
  /// Ends the scopes opened since `m`: their variables are visible up to `end`.
  void pop(size_t m, SMLoc end) {
    for (size_t i = m; i < scope.size(); ++i)
      index.symbols[scope[i].second].range.End = end;
    scope.resize(m);
  }
  unsigned bind(StringRef name, SMRange at) {
    ProgramIndex::Symbol s;
    s.kind = Kind::Variable;
    s.name = name.str();
    s.nameRange = at;
    s.range = SMRange(at.Start, at.End);
    s.type = "";
    s.mainFile = true;
    unsigned id = add(std::move(s));
    scope.emplace_back(name, id);
    ref(at, id);
    return id;
  }
  void use(StringRef name, SMRange at);
  /// A global name (constructor, type, definition) used at `at`.
  bool useGlobal(StringRef name, SMRange at);
  int global(StringRef name) const;
  int constructor(StringRef name) const;

  // ---- the walk --------------------------------------------------------------
  void function(FunDecl *fun);
  void type(const TypeExpr *t);
  void expr(Expr *e);
  void pattern(Pat *p);
  void block(Block stmts, SMLoc end);
  void statement(Stmt *s, SMLoc end);
  /// match/fold/switch: arms see the scrutinee's fields (`x.head`) or, in a
  /// switch's last arm, its predecessor (`x-N`).
  void arms(SourceRange range, StringRef bind, Expr *arg, llvm::ArrayRef<Binding> with,
            llvm::ArrayRef<Arm> arms, bool isSwitch, bool fold, bool keepFirstArm);
  void bindings(llvm::ArrayRef<Binding> bs);
  void openFields(StringRef type, StringRef var, SMRange at);

  ProgramIndex &index;
  const llvm::SourceMgr &sm;
  const Book &book;
  TypeInfo &types;
  const FileScope *file = nullptr;
  llvm::StringMap<unsigned> byGlobal;
  std::vector<std::pair<StringRef, unsigned>> scope;
  llvm::StringMap<unsigned> unscoped; // `$x` of the definition being walked
  llvm::DenseSet<unsigned> foldResults;
  llvm::BumpPtrAllocator arena;
  llvm::StringSaver fieldNames{arena}; // `x.field`, `x-1`: names no source spells whole
};

std::string Indexer::functionType(const FunDecl *fun, const std::string &global, bool &inferred) {
  inferred = false;
  if (fun->checked())
    if (auto it = types.schemes.find(global); it != types.schemes.end() && it->second != "Any") {
      inferred = true;
      return it->second;
    }
  if (fun->sig && fun->annotated)
    return typeText(fun->sig);
  // Untyped: the parameters as written.
  std::string s = fun->name.str();
  if (fun->imp) {
    s += "(";
    for (size_t i = 0; i < fun->params.size(); ++i)
      s.append(i ? ", " : "").append(fun->params[i].name.str());
    return s + ")";
  }
  if (!fun->rules.empty())
    for (const Pat *p : fun->rules.front().pats)
      if (p->range.begin.isValid() && p->range.end.isValid())
        s.append(" ").append(p->range.begin.getPointer(),
                             size_t(addr(p->range.end) - addr(p->range.begin)));
  return s;
}

void Indexer::declare(const FileScope &f, bool main) {
  for (Decl *d : f.module.decls) {
    ProgramIndex::Symbol s;
    s.builtin = f.builtin;
    s.mainFile = main;
    s.range = d->range.toSM();
    s.doc = docAbove(sm, d->range.begin);
    if (auto *fun = llvm::dyn_cast<FunDecl>(d)) {
      s.kind = Kind::Function;
      s.name = qualify(f.prefix, fun->name);
      s.nameRange = fun->nameRange.toSM();
      s.type = functionType(fun, s.name, s.inferred);
      s.typed = s.inferred || (fun->sig && fun->annotated);
    } else if (auto *h = llvm::dyn_cast<HvmDecl>(d)) {
      s.kind = Kind::Hvm;
      s.name = qualify(f.prefix, h->name);
      s.nameRange = nameIn(h->range, h->name);
      s.type = h->type ? typeText(h->type) : ("hvm " + h->name).str();
      s.typed = h->type;
    } else if (auto *t = llvm::dyn_cast<TypeDecl>(d)) {
      s.kind = t->object ? Kind::Object : Kind::Type;
      s.name = qualify(f.prefix, t->name);
      s.nameRange = t->nameRange.toSM();
      s.type = (t->object ? "object " : "type ");
      s.type += t->name.str();
      if (!t->params.empty()) {
        s.type += "(";
        for (size_t i = 0; i < t->params.size(); ++i)
          s.type.append(i ? ", " : "").append(t->params[i].str());
        s.type += ")";
      }
    } else {
      continue; // imports declare nothing
    }
    if (f.builtin)
      s.nameRange = SMRange();
    std::string name = s.name;
    bool isType = s.kind == Kind::Type || s.kind == Kind::Object;
    unsigned id = add(std::move(s));
    byGlobal.try_emplace(name, id);
    if (main)
      ref(index.symbols[id].nameRange, id);
    auto *t = llvm::dyn_cast<TypeDecl>(d);
    if (!isType || !t)
      continue;
    for (const CtrDef &c : t->ctrs) {
      ProgramIndex::Symbol cs;
      cs.kind = Kind::Constructor;
      cs.name = t->object ? name : name + "/" + c.name.str();
      cs.nameRange = f.builtin ? SMRange() : nameAt(c.range.begin, c.name);
      cs.range = c.range.toSM();
      cs.parent = int(id);
      cs.builtin = f.builtin;
      cs.mainFile = main;
      if (auto it = types.schemes.find(cs.name); it != types.schemes.end()) {
        cs.type = it->second;
        cs.inferred = cs.typed = true;
      } else {
        cs.type = cs.name + (c.fields.empty() ? "" : " {");
        for (size_t i = 0; i < c.fields.size(); ++i) {
          const Field &fl = c.fields[i];
          cs.type.append(i ? ", " : " ").append(fl.recursive ? "~" : "").append(fl.name.str());
          if (fl.type)
            cs.type += ": " + typeText(fl.type);
        }
        if (!c.fields.empty())
          cs.type += " }";
      }
      std::string cname = cs.name;
      unsigned cid = add(std::move(cs));
      // An object's constructor has the type's name: the type keeps it.
      if (!t->object)
        byGlobal.try_emplace(cname, cid);
      if (main)
        ref(index.symbols[cid].nameRange, cid);
    }
  }
}

void Indexer::globalsOf(const FileScope &f) {
  for (const auto &n : f.names)
    if (auto it = byGlobal.find(n.second); it != byGlobal.end())
      index.globals.emplace_back(n.first().str(), it->second);
}

int Indexer::global(StringRef name) const {
  StringRef g = book.resolve(*file, name);
  if (g.empty())
    return -1;
  auto it = byGlobal.find(g);
  return it == byGlobal.end() ? -1 : int(it->second);
}

int Indexer::constructor(StringRef name) const {
  int g = global(name);
  return g >= 0 && index.symbols[g].kind == Kind::Constructor ? g : -1;
}

void Indexer::use(StringRef name, SMRange at) {
  for (auto it = scope.rbegin(); it != scope.rend(); ++it)
    if (it->first == name) {
      ref(at, it->second);
      return;
    }
  useGlobal(name, at);
}

bool Indexer::useGlobal(StringRef name, SMRange at) {
  int g = global(name);
  if (g < 0)
    return false;
  ref(at, unsigned(g));
  return true;
}

void Indexer::type(const TypeExpr *t) {
  if (!t)
    return;
  if (t->kind == TypeExpr::Kind::Name || t->kind == TypeExpr::Kind::Apply)
    if (book.adts.count(book.resolve(*file, t->name)))
      useGlobal(t->name, nameAt(t->range.begin, t->name));
  for (const TypeExpr *a : t->args)
    type(a);
}

void Indexer::walk(const FileScope &f) {
  file = &f;
  for (Decl *d : f.module.decls) {
    if (auto *fun = llvm::dyn_cast<FunDecl>(d)) {
      unscoped.clear();
      function(fun);
    } else if (auto *h = llvm::dyn_cast<HvmDecl>(d)) {
      type(h->type);
    } else if (auto *t = llvm::dyn_cast<TypeDecl>(d)) {
      for (const CtrDef &c : t->ctrs)
        for (const Field &fl : c.fields)
          type(fl.type);
    } else if (auto *imp = llvm::dyn_cast<ImportDecl>(d)) {
      // An imported name means what it names in its file.
      for (const ImportItem &item : imp->items)
        useGlobal(item.alias.empty() ? item.name : item.alias, nameAt(item.range.begin, item.name));
    }
  }
  globalsOf(f);
  // Every other declaration can be named by its global name (builtins too).
  llvm::StringSet<> named;
  for (const auto &g : index.globals)
    named.insert(g.first);
  for (unsigned i = 0; i < index.symbols.size(); ++i)
    if (index.symbols[i].kind != Kind::Variable && named.insert(index.symbols[i].name).second)
      index.globals.emplace_back(index.symbols[i].name, i);
}

void Indexer::function(FunDecl *fun) {
  type(fun->sig);
  SMLoc end = fun->range.end;
  if (fun->imp) {
    size_t m = mark();
    for (const Param &p : fun->params) {
      type(p.type);
      bind(p.name, nameAt(p.range.begin, p.name).Start.isValid() ? nameAt(p.range.begin, p.name)
                                                                   : p.range.toSM());
    }
    block(fun->body, end);
    pop(m, end);
    return;
  }
  for (const Rule &r : fun->rules) {
    size_t m = mark();
    for (Pat *p : r.pats)
      pattern(p);
    expr(r.body);
    pop(m, r.range.end.isValid() ? r.range.end : end);
  }
}

void Indexer::pattern(Pat *p) {
  if (!p)
    return;
  switch (p->kind) {
  case NodeKind::VarPat: {
    auto *v = llvm::cast<VarPat>(p);
    type(v->type);
    if (v->name.empty())
      return;
    SMRange at = nameAt(p->range.begin, v->name);
    // A name that is a constructor is a constructor pattern.
    if (int c = constructor(v->name); c >= 0) {
      ref(at, unsigned(c));
      return;
    }
    bind(v->name, at.Start.isValid() ? at : p->range.toSM());
    return;
  }
  case NodeKind::ChnPat: {
    auto *c = llvm::cast<ChnPat>(p);
    SMRange at = p->range.toSM();
    ProgramIndex::Symbol s;
    s.kind = Kind::Variable;
    s.name = ("$" + c->name).str();
    s.nameRange = at;
    s.range = at;
    s.mainFile = true;
    unsigned id = add(std::move(s));
    unscoped.try_emplace(c->name, id);
    ref(at, id);
    return;
  }
  case NodeKind::CtrPat: {
    auto *c = llvm::cast<CtrPat>(p);
    useGlobal(c->name, nameIn(p->range, c->name));
    for (Pat *a : c->args)
      pattern(a);
    return;
  }
  case NodeKind::TupPat:
  case NodeKind::SupPat:
  case NodeKind::ListPat:
    for (Pat *e : llvm::cast<SeqPat>(p)->elems)
      pattern(e);
    return;
  case NodeKind::MapSetPat: {
    auto *m = llvm::cast<MapSetPat>(p);
    use(m->map, nameAt(p->range.begin, m->map));
    expr(m->key);
    return;
  }
  default: return;
  }
}

void Indexer::bindings(llvm::ArrayRef<Binding> bs) {
  for (const Binding &b : bs) {
    if (b.value)
      expr(b.value);
    else
      use(b.name, nameAt(b.range.begin, b.name));
  }
}

void Indexer::openFields(StringRef typeName, StringRef var, SMRange at) {
  StringRef g = book.resolve(*file, typeName);
  auto adt = book.adts.find(g);
  if (adt == book.adts.end() || adt->second->ctrs.size() != 1)
    return;
  for (const std::string &field : adt->second->ctrs.front()->fields)
    bind(fieldNames.save((var + "." + field).str()), at);
}

void Indexer::arms(SourceRange range, StringRef bind, Expr *arg, llvm::ArrayRef<Binding> with,
                   llvm::ArrayRef<Arm> arms, bool isSwitch, bool fold, bool keepFirstArm) {
  expr(arg);
  bindings(with);
  if (bind == "_")
    bind = {};
  size_t outer = mark();
  if (!bind.empty()) {
    auto *v = llvm::dyn_cast_or_null<VarExpr>(arg);
    if (!v || v->name != bind)
      this->bind(bind, nameIn(range, bind));
  } else if (auto *v = llvm::dyn_cast_or_null<VarExpr>(arg)) {
    bind = v->name;
  }
  const AdtData *adt = nullptr;
  unsigned cases = 0;
  std::vector<std::pair<StringRef, unsigned>> assigned; // by the first arm's block
  for (size_t i = 0; i < arms.size(); ++i) {
    const Arm &arm = arms[i];
    size_t m = mark();
    SMRange label = nameAt(arm.range.begin, arm.name);
    if (isSwitch) {
      if (arm.name == "_" && !bind.empty())
        this->bind(fieldNames.save((bind + "-" + std::to_string(cases)).str()), label);
      else
        ++cases;
    } else if (!arm.name.empty() && arm.name != "_") {
      int c = constructor(arm.name);
      if (c < 0 && adt)
        if (auto it = byGlobal.find(adt->name + "/" + arm.name.str()); it != byGlobal.end())
          c = int(it->second);
      if (c >= 0) {
        ref(label, unsigned(c));
        auto ctr = book.ctrs.find(index.symbols[c].name);
        if (ctr != book.ctrs.end()) {
          adt = ctr->second->adt;
          if (!bind.empty())
            for (size_t f = 0; f < ctr->second->fields.size(); ++f) {
              unsigned id =
                  this->bind(fieldNames.save((bind + "." + ctr->second->fields[f]).str()), label);
              if (fold && ctr->second->recursive[f])
                foldResults.insert(id);
            }
        }
      } else {
        this->bind(arm.name, label); // a variable: the whole value
      }
    }
    size_t inner = mark();
    SMLoc end = i + 1 < arms.size() ? arms[i + 1].range.begin : range.end;
    if (arm.body)
      expr(arm.body);
    else
      block(arm.block, end);
    if (i == 0 && keepFirstArm)
      assigned.assign(scope.begin() + inner, scope.end());
    pop(m, end);
  }
  pop(outer, range.end);
  // What an imp arm assigns is visible after the match.
  scope.insert(scope.end(), assigned.begin(), assigned.end());
}

void Indexer::expr(Expr *e) {
  if (!e)
    return;
  switch (e->kind) {
  case NodeKind::VarExpr: {
    auto *v = llvm::cast<VarExpr>(e);
    use(v->name, e->range.toSM());
    return;
  }
  case NodeKind::ChnExpr: {
    auto *c = llvm::cast<ChnExpr>(e);
    if (auto it = unscoped.find(c->name); it != unscoped.end())
      ref(e->range.toSM(), it->second);
    return;
  }
  case NodeKind::EraExpr:
  case NodeKind::NumExpr:
  case NodeKind::StrExpr: return;
  case NodeKind::ListExpr:
  case NodeKind::TupExpr:
  case NodeKind::SupExpr:
    for (Expr *x : llvm::cast<SeqExpr>(e)->elems)
      expr(x);
    return;
  case NodeKind::LamExpr: {
    auto *l = llvm::cast<LamExpr>(e);
    size_t m = mark();
    pattern(l->param);
    expr(l->body);
    pop(m, e->range.end);
    return;
  }
  case NodeKind::AppExpr: {
    auto *a = llvm::cast<AppExpr>(e);
    expr(a->fun);
    for (Expr *x : a->args)
      expr(x);
    return;
  }
  case NodeKind::CallExpr: {
    auto *c = llvm::cast<CallExpr>(e);
    expr(c->fun);
    for (Expr *x : c->args)
      expr(x);
    for (const Binding &b : c->kwargs)
      expr(b.value);
    return;
  }
  case NodeKind::CtrExpr: {
    auto *c = llvm::cast<CtrExpr>(e);
    useGlobal(c->name, nameAt(e->range.begin, c->name));
    bindings(c->fields);
    return;
  }
  case NodeKind::OpExpr: {
    auto *o = llvm::cast<OpExpr>(e);
    expr(o->lhs);
    expr(o->rhs);
    return;
  }
  case NodeKind::LetExpr: {
    auto *l = llvm::cast<LetExpr>(e);
    expr(l->value);
    size_t m = mark();
    pattern(l->pat);
    expr(l->next);
    pop(m, e->range.end);
    return;
  }
  case NodeKind::AskExpr: {
    auto *a = llvm::cast<AskExpr>(e);
    expr(a->value);
    size_t m = mark();
    pattern(a->pat);
    expr(a->next);
    pop(m, e->range.end);
    return;
  }
  case NodeKind::UseExpr: {
    auto *u = llvm::cast<UseExpr>(e);
    expr(u->value);
    size_t m = mark();
    bind(u->name, nameIn(e->range, u->name));
    expr(u->next);
    pop(m, e->range.end);
    return;
  }
  case NodeKind::MatchExpr: {
    auto *mt = llvm::cast<MatchExpr>(e);
    arms(e->range, mt->bind, mt->arg, mt->with, mt->arms, false, mt->fold, false);
    return;
  }
  case NodeKind::SwitchExpr: {
    auto *s = llvm::cast<SwitchExpr>(e);
    arms(e->range, s->bind, s->arg, s->with, s->arms, true, false, false);
    return;
  }
  case NodeKind::IfExpr: {
    auto *i = llvm::cast<IfExpr>(e);
    for (Expr *x : i->conds)
      expr(x);
    for (Expr *x : i->thens)
      expr(x);
    expr(i->otherwise);
    return;
  }
  case NodeKind::BendExpr: {
    auto *b = llvm::cast<BendExpr>(e);
    for (const Binding &s : b->state)
      expr(s.value);
    size_t m = mark();
    for (const Binding &s : b->state)
      bind(s.name, nameAt(s.range.begin, s.name));
    expr(b->cond);
    expr(b->step);
    expr(b->base);
    pop(m, e->range.end);
    return;
  }
  case NodeKind::OpenExpr: {
    auto *o = llvm::cast<OpenExpr>(e);
    useGlobal(o->type, nameIn(e->range, o->type));
    size_t m = mark();
    openFields(o->type, o->var, nameIn(e->range, o->var));
    expr(o->body);
    pop(m, e->range.end);
    return;
  }
  case NodeKind::WithExpr: {
    auto *w = llvm::cast<WithExpr>(e);
    useGlobal(w->type, nameIn(e->range, w->type));
    expr(w->body);
    return;
  }
  case NodeKind::LocalDefExpr: {
    auto *l = llvm::cast<LocalDefExpr>(e);
    size_t m = mark();
    bind(l->def->name, l->def->nameRange.toSM());
    function(l->def);
    expr(l->next);
    pop(m, e->range.end);
    return;
  }
  case NodeKind::MapExpr: {
    auto *mp = llvm::cast<MapExpr>(e);
    for (Expr *x : mp->keys)
      expr(x);
    for (Expr *x : mp->values)
      expr(x);
    return;
  }
  case NodeKind::MapGetExpr: {
    auto *g = llvm::cast<MapGetExpr>(e);
    use(g->map, nameAt(e->range.begin, g->map));
    expr(g->key);
    return;
  }
  case NodeKind::ComprehensionExpr: {
    auto *c = llvm::cast<ComprehensionExpr>(e);
    expr(c->iter);
    size_t m = mark();
    bind(c->bind, nameIn(SourceRange(c->term->range.end, e->range.end), c->bind));
    expr(c->term);
    expr(c->cond);
    pop(m, e->range.end);
    return;
  }
  default: return;
  }
}

void Indexer::block(Block stmts, SMLoc end) {
  for (Stmt *s : stmts)
    statement(s, end);
}

void Indexer::statement(Stmt *s, SMLoc end) {
  if (!s)
    return;
  switch (s->kind) {
  case NodeKind::AssignStmt: {
    auto *a = llvm::cast<AssignStmt>(s);
    expr(a->value);
    pattern(a->pat);
    return;
  }
  case NodeKind::AskStmt: {
    auto *a = llvm::cast<AskStmt>(s);
    expr(a->value);
    pattern(a->pat);
    return;
  }
  case NodeKind::InPlaceStmt: {
    auto *p = llvm::cast<InPlaceStmt>(s);
    expr(p->value);
    if (auto *v = llvm::dyn_cast_or_null<VarPat>(p->target))
      use(v->name, nameAt(v->range.begin, v->name));
    else
      pattern(p->target);
    return;
  }
  case NodeKind::ReturnStmt: expr(llvm::cast<ReturnStmt>(s)->value); return;
  case NodeKind::IfStmt: {
    auto *i = llvm::cast<IfStmt>(s);
    for (Expr *c : i->conds)
      expr(c);
    std::vector<std::pair<StringRef, unsigned>> assigned;
    auto branch = [&](Block b, bool first) {
      size_t m = mark();
      block(b, s->range.end);
      if (first)
        assigned.assign(scope.begin() + m, scope.end());
      pop(m, s->range.end);
    };
    for (size_t k = 0; k < i->thens.size(); ++k)
      branch(i->thens[k], k == 0);
    branch(i->otherwise, false);
    scope.insert(scope.end(), assigned.begin(), assigned.end());
    return;
  }
  case NodeKind::MatchStmt: {
    auto *m = llvm::cast<MatchStmt>(s);
    arms(s->range, m->bind, m->arg, m->with, m->arms, false, m->fold, true);
    return;
  }
  case NodeKind::SwitchStmt: {
    auto *sw = llvm::cast<SwitchStmt>(s);
    arms(s->range, sw->bind, sw->arg, sw->with, sw->arms, true, false, true);
    return;
  }
  case NodeKind::BendStmt: {
    auto *b = llvm::cast<BendStmt>(s);
    for (const Binding &st : b->state)
      expr(st.value);
    size_t m = mark();
    for (const Binding &st : b->state)
      bind(st.name, nameAt(st.range.begin, st.name));
    expr(b->cond);
    size_t inner = mark();
    block(b->step, s->range.end);
    std::vector<std::pair<StringRef, unsigned>> assigned(scope.begin() + inner, scope.end());
    pop(inner, s->range.end);
    block(b->base, s->range.end);
    pop(m, s->range.end);
    scope.insert(scope.end(), assigned.begin(), assigned.end());
    return;
  }
  case NodeKind::WithStmt: {
    auto *w = llvm::cast<WithStmt>(s);
    useGlobal(w->type, nameIn(s->range, w->type));
    block(w->body, end);
    return;
  }
  case NodeKind::OpenStmt: {
    auto *o = llvm::cast<OpenStmt>(s);
    useGlobal(o->type, nameIn(s->range, o->type));
    openFields(o->type, o->var, nameIn(s->range, o->var));
    return;
  }
  case NodeKind::UseStmt: {
    auto *u = llvm::cast<UseStmt>(s);
    expr(u->value);
    bind(u->name, nameIn(s->range, u->name));
    return;
  }
  case NodeKind::DefStmt: {
    auto *d = llvm::cast<DefStmt>(s);
    bind(d->def->name, d->def->nameRange.toSM());
    function(d->def);
    return;
  }
  default: return;
  }
}

} // namespace

void buildIndex(ProgramIndex &index, const llvm::SourceMgr &sm, const Book &book,
                llvm::ArrayRef<const FileScope *> files, const FileScope &mainFile,
                TypeInfo types) {
  Indexer indexer(index, sm, book, types);
  for (const FileScope *f : files)
    indexer.declare(*f, f == &mainFile);
  indexer.walk(mainFile);
  indexer.dropFoldResultTypes(types);
  index.useTypes = std::move(types.uses);
}

} // namespace bendc::frontend
