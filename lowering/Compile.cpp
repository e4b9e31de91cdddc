#include "lowering/Compile.h"
#include "frontend/hvm/HvmReader.h"
#include "lowering/CoreToHir.h"
#include "lowering/HirToNet.h"
#include "lowering/Polarize.h"

#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/thread.h"

namespace bendc::lowering {

namespace {

constexpr unsigned kStackSize = 1u << 30;

/// Definitions written as nets (`hvm name: ...`): read with the .hvm reader
/// from one buffer that also declares every function, so references resolve.
bool addNetDefinitions(const core::Program &program, const hir::Module &module, net::Book &book,
                       DiagnosticEngine &diags) {
  if (program.hvmDefs.empty())
    return true;
  std::string text;
  llvm::StringSet<> written;
  for (const core::HvmDefinition &h : program.hvmDefs) {
    if (!module.netReferences.count(h.name))
      continue; // pruned
    text += "@" + h.name.str() + " = " + h.text.str() + "\n";
    written.insert(h.name);
  }
  if (written.empty())
    return true;
  for (const hir::Function &fn : module.functions)
    if (!written.contains(fn.name))
      text += "@" + fn.name.str() + " = *\n";
  if (!written.contains("main") && module.entry != "main")
    text += "@main = *\n";
  llvm::SourceMgr &sm = diags.sourceMgr();
  unsigned id = sm.AddNewSourceBuffer(llvm::MemoryBuffer::getMemBufferCopy(text, "<hvm definitions>"),
                                      llvm::SMLoc());
  std::optional<net::Book> nets = readHvmBook(sm, id, diags);
  if (!nets)
    return false;
  for (const net::Def &d : nets->defs) {
    if (!written.contains(nets->names[d.name]))
      continue;
    net::Def copy;
    copy.name = book.intern(nets->names[d.name]);
    copy.root = copyTree(*nets, d.root, book);
    for (const net::Redex &r : d.redexes) {
      net::Redex c = r;
      c.lhs = copyTree(*nets, r.lhs, book);
      c.rhs = copyTree(*nets, r.rhs, book);
      copy.redexes.push_back(c);
    }
    book.defs.push_back(std::move(copy));
  }
  return true;
}

class Pipeline {
public:
  Pipeline(const core::Program &program, const CompileOptions &options, DiagnosticEngine &diags,
           CompileResult &result)
      : program(program), options(options), diags(diags), result(result) {}

  void run() {
    result.hir = coreToHir(program, diags);
    if (!result.hir || diags.hasErrors())
      return;
    hir::Module &m = *result.hir;
    for (const core::HvmDefinition &h : program.hvmDefs) {
      m.netReferences[h.name] = refsOfNet(h.text);
      if (!h.builtin)
        m.userNetDefinitions.push_back(m.save(h.name));
    }
    if (!check("core-to-hir"))
      return;
    // Unreachable definitions go first: the prelude is large, and what main
    // never reaches need not be compiled at all.
    hir::pruneDefinitions(m, /*keepUserDefinitions=*/!options.prune);
    if (!check("prune"))
      return;
    hir::linearizeMatches(m, options.linearizeMatches);
    if (!check("linearize-matches"))
      return;
    hir::expandMatches(m);
    if (!check("expand-matches"))
      return;
    hir::linearizeVariables(m);
    if (!check("linearize-variables"))
      return;
    if (options.floatCombinators) {
      hir::floatCombinators(m);
      if (!check("float-combinators"))
        return;
    }
    if (options.merge) {
      hir::mergeDefinitions(m);
      if (!check("merge"))
        return;
    }
    hir::expandMain(m);
    if (!check("expand-main"))
      return;
    NetOptions netOptions;
    netOptions.eta = options.eta;
    if (!lowerToNet(m, netOptions, result.net, diags))
      return;
    if (!addNetDefinitions(program, m, result.net, diags))
      return;
    result.book = polarize(result.net, diags);
  }

private:
  /// The names a net definition's text refers to (`@name`).
  std::vector<llvm::StringRef> refsOfNet(llvm::StringRef text) {
    std::vector<llvm::StringRef> refs;
    for (size_t at = text.find('@'); at != llvm::StringRef::npos; at = text.find('@', at + 1)) {
      size_t end = at + 1;
      while (end < text.size() && (isalnum(static_cast<unsigned char>(text[end])) ||
                                   llvm::StringRef("_./-").contains(text[end])))
        ++end;
      refs.push_back(result.hir->save(text.slice(at + 1, end)));
    }
    return refs;
  }

  bool check(const char *pass) {
    if (!options.verifyEachPass)
      return true;
    for (std::string &p : hir::verify(*result.hir))
      result.internalErrors.push_back(std::string("after ") + pass + ": " + p);
    return result.internalErrors.empty();
  }

  const core::Program &program;
  const CompileOptions &options;
  DiagnosticEngine &diags;
  CompileResult &result;
};

} // namespace

CompileResult compileToBook(const core::Program &program, const CompileOptions &options,
                            DiagnosticEngine &diags) {
  CompileResult result;
  Pipeline pipeline(program, options, diags, result);
  llvm::thread worker(llvm::Optional<unsigned>(kStackSize), [&] { pipeline.run(); });
  worker.join();
  return result;
}

} // namespace bendc::lowering
