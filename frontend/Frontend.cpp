#include "frontend/Frontend.h"
#include "support/LargeStack.h"
#include "support/PhaseTimer.h"
#include "ir/Sharing.h"

#include "frontend/Parse.h"
#include "frontend/Resolve.h"

#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

namespace bendc::frontend {

std::vector<std::string> applyWarningOptions(const FrontendOptions &opts, DiagnosticEngine &diags) {
  std::vector<std::string> unknown;
  for (const auto &[name, action] : opts.warnings) {
    auto kinds = warningKindsNamed(name);
    if (kinds.empty())
      unknown.push_back(name);
    for (DiagKind k : kinds)
      diags.setWarningAction(k, action);
  }
  return unknown;
}

static FrontendResult run(llvm::SourceMgr &sm, unsigned bufferId, const FrontendOptions &opts,
                          DiagnosticEngine &diags) {
  FrontendResult result;
  applyWarningOptions(opts, diags);
  llvm::StringRef text = sm.getMemoryBuffer(bufferId)->getBuffer();
  if (opts.emit == EmitStage::Tokens) {
    result.emitted = parse::dumpTokens(text, sm, diags);
    return result;
  }
  if (opts.emit == EmitStage::Ast) {
    ast::AstContext ctx;
    ast::Module module;
    parse::parseBuffer(text, ctx, diags, module);
    llvm::raw_string_ostream os(result.emitted);
    ast::printModule(os, module, sm);
    return result;
  }
  if (opts.index)
    result.index = std::make_unique<ProgramIndex>();
  result.program = buildProgram(sm, bufferId, opts, diags, result.index.get());
  auto verify = [&](const char *phase) {
    if (!opts.verify || !result.program || diags.hasErrors())
      return;
    for (std::string &p : core::verify(*result.program))
      result.internalErrors.push_back(std::string("after ") + phase + ": " + p);
  };
  verify("desugar");
  if (opts.sharing && result.program && !diags.hasErrors() && result.internalErrors.empty()) {
    {
      PhaseTimer timer("sharing", "Recovering sharing");
      result.shared = core::recoverSharing(*result.program).shared;
    }
    verify("sharing");
  }
  // Core is shown only when it is complete: after an error it has holes.
  if (opts.emit == EmitStage::Core && result.program && !diags.hasErrors()) {
    llvm::raw_string_ostream os(result.emitted);
    core::printProgram(os, *result.program, opts.emitBuiltins);
  }
  if (diags.hasErrors() || !result.internalErrors.empty())
    result.program.reset();
  return result;
}

FrontendResult runFrontendOnBuffer(llvm::SourceMgr &sm, unsigned bufferId,
                                   const FrontendOptions &opts, DiagnosticEngine &diags) {
  FrontendResult result;
  // Every phase recurses over the tree: a deep program (a 10 000-deep
  // expression, a 100 000-element list) needs more than a default stack.
  runOnLargeStack([&] { result = run(sm, bufferId, opts, diags); });
  return result;
}

FrontendResult runFrontend(llvm::SourceMgr &sm, llvm::StringRef path, const FrontendOptions &opts,
                           DiagnosticEngine &diags) {
  auto buffer = llvm::MemoryBuffer::getFileOrSTDIN(path, /*IsText=*/false,
                                                   /*RequiresNullTerminator=*/true);
  if (!buffer) {
    diags.report(DiagKind::FileNotReadable, llvm::SMLoc(),
                 "cannot read '" + path.str() + "': " + buffer.getError().message());
    return {};
  }
  unsigned id = sm.AddNewSourceBuffer(std::move(*buffer), llvm::SMLoc());
  return runFrontendOnBuffer(sm, id, opts, diags);
}

} // namespace bendc::frontend
