// A live progress line for long runs on a terminal: interactions so far, the
// rate and the memory in use, redrawn a few times a second on one line of
// stderr. It appears only after the first second, and anything else written
// to the terminal erases it first (see `erase`).
#pragma once

#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <mutex>
#include <thread>

namespace bendc::rt {

struct ProgressSample {
  uint64_t interactions = 0;
  uint64_t bytesInUse = 0;
};

class ProgressLine {
public:
  /// Starts drawing on `out` (a terminal), asking `sample` for the numbers.
  ProgressLine(FILE *out, std::function<ProgressSample()> sample);
  /// Stops and erases the line.
  ~ProgressLine();
  ProgressLine(const ProgressLine &) = delete;
  ProgressLine &operator=(const ProgressLine &) = delete;

  /// Erases the line now; it comes back at the next refresh.
  void erase();

  /// The text of one refresh (for tests).
  static std::string format(const ProgressSample &s, double seconds);

private:
  void loop();
  void eraseLocked();

  FILE *out;
  std::function<ProgressSample()> sample;
  std::mutex mutex;
  std::condition_variable wake;
  bool stopping = false;
  bool drawn = false;
  std::thread thread;
};

} // namespace bendc::rt
