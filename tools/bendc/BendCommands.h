// Bend's own command line as spellings of bendc's options, so that a script
// written for `bend` works with `bendc` in its place:
//
//   bend check FILE        bendc --check FILE
//   bend gen-hvm FILE      bendc --emit=hvm -Ono-eta FILE   (Bend's book has no eta
//                                                            reduction there)
//   bend run|run-c FILE    bendc --run --backend=cpu FILE
//   bend run-rs FILE       bendc --run --backend=cpu FILE
//   bend run-cu FILE       bendc --run --backend=cuda FILE
//   bend desugar FILE      bendc --emit=core FILE
//
// with Bend's switches after the command: -s/--stats, -e/--entrypoint NAME,
// -O NAME or -ONAME, -W/-A/-D NAME or -WNAME (also --warn/--allow/--deny
// NAME), -v/--verbose, and `--` before program arguments.
#pragma once

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <string>
#include <vector>

namespace bendc {

struct BendCommandLine {
  /// The arguments bendc parses (the program name first), or the arguments
  /// as given when the first one is not one of Bend's commands.
  std::vector<std::string> args;
  /// Set when the command cannot be followed: what to tell the user (a
  /// command-line error, exit code 2).
  std::string error;
};

/// Translates `args` (argv, the program name first).
BendCommandLine translateBendCommandLine(llvm::ArrayRef<const char *> args);

} // namespace bendc
