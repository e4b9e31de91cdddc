#include "tools/lsp/Transport.h"

#include "llvm/Support/raw_ostream.h"

#include <algorithm>

namespace bendc::lsp {

static constexpr llvm::StringLiteral kLengthHeader = "content-length";

void FrameReader::compact() {
  // Consumed bytes are dropped once they are most of the buffer, so a long
  // session keeps only what is still to be read.
  if (start > 4096 && start * 2 > buffer.size()) {
    buffer.erase(0, start);
    start = 0;
  }
}

void FrameReader::resync(size_t from) {
  llvm::StringRef rest = llvm::StringRef(buffer).drop_front(from);
  size_t at = rest.find_insensitive(kLengthHeader);
  if (at == llvm::StringRef::npos) {
    // The next header may have begun to arrive: keep what could start it.
    at = rest.size();
    for (size_t n = std::min(rest.size(), kLengthHeader.size() - 1); n > 0; --n)
      if (rest.take_back(n).equals_insensitive(kLengthHeader.take_front(n))) {
        at = rest.size() - n;
        break;
      }
  }
  start = from + at;
  compact();
}

bool FrameReader::next(Frame &out) {
  out = Frame();
  llvm::StringRef text = llvm::StringRef(buffer).drop_front(start);
  size_t headerEnd = text.find("\r\n\r\n");
  size_t sepLen = 4;
  if (size_t lf = text.find("\n\n"); lf != llvm::StringRef::npos && lf < headerEnd) {
    headerEnd = lf; // bare LF line ends, which some clients write
    sepLen = 2;
  }
  if (headerEnd == llvm::StringRef::npos) {
    if (text.size() <= kMaxHeader)
      return false;
    out.error = "message header longer than " + std::to_string(kMaxHeader) + " bytes";
    resync(start + 1);
    return true;
  }
  llvm::StringRef header = text.take_front(headerEnd);
  size_t bodyStart = start + headerEnd + sepLen;
  long long length = -1;
  llvm::SmallVector<llvm::StringRef, 4> lines;
  header.split(lines, '\n');
  for (llvm::StringRef line : lines) {
    line = line.rtrim("\r");
    auto [name, value] = line.split(':');
    if (name.size() == line.size()) {
      out.error = "malformed header line '" + line.take_front(80).str() + "'";
      break;
    }
    if (!name.trim().equals_insensitive(kLengthHeader))
      continue; // Content-Type and anything else do not matter
    unsigned long long n;
    if (value.trim().getAsInteger(10, n)) {
      out.error = "invalid Content-Length '" + value.trim().take_front(40).str() + "'";
      break;
    }
    if (n > kMaxMessage) {
      out.error = "message of " + std::to_string(n) + " bytes is larger than the limit";
      break;
    }
    length = (long long)n;
  }
  if (out.error.empty() && length < 0)
    out.error = "message header without Content-Length";
  if (!out.error.empty()) {
    resync(start + 1);
    return true;
  }
  if (buffer.size() - bodyStart < size_t(length))
    return false;
  out.body = buffer.substr(bodyStart, size_t(length));
  start = bodyStart + size_t(length);
  compact();
  return true;
}

void writeFrame(llvm::raw_ostream &os, const llvm::json::Value &message) {
  std::string body;
  llvm::raw_string_ostream bodyStream(body);
  bodyStream << message;
  bodyStream.flush();
  os << "Content-Length: " << body.size() << "\r\n\r\n" << body;
  os.flush();
}

} // namespace bendc::lsp
