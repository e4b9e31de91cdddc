#include "support/PhaseTimer.h"

#include "llvm/ADT/StringMap.h"

#include <memory>
#include <mutex>

namespace bendc {

namespace {

struct Timers {
  std::mutex lock;
  bool enabled = false;
  llvm::TimerGroup group{"bendc", "bendc compile phases"};
  llvm::StringMap<std::unique_ptr<llvm::Timer>> byName;
};

Timers &timers() {
  static Timers t;
  return t;
}

} // namespace

void enablePhaseTiming(bool on) { timers().enabled = on; }

void printPhaseTimes(llvm::raw_ostream &os) { timers().group.print(os, /*ResetAfterPrint=*/true); }

PhaseTimer::PhaseTimer(llvm::StringRef name, llvm::StringRef description) {
  Timers &t = timers();
  if (!t.enabled)
    return;
  std::lock_guard<std::mutex> guard(t.lock);
  std::unique_ptr<llvm::Timer> &timer = t.byName[name];
  if (!timer)
    timer = std::make_unique<llvm::Timer>(name, description, t.group);
  region.emplace(*timer);
}

} // namespace bendc
