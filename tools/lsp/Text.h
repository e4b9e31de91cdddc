// Document text as the protocol addresses it: positions are a 0-based line
// and a column in UTF-16 code units; documents are named by URIs.
#pragma once

#include "llvm/ADT/StringRef.h"

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace bendc::lsp {

struct Position {
  unsigned line = 0;
  unsigned character = 0; // UTF-16 code units
};

/// The byte offset of `p` in `text`. A column past the end of its line is
/// the line's end; a line past the last is the end of the text (as clients
/// expect of ranges that reach past a document's end). A position inside a
/// character (between the halves of a surrogate pair) is that character's start.
size_t offsetAt(llvm::StringRef text, Position p);

/// Whether `p` names a place inside `text` (its line exists and its column
/// is at most the line's length).
bool contains(llvm::StringRef text, Position p);

/// The position of byte `offset` of `text` (clamped to its size).
Position positionAt(llvm::StringRef text, size_t offset);

/// Line starts of one text, for converting many offsets to positions.
class LineIndex {
public:
  explicit LineIndex(llvm::StringRef text);
  Position position(size_t offset) const;

private:
  llvm::StringRef text;
  std::vector<size_t> starts;
};

/// Replaces the text between two positions (an incremental change).
void replaceRange(std::string &text, Position begin, Position end, llvm::StringRef with);

/// The file a `file://` URI names, percent-decoded; nullopt for another scheme
/// or a malformed URI.
std::optional<std::string> pathFromUri(llvm::StringRef uri);

/// The `file://` URI of an absolute path.
std::string uriFromPath(llvm::StringRef path);

} // namespace bendc::lsp
