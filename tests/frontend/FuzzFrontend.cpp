// libFuzzer target: lexer, parser, resolver and desugarer on arbitrary bytes.
// Every input must end in diagnostics or Core, never a crash or a hang.
#include "frontend/Frontend.h"

#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  llvm::SourceMgr sm;
  bendc::DiagnosticEngine diags(sm);
  llvm::StringRef text(reinterpret_cast<const char *>(data), size);
  // The copy is NUL-terminated, as the lexer requires.
  unsigned id = sm.AddNewSourceBuffer(llvm::MemoryBuffer::getMemBufferCopy(text, "fuzz.bend"),
                                      llvm::SMLoc());
  bendc::frontend::FrontendOptions opts;
  opts.emit = bendc::frontend::EmitStage::Core;
  // The prelude is the same every time; leaving it out lets the fuzzer try
  // far more inputs per second. Builtin names are then simply unbound.
  opts.prelude = size > 0 && data[0] == 0;
  bendc::frontend::runFrontendOnBuffer(sm, id, opts, diags);
  return 0;
}
