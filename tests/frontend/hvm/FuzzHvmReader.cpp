// libFuzzer target: reads any bytes as a .hvm book and polarizes what reads.
// Every input must end in diagnostics or a book; crashes, hangs and sanitizer
// reports are bugs.
#include "ir/NetPrinter.h"
#include "frontend/hvm/HvmReader.h"
#include "lowering/Polarize.h"

#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <cstddef>
#include <cstdint>
#include <cstdlib>

using namespace bendc;

static std::optional<net::Book> readText(llvm::StringRef text, std::string *rendered) {
  llvm::SourceMgr sm;
  DiagnosticEngine diags(sm);
  unsigned id =
      sm.AddNewSourceBuffer(llvm::MemoryBuffer::getMemBufferCopy(text, "fuzz.hvm"), llvm::SMLoc());
  std::optional<net::Book> book = hvm::readBook(sm, id, diags);
  if (book)
    (void)lowering::polarize(*book, diags);
  llvm::raw_string_ostream os(*rendered);
  diags.renderText(os);
  return book;
}

static std::string print(const net::Book &book) {
  std::string text;
  llvm::raw_string_ostream os(text);
  net::printBook(os, book);
  os.flush();
  return text;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  llvm::StringRef text(reinterpret_cast<const char *>(data), size);
  std::string rendered;
  std::optional<net::Book> book = readText(text, &rendered);
  if (!book)
    return 0;
  // A book that reads prints to text that reads back and prints the same.
  std::string printed = print(*book);
  std::optional<net::Book> again = readText(printed, &rendered);
  if (!again || print(*again) != printed)
    abort();
  return 0;
}
