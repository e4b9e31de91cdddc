// Test helper: a net book from HVM2 text; the test fails if it does not read.
#pragma once

#include "frontend/hvm/HvmReader.h"

#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"

#include <doctest/doctest.h>

namespace bendc::test {

inline net::Book readBookText(llvm::StringRef text) {
  llvm::SourceMgr sm;
  DiagnosticEngine diags(sm);
  unsigned id =
      sm.AddNewSourceBuffer(llvm::MemoryBuffer::getMemBufferCopy(text, "book.hvm"), llvm::SMLoc());
  std::optional<net::Book> book = hvm::readBook(sm, id, diags);
  REQUIRE(book);
  return std::move(*book);
}

/// A normal form from HVM2 net text (`tree & a ~ b ...`) as a book of one
/// definition, as readback takes a normal form given as a net; references may name
/// definitions of another book.
inline net::Book readNetText(llvm::StringRef text) {
  llvm::SourceMgr sm;
  DiagnosticEngine diags(sm);
  unsigned id = sm.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy("@main = " + text.str(), "result.hvm"), llvm::SMLoc());
  std::optional<net::Book> book =
      hvm::readDefinitions(sm, id, diags, [](llvm::StringRef) { return true; });
  REQUIRE(book);
  return std::move(*book);
}

} // namespace bendc::test
