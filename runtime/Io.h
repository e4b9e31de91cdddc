// The IO protocol of Bend programs, run on the host between reductions.
//
// A program's result is an `IO` value: `IO/Done(magic, x)` or
// `IO/Call(magic, name, argument, continuation)`, each λ-encoded as a
// constructor `λt (t TAG field...)` with magic = (0xD0CA11, 0xFF1FF1). While
// the result is a call, the host performs the named function, applies the
// continuation to its answer — `Result/Ok(value)` or `Result/Err(IOError)`,
// the types of Bend's builtins — and reduces again. The functions and their
// encodings are those of HVM2's C runtime; see README.md for where bendc
// differs from HVM2 2.0.22 on purpose.
#pragma once

#include "runtime/NetHost.h"
#include "runtime/common/Readback.h"

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <memory>

namespace bendc::rt {

class ProgressLine;

/// Where the program's standard streams go, and what else the host watches.
struct IoConfig {
  FILE *in = stdin;
  FILE *out = stdout;
  FILE *err = stderr;
  ProgressLine *progress = nullptr;           // erased before writes to a terminal
  const std::atomic<bool> *cancel = nullptr;  // set by Ctrl-C: stop sleeping or reading
};

/// The open files and libraries of one run. Closing the session flushes and
/// closes everything the program left open, so nothing it wrote is lost.
class IoSession {
public:
  explicit IoSession(const IoConfig &config);
  ~IoSession();
  IoSession(const IoSession &) = delete;
  IoSession &operator=(const IoSession &) = delete;

  /// Runs calls while the value in `rootSlot` is an IO call. Returns false
  /// when a reduction failed (the backend's status says why).
  bool run(NetHost &net, Loc rootSlot);

  /// Flushes the program's output streams; called also when the run fails.
  void flushOutput();

  uint64_t calls() const;

  struct Impl;

private:
  std::unique_ptr<Impl> impl;
};

/// Whether the value at `rootSlot` of a quiescent net is an IO call, read
/// without changing anything: references are looked up in the book when
/// their definitions have no redexes (as constructor tags and IO/MAGIC do).
/// For backends that do not run IO calls themselves.
bool isIoCall(SlotReader slots, const Book &book, Loc rootSlot);

/// Files a program may have open at once (descriptors 3 and up; 0, 1 and 2
/// are stdin, stdout and stderr), and libraries it may have loaded.
inline constexpr unsigned MaxOpenFiles = 256;
inline constexpr unsigned MaxOpenLibraries = 256;

} // namespace bendc::rt
