// JSON-RPC framing as the Language Server Protocol uses it: a header block
// (`Content-Length: N`, lines ended by CRLF, then an empty line) and N bytes
// of JSON.
#pragma once

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/JSON.h"

#include <string>

namespace llvm {
class raw_ostream;
}

namespace bendc::lsp {

/// Cuts a byte stream into messages. Bytes go in as they arrive, in pieces of
/// any size; a malformed header is reported once and skipped up to the next
/// `Content-Length`, so one bad message does not lose the ones after it.
class FrameReader {
public:
  struct Frame {
    std::string body;  // the message's JSON text, when `error` is empty
    std::string error; // what was wrong with the header
  };

  /// Messages larger than this are refused (their header is reported).
  static constexpr size_t kMaxMessage = 64u << 20;
  /// A header block longer than this is garbage.
  static constexpr size_t kMaxHeader = 8u << 10;

  void feed(llvm::StringRef bytes) { buffer.append(bytes.data(), bytes.size()); }
  /// The next complete frame, if any.
  bool next(Frame &out);
  /// Bytes held for a message not yet complete.
  size_t pending() const { return buffer.size() - start; }

private:
  /// Drops what was read up to the next `Content-Length` after `from`.
  void resync(size_t from);
  void compact();

  std::string buffer;
  size_t start = 0; // bytes before this are consumed
};

/// One framed message.
void writeFrame(llvm::raw_ostream &os, const llvm::json::Value &message);

} // namespace bendc::lsp
