// Helpers for frontend unit tests: run the frontend on a string.
#pragma once

#include "frontend/Frontend.h"

#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <memory>
#include <string>

namespace bendc::test {

struct FrontendRun {
  llvm::SourceMgr sm;
  std::unique_ptr<DiagnosticEngine> diags;
  frontend::FrontendResult result;

  std::string text() const {
    std::string out;
    llvm::raw_string_ostream os(out);
    diags->renderText(os);
    return out;
  }
  std::string json() const {
    std::string out;
    llvm::raw_string_ostream os(out);
    diags->renderJson(os);
    return out;
  }
};

inline std::unique_ptr<FrontendRun> runOn(llvm::StringRef source, frontend::FrontendOptions opts = {},
                                          llvm::StringRef name = "test.bend") {
  auto run = std::make_unique<FrontendRun>();
  run->diags = std::make_unique<DiagnosticEngine>(run->sm);
  unsigned id = run->sm.AddNewSourceBuffer(llvm::MemoryBuffer::getMemBufferCopy(source, name),
                                           llvm::SMLoc());
  run->result = frontend::runFrontendOnBuffer(run->sm, id, opts, *run->diags);
  return run;
}

inline frontend::FrontendOptions emitting(frontend::EmitStage stage, bool prelude = true) {
  frontend::FrontendOptions o;
  o.emit = stage;
  o.prelude = prelude;
  return o;
}

} // namespace bendc::test
