// The editor's index: declarations from the parsed files, and the local
// names of the main file as the desugarer resolved them (ResolvedNames):
// scoping is decided there, once.
#include "frontend/IndexBuilder.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

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
  /// The main file's annotations, imports and local names (from `names`),
  /// then the global names it can spell.
  void mainFile(const FileScope &f, const ResolvedNames &names);

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

  /// A global name (constructor, type, definition) used at `at`.
  void useGlobal(StringRef name, SMRange at);
  int global(StringRef name) const;
  void type(const TypeExpr *t);

  ProgramIndex &index;
  const llvm::SourceMgr &sm;
  const Book &book;
  TypeInfo &types;
  const FileScope *file = nullptr;
  llvm::StringMap<unsigned> byGlobal;
  llvm::DenseSet<unsigned> foldResults;
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
      s.nameRange = spelledIn(h->range, h->name);
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
      cs.nameRange = f.builtin ? SMRange() : spelledAt(c.range.begin, c.name);
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

void Indexer::useGlobal(StringRef name, SMRange at) {
  if (int g = global(name); g >= 0)
    ref(at, unsigned(g));
}

void Indexer::type(const TypeExpr *t) {
  if (!t)
    return;
  if (t->kind == TypeExpr::Kind::Name || t->kind == TypeExpr::Kind::Apply)
    if (book.adts.count(book.resolve(*file, t->name)))
      useGlobal(t->name, spelledAt(t->range.begin, t->name));
  for (const TypeExpr *a : t->args)
    type(a);
}

void Indexer::mainFile(const FileScope &f, const ResolvedNames &names) {
  file = &f;
  for (Decl *d : f.module.decls) {
    if (auto *h = llvm::dyn_cast<HvmDecl>(d)) {
      type(h->type);
    } else if (auto *t = llvm::dyn_cast<TypeDecl>(d)) {
      for (const CtrDef &c : t->ctrs)
        for (const Field &fl : c.fields)
          type(fl.type);
    } else if (auto *imp = llvm::dyn_cast<ImportDecl>(d)) {
      // An imported name means what it names in its file.
      for (const ImportItem &item : imp->items)
        useGlobal(item.alias.empty() ? item.name : item.alias,
                  spelledAt(item.range.begin, item.name));
    }
  }
  for (const TypeExpr *t : names.types)
    type(t);
  // One symbol per variable: locals merged into another are its binders too.
  std::vector<unsigned> locals(names.locals.size(), ~0u);
  for (size_t i = 0; i < names.locals.size(); ++i) {
    const ResolvedNames::Local &l = names.locals[i];
    if (l.sameAs != ResolvedNames::NoLocal)
      continue;
    ProgramIndex::Symbol s;
    s.kind = Kind::Variable;
    s.name = l.name.str();
    s.nameRange = l.at;
    s.range = SMRange(l.at.Start, l.end.isValid() && addr(l.end) > addr(l.at.End) ? l.end : l.at.End);
    s.mainFile = true;
    locals[i] = add(std::move(s));
    if (l.foldResult)
      foldResults.insert(locals[i]);
  }
  auto symbol = [&](uint32_t local) { return locals[names.find(local)]; };
  // Uses first: where a binder shares its place with a use (the fields of
  // a case at its constructor's name), asking there names the use.
  for (const ResolvedNames::Use &u : names.uses) {
    if (u.local != ResolvedNames::NoLocal)
      ref(u.at, symbol(u.local));
    else if (auto it = byGlobal.find(u.global); it != byGlobal.end())
      ref(u.at, it->second);
  }
  for (size_t i = 0; i < names.locals.size(); ++i)
    ref(names.locals[i].at, symbol(uint32_t(i)));
  globalsOf(f);
  // Every other declaration can be named by its global name (builtins too).
  llvm::StringSet<> named;
  for (const auto &g : index.globals)
    named.insert(g.first);
  for (unsigned i = 0; i < index.symbols.size(); ++i)
    if (index.symbols[i].kind != Kind::Variable && named.insert(index.symbols[i].name).second)
      index.globals.emplace_back(index.symbols[i].name, i);
}

} // namespace

void buildIndex(ProgramIndex &index, const llvm::SourceMgr &sm, const Book &book,
                llvm::ArrayRef<const FileScope *> files, const FileScope &mainFile,
                const ResolvedNames &names, TypeInfo types) {
  Indexer indexer(index, sm, book, types);
  for (const FileScope *f : files)
    indexer.declare(*f, f == &mainFile);
  indexer.mainFile(mainFile, names);
  indexer.dropFoldResultTypes(types);
  index.useTypes = std::move(types.uses);
}

} // namespace bendc::frontend
