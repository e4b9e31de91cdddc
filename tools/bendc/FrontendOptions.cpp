// The frontend's command-line options. They live here, linked into bendc,
// so the driver only asks for a FrontendOptions.
#include "FrontendOptions.h"

#include "llvm/Support/raw_ostream.h"

#include <algorithm>

using namespace llvm;

namespace bendc {

cl::OptionCategory &frontendOptionCategory() {
  static cl::OptionCategory category("bendc frontend options");
  return category;
}

namespace {

// As in Bend: -W warns, -A allows, -D denies; `all` names Bend's warnings.
cl::list<std::string> warnNames("W", cl::Prefix, cl::desc("Report the named warning"),
                                cl::value_desc("warning"), cl::cat(frontendOptionCategory()));
cl::list<std::string> allowNames("A", cl::Prefix, cl::desc("Do not report the named warning"),
                                 cl::value_desc("warning"), cl::cat(frontendOptionCategory()));
cl::list<std::string> denyNames("D", cl::Prefix, cl::desc("Turn the named warning into an error"),
                                cl::value_desc("warning"), cl::cat(frontendOptionCategory()));

// Bend's optimisation switches that are not listed above: -O<name> and
// -Ono-<name> for eta, prune, float-combinators, merge, linearize-matches
// (also -Olinearize-matches-alt and -Olinearize-matches=enabled|alt|disabled),
// inline, check-net-size, and all; and bendc's own sharing (on by default).
// One text for --help and for the error on an unknown switch (cl::desc
// keeps a reference: the text must outlive the option).
#define BENDC_OPT_SWITCHES                                                                       \
  "eta, prune, float-combinators, merge, linearize-matches[-alt], inline, check-net-size, "     \
  "type-check, all, and bendc's sharing (each also as no-<name>); adt-scott or adt-num-scott "  \
  "(the default) for the encoding of types"
constexpr const char *OptSwitchList = BENDC_OPT_SWITCHES;
cl::list<std::string> optSwitches("O", cl::Prefix, cl::desc("Bend's -O switches: " BENDC_OPT_SWITCHES),
                                  cl::value_desc("switch"), cl::cat(frontendOptionCategory()));
#undef BENDC_OPT_SWITCHES

// As Bend's -e: the definition to start from instead of main.
cl::opt<std::string> entryPoint("entrypoint", cl::desc("The definition to run instead of main (also -e)"),
                                cl::value_desc("name"), cl::cat(frontendOptionCategory()));
cl::alias entryPointShort("e", cl::aliasopt(entryPoint), cl::desc("Alias for --entrypoint"),
                          cl::cat(frontendOptionCategory()));

enum class DiagFormat { Text, Json };
cl::opt<DiagFormat> diagFormat(
    "diagnostics-format", cl::desc("How diagnostics are printed"), cl::init(DiagFormat::Text),
    cl::values(clEnumValN(DiagFormat::Text, "text", "file:line:col: messages on stderr"),
               clEnumValN(DiagFormat::Json, "json", "JSON Lines (LSP diagnostics) on stdout")),
    cl::cat(frontendOptionCategory()));

} // namespace

frontend::FrontendOptions frontendOptionsFromCommandLine(StringRef emitStage) {
  frontend::FrontendOptions opts;
  opts.entryPoint = entryPoint;
  if (emitStage == "tokens")
    opts.emit = frontend::EmitStage::Tokens;
  else if (emitStage == "ast")
    opts.emit = frontend::EmitStage::Ast;
  else if (emitStage == "core")
    opts.emit = frontend::EmitStage::Core;
  // -Osharing is bendc's own; like Bend's switches, a later one wins.
  for (const std::string &raw : optSwitches) {
    StringRef name = raw;
    if (name == "adt-scott" || name == "adt-num-scott") {
      opts.encoding = name == "adt-scott" ? core::AdtEncoding::Scott : core::AdtEncoding::NumScott;
      continue;
    }
    bool on = !name.consume_front("no-");
    if (name == "sharing" || name == "all")
      opts.sharing = on;
    else if (name == "type-check")
      opts.typeCheck = on;
  }
  // The command line's order decides: a later -A overrides an earlier -D.
  std::vector<std::tuple<unsigned, std::string, WarningAction>> all;
  auto collect = [&](cl::list<std::string> &list, WarningAction action) {
    for (unsigned i = 0; i < list.size(); ++i)
      all.emplace_back(list.getPosition(i), list[i], action);
  };
  collect(warnNames, WarningAction::Warn);
  collect(allowNames, WarningAction::Allow);
  collect(denyNames, WarningAction::Deny);
  std::sort(all.begin(), all.end(),
            [](const auto &a, const auto &b) { return std::get<0>(a) < std::get<0>(b); });
  for (auto &[pos, name, action] : all)
    opts.warnings.emplace_back(name, action);
  return opts;
}

lowering::CompileOptions compileOptionsFromCommandLine(std::vector<std::string> &unknown,
                                                       bool checkNetSize) {
  lowering::CompileOptions opts;
  opts.checkNetSize = checkNetSize;
  if (!entryPoint.empty())
    opts.entryName = entryPoint;
  using hir::MatchLinearization;
  for (const std::string &raw : optSwitches) {
    StringRef name = raw;
    bool on = !name.consume_front("no-");
    if (name == "eta")
      opts.eta = on;
    else if (name == "prune")
      opts.prune = on;
    else if (name == "float-combinators")
      opts.floatCombinators = on;
    else if (name == "merge")
      opts.merge = on;
    else if (name == "linearize-matches")
      opts.linearizeMatches = on ? MatchLinearization::Enabled : MatchLinearization::Disabled;
    else if (name == "linearize-matches-alt" || name == "linearize-matches=alt")
      opts.linearizeMatches = on ? MatchLinearization::Alt : MatchLinearization::Disabled;
    else if (name == "linearize-matches=enabled" && on)
      opts.linearizeMatches = MatchLinearization::Enabled;
    else if (name == "linearize-matches=disabled" && on)
      opts.linearizeMatches = MatchLinearization::Disabled;
    else if (name == "sharing" || name == "type-check" || raw == "adt-scott" ||
             raw == "adt-num-scott")
      ; // frontend switches (frontendOptionsFromCommandLine)
    else if (name == "inline")
      opts.inlineDefinitions = on;
    else if (name == "check-net-size")
      opts.checkNetSize = on;
    else if (name == "all") {
      // As in Bend, -Oall and -Ono-all leave -Ocheck-net-size as it is.
      opts.eta = opts.prune = opts.floatCombinators = opts.merge = opts.inlineDefinitions = on;
      opts.linearizeMatches = on ? MatchLinearization::Enabled : MatchLinearization::Disabled;
    } else
      unknown.push_back("-O" + raw);
  }
  return opts;
}

std::vector<std::string> unknownWarningNames() {
  std::vector<std::string> unknown;
  for (auto *list : {&warnNames, &allowNames, &denyNames})
    for (const std::string &name : *list)
      if (warningKindsNamed(name).empty())
        unknown.push_back(name);
  return unknown;
}

llvm::StringRef optSwitchList() { return OptSwitchList; }

bool diagnosticsAsJson() { return diagFormat == DiagFormat::Json; }

void renderDiagnostics(const DiagnosticEngine &diags) {
  if (diagnosticsAsJson()) {
    diags.renderJson(outs());
    outs().flush();
    return;
  }
  diags.renderText(errs());
}

} // namespace bendc
