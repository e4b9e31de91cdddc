#include "tools/lsp/Text.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/ConvertUTF.h"

#include <algorithm>

namespace bendc::lsp {

namespace {

/// Bytes of the UTF-8 sequence starting at `s[i]`: 1 for a byte that starts none.
size_t sequenceLength(llvm::StringRef s, size_t i) {
  unsigned n = llvm::getNumBytesForUTF8(static_cast<unsigned char>(s[i]));
  if (n == 0 || i + n > s.size())
    return 1;
  return n;
}

/// The offset where line `line` starts, or nullopt past the last line.
std::optional<size_t> lineStart(llvm::StringRef text, unsigned line) {
  size_t at = 0;
  for (unsigned l = 0; l < line; ++l) {
    size_t nl = text.find('\n', at);
    if (nl == llvm::StringRef::npos)
      return std::nullopt;
    at = nl + 1;
  }
  return at;
}

} // namespace

size_t offsetAt(llvm::StringRef text, Position p) {
  std::optional<size_t> start = lineStart(text, p.line);
  if (!start)
    return text.size();
  size_t end = std::min(text.find('\n', *start), text.size());
  // A CR before the LF ends the line too.
  if (end > *start && text[end - 1] == '\r')
    --end;
  size_t at = *start;
  unsigned units = 0;
  while (at < end && units < p.character) {
    size_t n = sequenceLength(text, at);
    unsigned u = n == 4 ? 2 : 1;
    if (units + u > p.character)
      break; // inside a surrogate pair
    units += u;
    at += n;
  }
  return at;
}

bool contains(llvm::StringRef text, Position p) {
  std::optional<size_t> start = lineStart(text, p.line);
  if (!start)
    return false;
  size_t end = std::min(text.find('\n', *start), text.size());
  if (end > *start && text[end - 1] == '\r')
    --end;
  unsigned units = 0;
  for (size_t at = *start; at < end;) {
    size_t n = sequenceLength(text, at);
    units += n == 4 ? 2 : 1;
    at += n;
  }
  return p.character <= units;
}

Position positionAt(llvm::StringRef text, size_t offset) {
  offset = std::min(offset, text.size());
  Position p;
  size_t lineBegin = 0;
  for (size_t nl = text.find('\n'); nl != llvm::StringRef::npos && nl < offset;
       nl = text.find('\n', nl + 1)) {
    ++p.line;
    lineBegin = nl + 1;
  }
  for (size_t at = lineBegin; at < offset;) {
    size_t n = sequenceLength(text, at);
    p.character += n == 4 ? 2 : 1;
    at += n;
  }
  return p;
}

LineIndex::LineIndex(llvm::StringRef text) : text(text) {
  starts.push_back(0);
  for (size_t nl = text.find('\n'); nl != llvm::StringRef::npos; nl = text.find('\n', nl + 1))
    starts.push_back(nl + 1);
}

Position LineIndex::position(size_t offset) const {
  offset = std::min(offset, text.size());
  auto it = std::upper_bound(starts.begin(), starts.end(), offset);
  Position p;
  p.line = unsigned(it - starts.begin() - 1);
  for (size_t at = starts[p.line]; at < offset;) {
    size_t n = sequenceLength(text, at);
    p.character += n == 4 ? 2 : 1;
    at += n;
  }
  return p;
}

void replaceRange(std::string &text, Position begin, Position end, llvm::StringRef with) {
  size_t b = offsetAt(text, begin);
  size_t e = std::max(b, offsetAt(text, end));
  text.replace(b, e - b, with.data(), with.size());
}

std::optional<std::string> pathFromUri(llvm::StringRef uri) {
  if (!uri.consume_front("file://"))
    return std::nullopt;
  // `file://host/path`: only the local host is a file here.
  if (!uri.startswith("/")) {
    if (!uri.consume_front("localhost"))
      return std::nullopt;
  }
  std::string path;
  for (size_t i = 0; i < uri.size(); ++i) {
    if (uri[i] != '%') {
      path += uri[i];
      continue;
    }
    if (i + 2 >= uri.size() || !llvm::isHexDigit(uri[i + 1]) || !llvm::isHexDigit(uri[i + 2]))
      return std::nullopt;
    path += char(llvm::hexFromNibbles(uri[i + 1], uri[i + 2]));
    i += 2;
  }
  if (path.empty() || path.find('\0') != std::string::npos)
    return std::nullopt;
  return path;
}

std::string uriFromPath(llvm::StringRef path) {
  std::string uri = "file://";
  for (unsigned char c : path) {
    if (llvm::isAlnum(c) || llvm::StringRef("-._~/").contains(c)) {
      uri += char(c);
      continue;
    }
    uri += '%';
    uri += llvm::hexdigit(c >> 4);
    uri += llvm::hexdigit(c & 15);
  }
  return uri;
}

} // namespace bendc::lsp
