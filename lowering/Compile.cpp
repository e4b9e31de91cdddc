#include "lowering/Compile.h"
#include "lowering/BookChecks.h"
#include "support/LargeStack.h"
#include "support/PhaseTimer.h"
#include "frontend/hvm/HvmReader.h"
#include "lowering/CoreToHir.h"
#include "lowering/HirToNet.h"
#include "lowering/Polarize.h"

#include "llvm/Support/MemoryBuffer.h"

#include <algorithm>
#include <functional>

namespace bendc::lowering {

namespace {

/// Definitions written as nets (`hvm name: ...`), read once with the .hvm
/// reader from one buffer; their references may name the program's
/// functions. What the reader reports points into the Bend source. Empty
/// when there are none; null after an error in their text.
std::optional<net::Book> readNetDefinitions(const core::Program &program,
                                            const hir::Module &module, DiagnosticEngine &diags) {
  if (program.hvmDefs.empty())
    return net::Book();
  std::string text;
  std::vector<size_t> textBegin; // by definition: where its text starts in `text`
  for (const core::HvmDefinition &h : program.hvmDefs) {
    text += '@';
    text += h.name;
    text += " = ";
    textBegin.push_back(text.size());
    text += h.text;
    text += '\n';
  }
  llvm::SourceMgr &sm = diags.sourceMgr();
  unsigned id = sm.AddNewSourceBuffer(llvm::MemoryBuffer::getMemBufferCopy(text, "<hvm definitions>"),
                                      llvm::SMLoc());
  DiagnosticEngine read(sm);
  // The entry point is @main in the book, whatever the program calls it.
  // The definitions refer to few names: each is looked for once, by a scan
  // that costs less than the module's index of every function name.
  llvm::StringMap<bool> defined;
  std::optional<net::Book> nets = hvm::readDefinitions(sm, id, read, [&](llvm::StringRef name) {
    auto [it, inserted] = defined.try_emplace(name, false);
    if (inserted)
      it->second = name == "main" || llvm::any_of(module.functions(), [&](const hir::Function &f) {
                     return f.name == name;
                   });
    return it->second;
  });
  // A place in the buffer is the same place in the definition's source
  // text; one in the `@name = ` before it is the definition itself.
  const char *start = sm.getMemoryBuffer(id)->getBufferStart();
  auto inSource = [&](llvm::SMLoc loc) {
    const char *p = loc.getPointer();
    if (!p || p < start || p > start + text.size())
      return loc;
    size_t offset = size_t(p - start);
    size_t k = size_t(std::upper_bound(textBegin.begin(), textBegin.end(), offset) - textBegin.begin());
    if (k == 0)
      return program.hvmDefs[0].loc;
    const core::HvmDefinition &h = program.hvmDefs[k - 1];
    size_t within = offset - textBegin[k - 1];
    if (within > h.text.size()) // the next definition's `@name = `, or the end
      return k < program.hvmDefs.size() ? program.hvmDefs[k].loc : h.loc;
    if (!h.textLoc.isValid() || !sm.FindBufferContainingLoc(h.textLoc))
      return h.loc;
    return llvm::SMLoc::getFromPointer(h.textLoc.getPointer() + within);
  };
  auto rangeInSource = [&](llvm::SMRange r) { return llvm::SMRange(inSource(r.Start), inSource(r.End)); };
  for (const Diagnostic &d : read.diagnostics()) {
    Diagnostic &copy = diags.report(d.kind, rangeInSource(d.range), d.message);
    for (const DiagNote &n : d.notes)
      copy.notes.push_back({rangeInSource(n.range), n.message});
  }
  if (read.hasErrors())
    return std::nullopt;
  return nets;
}

/// The definitions a net definition refers to.
std::vector<llvm::StringRef> refsOf(const net::Book &nets, const net::Def &def, hir::Module &module) {
  std::vector<llvm::StringRef> refs;
  net::forEachTree(nets, def, [&](net::TreeId id) {
    if (const net::Tree &t = nets[id]; t.kind == net::TreeKind::Ref)
      refs.push_back(module.save(nets.names[t.value]));
  });
  return refs;
}

/// Copies the net definitions that pruning kept into `book`.
void addNetDefinitions(const net::Book &nets, const hir::Module &module, net::Book &book) {
  for (const net::Def &d : nets.defs) {
    if (!module.netReferences.count(nets.names[d.name]))
      continue; // pruned
    net::Def copy;
    copy.name = book.intern(nets.names[d.name]);
    copy.root = copyTree(nets, d.root, book);
    for (const net::Redex &r : d.redexes) {
      net::Redex c = r;
      c.lhs = copyTree(nets, r.lhs, book);
      c.rhs = copyTree(nets, r.rhs, book);
      copy.redexes.push_back(c);
    }
    book.defs.push_back(std::move(copy));
  }
}

/// The function pipeline: makes each function (translating its definition,
/// then linearizing it) right before floating looks into it, lowers each
/// one floating is done with, and then lets its instructions go once
/// nothing will look into it again: a function goes through every stage
/// while its instructions are in cache, and the instructions of the whole
/// program are never in memory at once. Without `lowering` (a module pass
/// runs between floating and lowering) functions are only made, floated and
/// kept.
///
/// What may still look into a function floating is done with: floating,
/// judging whether a reference to it is safe (once per function, and only
/// from a function that refers to it and is itself still open: not floated
/// yet, or floated but not judged); and expanding main, which inlines what
/// main returns and what was floated out of that (see functionsMainExpands).
class FunctionByFunction : public hir::FloatListener {
public:
  /// Verifies a function after a pass (null: no verifying).
  using Verify = std::function<void(hir::Function &, const char *pass, const hir::Invariants &)>;

  FunctionByFunction(const core::Program &program, hir::Module &module, HirBuilder &builder,
                     hir::FunctionLinearizer &linearizer, NetLowering *lowering, Verify verify)
      : program(program), module(module), builder(builder), linearizer(linearizer),
        lowering(lowering), verify(std::move(verify)), linear(linearizer.linearized()),
        translated(module.idCount(), false) {}

  /// Decides what stays: `references` gives the functions each definition
  /// refers to, by function id, as the module was made (before pruning);
  /// `keepAll` keeps every function (for showing the HIR).
  void plan(const hir::FunctionReferences &references, bool keepAll) {
    size_t n = module.idCount();
    keep.assign(n, keepAll);
    closedFlag.assign(n, false);
    doneFlag.assign(n, false);
    judgedFlag.assign(n, false);
    released.assign(n, false);
    openReferrers.assign(n, 0);
    if (keepAll)
      return;
    std::vector<bool> expands =
        hir::functionsMainExpands(module, [&](hir::Function &fn) { needed(fn); });
    auto live = [&](uint32_t id) { return id < n && !module.function(hir::FunctionId(id)).removed; };
    // Constructors are safe by their name: nothing judges them by looking.
    for (const core::AdtInfo &adt : program.adts)
      for (const core::AdtInfo::Ctr &ctr : adt.ctrs)
        if (uint32_t id = builder.functionId(ctr.name).index; live(id))
          judgedFlag[id] = true;
    // Edges by id, in both directions, each counted once per reference.
    referentsBegin.assign(1, 0);
    referents.clear();
    for (uint32_t k = 0; k < n; ++k) {
      const hir::Function &fn = module.function(hir::FunctionId(k));
      bool entry = !fn.removed && fn.name == module.entry;
      keep[k] = entry || expands[k];
      // The entry point is never floated nor judged: what it refers to is
      // looked into only by others.
      if (!fn.removed && !entry && k + 1 < references.begin.size())
        for (uint32_t r = references.begin[k]; r < references.begin[k + 1]; ++r) {
          uint32_t to = references.targets[r].index;
          if (!live(to) || to == k)
            continue;
          referents.push_back(to);
          ++openReferrers[to];
        }
      referentsBegin.push_back(uint32_t(referents.size()));
    }
    planned = true;
  }

  void needed(hir::Function &fn) override {
    size_t k = fn.id.index;
    if (k < translated.size() && !translated[k]) {
      translated[k] = true;
      bool ok = builder.translate(fn);
      failed |= !ok;
      if (ok && verify)
        verify(fn, "core-to-hir", hir::Invariants());
    }
    linearizer.run(fn);
  }
  void done(hir::Function &fn) override {
    if (verify)
      verify(fn, "float-combinators", linear);
    if (lowering)
      lowering->lowerAt(fn.id);
    lastDone = fn.id.index;
    doneFlag[lastDone] = true;
    settle(lastDone);
  }
  void made(hir::Function &fn) override {
    if (verify)
      verify(fn, "float-combinators", linear);
    if (lowering)
      lowering->lowerNew(fn);
    if (planned && !keep[lastDone])
      release(fn);
  }
  void judged(const hir::Function &fn) override {
    size_t k = fn.id.index;
    if (k < judgedFlag.size() && !judgedFlag[k]) {
      judgedFlag[k] = true;
      settle(k);
    }
  }

  /// Makes the functions floating did not look into (the entry point).
  void finish() {
    for (uint32_t k = 0; k < translated.size(); ++k)
      if (hir::Function &fn = module.function(hir::FunctionId(k)); !fn.removed)
        needed(fn);
    linearizer.finish();
  }

  bool failed = false; // a definition did not translate (HirBuilder::problems says why)

private:
  /// Once function `k` is floated and judged (or let go), nothing it refers
  /// to will be judged through it: each of those has one open referrer
  /// less. Then whatever became free to go, goes.
  void settle(size_t k) {
    if (!planned)
      return;
    llvm::SmallVector<size_t, 8> work{k};
    while (!work.empty()) {
      size_t f = work.pop_back_val();
      if (!closedFlag[f] && doneFlag[f] && (judgedFlag[f] || released[f])) {
        closedFlag[f] = true;
        for (uint32_t r = referentsBegin[f]; r < referentsBegin[f + 1]; ++r)
          if (--openReferrers[referents[r]] == 0)
            work.push_back(referents[r]);
      }
      if (!released[f] && !keep[f] && doneFlag[f] && (judgedFlag[f] || openReferrers[f] == 0)) {
        released[f] = true;
        release(module.function(hir::FunctionId(uint32_t(f))));
        work.push_back(f); // now closed, if it was not
      }
    }
  }

  static void release(hir::Function &fn) { fn.release(); }

  const core::Program &program;
  hir::Module &module;
  HirBuilder &builder;
  hir::FunctionLinearizer &linearizer;
  NetLowering *lowering;
  Verify verify;
  hir::Invariants linear; // what a linearized function meets
  // By function id, for the functions the module had at the start.
  std::vector<bool> translated;
  std::vector<bool> keep;       // main, what expanding main inlines, or all
  std::vector<bool> doneFlag;   // floated and lowered
  std::vector<bool> judgedFlag; // its safety is known without looking
  std::vector<bool> closedFlag; // floated, and judged or let go
  std::vector<bool> released;   // its instructions let go
  std::vector<uint32_t> openReferrers; // functions referring to it not closed yet
  std::vector<uint32_t> referentsBegin, referents;
  size_t lastDone = 0;
  bool planned = false;
};

class Pipeline {
public:
  Pipeline(const core::Program &program, const CompileOptions &options, DiagnosticEngine &diags,
           CompileResult &result)
      : program(program), options(options), diags(diags), result(result) {}

  void run() {
    // One pipeline: Core to HIR makes the functions and their references
    // (their bodies come later), prune runs on the module, then each
    // function is translated, linearized, floated and lowered in turn while
    // its instructions are in cache (FunctionByFunction); expand-main and
    // the book checks end it. Merging compares whole functions once all are
    // floated: with it, lowering waits for it.
    HirBuilder builder(program);
    size_t coreTerms = 0;
    {
      PhaseTimer timer("core-to-hir", "Core to HIR (the functions and their references)");
      result.hir = builder.makeModule();
      coreTerms = builder.references(references);
    }
    if (!result.hir || diags.hasErrors())
      return;
    hir::Module &m = *result.hir;
    std::optional<net::Book> nets = readNetDefinitions(program, m, diags);
    if (!nets)
      return;
    for (const net::Def &d : nets->defs)
      m.netReferences[nets->names[d.name]] = refsOf(*nets, d, m);
    for (const core::HvmDefinition &h : program.hvmDefs)
      if (!h.builtin)
        m.userNetDefinitions.push_back(m.save(h.name));
    // The bodies come with the passes below.
    if (!check("core-to-hir", /*bodies=*/false))
      return;
    // Unreachable definitions go first: the prelude is large, and what main
    // never reaches need not be compiled at all.
    if (!pass("prune", /*bodies=*/false, [&] {
          hir::pruneDefinitions(m, /*keepUserDefinitions=*/!options.prune, &references);
        }))
      return;
    FunctionByFunction::Verify verify;
    if (options.verifyEachPass)
      verify = [&](hir::Function &fn, const char *name, const hir::Invariants &inv) {
        verifyOne(fn, name, inv);
      };
    hir::FunctionLinearizer linearizer(m, options.linearizeMatches);
    linearizer.afterPass = verify;
    NetOptions netOptions;
    netOptions.eta = options.eta;
    netOptions.entryName = options.entryName;
    result.net.entry = options.entryName;
    bool lowerEach = !options.merge;
    // A linearized function has about one wire per Core term.
    std::optional<NetLowering> lowering;
    if (lowerEach)
      lowering.emplace(m, netOptions, result.net, diags, coreTerms);
    FunctionByFunction stages(program, m, builder, linearizer, lowering ? &*lowering : nullptr, verify);
    {
      PhaseTimer timer("by-function",
                       "Core to HIR, linearize, float-combinators and HIR to nets, by function");
      stages.plan(references, options.keepFunctions || !lowerEach);
      if (options.floatCombinators)
        hir::floatCombinators(m, &stages);
      stages.finish();
    }
    if (stages.failed) {
      result.internalErrors = builder.problems();
      return;
    }
    if (!resolvePendingReferences())
      return;
    if (options.merge && !pass("merge", [&] { hir::mergeDefinitions(m); }))
      return;
    // Expanding main changes only the entry point.
    {
      PhaseTimer timer("expand-main", "expand-main");
      hir::expandMain(m);
    }
    if (options.verifyEachPass)
      if (hir::Function *entry = m.find(m.entry))
        verifyOne(*entry, "expand-main", m.invariants);
    if (!result.internalErrors.empty())
      return;
    {
      PhaseTimer timer("hir-to-net", "HIR to nets");
      if (lowering ? !lowering->finish() : !lowerToNet(m, netOptions, result.net, diags))
        return;
      lowering.reset(); // its buffers go before the book's passes need memory
      addNetDefinitions(*nets, m, result.net);
    }
    if (options.verifyEachPass) {
      ran("hir-to-net");
      for (std::string &p : net::verify(result.net))
        result.internalErrors.push_back("after hir-to-net: " + p);
      if (!result.internalErrors.empty())
        return;
    }
    if (!checkBook())
      return;
    // A book without its entry point (-Amissing-main) is written out or
    // checked, but there is nothing to reduce.
    auto entry = result.net.nameIds.find(result.net.entry);
    if (entry == result.net.nameIds.end() ||
        llvm::none_of(result.net.defs, [&](const net::Def &d) { return d.name == entry->second; }))
      return;
    PhaseTimer timer("polarize", "Polarizing the book");
    result.book = polarize(result.net, diags);
  }

private:
  /// The whole-book passes Bend runs before handing a book to HVM2.
  bool checkBook() {
    PhaseTimer timer("book-checks", "Recursion cycles, inlining and net sizes");
    BookCheckOptions checks;
    checks.maxNetSize = options.checkNetSize ? MaxNetSizeForHvmC : 0;
    // Bend prunes what inlining leaves unreferenced before it counts nodes.
    bool pruneBetween = options.inlineDefinitions && options.prune;
    BookCheckOptions first = checks;
    if (pruneBetween)
      first.maxNetSize = 0;
    if (!lowering::checkBook(result.net, first, diags))
      return false;
    if (!options.inlineDefinitions)
      return true;
    if (!inlineLeafDefinitions(result.net, diags))
      return false;
    if (!pruneBetween)
      return true;
    pruneUnreachableDefinitions(result.net, result.net.entry);
    checks.recursionCycles = false;
    return lowering::checkBook(result.net, checks, diags);
  }

  /// Runs one HIR pass on the whole module, timed, and verifies the module
  /// after it (`bodies`: the functions have their instructions yet).
  template <typename Fn> bool pass(const char *name, Fn &&fn) { return pass(name, true, fn); }
  template <typename Fn> bool pass(const char *name, bool bodies, Fn &&fn) {
    {
      PhaseTimer timer(name, name);
      fn();
    }
    return check(name, bodies);
  }

  bool check(const char *pass, bool bodies = true) {
    if (!options.verifyEachPass)
      return true;
    ran(pass);
    std::vector<std::string> problems;
    if (bodies)
      problems = hir::verify(*result.hir);
    else
      hir::verifyNames(*result.hir, problems);
    for (std::string &p : problems)
      result.internalErrors.push_back(std::string("after ") + pass + ": " + p);
    return result.internalErrors.empty();
  }

  /// Verifies one function after a pass that changed it. A reference to a
  /// function floating made but has not added to the module yet is checked
  /// once floating ends (resolvePendingReferences).
  void verifyOne(hir::Function &fn, const char *pass, const hir::Invariants &invariants) {
    ran(pass);
    std::vector<std::string> problems;
    const hir::Module &m = *result.hir;
    hir::verifyFunction(fn, invariants, [&](const hir::Inst &ref) {
      std::optional<std::string> wrong = hir::checkRef(m, ref);
      if (wrong && !m.withId(ref.callee)) {
        pending.push_back({ref.ref, std::string("after ") + pass + ": " + *wrong + " in @" + fn.name.str()});
        return std::optional<std::string>();
      }
      return wrong;
    }, problems);
    for (std::string &p : problems)
      result.internalErrors.push_back(std::string("after ") + pass + ": " + p);
  }

  bool resolvePendingReferences() {
    for (auto &[name, problem] : pending)
      if (!result.hir->find(name) && !result.hir->netReferences.count(name))
        result.internalErrors.push_back(problem);
    pending.clear();
    return result.internalErrors.empty();
  }

  void ran(const char *pass) {
    if (llvm::find(result.verifiedPasses, pass) == result.verifiedPasses.end())
      result.verifiedPasses.push_back(pass);
  }

  const core::Program &program;
  const CompileOptions &options;
  hir::FunctionReferences references; // as Core to HIR made them, for pruning
  std::vector<std::pair<llvm::StringRef, std::string>> pending; // references to check later
  DiagnosticEngine &diags;
  CompileResult &result;
};

} // namespace

CompileResult compileToBook(const core::Program &program, const CompileOptions &options,
                            DiagnosticEngine &diags) {
  CompileResult result;
  Pipeline pipeline(program, options, diags, result);
  runOnLargeStack([&] { pipeline.run(); });
  return result;
}

} // namespace bendc::lowering
