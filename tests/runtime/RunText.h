// For tests: reads a .hvm book from text, polarizes it and runs it.
#pragma once

#include "support/Diagnostic.h"
#include "frontend/hvm/HvmReader.h"
#include "ir/NetPrinter.h"
#include "lowering/Polarize.h"
#include "runtime/Runtime.h"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>
#include <string>

namespace bendc::testing {

/// HVM2's text of a run's normal form (empty when the run failed).
inline std::string resultText(const rt::RunResult &run, const rt::Book &book) {
  if (run.status != rt::RunStatus::Ok)
    return {};
  return net::resultText(run.normalForm, book.names);
}

struct Outcome {
  rt::RunResult run;
  std::string result;      // the normal form's text
  std::string diagnostics; // from reading and polarizing
};

/// A book that does not load comes back as a Fault with its diagnostics.
/// `adjust`, when given, changes the book before it runs.
inline Outcome runText(const std::string &text, const rt::RunOptions &options,
                       llvm::function_ref<void(rt::Book &)> adjust = nullptr) {
  llvm::SourceMgr sm;
  unsigned buf =
      sm.AddNewSourceBuffer(llvm::MemoryBuffer::getMemBufferCopy(text, "test.hvm"), llvm::SMLoc());
  DiagnosticEngine diags(sm);
  Outcome out;
  std::optional<net::Book> netBook = hvm::readBook(sm, buf, diags);
  std::optional<rt::Book> book;
  if (netBook && !diags.hasErrors())
    book = lowering::polarize(*netBook, diags);
  llvm::raw_string_ostream os(out.diagnostics);
  diags.renderText(os);
  if (!book || diags.hasErrors()) {
    out.run.status = rt::RunStatus::Fault;
    out.run.message = "the test program did not load";
    return out;
  }
  if (adjust)
    adjust(*book);
  out.run = rt::run(*book, options);
  out.result = resultText(out.run, *book);
  return out;
}

} // namespace bendc::testing

/// In a doctest case: the run succeeded and printed `text` (an Outcome's
/// diagnostics and message are shown when it did not).
#define CHECK_RESULT(outcome, text)                                                               \
  do {                                                                                            \
    INFO(outcome.diagnostics);                                                                    \
    INFO(outcome.run.message);                                                                    \
    REQUIRE(outcome.run.status == rt::RunStatus::Ok);                                             \
    CHECK(outcome.result == text);                                                            \
  } while (0)

