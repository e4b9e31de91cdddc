// A half-open range of source text as two SMLocs into a SourceMgr buffer.
// It is also the parser's location type, so bison needs no location.hh.
#pragma once

#include "llvm/Support/SMLoc.h"

namespace bendc {

struct SourceRange {
  llvm::SMLoc begin;
  llvm::SMLoc end;

  SourceRange() = default;
  SourceRange(llvm::SMLoc b, llvm::SMLoc e) : begin(b), end(e) {}
  explicit SourceRange(llvm::SMLoc at) : begin(at), end(at) {}

  bool isValid() const { return begin.isValid(); }
  llvm::SMRange toSM() const { return llvm::SMRange(begin, end); }
  static SourceRange join(SourceRange a, SourceRange b) {
    if (!a.isValid())
      return b;
    if (!b.isValid())
      return a;
    return SourceRange(a.begin, b.end);
  }
};

} // namespace bendc
