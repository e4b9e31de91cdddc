// Whole definitions: unscoped variables checked, the definition emitted,
// lifted definitions named, the entry point's arguments applied, references
// noted and constructors emitted.
#include "frontend/desugar/Internal.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"

#include <functional>
#include <map>

namespace bendc::frontend {

// ---- definitions ------------------------------------------------------------------

void Desugarer::checkUnscoped() {
  for (auto &entry : unscoped) {
    Unscoped &u = entry.second;
    std::string name = entry.first().str();
    if (u.binders.empty())
      diags.report(DiagKind::UnscopedVariable, u.first.toSM(),
                   "unbound unscoped variable '$" + name + "'");
    else if (u.binders.size() > 1)
      diags.report(DiagKind::UnscopedVariable, u.first.toSM(),
                   "unscoped variable '$" + name + "' is defined more than once");
    else if (u.uses.empty())
      diags.report(DiagKind::UnscopedVariable, u.first.toSM(),
                   "unscoped variable '$" + name + "' is never used");
    else if (u.uses.size() > 1)
      diags.report(DiagKind::UnscopedVariable, u.first.toSM(),
                   "unscoped variable '$" + name + "' is used more than once");
  }
}


void Desugarer::emitDefinition(DefData &def) {
  file = def.file;
  record = recorded && recorded->file == file ? recorded : nullptr;
  scopeEnd = {};
  defName = def.name;
  localParent = defName;
  forgetDefinitionState();
  freshCount = 0; // generated names depend only on this definition
  if (def.hvm) {
    llvm::StringRef name = prog.save(def.name);
    TypingFacts::set(facts.hvmDefs, prog.hvmDefs.size(),
                     TypingFacts::Def{def.hvm->type, file, false, false, def.hvm->range});
    prog.hvmDefs.push_back(core::HvmDefinition{
        name, prog.save(def.hvm->text), at(def.hvm->range),
        llvm::SMLoc::getFromPointer(def.hvm->text.data()), def.builtin});
    return;
  }
  checkedDef = def.fun->checked();
  clones.clear();
  placeholderOf.clear();
  size_t firstLift = lifts.size(), firstDef = prog.defs.size();
  liftsDone = 0;
  llvm::StringRef name = prog.save(def.name);
  TypingFacts::Def known{def.fun->sig, file, checkedDef, false, def.fun->nameRange,
                         def.fun->annotated};
  Term *body = function(def.fun);
  if (!mapGets.empty())
    body = wrapMapGets(0, body);
  checkUnscoped();
  resolveUnscoped();
  // Its place comes after those of the definitions it lifted out.
  TypingFacts::set(facts.defs, prog.defs.size(), known);
  def.coreIndex = uint32_t(prog.defs.size());
  prog.defs.push_back(core::Definition{name, body, at(def.fun->range), def.builtin});
  nameLifts(firstLift, firstDef);
  noteReferences();
}


void Desugarer::nameLifts(size_t firstLift, size_t firstDef, llvm::ArrayRef<Term *> alsoIn) {
  std::vector<Lift *> todo;
  for (size_t i = firstLift; i < lifts.size(); ++i)
    if (!lifts[i]->kind.empty())
      todo.push_back(lifts[i].get());
  if (todo.empty())
    return;
  llvm::sort(todo, [](Lift *a, Lift *b) { return a->doneOrder < b->doneOrder; });
  // Numbers in the order the lifts finished (inner ones first)...
  std::map<std::pair<Lift *, std::string>, unsigned> counters;
  std::vector<unsigned> number;
  for (Lift *l : todo)
    number.push_back(counters[{l->namingParent, l->kind}]++);
  // ...names the other way round: a lift finishes after those inside it,
  // so its own name is final before theirs are made from it.
  llvm::DenseMap<const char *, StringRef> renamed; // by the saved provisional name
  for (size_t k = todo.size(); k-- > 0;) {
    Lift *l = todo[k];
    const std::string &base = l->namingParent ? l->namingParent->name : l->topName;
    StringRef from = prog.save(l->name);
    StringRef to = prog.save(base + "__" + l->kind + std::to_string(number[k]));
    renamed[from.data()] = to;
    l->name = to.str();
  }
  auto renameIn = [&](const Term *root) {
    core::forEachTerm(root, [&](const Term *t) {
      if (t->kind != TermKind::Ref)
        return;
      auto *r = llvm::cast<core::RefTerm>(t);
      if (auto it = renamed.find(r->name().data()); it != renamed.end())
        new (const_cast<core::RefTerm *>(r)) core::RefTerm(r->loc, it->second);
    });
  };
  for (size_t k = firstDef; k < prog.defs.size(); ++k) {
    core::Definition &d = prog.defs[k];
    if (auto it = renamed.find(d.name.data()); it != renamed.end())
      d.name = it->second;
    renameIn(d.body);
  }
  for (const Term *t : alsoIn)
    renameIn(t);
}


void Desugarer::applyArguments(const DefData &entry, llvm::ArrayRef<Expr *> args) {
  // The entry's body changes: what it refers to is found again later.
  prog.refs = core::ProgramRefs();
  file = entry.file;
  record = nullptr; // the arguments are no file's
  // Lifted out of an argument, a definition is named after it; the entry's
  // own lifts keep their names.
  forgetDefinitionState();
  liftsDone = 0;
  size_t firstLift = lifts.size(), firstDef = prog.defs.size();
  // The arguments become part of the entry's body, and are checked with it.
  checkedDef = entry.fun && entry.fun->checked();
  clones.clear();
  placeholderOf.clear();
  std::vector<Term *> terms;
  for (size_t i = 0; i < args.size(); ++i) {
    defName = entry.name.str() + "__arg" + std::to_string(i + 1);
    localParent = defName;
    terms.push_back(expr(args[i]));
  }
  // One definition in Bend: an unscoped variable may be bound in one argument
  // and used in another.
  checkUnscoped();
  nameLifts(firstLift, firstDef, terms);
  for (core::Definition &d : prog.defs) {
    if (d.name != entry.name)
      continue;
    for (Term *t : terms)
      d.body = app(d.body, t, t->loc);
    facts.appliedEntry = d.name;
    facts.firstArgument = args.front()->range;
    return;
  }
}


void Desugarer::noteReferences() {
  core::ProgramRefs &refs = prog.refs;
  if (!constructorsNamed) {
    constructorNames = prog.constructorNames();
    constructorsNamed = true;
  }
  // Definitions are complete once made (a lift's placeholders are patched
  // before the definition that lifts it ends), and stay as they are until
  // arguments are applied to the entry point (which starts over).
  for (size_t k = refs.begin.size() - 1; k < prog.defs.size(); ++k)
    refs.add(prog.defs[k].body, &constructorNames);
}


void Desugarer::emitConstructors() {
  for (AdtData &adt : book.adtStore) {
    core::AdtInfo info;
    info.name = prog.save(adt.name);
    unsigned n = unsigned(adt.ctrs.size());
    for (CtrData *c : adt.ctrs) {
      // Each name saved once (saving looks the text up).
      core::AdtInfo::Ctr ic;
      ic.name = prog.save(c->name);
      for (const std::string &f : c->fields)
        ic.fields.push_back(prog.save(f));
      SMLoc loc = at(c->range);
      Term *body;
      if (prog.encoding == core::AdtEncoding::NumScott) {
        // λfields λx (x Type/Ctr/tag fields...)
        StringRef tagName = prog.save(c->name + "/tag");
        Term *t = app(var("%x", loc), prog.make<core::RefTerm>(loc, tagName), loc);
        for (StringRef f : ic.fields)
          t = app(t, var(f, loc), loc);
        body = lam("%x", t, loc);
        prog.defs.push_back(core::Definition{tagName,
                                             prog.make<core::NumTerm>(loc, core::Number::u24(c->index)),
                                             loc, adt.builtin});
      } else {
        // λfields λc0 ... λcn (ci fields...)
        std::string ci = "%c" + std::to_string(c->index);
        Term *t = var(prog.save(ci), loc);
        for (StringRef f : ic.fields)
          t = app(t, var(f, loc), loc);
        body = t;
        for (unsigned i = n; i-- > 0;)
          body = lam(prog.save("%c" + std::to_string(i)), body, loc);
      }
      for (auto it = ic.fields.rbegin(); it != ic.fields.rend(); ++it)
        body = lam(*it, body, loc);
      prog.defs.push_back(core::Definition{ic.name, body, loc, adt.builtin, /*constructor=*/true});
      info.ctrs.push_back(std::move(ic));
    }
    prog.adts.push_back(std::move(info));
  }
  noteReferences();
}

} // namespace bendc::frontend
