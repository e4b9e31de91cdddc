// Test helper: a book in HVM2 text, read and polarized, with accessors for
// what polarization laid out (definitions by name, their slots and redexes).
#pragma once

#include "lowering/Polarize.h"
#include "frontend/hvm/HvmReader.h"

#include "llvm/Support/MemoryBuffer.h"

#include <doctest/doctest.h>

#include <optional>
#include <string>

namespace bendc::test {

/// Reads `text` as test.hvm and polarizes it.
struct Polarized {
  llvm::SourceMgr sm;
  DiagnosticEngine diags{sm};
  std::optional<net::Book> net;
  std::optional<rt::Book> book;

  explicit Polarized(llvm::StringRef text) {
    unsigned id = sm.AddNewSourceBuffer(llvm::MemoryBuffer::getMemBufferCopy(text, "test.hvm"),
                                        llvm::SMLoc());
    net = hvm::readBook(sm, id, diags);
    if (net)
      book = lowering::polarize(*net, diags);
  }

  std::string messages() const {
    std::string out;
    for (const Diagnostic &d : diags.diagnostics()) {
      if (d.range.Start.isValid()) {
        auto [line, col] = sm.getLineAndColumn(d.range.Start);
        out += std::to_string(line) + ":" + std::to_string(col) + ": ";
      }
      out += d.message + " [" + diagKindName(d.kind).str() + "]\n";
    }
    return out;
  }

  uint32_t id(llvm::StringRef name) const {
    for (uint32_t i = 0; i < book->names.size(); ++i)
      if (book->names[i] == name)
        return i;
    FAIL("no definition named " << name.str());
    return 0;
  }
  const rt::DefInfo &def(llvm::StringRef name = "main") const { return book->defs[id(name)]; }
  rt::Term root(llvm::StringRef name = "main") const { return def(name).root; }
  rt::Term slot(unsigned node, unsigned i, llvm::StringRef name = "main") const {
    REQUIRE(node < def(name).nodeCount);
    return book->slots[def(name).firstSlot + 2 * node + i];
  }
  std::pair<rt::Term, rt::Term> redex(unsigned i, llvm::StringRef name = "main") const {
    REQUIRE(i < def(name).redexCount);
    const rt::Term *r = &book->redexes[def(name).firstRedex + 2 * i];
    return {r[0], r[1]};
  }
};

} // namespace bendc::test
