// The builtin prelude, embedded at build time from Prelude.bend.
#include "llvm/ADT/StringRef.h"

namespace bendc::frontend {

llvm::StringRef preludeText() {
  static const char text[] =
#include "frontend/Prelude.inc"
      ;
  return llvm::StringRef(text, sizeof(text) - 1);
}

} // namespace bendc::frontend
