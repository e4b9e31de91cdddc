#include "BendCommands.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringSwitch.h"

namespace bendc {

namespace {

struct Mode {
  bool known = false;
  std::vector<std::string> options; // what the command means in bendc's options
  std::string unavailable;          // why bendc cannot do it, if it cannot
};

Mode modeOf(llvm::StringRef command) {
  Mode m;
  m.known = true;
  if (command == "check")
    m.options = {"--check"};
  else if (command == "gen-hvm")
    // Bend reduces η only for the C runtime (run-c, gen-c).
    m.options = {"--emit=hvm", "-Ono-eta"};
  else if (command == "run" || command == "run-c")
    m.options = {"--run", "--backend=cpu"};
  else if (command == "run-rs")
    m.options = {"--run", "--backend=cpu", "-Ono-eta"};
  else if (command == "run-cu")
    m.options = {"--run", "--backend=cuda", "-Ono-eta"};
  else if (command == "desugar")
    m.options = {"--emit=core", "-Ono-eta"};
  else if (command == "gen-c" || command == "gen-cu")
    m.unavailable = "bendc does not generate " + std::string(command == "gen-c" ? "C" : "CUDA") +
                    " programs: it reduces the net itself ('bendc run-c FILE', or 'bendc --run "
                    "FILE') or writes the book for HVM2 ('bendc FILE -o FILE.hvm')";
  else
    m.known = false;
  return m;
}

/// Bend's switches that take a value, with bendc's spelling: the value is
/// appended to it (`-O` `all` is `-Oall`; `-e` `foo` is `--entrypoint=foo`).
llvm::StringRef valueSwitch(llvm::StringRef arg) {
  return llvm::StringSwitch<llvm::StringRef>(arg)
      .Cases("-O", "--opt", "-O")
      .Cases("-W", "--warn", "-W")
      .Cases("-A", "--allow", "-A")
      .Cases("-D", "--deny", "-D")
      .Cases("-e", "--entrypoint", "--entrypoint=")
      .Default("");
}

} // namespace

BendCommandLine translateBendCommandLine(llvm::ArrayRef<const char *> args) {
  BendCommandLine out;
  for (const char *a : args)
    out.args.push_back(a);
  if (args.size() < 2)
    return out;
  llvm::StringRef command = args[1];
  Mode mode = modeOf(command);
  if (!mode.known)
    return out;
  if (!mode.unavailable.empty()) {
    out.error = mode.unavailable;
    return out;
  }
  std::vector<std::string> translated{args[0]};
  translated.insert(translated.end(), mode.options.begin(), mode.options.end());
  std::vector<std::string> positional;
  bool onlyPositional = false;
  for (size_t k = 2; k < args.size(); ++k) {
    llvm::StringRef arg = args[k];
    if (onlyPositional || arg == "-" || !arg.startswith("-")) {
      positional.push_back(arg.str());
      continue;
    }
    if (arg == "--") {
      onlyPositional = true;
      continue;
    }
    // `--name=value` and `-Xvalue` for the switches that take a value.
    auto [name, inlineValue] = arg.split('=');
    if (!arg.startswith("--") && arg.size() > 2 && !valueSwitch(arg.take_front(2)).empty()) {
      name = arg.take_front(2);
      inlineValue = arg.drop_front(2);
    }
    if (llvm::StringRef prefix = valueSwitch(name); !prefix.empty()) {
      std::string value = inlineValue.str();
      if (value.empty()) {
        if (k + 1 == args.size()) {
          out.error = "'" + name.str() + "' needs a value";
          return out;
        }
        value = args[++k];
      }
      // Bend takes several names in one value, separated by spaces.
      llvm::SmallVector<llvm::StringRef, 4> names;
      llvm::StringRef(value).split(names, ' ', -1, /*KeepEmpty=*/false);
      for (llvm::StringRef n : names)
        translated.push_back(prefix.str() + n.str());
      continue;
    }
    if (arg == "--stats") {
      translated.push_back("--stats");
      continue;
    }
    if (arg == "--verbose")
      continue; // bendc's diagnostics say as much as Bend's verbose ones
    if (arg == "--hvm-bin") {
      ++k; // bendc reduces the net itself: it needs no HVM2 binary
      continue;
    }
    if (arg.startswith("--hvm-bin="))
      continue;
    // A cluster of Bend's one-letter flags: -s, -v, -p, -l.
    if (!arg.startswith("--") && llvm::all_of(arg.drop_front(), [](char c) {
          return c == 's' || c == 'v' || c == 'p' || c == 'l';
        })) {
      for (char c : arg.drop_front()) {
        if (c == 's')
          translated.push_back("--stats");
        else if (c == 'p' && command == "desugar")
          out.error = "Bend's 'desugar -p' (the desugared book over several lines) is not "
                      "available in bendc; leave -p out to get it one definition a line";
        else if (c == 'p')
          translated.push_back("--pretty");
        else if (c == 'l')
          translated.push_back("--linear");
      }
      if (!out.error.empty())
        return out;
      continue;
    }
    // Anything else is one of bendc's own options, or an error it reports.
    translated.push_back(arg.str());
  }
  // Program arguments may start with '-': they follow `--`.
  if (!positional.empty()) {
    translated.push_back(positional.front());
    if (positional.size() > 1) {
      translated.push_back("--");
      translated.insert(translated.end(), positional.begin() + 1, positional.end());
    }
  }
  out.args = std::move(translated);
  return out;
}

} // namespace bendc
