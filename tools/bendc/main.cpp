// The bendc command line: compile Bend or .hvm to a net book, run it, check it.
// Only this file decides what is printed and which exit code is returned:
//   0 success, 1 errors in the input, 2 bad command line,
//   3 out of resources (memory, GPU), 4 the net broke a runtime invariant,
//   130 interrupted (Ctrl-C).
#include "BendCommands.h"
#include "FrontendOptions.h"
#include "frontend/Frontend.h"
#include "frontend/hvm/HvmReader.h"
#include "ir/NetPrinter.h"
#include "lowering/Compile.h"
#include "lowering/NetDot.h"
#include "lowering/Polarize.h"
#include "lowering/PolarizedPrinter.h"
#include "readback/Readback.h"
#include "runtime/Runtime.h"
#include "runtime/dist/Mpi.h"
#include "support/Diagnostic.h"
#include "support/Heap.h"
#include "support/LargeStack.h"
#include "support/PhaseTimer.h"
#include "tools/lsp/LanguageServer.h"

#include "llvm/Support/BuryPointer.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <atomic>
#include <cinttypes>
#include <csignal>
#include <cstdio>
#include <fcntl.h>
#include <optional>
#include <thread>
#include <unistd.h>

using namespace llvm;
using namespace bendc;

namespace {

cl::OptionCategory category("bendc options");

cl::opt<std::string> inputPath(cl::Positional, cl::desc("<input .bend or .hvm>"), cl::Required,
                               cl::cat(category));
// Arguments for the program itself; put them after `--` when they start with '-'.
cl::list<std::string> programArgs(cl::Positional, cl::desc("[program arguments...]"), cl::cat(category));
cl::opt<std::string> outputPath("o", cl::desc("Write the compiled net book (.hvm) to <file>"),
                                cl::value_desc("file"), cl::cat(category));
cl::opt<bool> runFlag("run", cl::desc("Reduce the program and print its result"), cl::cat(category));
// Handled before the command line is parsed: the server takes no input file.
cl::opt<bool> lspFlag("lsp", cl::desc("Serve the Language Server Protocol on stdin and stdout (for editors)"),
                      cl::cat(category));
cl::opt<bool> linearFlag("linear",
                         cl::desc("Show the result's duplications as 'let {a b} = x;' instead of reading "
                                  "through them (also -l)"),
                         cl::cat(category));
cl::opt<bool> prettyFlag("pretty",
                         cl::desc("Print the result over several lines: a line per 'let', per "
                                  "switch arm (also -p)"),
                         cl::cat(category));
cl::alias prettyShort("p", cl::aliasopt(prettyFlag), cl::desc("Alias for --pretty"), cl::cat(category));
cl::alias linearShort("l", cl::aliasopt(linearFlag), cl::desc("Alias for --linear"), cl::cat(category));
cl::opt<bool> checkFlag("check", cl::desc("Check the program and report diagnostics only"),
                        cl::cat(category));
cl::opt<bool> verifyEachFlag("verify-each",
                             cl::desc("Verify Core, the HIR after every pass and the net (a failure "
                                      "is a bug in bendc); also BENDC_VERIFY_PASSES=1"),
                             cl::cat(category));
cl::opt<std::string> emitStage("emit",
                               cl::desc("Print an intermediate form: tokens, ast, core, hir, net (polarized), "
                                        "hvm, dot (Graphviz)"),
                               cl::value_desc("stage"), cl::cat(category));
cl::opt<unsigned> threadCount("threads",
                              cl::desc("CPU worker threads (default, or 0: every hardware thread)"),
                              cl::init(0), cl::cat(category));
cl::opt<bool> quietFlag("quiet", cl::desc("No progress line on the terminal during long runs (also -q)"),
                        cl::cat(category));
cl::alias quietShort("q", cl::aliasopt(quietFlag), cl::desc("Alias for --quiet"), cl::cat(category));
cl::opt<std::string> memSize("mem", cl::desc("Memory for the net, e.g. 512M or 4G (default: half of RAM)"),
                             cl::value_desc("size"), cl::cat(category));
cl::opt<bool> timePhasesFlag("time-phases",
                             cl::desc("Print the wall and CPU time of each compile phase on stderr"),
                             cl::cat(category));
cl::opt<bool> distributedFlag(
    "distributed",
    cl::desc("Reduce over the processes of an MPI job: mpirun -np N bendc --run FILE --distributed "
             "(rank 0 prints; one thread each)"),
    cl::cat(category));
cl::opt<uint64_t> distRoundFlag(
    "dist-round",
    cl::desc("With --distributed: the most redexes a process reduces between two exchanges of "
             "messages (default 16384; small rounds spread even a small net)"),
    cl::value_desc("redexes"), cl::init(0), cl::cat(category));
cl::opt<bool> spanFlag("span",
                       cl::desc("Measure the run's longest chain of interactions that each need the one "
                                "before, and print it with the statistics (one CPU thread, 2 to 3 times "
                                "slower)"),
                       cl::cat(category));
// Created in main(): LLVM's Support library owns an option named `stats` too.
cl::opt<bool> *statsFlag = nullptr;
cl::opt<rt::Backend> backendOpt(
    "backend", cl::desc("Where to reduce"), cl::init(rt::Backend::Auto),
    cl::values(clEnumValN(rt::Backend::Auto, "auto", "the GPU when present, else CPU threads"),
               clEnumValN(rt::Backend::Cpu, "cpu", "CPU threads"),
               clEnumValN(rt::Backend::Cuda, "cuda", "an NVIDIA GPU (fails without one)")),
    cl::cat(category));

enum ExitCode { ExitOk = 0, ExitInputError = 1, ExitUsage = 2 };

/// How many subterms sharing recovery bound (for --stats).
unsigned sharedSubterms = 0;

/// This process's rank in a --distributed job; only rank 0 prints and writes.
unsigned jobRank = 0;

void printStats(const rt::RunStats &s) {
  static const char *const names[] = {
#define BENDC_RULE_NAME(Name, Text, Doc) Text,
      BENDC_RULES(BENDC_RULE_NAME)
#undef BENDC_RULE_NAME
  };
  outs() << "- ITRS: " << s.interactions << "\n";
  for (unsigned r = 0; r < rt::RuleCount; ++r)
    outs() << "  - " << names[r] << ": " << s.byRule[r] << "\n";
  // Short runs in ms or µs, so that a fast run does not read as 0.
  if (s.seconds >= 1)
    outs() << format("- TIME: %.3f s\n", s.seconds);
  else if (s.seconds >= 1e-3)
    outs() << format("- TIME: %.3f ms\n", s.seconds * 1e3);
  else
    outs() << format("- TIME: %.1f µs\n", s.seconds * 1e6);
  if (s.seconds > 0)
    outs() << format("- MIPS: %.2f\n", double(s.interactions) / s.seconds / 1e6);
  outs() << "- THREADS: " << s.threads << "\n";
  // The work over the span: how many threads the run could keep busy.
  if (s.span)
    outs() << "- SPAN: " << s.span
           << format(" interactions (parallelism %.2f)\n", double(s.interactions) / double(s.span));
  // Each thread's interactions, then how long it waited for work: threads
  // that did unequal shares in the same time ran at unequal speeds.
  if (s.perThread.size() > 1) {
    outs() << "- PER THREAD:";
    for (const rt::RunStats::ThreadShare &t : s.perThread)
      outs() << " " << t.interactions;
    outs() << " interactions; waited";
    for (const rt::RunStats::ThreadShare &t : s.perThread)
      outs() << format(" %.1f", t.waitSeconds * 1e3);
    outs() << " ms\n";
  }
  // A node takes two 8-byte slots and a byte of bookkeeping.
  uint64_t bytes = s.peakNodes * 17;
  outs() << "- NODES: " << s.peakNodes << " ("
         << (bytes >= (uint64_t(1) << 20) ? std::to_string(bytes >> 20) + " MiB"
                                          : std::to_string((bytes + 1023) >> 10) + " KiB")
         << " at the peak)\n";
  outs() << "- BACKEND: " << s.backend << "\n";
  if (s.ioCalls)
    outs() << "- IO CALLS: " << s.ioCalls << "\n";
  if (const rt::RunStats::Distribution &d = s.distribution; d.ranks) {
    outs() << "- RANKS: " << d.ranks << " (" << d.rounds << " rounds)\n";
    outs() << "- CROSS-RANK: " << d.messages << " messages, " << d.bytes << " bytes (" << d.links
           << " links, " << d.redexesRouted << " redexes routed, " << d.nodesMoved
           << " nodes moved, " << d.redexesShared << " shared)\n";
  }
  if (sharedSubterms)
    outs() << "- SHARED: " << sharedSubterms << "\n";
}

/// Set by the first Ctrl-C; the run stops, flushes what the program wrote
/// and exits with 130. A second Ctrl-C kills bendc at once.
std::atomic<bool> interrupted{false};

void onInterrupt(int) { interrupted.store(true); }

void catchInterrupts() {
  struct sigaction action = {};
  action.sa_handler = onInterrupt;
  sigemptyset(&action.sa_mask);
  // No SA_RESTART: a read of stdin or a sleep returns so the run can stop.
  action.sa_flags = SA_RESETHAND;
  sigaction(SIGINT, &action, nullptr);
}

/// Runs `book` and prints its result: as HVM2 prints it, or as `show`
/// gives it (which may print warnings first).
int runBook(const rt::Book &book,
            llvm::function_ref<std::string(rt::ResultTree &&)> show = nullptr) {
  rt::RunOptions options;
  options.backend = backendOpt;
  options.threads = threadCount;
  options.distributed = distributedFlag;
  options.roundRedexes = distRoundFlag;
  options.span = spanFlag;
  if (spanFlag && (threadCount > 1 || backendOpt == rt::Backend::Cuda || distributedFlag)) {
    errs() << "bendc: error: --span measures a run on one CPU thread; drop "
           << (threadCount > 1   ? "--threads"
               : distributedFlag ? "--distributed"
                                 : "--backend=cuda")
           << "\n";
    return ExitUsage;
  }
  if (spanFlag)
    options.backend = rt::Backend::Cpu;
  if (threadCount > rt::MaxCpuThreads) {
    errs() << "bendc: error: --threads " << threadCount << " is more than the " << rt::MaxCpuThreads
           << " this bendc runs\n";
    return ExitUsage;
  }
  // More workers than hardware threads only take turns on them: a person at
  // a terminal is told (a script asking for that on purpose, as the tests
  // do, is not).
  if (unsigned hardware = std::thread::hardware_concurrency();
      hardware && threadCount > hardware && isatty(STDERR_FILENO))
    errs() << "bendc: warning: --threads " << threadCount << " is more than the " << hardware
           << " hardware threads of this machine; the extra threads slow the run down\n";
  if (!memSize.empty() && !rt::parseMemSize(memSize, options.memBytes)) {
    errs() << "bendc: error: invalid --mem size '" << memSize << "' (examples: 512M, 4G)\n";
    return ExitUsage;
  }
  options.progress = !quietFlag && isatty(STDERR_FILENO);
  options.cancel = &interrupted;
  catchInterrupts();
  // What bendc printed so far comes before what the program prints.
  outs().flush();
  errs().flush();
  rt::RunResult r = options.distributed ? rt::dist::runDistributed(book, options) : rt::run(book, options);
  if (r.status != rt::RunStatus::Ok) {
    outs().flush();
    errs() << "bendc: error: " << r.message << "\n";
    // What an interrupted run did so far.
    if (r.status == rt::RunStatus::Interrupted && *statsFlag)
      printStats(r.stats);
    return rt::exitCodeFor(r.status);
  }
  std::string shown;
  if (show) {
    shown = show(std::move(r.normalForm));
  } else {
    shown = net::resultText(r.normalForm, book.names);
  }
  outs() << (prettyFlag ? "Result:\n" : "Result: ") << shown << "\n"; // as Bend prints each
  if (*statsFlag || spanFlag)
    printStats(r.stats);
  return ExitOk;
}

/// What a verifier found: a bug in bendc, not in the program.
int reportInternalErrors(const std::vector<std::string> &problems) {
  for (const std::string &problem : problems)
    errs() << "bendc: internal error: " << problem << "\n";
  errs() << "bendc: this is a bug in bendc, not in the program; please report it with the "
            "program that shows it\n";
  return rt::exitCodeFor(rt::RunStatus::Fault);
}

int finishWithDiagnostics(DiagnosticEngine &diags) {
  renderDiagnostics(diags);
  return diags.hasErrors() ? ExitInputError : ExitOk;
}

bool writeHvmFile(const net::Book &book) {
  if (jobRank != 0)
    return true; // every process of the job compiled the same book
  std::error_code ec;
  ToolOutputFile out(outputPath, ec, sys::fs::OF_Text);
  if (ec) {
    errs() << "bendc: error: cannot write '" << outputPath << "': " << ec.message() << "\n";
    return false;
  }
  // A large book is megabytes of text: written in large pieces, not in the
  // file system's block size (3 300 system calls for a 13 MB book).
  out.os().SetBufferSize(size_t(1) << 20);
  net::printBook(out.os(), book);
  out.keep();
  return true;
}

/// Prints the net stage --emit asks for (hvm, net or dot); false for any other.
/// `book` is null for a book without an entry point (-Amissing-main).
bool printNetStage(const net::Book &netBook, const rt::Book *book,
                   ArrayRef<StringRef> drawOnly = {}) {
  if (emitStage == "hvm")
    net::printBook(outs(), netBook);
  else if (emitStage == "net" && book)
    lowering::printPolarizedBook(outs(), *book);
  else if (emitStage == "dot")
    lowering::printDot(outs(), netBook, drawOnly);
  else
    return false;
  return true;
}

int runHvmInput(SourceMgr &sources, unsigned buffer, DiagnosticEngine &diags) {
  if (!programArgs.empty()) {
    errs() << "bendc: error: program arguments ('" << programArgs.front()
           << "'...) apply to a Bend program's main; a .hvm book takes none\n";
    return ExitUsage;
  }
  std::optional<net::Book> netBook = hvm::readBook(sources, buffer, diags);
  if (!netBook || diags.hasErrors())
    return finishWithDiagnostics(diags);
  std::optional<rt::Book> book = lowering::polarize(*netBook, diags);
  if (!book || diags.hasErrors())
    return finishWithDiagnostics(diags);
  renderDiagnostics(diags); // warnings, if any

  if (printNetStage(*netBook, &*book))
    return ExitOk;
  if (!emitStage.empty()) {
    errs() << "bendc: error: --emit=" << emitStage
           << " is not available for .hvm input (use hvm, net or dot)\n";
    return ExitUsage;
  }
  if (!outputPath.empty()) {
    if (!writeHvmFile(*netBook))
      return ExitInputError;
    if (!runFlag)
      return ExitOk;
  }
  if (checkFlag)
    return ExitOk;
  return runBook(*book);
}

// The estimates are the low end of what programs take (so that little is
// filled for nothing): after parsing, 4 times the syntax trees (the rest
// of the frontend and lowering); after the frontend, twice the Core
// program (lowering alone), for programs whose Core outgrows their syntax
// (a long string literal). On the 4 MB generated program the compile then
// takes 217 MiB at its peak, 160 MiB of it (four times its 40 MiB of syntax
// trees) filled at once; filling more ahead is memory it never uses.
constexpr size_t kBytesPerSyntaxByte = 4;
constexpr size_t kBytesPerCoreByte = 2;

// The .bend entry: source to Core, Core to nets, then run or write them.
int runBendInput(SourceMgr &sources, unsigned buffer, DiagnosticEngine &diags) {
  for (const std::string &name : unknownWarningNames()) {
    errs() << "bendc: error: unknown warning '" << name << "' (warnings:";
    for (StringRef known : warningNames())
      errs() << " " << known;
    errs() << ")\n";
    return ExitUsage;
  }
  std::vector<std::string> unknownSwitches;
  // The limit of HVM2's C runtime matters for a book written for it, or
  // checked as Bend checks it; bendc's own runtime has none.
  bool forHvm = !outputPath.empty() || checkFlag;
  lowering::CompileOptions compileOpts = compileOptionsFromCommandLine(unknownSwitches, forHvm);
  for (const std::string &name : unknownSwitches) {
    errs() << "bendc: error: unknown option '" << name
           << "' (switches: " << optSwitchList() << ")\n";
    return ExitUsage;
  }
  // As `bend run` says before it runs: without these passes, recursion
  // may unfold without end.
  if (runFlag && !checkFlag) {
    if (!compileOpts.floatCombinators)
      outs() << "Warning: Running in strict mode without enabling the float_combinators pass can "
                "lead to some functions expanding infinitely.\n";
    if (compileOpts.linearizeMatches == hir::MatchLinearization::Disabled)
      outs() << "Warning: Running in strict mode without enabling the linearize_matches pass can "
                "lead to some functions expanding infinitely.\n";
  }
#ifndef NDEBUG
  compileOpts.verifyEachPass = true;
#endif
  if (verifyEachFlag || getenv("BENDC_VERIFY_PASSES"))
    compileOpts.verifyEachPass = true;
  compileOpts.keepFunctions = emitStage == "hir";
  frontend::FrontendOptions opts = frontendOptionsFromCommandLine(emitStage);
  opts.mainArgs.assign(programArgs.begin(), programArgs.end());
  // As `bend run` does, running shows no compile warnings unless asked for.
  if (runFlag && !checkFlag)
    opts.warnings.insert(opts.warnings.begin(), {"all", WarningAction::Allow});
  bool frontendStage = opts.emit != frontend::EmitStage::None;
  bool backendStage =
      emitStage == "hir" || emitStage == "net" || emitStage == "hvm" || emitStage == "dot";
  if (!emitStage.empty() && !frontendStage && !backendStage) {
    errs() << "bendc: error: --emit=" << emitStage
           << " is not a stage (tokens, ast, core, hir, net, hvm, dot)\n";
    return ExitUsage;
  }
  if (!frontendStage && !compileOpts.prune)
    opts.parsed = [](size_t syntaxBytes) { prepareHeap(syntaxBytes * kBytesPerSyntaxByte); };
  opts.verify = compileOpts.verifyEachPass;
  frontend::FrontendResult result = frontend::runFrontendOnBuffer(sources, buffer, opts, diags);
  sharedSubterms = result.shared;
  outs() << result.emitted;
  if (!result.internalErrors.empty()) {
    renderDiagnostics(diags);
    return reportInternalErrors(result.internalErrors);
  }
  if (diags.hasErrors() || !result.program) {
    renderDiagnostics(diags);
    return diags.hasErrors() ? ExitInputError : ExitOk;
  }
  if (frontendStage) {
    renderDiagnostics(diags);
    return ExitOk;
  }
  // The process ends right after this: its memory goes back to the system at
  // once rather than object by object (a large program has millions).
  const core::Program &program = *result.program;
  if (!compileOpts.prune) // pruning may leave little of a large program
    prepareHeap(program.arena.getBytesAllocated() * kBytesPerCoreByte);
  llvm::BuryPointer(std::move(result.program));
  auto kept = std::make_unique<lowering::CompileResult>(
      lowering::compileToBook(program, compileOpts, diags));
  lowering::CompileResult &compiled = *kept;
  llvm::BuryPointer(std::move(kept));
  renderDiagnostics(diags);
  if (!compiled.internalErrors.empty())
    return reportInternalErrors(compiled.internalErrors);
  if (diags.hasErrors())
    return ExitInputError;
  if (emitStage == "hir") {
    hir::printModule(outs(), *compiled.hir);
    return ExitOk;
  }
  // A drawing shows the program's own definitions; the prelude's would drown them.
  std::vector<StringRef> mine;
  for (const hir::Function &fn : compiled.hir->functions())
    if (!fn.builtin && emitStage == "dot")
      mine.push_back(fn.name == compiled.hir->entry ? StringRef("main") : fn.name);
  if (printNetStage(compiled.net, compiled.book ? &*compiled.book : nullptr, mine))
    return ExitOk;
  if (!outputPath.empty()) {
    PhaseTimer timer("write-hvm", "Writing the .hvm book");
    if (!writeHvmFile(compiled.net))
      return ExitInputError;
    if (!runFlag)
      return ExitOk;
  }
  if (checkFlag)
    return ExitOk;
  if (!compiled.book) {
    // -Amissing-main accepts a file without main for -o and --check only.
    errs() << "bendc: error: '" << inputPath << "' has no definition of '"
           << compileOpts.entryName << "' to run\n";
    return ExitInputError;
  }
  return runBook(*compiled.book, [&](rt::ResultTree &&normalForm) {
    readback::Result shown = readback::toBend(std::move(normalForm), compiled.book->names, compiled.net, program,
                                              {linearFlag, prettyFlag});
    if (!shown.warnings.empty()) {
      // As `bend run` reports them, on stderr before the result.
      outs().flush();
      errs() << "Warnings:\nDuring readback:\n";
      for (const std::string &w : shown.warnings)
        errs() << "  " << w << "\n";
      errs() << "\n";
    }
    return shown.text;
  });
}

/// The command-line parser's complaints, with its "did you mean" kept only
/// where the name it offers is close to the one given, and a word on `--`
/// for a program argument that looks like an option (a negative number).
std::string explainParseErrors(StringRef text) {
  SmallVector<StringRef, 8> lines;
  text.split(lines, '\n', -1, /*KeepEmpty=*/false);
  std::string out;
  StringRef unknown;
  // getAsDouble is false when the text is a number.
  double number;
  auto negativeNumber = [&](StringRef arg) {
    return arg.size() > 1 && arg.front() == '-' && !arg.drop_front().getAsDouble(number);
  };
  for (StringRef line : lines) {
    if (size_t at = line.find("Unknown command line argument '"); at != StringRef::npos) {
      unknown = line.substr(at + 31).take_until([](char c) { return c == '\''; });
      out += "bendc: error: unknown option '" + unknown.str() + "' (see 'bendc --help')\n";
      if (negativeNumber(unknown))
        out += "bendc: note: program arguments that start with '-' go after '--': bendc --run "
               "FILE -- " + unknown.str() + "\n";
      continue;
    }
    if (size_t at = line.find("Did you mean '"); at != StringRef::npos) {
      StringRef offered = line.substr(at + 14).take_until([](char c) { return c == '\''; });
      StringRef given = unknown.ltrim('-'), name = offered.ltrim('-');
      if (!negativeNumber(unknown) && !given.empty() &&
          given.edit_distance(name) <= std::max<unsigned>(2, unsigned(given.size()) / 4))
        out += "bendc: note: did you mean '" + offered.str() + "'?\n";
      continue;
    }
    out += line.str() + "\n";
  }
  return out;
}

} // namespace

int main(int argc, char **argv) {
  // The compile phases recurse over terms, on 1 GiB stacks: a literal of
  // millions of elements can still use one up.
  exitOnStackExhaustion("bendc: error: the program nests too deeply to compile: the compiler "
                        "ran out of stack (a list or string literal of millions of elements "
                        "nests that deep; build such data with a loop instead)\n",
                        ExitInputError);
  tuneHeapForCompiling();
  // Give `--stats` to bendc: LLVM's own statistics switch is renamed and hidden.
  if (cl::Option *llvmStats = cl::getRegisteredOptions().lookup("stats")) {
    llvmStats->setArgStr("llvm-stats");
    llvmStats->setHiddenFlag(cl::ReallyHidden);
  }
  static cl::opt<bool> stats("stats", cl::desc("Print interaction counts, time and MIPS (also -s)"),
                             cl::cat(category));
  static cl::alias statsShort("s", cl::aliasopt(stats), cl::desc("Alias for --stats"), cl::cat(category));
  statsFlag = &stats;
  cl::HideUnrelatedOptions({&category, &frontendOptionCategory()});
  // `--stdio` is what editor clients add to say how they talk to the server.
  for (int i = 1; i < argc; ++i)
    if (StringRef(argv[i]) == "--lsp")
      return lsp::runLanguageServer();
  cl::SetVersionPrinter([](raw_ostream &os) { os << "bendc 0.1.0\n"; });
  // `bendc run-c prog.bend` and Bend's other commands mean what they mean to `bend`.
  BendCommandLine bendLine = translateBendCommandLine(ArrayRef<const char *>(argv, size_t(argc)));
  if (!bendLine.error.empty()) {
    errs() << "bendc: error: " << bendLine.error << "\n";
    return ExitUsage;
  }
  std::vector<const char *> args;
  for (const std::string &a : bendLine.args)
    args.push_back(a.c_str());
  std::string parseErrors;
  raw_string_ostream parseErrorStream(parseErrors);
  if (!cl::ParseCommandLineOptions(int(args.size()), args.data(),
                                   "bendc: compile Bend programs to interaction nets and run them\n"
                                   "\n  Bend's commands work too: bendc check|gen-hvm|run|run-c|"
                                   "run-rs|run-cu|desugar FILE\n",
                                   &parseErrorStream)) {
    errs() << explainParseErrors(parseErrorStream.str());
    return ExitUsage;
  }

  if (distributedFlag && backendOpt == rt::Backend::Cuda) {
    errs() << "bendc: error: --distributed reduces on the CPUs of an MPI job's processes; it "
              "does not take --backend=cuda\n";
    return ExitUsage;
  }
  if (distributedFlag) {
    // Every process compiles the program; rank 0 alone speaks.
    rt::dist::Process job = rt::dist::joinJob(argv);
    if (!job.error.empty()) {
      errs() << "bendc: error: --distributed: " << job.error << "\n";
      return rt::exitCodeFor(rt::RunStatus::NoMpi);
    }
    jobRank = job.rank;
    if (jobRank != 0) {
      int quiet = open("/dev/null", O_WRONLY);
      if (quiet >= 0) {
        dup2(quiet, STDOUT_FILENO);
        dup2(quiet, STDERR_FILENO);
        close(quiet);
      }
    }
  }

  SourceMgr sources;
  ErrorOr<std::unique_ptr<MemoryBuffer>> file = MemoryBuffer::getFileOrSTDIN(inputPath, /*IsText=*/true);
  DiagnosticEngine diags(sources);
  if (!file) {
    diags.report(DiagKind::FileNotReadable, SMLoc(),
                 "cannot read '" + inputPath + "': " + file.getError().message());
    return finishWithDiagnostics(diags);
  }
  unsigned buffer = sources.AddNewSourceBuffer(std::move(*file), SMLoc());
  enablePhaseTiming(timePhasesFlag);
  int status = StringRef(inputPath).endswith(".hvm") ? runHvmInput(sources, buffer, diags)
                                                     : runBendInput(sources, buffer, diags);
  if (timePhasesFlag)
    printPhaseTimes(errs());
  return status;
}
