// bendc_frontend_tool [--emit=tokens|ast|core] [--json] [--bench N] FILE
// Runs the .bend frontend alone. `--bench N` runs it N times and reports the
// source throughput (MB/s) to Core.
#include "frontend/Frontend.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <ctime>
#include <cstring>

using namespace bendc;

int main(int argc, char **argv) {
  frontend::FrontendOptions opts;
  bool json = false;
  int bench = 0;
  const char *path = nullptr;
  for (int i = 1; i < argc; ++i) {
    llvm::StringRef a = argv[i];
    if (a == "--emit=tokens")
      opts.emit = frontend::EmitStage::Tokens;
    else if (a == "--emit=ast")
      opts.emit = frontend::EmitStage::Ast;
    else if (a == "--emit=core")
      opts.emit = frontend::EmitStage::Core;
    else if (a == "--json")
      json = true;
    else if (a == "--scott")
      opts.encoding = core::AdtEncoding::Scott;
    else if (a == "--bench" && i + 1 < argc)
      bench = std::atoi(argv[++i]);
    else
      path = argv[i];
  }
  if (!path) {
    llvm::errs() << "usage: bendc_frontend_tool [--emit=STAGE] [--json] [--bench N] FILE\n";
    return 2;
  }
  if (bench > 0) {
    auto buf = llvm::MemoryBuffer::getFile(path);
    if (!buf) {
      llvm::errs() << "cannot read " << path << "\n";
      return 2;
    }
    double bytes = double((*buf)->getBufferSize());
    double bestWall = 1e30, bestCpu = 1e30;
    for (int i = 0; i < bench; ++i) {
      llvm::SourceMgr sm;
      DiagnosticEngine diags(sm);
      auto t0 = std::chrono::steady_clock::now();
      std::clock_t c0 = std::clock();
      auto result = frontend::runFrontend(sm, path, opts, diags);
      std::clock_t c1 = std::clock();
      auto t1 = std::chrono::steady_clock::now();
      bestWall = std::min(bestWall, std::chrono::duration<double>(t1 - t0).count());
      bestCpu = std::min(bestCpu, double(c1 - c0) / CLOCKS_PER_SEC);
      if (diags.hasErrors()) {
        diags.renderText(llvm::errs());
        return 1;
      }
    }
    // CPU time is what one core spends; wall time also counts waiting for a
    // busy machine.
    llvm::outs() << llvm::format("frontend: %.2f MB to Core: %.3f s wall (%.2f MB/s), "
                                 "%.3f s CPU (%.2f MB/s)\n",
                                 bytes / 1e6, bestWall, bytes / 1e6 / bestWall, bestCpu,
                                 bytes / 1e6 / bestCpu);
    return 0;
  }
  llvm::SourceMgr sm;
  DiagnosticEngine diags(sm);
  auto result = frontend::runFrontend(sm, path, opts, diags);
  llvm::outs() << result.emitted;
  if (json)
    diags.renderJson(llvm::outs());
  else
    diags.renderText(llvm::errs());
  return diags.hasErrors() ? 1 : 0;
}
