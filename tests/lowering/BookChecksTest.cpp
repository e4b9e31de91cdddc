// The whole-book checks on books read from text: which references are
// eager (recursion cycles), node counts against a limit, inlining of leaf
// definitions, and pruning what inlining leaves unreferenced.
#include "lowering/BookChecks.h"
#include "ir/NetPrinter.h"
#include "frontend/hvm/HvmReader.h"

#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <doctest/doctest.h>

#include <string>

using namespace bendc;

namespace {

struct Checked {
  llvm::SourceMgr sm;
  DiagnosticEngine diags{sm};
  net::Book book;

  explicit Checked(llvm::StringRef text) {
    unsigned id =
        sm.AddNewSourceBuffer(llvm::MemoryBuffer::getMemBufferCopy(text, "t.hvm"), llvm::SMLoc());
    std::optional<net::Book> read = hvm::readBook(sm, id, diags);
    REQUIRE(read);
    REQUIRE_FALSE(diags.hasErrors());
    book = std::move(*read);
  }

  /// The messages of the diagnostics reported so far, one a line.
  std::string messages() const {
    std::string out;
    for (const Diagnostic &d : diags.diagnostics())
      out += d.message + "\n";
    return out;
  }

  std::string text() const {
    std::string out;
    llvm::raw_string_ostream os(out);
    net::printBook(os, book);
    return out;
  }
};

std::string cyclesOf(llvm::StringRef text) {
  Checked c(text);
  lowering::BookCheckOptions options;
  bool ok = lowering::checkBook(c.book, options, c.diags);
  CHECK(ok == !c.diags.hasErrors());
  return c.messages();
}

} // namespace

TEST_CASE("references in redexes and in the root's eager side make cycles") {
  CHECK(cyclesOf("@main = @main\n") ==
        "recursive cycle that HVM's strict evaluation unfolds forever: main -> main\n");
  // A call: the reference is one side of a redex.
  CHECK(cyclesOf("@main = a & @f ~ (1 a)\n@f = (b c) & @f ~ (b c)\n") ==
        "recursive cycle that HVM's strict evaluation unfolds forever: f -> f\n");
  // Duplicated in the root (outside a λ's variable side): eager.
  CHECK(cyclesOf("@main = @g\n@g = (* {@g @g})\n") ==
        "recursive cycle that HVM's strict evaluation unfolds forever: g -> g\n");
  // Through two definitions, reported once.
  CHECK(cyclesOf("@main = @a\n@a = @b\n@b = (x y) & @a ~ (x y)\n") ==
        "recursive cycle that HVM's strict evaluation unfolds forever: a -> b -> a\n");
}

TEST_CASE("references that wait for an argument are lazy") {
  // The variable side of a λ: an application's argument.
  CHECK(cyclesOf("@main = @f\n@f = ((@f a) a)\n").empty());
  // Deeper than a redex's side: an argument of the call.
  CHECK(cyclesOf("@main = a & @id ~ (@main a)\n@id = (b b)\n").empty());
  // Combinators are left out of the cycle shown, but the cycle stays.
  CHECK(cyclesOf("@main = @f\n@f = a & @f__C0 ~ a\n@f__C0 = b & @f ~ b\n") ==
        "recursive cycle that HVM's strict evaluation unfolds forever: f -> f\n");
}

TEST_CASE("-Arecursion-cycle turns the check off, -W makes it a warning") {
  Checked allowed("@main = @main\n");
  allowed.diags.setWarningAction(DiagKind::RecursionCycle, WarningAction::Allow);
  CHECK(lowering::checkBook(allowed.book, {}, allowed.diags));
  CHECK(allowed.diags.diagnostics().empty());
  Checked warned("@main = @main\n");
  warned.diags.setWarningAction(DiagKind::RecursionCycle, WarningAction::Warn);
  CHECK(lowering::checkBook(warned.book, {}, warned.diags));
  REQUIRE(warned.diags.diagnostics().size() == 1);
  CHECK(warned.diags.diagnostics()[0].severity == Severity::Warning);
}

TEST_CASE("net sizes count the trees with children of the root and the redexes") {
  Checked c("@main = (a (b c)) & (a d) ~ {b e} & @f ~ (d (e c))\n@f = *\n");
  lowering::BookCheckOptions options;
  options.recursionCycles = false;
  options.maxNetSize = 6;
  CHECK(lowering::checkBook(c.book, options, c.diags));
  options.maxNetSize = 5;
  CHECK_FALSE(lowering::checkBook(c.book, options, c.diags));
  CHECK(c.messages().find("definition 'main' is too large for HVM2's C runtime (size=6, max "
                          "size=5)") != std::string::npos);
}

TEST_CASE("inlining replaces references to leaf definitions, through chains") {
  Checked c("@main = (@one (@two @none))\n@one = 1\n@two = @one\n@none = *\n@pair = (1 2)\n"
            "@keep = (@pair *)\n");
  CHECK(lowering::inlineLeafDefinitions(c.book, c.diags));
  CHECK(c.text().find("@main = (1 (1 *))") != std::string::npos);
  CHECK(c.text().find("@keep = (@pair *)") != std::string::npos);
  lowering::pruneUnreachableDefinitions(c.book, "main");
  CHECK(c.text() == "@main = (1 (1 *))\n");
}

TEST_CASE("a loop of leaf definitions is one error") {
  Checked c("@main = (@a *)\n@a = @b\n@b = @a\n");
  CHECK_FALSE(lowering::inlineLeafDefinitions(c.book, c.diags));
  CHECK(c.messages() == "'a' stands for a reference that stands for itself again: inlining it "
                        "never ends\n");
}
