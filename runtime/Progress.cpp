#include "runtime/Progress.h"

#include <chrono>
#include <string>

namespace bendc::rt {

namespace {
constexpr auto Refresh = std::chrono::milliseconds(250);
constexpr auto FirstDraw = std::chrono::seconds(1);

std::string scaled(double value, const char *const *units, unsigned count, double step) {
  unsigned u = 0;
  while (value >= step && u + 1 < count) {
    value /= step;
    ++u;
  }
  char text[32];
  snprintf(text, sizeof text, u ? "%.1f%s" : "%.0f%s", value, units[u]);
  return text;
}
} // namespace

ProgressLine::ProgressLine(FILE *out, std::function<ProgressSample()> sample)
    : out(out), sample(std::move(sample)), thread([this] { loop(); }) {}

ProgressLine::~ProgressLine() {
  {
    std::lock_guard<std::mutex> lock(mutex);
    stopping = true;
    eraseLocked();
  }
  wake.notify_all();
  thread.join();
}

void ProgressLine::erase() {
  std::lock_guard<std::mutex> lock(mutex);
  eraseLocked();
}

void ProgressLine::eraseLocked() {
  if (!drawn)
    return;
  fputs("\r\x1b[K", out);
  fflush(out);
  drawn = false;
}

std::string ProgressLine::format(const ProgressSample &s, double seconds) {
  static const char *const counts[] = {"", "K", "M", "G", "T"};
  static const char *const bytes[] = {" B", " KiB", " MiB", " GiB", " TiB"};
  double rate = seconds > 0 ? double(s.interactions) / seconds / 1e6 : 0;
  char mips[32];
  snprintf(mips, sizeof mips, "%.1f", rate);
  return "bendc: " + scaled(double(s.interactions), counts, 5, 1000) + " interactions, " + mips +
         " MIPS, " + scaled(double(s.bytesInUse), bytes, 5, 1024) + " in use";
}

void ProgressLine::loop() {
  auto start = std::chrono::steady_clock::now();
  std::unique_lock<std::mutex> lock(mutex);
  while (!stopping) {
    wake.wait_for(lock, Refresh);
    if (stopping)
      break;
    auto now = std::chrono::steady_clock::now();
    if (now - start < FirstDraw)
      continue;
    std::string line = format(sample(), std::chrono::duration<double>(now - start).count());
    fprintf(out, "\r\x1b[K%s", line.c_str());
    fflush(out);
    drawn = true;
  }
}

} // namespace bendc::rt
