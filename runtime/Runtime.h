// One host entry for reducing a polarized book: `run(book, options)` picks the
// backend (CUDA when built in and a device is present, else CPU threads),
// reduces `@main` to normal form and reads the result back.
#pragma once

#include "runtime/Io.h"
#include "runtime/common/Book.h"
#include "runtime/common/Readback.h"
#include "runtime/common/Rules.h"

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace bendc::rt {

enum class Backend : uint8_t { Auto, Cpu, Cuda };

/// The most CPU worker threads a run may ask for.
inline constexpr unsigned MaxCpuThreads = 4096;

struct RunOptions {
  Backend backend = Backend::Auto;
  unsigned threads = 0;   // CPU worker threads (at most MaxCpuThreads); 0 = every hardware thread
  uint64_t memBytes = 0;  // net memory; 0 = defaultMemBytes()
  /// Run the IO protocol when the result is an IO call (see Io.h), with
  /// these streams.
  bool io = true;
  IoConfig streams;
  /// Draw a progress line on `streams.err` (the caller checks it is a terminal).
  bool progress = false;
  /// Set asynchronously (Ctrl-C) to stop the run with RunStatus::Interrupted.
  const std::atomic<bool> *cancel = nullptr;
  /// Stop the run with RunStatus::InteractionLimit once it has performed this
  /// many interactions (0: no limit). Each worker adds up its interactions
  /// every 128 redexes, so a run may go a little past the limit, and one that
  /// ends within that margin ends normally. For the pipeline fuzzer, where a
  /// program may loop forever; the CPU backend only.
  uint64_t maxInteractions = 0;
  /// Reduce over the processes of an MPI job, this one among them (see
  /// runtime/dist/DESIGN.md): every process calls dist::runDistributed (not
  /// run()) with the same book, and rank 0 runs the IO calls and reads the
  /// result back. `threads` does not apply: each process reduces with one.
  bool distributed = false;
  /// Distributed: the most redexes a process reduces between two exchanges
  /// of messages (0: runtime/dist's default). Small rounds spread even a
  /// small net over every process.
  uint64_t roundRedexes = 0;
  /// Measure the span, RunStats::span: on one CPU thread, whatever
  /// `threads` says, and 2 to 3 times slower (runtime/cpu/SpanProbe.h).
  bool span = false;
};

enum class RunStatus : uint8_t {
  Ok,
  OutOfMemory,      // the net outgrew --mem (or the device's memory)
  Fault,            // the net broke an invariant of polarized nets
  NoDevice,         // --backend=cuda without a usable device or CUDA build
  DeviceError,      // a CUDA call or kernel launch failed
  Interrupted,      // `cancel` was set
  InteractionLimit, // options.maxInteractions were done before the normal form
  NoMpi,            // a distributed run in a bendc built without MPI, or outside an MPI job
};

struct RunStats {
  uint64_t interactions = 0; // HVM2's count: every rule, links excluded
  std::array<uint64_t, RuleCount> byRule{};
  double seconds = 0;        // reduction only (after memory is prepared)
  unsigned threads = 0;
  uint64_t peakNodes = 0;    // nodes ever handed out (memory high-water mark)
  std::string backend;       // "cpu" or "cuda (<device name>)"
  uint64_t ioCalls = 0;      // IO calls performed
  /// A run on more than one CPU thread: what each thread did, the host's
  /// first. A thread's waiting counts from the start of each round to its
  /// first redex (a thread that starts late waits), and every time its stack
  /// ran empty until it had work again or the round ended.
  struct ThreadShare {
    uint64_t interactions = 0;
    double waitSeconds = 0;
  };
  std::vector<ThreadShare> perThread;
  /// RunOptions::span: the interactions of the longest chain whose each
  /// needs the one before (an upper estimate); 0 when not measured.
  uint64_t span = 0;
  /// A distributed run (RunOptions::distributed): the processes, the rounds
  /// they reduced in, and what crossed between them.
  struct Distribution {
    unsigned ranks = 0;        // 0: the run was not distributed
    uint64_t rounds = 0;
    uint64_t messages = 0;     // every message one process sent another
    uint64_t bytes = 0;        // their payload
    uint64_t links = 0;        // wires joined in another process's memory
    uint64_t nodesMoved = 0;   // nodes brought to the process that consumes them
    uint64_t redexesShared = 0; // redexes handed to an idle process
    uint64_t redexesRouted = 0; // redexes sent to the process that owns their node
  } distribution;
};

struct RunResult {
  RunStatus status = RunStatus::Ok;
  std::string message;   // for every status but Ok: what happened and what to do
  ResultTree normalForm; // for Ok: the normal form of the entry definition
  RunStats stats;
  /// The result is an IO call that was not run (options.io was false).
  bool ioPending = false;
};

RunResult run(const Book &book, const RunOptions &options);

/// For a backend whose run ended well: reads the normal form out of
/// quiescent memory into `result` (a broken term there makes the run a
/// Fault) and says whether it is an IO call left pending.
void takeNormalForm(RunResult &result, SlotReader slots, const Book &book,
                    const RunOptions &options);

/// Half of the physical memory: untouched pages cost nothing, and the rest is
/// left to the system.
uint64_t defaultMemBytes();

/// Parses sizes like `512M`, `4G`, `1.5G`, `65536` (bytes); false when invalid.
bool parseMemSize(const std::string &text, uint64_t &bytes);

/// The exit code the driver returns for a status.
int exitCodeFor(RunStatus status);

} // namespace bendc::rt
