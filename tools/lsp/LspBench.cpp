// How long the server takes to re-check a document after one keystroke:
// opens FILE in an in-process server, then types one character at a time
// into the middle of it (inside a string literal, so the program stays
// valid), each keystroke followed by the check and the published
// diagnostics written out as JSON, and prints the times.
//
//   bendc_lsp_bench FILE [KEYSTROKES]
//   tools/gen_large_bend.py --mb 0.1 > big.bend    # about 5 000 lines
#include "support/Heap.h"
#include "tools/lsp/LanguageServer.h"
#include "tools/lsp/Server.h"
#include "tools/lsp/Text.h"
#include "tools/lsp/Transport.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <vector>

using namespace bendc::lsp;
using llvm::json::Array;
using llvm::json::Object;
using Clock = std::chrono::steady_clock;

int main(int argc, char **argv) {
  if (argc < 2) {
    llvm::errs() << "usage: bendc_lsp_bench FILE [KEYSTROKES]\n";
    return 2;
  }
  unsigned keystrokes = argc > 2 ? unsigned(std::atoi(argv[2])) : 50;
  bendc::tuneHeapForRechecking(); // as the server does
  auto file = llvm::MemoryBuffer::getFile(argv[1]);
  if (!file) {
    llvm::errs() << "bendc_lsp_bench: cannot read '" << argv[1] << "'\n";
    return 2;
  }
  std::string text = (*file)->getBuffer().str();
  llvm::SmallString<256> path(argv[1]);
  llvm::sys::fs::make_absolute(path);
  std::string uri = uriFromPath(path);

  size_t published = 0, diagnostics = 0;
  llvm::raw_null_ostream sink;
  Server server([&](llvm::json::Value v) {
    writeFrame(sink, v); // the server writes every message: that is part of the time
    const Object *o = v.getAsObject();
    if (o && o->getString("method") == llvm::StringRef("textDocument/publishDiagnostics")) {
      ++published;
      diagnostics = o->getObject("params")->getArray("diagnostics")->size();
    }
  });
  server.handle(Object{{"jsonrpc", "2.0"}, {"id", 1}, {"method", "initialize"}, {"params", Object()}});
  server.handle(Object{{"jsonrpc", "2.0"}, {"method", "initialized"}, {"params", Object()}});
  auto t0 = Clock::now();
  server.handle(Object{{"jsonrpc", "2.0"},
                       {"method", "textDocument/didOpen"},
                       {"params", Object{{"textDocument", Object{{"uri", uri},
                                                                 {"languageId", "bend"},
                                                                 {"version", 1},
                                                                 {"text", text}}}}}});
  server.checkPending();
  double open = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();

  // The first string literal after the middle of the file.
  size_t quote = text.find('"', text.size() / 2);
  if (quote == std::string::npos) {
    llvm::errs() << "bendc_lsp_bench: the file has no string literal after its middle\n";
    return 2;
  }
  Position at = positionAt(text, quote + 1);
  std::vector<double> times;
  for (unsigned k = 0; k < keystrokes; ++k) {
    Object change{{"range", Object{{"start", Object{{"line", int64_t(at.line)},
                                                    {"character", int64_t(at.character + k)}}},
                                   {"end", Object{{"line", int64_t(at.line)},
                                                  {"character", int64_t(at.character + k)}}}}},
                  {"text", "a"}};
    auto start = Clock::now();
    server.handle(Object{{"jsonrpc", "2.0"},
                         {"method", "textDocument/didChange"},
                         {"params", Object{{"textDocument", Object{{"uri", uri}, {"version", k + 2}}},
                                           {"contentChanges", Array{std::move(change)}}}}});
    server.checkPending();
    times.push_back(std::chrono::duration<double, std::milli>(Clock::now() - start).count());
  }
  std::sort(times.begin(), times.end());
  size_t lines = size_t(std::count(text.begin(), text.end(), '\n'));
  llvm::outs() << llvm::format("%zu lines, %zu bytes; %zu diagnostics\n", lines, text.size(),
                               diagnostics)
               << llvm::format("open and first check: %.1f ms\n", open)
               << llvm::format("re-check after a keystroke (%u keystrokes): median %.1f ms, "
                               "min %.1f ms, max %.1f ms\n",
                               keystrokes, times[times.size() / 2], times.front(), times.back());
  return published == keystrokes + 1 ? 0 : 1;
}
