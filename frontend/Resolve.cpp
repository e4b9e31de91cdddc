// Loading, imports and the book of definitions; then desugaring to Core and
// the whole-program checks (entry point, unused definitions).
#include "frontend/Resolve.h"
#include "support/PhaseTimer.h"
#include "frontend/TypeCheck.h"

#include "frontend/Desugar.h"
#include "frontend/IndexBuilder.h"
#include "frontend/Parse.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"

#include <algorithm>
#include <cassert>

namespace bendc::frontend {

llvm::StringRef preludeText();

using namespace ast;
using llvm::StringRef;

namespace {

std::string qualify(StringRef prefix, StringRef name) {
  return prefix.empty() ? name.str() : (prefix + "/" + name).str();
}

bool forbidden(StringRef name) { return name.contains("__") || name.startswith("//"); }

std::string forbiddenMessage(StringRef name) {
  return ("'" + name + "' is not a valid name: names cannot contain '__' or start with '//'").str();
}

/// `path` relative to the folder `from`, with `..` where needed.
std::string relativePath(StringRef path, StringRef from) {
  llvm::SmallString<256> a(path), b(from);
  llvm::sys::fs::make_absolute(a);
  llvm::sys::fs::make_absolute(b);
  llvm::sys::path::remove_dots(a, true);
  llvm::sys::path::remove_dots(b, true);
  llvm::SmallVector<StringRef, 16> pa, pb;
  for (auto it = llvm::sys::path::begin(a), e = llvm::sys::path::end(a); it != e; ++it)
    pa.push_back(*it);
  for (auto it = llvm::sys::path::begin(b), e = llvm::sys::path::end(b); it != e; ++it)
    pb.push_back(*it);
  size_t common = 0;
  while (common < pa.size() && common < pb.size() && pa[common] == pb[common])
    ++common;
  std::string out;
  for (size_t i = common; i < pb.size(); ++i)
    out += "../";
  for (size_t i = common; i < pa.size(); ++i)
    out += (pa[i] + (i + 1 < pa.size() ? "/" : "")).str();
  return out;
}

class Loader {
public:
  /// What the syntax trees of the files parsed so far take.
  size_t syntaxBytes() const { return ctx.bytes(); }
  Loader(llvm::SourceMgr &sm, DiagnosticEngine &diags, Book &book)
      : sm(sm), diags(diags), book(book) {}

  FileScope *addBuffer(unsigned id, StringRef prefix, bool builtin);
  void registerAll();
  std::vector<std::unique_ptr<FileScope>> files;
  std::string mainDir;
  const llvm::StringMap<std::string> *unsaved = nullptr;

private:
  void computeLocals(FileScope &f);
  void processImports(FileScope &f);
  void importOne(FileScope &into, ImportDecl *imp);
  FileScope *load(StringRef path, SourceRange at);
  void bindImport(FileScope &into, const std::string &name, const std::string &global,
                  SourceRange at);
  void bindName(FileScope &into, FileScope &from, StringRef name, StringRef as, SourceRange at);
  void bindFile(FileScope &into, FileScope &from, StringRef stem, StringRef as, SourceRange at);
  bool hasLocal(const FileScope &f, StringRef name) const;
  void registerFile(FileScope &f);
  /// A new definition of the book, `global` in `f`, in source order.
  void addDefinition(llvm::StringRef global, ast::FunDecl *fun, ast::HvmDecl *hvm, FileScope &f);
  /// Records that `global` is defined at `range`, or reports that it was
  /// already (false). The names so recorded are those of the book's
  /// definitions and constructors.
  bool defineName(const std::string &global, SourceRange range, bool builtin, bool isCtr);
  bool isFile(const std::string &p) const {
    return (unsaved && unsaved->count(p)) || llvm::sys::fs::is_regular_file(p);
  }
  /// A file's text: the unsaved copy when there is one, else the disk's.
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> read(StringRef path) const {
    if (unsaved)
      if (auto it = unsaved->find(path); it != unsaved->end())
        return llvm::MemoryBuffer::getMemBufferCopy(it->second, path);
    return llvm::MemoryBuffer::getFile(path, false, true);
  }

  llvm::SourceMgr &sm;
  DiagnosticEngine &diags;
  Book &book;
  ast::AstContext ctx;
  llvm::StringMap<FileScope *> byPath;
  std::vector<std::string> loading; // files being loaded, for cycles
  llvm::StringMap<SourceRange, llvm::BumpPtrAllocator> firstDefinition;
  llvm::StringSet<llvm::BumpPtrAllocator> ctrNames;
};

/// Asks for the declaration a loop over `decls` reaches a few steps after
/// `k`: declarations are scattered through the syntax trees, each a cache
/// miss when met cold.
static void prefetchDecl(llvm::ArrayRef<Decl *> decls, size_t k) {
  if (k + 8 < decls.size())
    __builtin_prefetch(decls[k + 8]);
}

void Loader::computeLocals(FileScope &f) {
  for (size_t k = 0; k < f.module.decls.size(); ++k) {
    prefetchDecl(f.module.decls, k);
    Decl *d = f.module.decls[k];
    if (auto *fun = llvm::dyn_cast<FunDecl>(d))
      f.locals.push_back(fun->name.str());
    else if (auto *h = llvm::dyn_cast<HvmDecl>(d))
      f.locals.push_back(h->name.str());
    else if (auto *t = llvm::dyn_cast<TypeDecl>(d)) {
      f.locals.push_back(t->name.str());
      for (const CtrDef &c : t->ctrs)
        if (!t->object)
          f.locals.push_back((t->name + "/" + c.name).str());
    }
  }
  for (const std::string &l : f.locals)
    f.names[l] = qualify(f.prefix, l);
}

FileScope *Loader::addBuffer(unsigned id, StringRef prefix, bool builtin) {
  files.push_back(std::make_unique<FileScope>());
  FileScope &f = *files.back();
  f.prefix = prefix.str();
  f.builtin = builtin;
  StringRef ident = sm.getMemoryBuffer(id)->getBufferIdentifier();
  f.dir = llvm::sys::path::parent_path(ident).str();
  {
    PhaseTimer timer("parse", "Parsing");
    parse::parseBuffer(sm.getMemoryBuffer(id)->getBuffer(), ctx, diags, f.module);
  }
  computeLocals(f);
  byPath[ident] = &f;
  loading.push_back(ident.str());
  processImports(f);
  loading.pop_back();
  return &f;
}

FileScope *Loader::load(StringRef path, SourceRange at) {
  if (llvm::find(loading, path.str()) != loading.end()) {
    diags.report(DiagKind::ImportCycle, at.toSM(), "import cycle: '" + path.str() + "' imports itself");
    return nullptr;
  }
  auto it = byPath.find(path);
  if (it != byPath.end())
    return it->second;
  auto buf = read(path);
  if (!buf) {
    diags.report(DiagKind::ImportNotFound, at.toSM(), "cannot read '" + path.str() + "'");
    return nullptr;
  }
  unsigned id = sm.AddNewSourceBuffer(std::move(*buf), at.begin);
  // Names in an imported file are prefixed with its path from the main
  // folder, whatever the current directory is.
  std::string rel = relativePath(path, mainDir);
  StringRef prefix = rel;
  prefix.consume_back(".bend");
  // Outside the main folder the `../` steps carry no meaning in a name.
  while (prefix.consume_front("../"))
    ;
  return addBuffer(id, prefix, false);
}

bool Loader::hasLocal(const FileScope &f, StringRef name) const {
  for (const std::string &l : f.locals)
    if (l == name || StringRef(l).startswith((name + "/").str()))
      return true;
  return false;
}

void Loader::bindImport(FileScope &into, const std::string &name, const std::string &global,
                        SourceRange at) {
  auto [it, fresh] = into.imported.try_emplace(name, global);
  if (!fresh && it->second != global) {
    // The later import wins, as in Bend.
    diags.report(DiagKind::ImportShadow, at.toSM(),
                 "the import '" + global + "' shadows the imported name '" + it->second + "'");
    it->second = global;
  }
  into.names[name] = global;
}

void Loader::bindName(FileScope &into, FileScope &from, StringRef name, StringRef as,
                      SourceRange at) {
  for (const std::string &l : from.locals) {
    if (l == name)
      bindImport(into, as.str(), qualify(from.prefix, l), at);
    else if (StringRef(l).startswith((name + "/").str()))
      bindImport(into, (as + StringRef(l).drop_front(name.size())).str(), qualify(from.prefix, l),
                 at);
  }
}

void Loader::bindFile(FileScope &into, FileScope &from, StringRef stem, StringRef as,
                      SourceRange at) {
  for (const std::string &l : from.locals) {
    bindImport(into, (as + "/" + l).str(), qualify(from.prefix, l), at);
    if (l == stem)
      bindImport(into, as.str(), qualify(from.prefix, l), at);
  }
}

static bool isDir(const std::string &p) { return llvm::sys::fs::is_directory(p); }

void Loader::importOne(FileScope &into, ImportDecl *imp) {
  StringRef p = imp->path;
  llvm::SmallString<256> base;
  if (p.startswith("./") || p.startswith("../"))
    base = into.dir;
  else
    base = mainDir;
  llvm::sys::path::append(base, p);
  llvm::sys::path::remove_dots(base, /*remove_dot_dot=*/true);
  std::string file = (base + ".bend").str();
  std::string dir = base.str().str();
  auto notFound = [&](const std::string &what) {
    diags.report(DiagKind::ImportNotFound, imp->range.toSM(), "cannot import " + what);
  };
  if (!imp->from) {
    StringRef last = llvm::sys::path::filename(dir);
    StringRef as = imp->alias.empty() ? last : imp->alias;
    if (isFile(file)) {
      if (FileScope *f = load(file, imp->pathRange))
        bindFile(into, *f, last, as, imp->range);
      return;
    }
    std::string parent = (llvm::sys::path::parent_path(dir) + ".bend").str();
    if (isFile(parent)) {
      FileScope *f = load(parent, imp->pathRange);
      if (f && hasLocal(*f, last)) {
        bindName(into, *f, last, as, imp->range);
        return;
      }
    }
    return notFound("'" + p.str() + "': no such file or definition");
  }
  if (imp->star) {
    bool any = false;
    if (isFile(file)) {
      any = true;
      if (FileScope *f = load(file, imp->pathRange))
        for (const std::string &l : f->locals)
          bindImport(into, l, qualify(f->prefix, l), imp->range);
    }
    if (isDir(dir)) {
      std::error_code ec;
      std::vector<std::string> entries;
      for (llvm::sys::fs::directory_iterator it(dir, ec), end; it != end && !ec; it.increment(ec))
        if (StringRef(it->path()).endswith(".bend"))
          entries.push_back(it->path());
      std::sort(entries.begin(), entries.end());
      for (const std::string &e : entries) {
        any = true;
        StringRef stem = llvm::sys::path::stem(e);
        if (FileScope *f = load(e, imp->pathRange))
          bindFile(into, *f, stem, stem, imp->range);
      }
    }
    if (!any)
      notFound("from '" + p.str() + "': no such file or folder");
    return;
  }
  for (const ImportItem &item : imp->items) {
    StringRef as = item.alias.empty() ? item.name : item.alias;
    if (isFile(file)) {
      FileScope *f = load(file, imp->pathRange);
      if (!f)
        continue;
      if (hasLocal(*f, item.name)) {
        bindName(into, *f, item.name, as, item.range);
        continue;
      }
    }
    std::string sub = (dir + "/" + item.name + ".bend").str();
    if (isFile(sub)) {
      if (FileScope *f = load(sub, item.range))
        bindFile(into, *f, item.name, as, item.range);
      continue;
    }
    diags.report(DiagKind::ImportNotFound, item.range.toSM(),
                 "cannot import '" + item.name.str() + "' from '" + p.str() + "'");
  }
}

void Loader::processImports(FileScope &f) {
  for (Decl *d : f.module.decls)
    if (auto *imp = llvm::dyn_cast<ImportDecl>(d))
      importOne(f, imp);
}

bool Loader::defineName(const std::string &global, SourceRange range, bool builtin, bool isCtr) {
  auto [it, fresh] = firstDefinition.try_emplace(global, range);
  if (fresh) {
    if (isCtr)
      ctrNames.insert(global);
    return true;
  }
  (void)builtin;
  // A clash with a constructor, either way round, is about constructors.
  isCtr |= ctrNames.count(global) != 0;
  std::string what = isCtr ? "constructor" : "definition";
  Diagnostic &d = diags.report(isCtr ? DiagKind::DuplicateConstructor : DiagKind::DuplicateDefinition,
                               range.toSM(), "redefinition of " + what + " '" + global + "'");
  if (it->second.isValid())
    d.notes.push_back(DiagNote{it->second.toSM(), "first defined here"});
  else
    d.notes.push_back(DiagNote{llvm::SMRange(), "'" + global + "' is a builtin"});
  return false;
}

void Loader::addDefinition(llvm::StringRef global, ast::FunDecl *fun, ast::HvmDecl *hvm,
                           FileScope &f) {
  auto entry = book.defs.try_emplace(global, DefData{"", fun, hvm, &f, f.builtin}).first;
  entry->second.name = entry->first();
  book.defOrder.push_back(&entry->second);
}

void Loader::registerFile(FileScope &f) {
  for (size_t k = 0; k < f.module.decls.size(); ++k) {
    prefetchDecl(f.module.decls, k);
    Decl *d = f.module.decls[k];
    if (auto *fun = llvm::dyn_cast<FunDecl>(d)) {
      if (forbidden(fun->name))
        diags.report(DiagKind::ForbiddenName, fun->nameRange.toSM(),
                     forbiddenMessage(fun->name));
      std::string g = qualify(f.prefix, fun->name);
      if (!defineName(g, f.builtin ? SourceRange() : fun->nameRange, f.builtin, false))
        continue;
      addDefinition(g, fun, nullptr, f);
      continue;
    }
    if (auto *h = llvm::dyn_cast<HvmDecl>(d)) {
      std::string g = qualify(f.prefix, h->name);
      if (!defineName(g, f.builtin ? SourceRange() : h->range, f.builtin, false))
        continue;
      addDefinition(g, nullptr, h, f);
      continue;
    }
    auto *t = llvm::dyn_cast<TypeDecl>(d);
    if (!t)
      continue;
    if (forbidden(t->name))
      diags.report(DiagKind::ForbiddenName, t->nameRange.toSM(),
                   forbiddenMessage(t->name));
    std::string g = qualify(f.prefix, t->name);
    if (book.adts.count(g)) {
      Diagnostic &dg = diags.report(DiagKind::DuplicateDefinition, t->nameRange.toSM(),
                                    "redefinition of type '" + g + "'");
      if (book.adts[g]->range.isValid())
        dg.notes.push_back(DiagNote{book.adts[g]->range.toSM(), "first defined here"});
      else if (book.adts[g]->builtin)
        dg.notes.push_back(DiagNote{llvm::SMRange(), "'" + g + "' is a builtin type; give yours "
                                                     "another name"});
      continue;
    }
    book.adtStore.emplace_back();
    AdtData &adt = book.adtStore.back();
    adt.name = g;
    adt.range = f.builtin ? SourceRange() : t->nameRange;
    adt.builtin = f.builtin;
    adt.params = std::vector<StringRef>(t->params.begin(), t->params.end());
    adt.file = &f;
    book.adts[g] = &adt;
    for (const CtrDef &c : t->ctrs) {
      std::string cg = t->object ? g : g + "/" + c.name.str();
      if (forbidden(c.name))
        diags.report(DiagKind::ForbiddenName, c.range.toSM(),
                     forbiddenMessage(c.name));
      if (!defineName(cg, f.builtin ? SourceRange() : c.range, f.builtin, true))
        continue;
      book.ctrStore.emplace_back();
      CtrData &ctr = book.ctrStore.back();
      ctr.name = cg;
      ctr.adt = &adt;
      ctr.index = unsigned(adt.ctrs.size());
      ctr.range = c.range;
      for (const Field &fl : c.fields) {
        if (llvm::find(ctr.fields, fl.name.str()) != ctr.fields.end())
          diags.report(DiagKind::DuplicateField, fl.range.toSM(),
                       "constructor '" + cg + "' has two fields named '" + fl.name.str() + "'");
        ctr.fields.push_back(fl.name.str());
        ctr.recursive.push_back(fl.recursive);
        ctr.fieldTypes.push_back(fl.type);
      }
      adt.ctrs.push_back(&ctr);
      book.ctrs[cg] = &ctr;
    }
  }
}

void Loader::registerAll() {
  // The prelude first, so user definitions that clash with it are the ones
  // reported.
  for (auto &f : files)
    if (f->builtin)
      registerFile(*f);
  for (auto &f : files)
    if (!f->builtin)
      registerFile(*f);
}

/// The entry point: the definition -e names, else `main`, else `Main`, of
/// the main file; "" when there is none.
llvm::StringRef entryName(Book &book, const FileScope &mainFile, llvm::StringRef custom) {
  if (!custom.empty())
    return book.defs.count(custom) ? book.defs.find(custom)->first() : llvm::StringRef();
  for (const char *candidate : {"main", "Main"})
    if (book.defs.count(candidate) && book.defs[candidate].file == &mainFile)
      return candidate;
  return {};
}

/// Each command-line argument in a buffer of its own, so that diagnostics
/// point into it; null for one that does not parse.
std::vector<Expr *> parseArguments(llvm::SourceMgr &sm, llvm::ArrayRef<std::string> args,
                                   ast::AstContext &ctx, DiagnosticEngine &diags) {
  std::vector<Expr *> out;
  for (size_t i = 0; i < args.size(); ++i) {
    std::string name = "<argument " + std::to_string(i + 1) + ">";
    unsigned id = sm.AddNewSourceBuffer(llvm::MemoryBuffer::getMemBufferCopy(args[i], name),
                                        llvm::SMLoc());
    out.push_back(parse::parseTerm(sm.getMemoryBuffer(id)->getBuffer(), ctx, diags));
  }
  return out;
}

/// The parsed arguments applied to the entry point (when all of them parse).
void applyArguments(Desugarer &desugarer, Book &book, const FileScope &mainFile,
                    llvm::StringRef customEntry, llvm::ArrayRef<Expr *> args,
                    DiagnosticEngine &diags) {
  if (llvm::is_contained(args, nullptr))
    return;
  llvm::StringRef entry = entryName(book, mainFile, customEntry);
  if (entry.empty())
    return; // reported with the other whole-program checks
  const DefData &def = book.defs[entry];
  if (def.hvm) {
    diags.report(DiagKind::InvalidArgument, args.front()->range.toSM(),
                 "'" + entry.str() + "' is an hvm definition: it takes no arguments");
    return;
  }
  desugarer.applyArguments(def, args);
}

/// Fills `prog.refs` when the checks get that far.
void checkProgram(core::Program &prog, Book &book, const FileScope &mainFile,
                  llvm::StringRef mainPath, llvm::StringRef customEntry, DiagnosticEngine &diags,
                  bool requireMain) {
  llvm::StringRef entry = entryName(book, mainFile, customEntry);
  if (entry.empty()) {
    if (requireMain)
      diags.report(DiagKind::MissingMain, llvm::SMLoc(),
                   customEntry.empty()
                       ? "'" + mainPath.str() +
                             "' has no definition of 'main', where the program starts (for "
                             "example 'def main: return 0'; -e NAME starts from another "
                             "definition)"
                       : "'" + mainPath.str() + "' has no definition of '" + customEntry.str() +
                             "', the entry point -e names");
    return;
  }
  // As in Bend: with -e, the program may not also have a main.
  if (!customEntry.empty())
    for (const char *other : {"main", "Main"})
      if (entry != other && book.defs.count(other) && book.defs[other].file == &mainFile) {
        const DefData &def = book.defs[other];
        diags.report(DiagKind::DuplicateDefinition,
                     def.fun ? def.fun->nameRange.toSM() : llvm::SMRange(),
                     "the program has both '" + entry.str() + "' (the entry point -e names) and '" +
                         other + "' definitions");
        return;
      }
  if (const DefData &def = book.defs[entry]; def.hvm) {
    // As in Bend: the entry point is a function; a net goes in a .hvm file.
    diags.report(DiagKind::MissingMain, def.hvm->range.toSM(),
                 "'" + entry.str() +
                     "' is an hvm definition, but the entry point must be a Bend function "
                     "(run a hand-written net as a .hvm file)");
    return;
  }
  // As in Bend: main is one equation over plain variables.
  if (const ast::FunDecl *fun = book.defs[entry].fun; fun && !fun->imp) {
    if (fun->rules.size() > 1) {
      diags.report(DiagKind::InvalidPattern, fun->rules[1].range.toSM(),
                   "'" + entry.str() + "' can have only one equation");
      return;
    }
    for (const ast::Pat *p : fun->rules.empty() ? llvm::ArrayRef<ast::Pat *>() : fun->rules[0].pats)
      if (!llvm::isa<ast::VarPat>(p)) {
        diags.report(DiagKind::InvalidPattern, p->range.toSM(),
                     "the parameters of '" + entry.str() + "' must be plain variables");
        return;
      }
  }
  if (book.defs.count("main") && book.defs.count("Main") && book.defs["main"].file == &mainFile &&
      book.defs["Main"].file == &mainFile) {
    diags.report(DiagKind::DuplicateDefinition,
                 book.defs["Main"].fun ? book.defs["Main"].fun->nameRange.toSM() : llvm::SMRange(),
                 "the program has both 'main' and 'Main' definitions");
    return;
  }
  prog.entry = prog.save(entry);
  // One walk per definition gives both checks (and type checking) what they
  // need: the names each refers to. The desugarer made it as it went, unless
  // arguments were applied to the entry point since.
  core::ProgramRefs &refs = prog.refs;
  if (!refs.covers(prog.defs.size())) {
    refs = core::ProgramRefs();
    refs.begin.reserve(prog.defs.size() + 1);
    // Sharing recovery reads how many calls each definition makes.
    llvm::DenseSet<const char *> constructors = prog.constructorNames();
    for (const core::Definition &d : prog.defs)
      refs.add(d.body, &constructors);
  }
  for (size_t k = 0; k < prog.defs.size(); ++k) {
    const core::Definition &d = prog.defs[k];
    if (llvm::is_contained(refs.of(k), entry)) {
      diags.report(DiagKind::MainReferenced, d.loc,
                   "'" + entry.str() + "' cannot be referenced inside the program (in '" +
                       d.name.str() + "')");
      return;
    }
  }
#ifndef NDEBUG
  // Later phases key maps by a name's pointer: Core saves each name once.
  for (llvm::StringRef r : refs.names)
    assert(prog.save(r).data() == r.data() && "a reference's name is not saved in the program");
  for (const core::Definition &d : prog.defs)
    assert(prog.save(d.name).data() == d.name.data() && "a definition's name is not saved");
#endif
  // Reachability from the entry point, over definitions by their place
  // (found by the name's pointer: Core saves each name once), for the
  // warning about what is never used, where it is on.
  if (diags.warningAction(DiagKind::UnusedDefinition) == WarningAction::Allow)
    return;
  std::vector<bool> reached(prog.defs.size(), false);
  llvm::SmallVector<unsigned, 64> work;
  auto reach = [&](llvm::StringRef name) {
    uint32_t k = prog.definitionOf(name);
    if (k != core::Program::NoDefinition && !reached[k]) {
      reached[k] = true;
      work.push_back(k);
    }
  };
  reach(prog.entry);
  while (!work.empty()) {
    unsigned k = work.pop_back_val();
    for (llvm::StringRef r : refs.of(k))
      reach(r);
  }
  for (const DefData *def : book.defOrder) {
    const DefData &d = *def;
    if (d.builtin || !d.fun || d.file != &mainFile ||
        (d.coreIndex != DefData::NoCoreIndex && reached[d.coreIndex]))
      continue;
    diags.report(DiagKind::UnusedDefinition, d.fun->nameRange.toSM(),
                 "definition '" + d.name.str() + "' is never used");
  }
}

} // namespace

std::unique_ptr<core::Program> buildProgram(llvm::SourceMgr &sm, unsigned mainBuffer,
                                            const FrontendOptions &opts, DiagnosticEngine &diags,
                                            ProgramIndex *index) {
  auto prog = std::make_unique<core::Program>();
  prog->encoding = opts.encoding;
  // Arguments are read first, as `bend run` reads its command line first.
  ast::AstContext argContext;
  std::vector<Expr *> args = parseArguments(sm, opts.mainArgs, argContext, diags);
  Book book;
  Loader loader(sm, diags, book);
  StringRef ident = sm.getMemoryBuffer(mainBuffer)->getBufferIdentifier();
  loader.mainDir = llvm::sys::path::parent_path(ident).str();
  loader.unsaved = opts.unsavedFiles;
  if (opts.prelude) {
    auto buf = llvm::MemoryBuffer::getMemBuffer(preludeText(), "<builtins>", true);
    unsigned id = sm.AddNewSourceBuffer(std::move(buf), llvm::SMLoc());
    loader.addBuffer(id, "", true);
  }
  FileScope *mainFile = loader.addBuffer(mainBuffer, "", false);
  if (opts.parsed)
    opts.parsed(loader.syntaxBytes());
  {
    PhaseTimer timer("resolve", "Resolving names and imports");
    loader.registerAll();
  }
  Desugarer desugarer(book, *prog, diags);
  // An editor's index is built from what the desugarer resolves.
  ResolvedNames names;
  names.file = mainFile;
  if (index)
    desugarer.recordNames(&names);
  {
    PhaseTimer timer("desugar", "Desugaring to Core");
    desugarer.emitConstructors();
    for (size_t k = 0; k < book.defOrder.size(); ++k) {
      // The next definition's syntax, fetched while this one is desugared:
      // parsing made it around its declaration (before it for equations,
      // after it for an imp `def`).
      if (k + 1 < book.defOrder.size())
        if (const ast::FunDecl *next = book.defOrder[k + 1]->fun)
          core::prefetchAround(next, 8, 16);
      desugarer.emitDefinition(*book.defOrder[k]);
    }
    if (!args.empty())
      applyArguments(desugarer, book, *mainFile, opts.entryPoint, args, diags);
    if (index)
      for (ast::Decl *d : mainFile->module.decls)
        if (auto *fun = llvm::dyn_cast<ast::FunDecl>(d)) {
          auto it = book.defs.find(qualify(mainFile->prefix, fun->name));
          if (it == book.defs.end() || it->second.fun != fun)
            desugarer.recordNamesOf(fun, *mainFile); // a second definition of a name
        }
  }
  if (!diags.hasErrors()) {
    PhaseTimer timer("check-program", "Checking references and main");
    checkProgram(*prog, book, *mainFile, ident, opts.entryPoint, diags, opts.requireMain);
  }
  TypeInfo types;
  if (!diags.hasErrors() && opts.typeCheck) {
    PhaseTimer timer("type-check", "Type checking");
    typeCheck(*prog, book, desugarer.typingFacts(), diags, index ? &types : nullptr);
  }
  if (index) {
    std::vector<const FileScope *> files;
    for (const auto &f : loader.files)
      files.push_back(f.get());
    buildIndex(*index, sm, book, files, *mainFile, names, std::move(types));
  }
  return prog;
}

} // namespace bendc::frontend
