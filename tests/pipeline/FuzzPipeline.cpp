// libFuzzer target: the whole of `bendc --run` on arbitrary bytes. The bytes
// are a Bend program; it is checked, compiled to a net book, reduced on the
// CPU runtime and its normal form read back as Bend text. Diagnostics,
// running out of net memory and reaching the interaction limit are all fine
// ends; a crash, a sanitizer report, a hang or an internal error is a bug.
#include "frontend/Frontend.h"
#include "lowering/Compile.h"
#include "readback/Readback.h"
#include "runtime/Runtime.h"

#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <cstddef>
#include <cstdint>
#include <cstdlib>

using namespace bendc;

namespace {

/// Small enough that a program that grows without end, or loops, stops in
/// a fraction of a second under the sanitizers: 4 MiB hold 246 723 nodes.
constexpr uint64_t NetBytes = uint64_t(4) << 20;
constexpr uint64_t MaxInteractions = uint64_t(1) << 18;

[[noreturn]] void internalError(const std::string &what) {
  llvm::errs() << "fuzz_pipeline: internal error: " << what << "\n";
  abort();
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  // A first byte 0 links the prelude and is not part of the program. The
  // prelude is the same every time; leaving it out lets the fuzzer try far
  // more inputs per second (builtin names are then simply unbound).
  bool prelude = size > 0 && data[0] == 0;
  llvm::StringRef text(reinterpret_cast<const char *>(data) + prelude, size - prelude);
  llvm::SourceMgr sm;
  DiagnosticEngine diags(sm);
  // The copy is NUL-terminated, as the lexer requires.
  unsigned id = sm.AddNewSourceBuffer(llvm::MemoryBuffer::getMemBufferCopy(text, "fuzz.bend"),
                                      llvm::SMLoc());
  frontend::FrontendOptions opts;
  opts.prelude = prelude;
  // As bendc --run: compile warnings are not shown.
  opts.warnings.emplace_back("all", WarningAction::Allow);
  frontend::FrontendResult front = frontend::runFrontendOnBuffer(sm, id, opts, diags);
  // Rendering is part of the pipeline too: every location must be valid.
  std::string rendered;
  llvm::raw_string_ostream renderedStream(rendered);
  if (diags.hasErrors() || !front.program) {
    diags.renderText(renderedStream);
    return 0;
  }
  // Bend's default switches, as bendc --run compiles (function by function).
  lowering::CompileResult compiled =
      lowering::compileToBook(*front.program, lowering::CompileOptions(), diags);
  diags.renderText(renderedStream);
  if (!compiled.internalErrors.empty())
    internalError(compiled.internalErrors.front());
  if (diags.hasErrors() || !compiled.book)
    return 0;

  rt::RunOptions run;
  run.backend = rt::Backend::Cpu;
  run.threads = 1; // the same interactions, in the same order, every time
  run.memBytes = NetBytes;
  run.maxInteractions = MaxInteractions;
  run.io = false; // no files, no foreign libraries, no waiting on stdin
  rt::RunResult result = rt::run(*compiled.book, run);
  switch (result.status) {
  case rt::RunStatus::Ok:
    break;
  case rt::RunStatus::OutOfMemory:
  case rt::RunStatus::InteractionLimit:
    return 0;
  case rt::RunStatus::Fault:
    // A clash that found no node to build with is memory running out too;
    // anything else is a net the compiler should not have made.
    if (llvm::StringRef(result.message).startswith("out of memory"))
      return 0;
    internalError(result.message);
  default:
    internalError("unexpected run status: " + result.message);
  }
  readback::Result shown =
      readback::toBend(std::move(result.normalForm), compiled.book->names, compiled.net, *front.program);
  // A normal form that does not read back as a net is the runtime's bug.
  if (shown.text.empty())
    internalError("the normal form does not read back");
  return 0;
}
