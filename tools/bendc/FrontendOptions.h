// Command-line options that only the .bend frontend uses.
#pragma once

#include "frontend/Frontend.h"
#include "lowering/Compile.h"

#include "llvm/Support/CommandLine.h"

namespace bendc {

/// The category the frontend's options are listed under in --help.
llvm::cl::OptionCategory &frontendOptionCategory();

/// FrontendOptions from `-Oadt-*`, `-W/-A/-D NAME` and the `--emit` stage
/// (tokens, ast, core; any other stage leaves emit at None).
frontend::FrontendOptions frontendOptionsFromCommandLine(llvm::StringRef emitStage);

/// CompileOptions from Bend's -O switches (`-Oeta`, `-Ono-eta`, `-Oall`, ...),
/// applied in command-line order, and the entry point (-e). Unknown switches
/// are returned in `unknown`. `checkNetSize` is the default of
/// -Ocheck-net-size: on where the book is for HVM2 (-o, --check), off for
/// bendc's own runtime.
lowering::CompileOptions compileOptionsFromCommandLine(std::vector<std::string> &unknown,
                                                       bool checkNetSize);

/// The names -O takes, for messages.
llvm::StringRef optSwitchList();

/// `--diagnostics-format=json`: JSON Lines on stdout instead of text on stderr.
bool diagnosticsAsJson();

/// Renders diagnostics as the command line asked.
void renderDiagnostics(const DiagnosticEngine &diags);

/// Warning names given to -W/-A/-D that name no warning.
std::vector<std::string> unknownWarningNames();

} // namespace bendc
