#pragma once
// Wall and CPU time of each compile phase, for `bendc --time-phases`.
//
// A phase opens a PhaseTimer scope named after itself; when timing is off
// (the default) the scope costs one branch. The driver prints the table.

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Timer.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>

namespace bendc {

/// Turns phase timing on or off for the whole process.
void enablePhaseTiming(bool on);

/// Prints every phase timed so far (LLVM's timer report) and resets them.
void printPhaseTimes(llvm::raw_ostream &os);

/// Times the enclosing scope as the phase `name` when timing is on.
class PhaseTimer {
public:
  PhaseTimer(llvm::StringRef name, llvm::StringRef description);

private:
  std::optional<llvm::TimeRegion> region;
};

} // namespace bendc
