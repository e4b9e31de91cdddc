// bendc on a terminal and under Ctrl-C: the progress line appears only on a
// terminal, is erased before the program writes and before the result, and an
// interrupted run still delivers what the program wrote.
#include "runtime/Progress.h"

#include <doctest/doctest.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <algorithm>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <pty.h>
#include <string>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <vector>

namespace {

/// A program that prints, sleeps long enough for the progress line to show,
/// and prints again.
const char *const SleepyProgram = R"(
def main():
  with IO:
    * <- IO/print("start\n")
    * <- IO/sleep(1.6)
    * <- IO/print("end\n")
    return wrap(7)
)";

/// A program that prints, then computes without end.
const char *const EndlessProgram = R"(
def spin(n):
  switch n:
    case 0:
      return 0
    case _:
      return spin(n-1 + 1)

def main():
  with IO:
    * <- IO/print("before\n")
    r <- IO/FS/read(77, 1)
    return wrap(spin(Result/unwrap(r)))
)";

std::string writeProgram(const char *text) {
  char path[] = "/tmp/bendc-terminal-XXXXXX.bend";
  int fd = mkstemps(path, 5);
  REQUIRE(fd >= 0);
  REQUIRE(write(fd, text, strlen(text)) == ssize_t(strlen(text)));
  close(fd);
  return path;
}

struct Outcome {
  std::string output;
  int status = -1;
};

/// Runs bendc with stdin, stdout and stderr on a pseudo-terminal; `typed` is
/// what a person types once the program started.
Outcome runOnTerminal(const std::vector<std::string> &args, const std::string &typed = "") {
  int master = -1;
  pid_t pid = forkpty(&master, nullptr, nullptr, nullptr);
  REQUIRE(pid >= 0);
  if (pid == 0) {
    std::vector<char *> argv;
    argv.push_back(const_cast<char *>(BENDC_PATH));
    for (const std::string &a : args)
      argv.push_back(const_cast<char *>(a.c_str()));
    argv.push_back(nullptr);
    execv(BENDC_PATH, argv.data());
    _exit(127);
  }
  Outcome o;
  if (!typed.empty())
    REQUIRE(write(master, typed.data(), typed.size()) == ssize_t(typed.size()));
  char buf[4096];
  while (true) {
    ssize_t n = read(master, buf, sizeof buf);
    if (n <= 0)
      break; // EIO once the child closed the terminal
    o.output.append(buf, size_t(n));
  }
  waitpid(pid, &o.status, 0);
  close(master);
  return o;
}

} // namespace

TEST_CASE("the progress line shows on a terminal and is erased before output") {
  std::string path = writeProgram(SleepyProgram);
  Outcome o = runOnTerminal({"--run", path});
  unlink(path.c_str());
  CHECK(WIFEXITED(o.status));
  CHECK(WEXITSTATUS(o.status) == 0);
  size_t line = o.output.find("interactions");
  REQUIRE(line != std::string::npos);
  size_t end = o.output.find("end\r\n");
  REQUIRE(end != std::string::npos);
  CHECK(line < end);
  // The line was erased before "end" was written, and nothing follows the result.
  CHECK(o.output.rfind("\r\x1b[K", end) != std::string::npos);
  CHECK(o.output.rfind("\r\x1b[K", end) > line);
  size_t result = o.output.find("Result: ");
  REQUIRE(result != std::string::npos);
  CHECK(o.output.find("interactions", result) == std::string::npos);
}

TEST_CASE("more threads than the machine has are warned about on a terminal") {
  std::string path = writeProgram("main = (+ 1 2)\n");
  unsigned many = std::max(2u, std::thread::hardware_concurrency()) * 4;
  Outcome o = runOnTerminal({"--run", "--threads", std::to_string(many), path});
  Outcome fine = runOnTerminal({"--run", "--threads", "1", path});
  unlink(path.c_str());
  CHECK(o.output.find("warning: --threads " + std::to_string(many)) != std::string::npos);
  CHECK(o.output.find("Result: 3") != std::string::npos);
  CHECK(fine.output.find("warning") == std::string::npos);
}

TEST_CASE("--quiet hides the progress line") {
  std::string path = writeProgram(SleepyProgram);
  Outcome o = runOnTerminal({"--run", "--quiet", path});
  unlink(path.c_str());
  CHECK(o.output.find("interactions") == std::string::npos);
  CHECK(o.output.find("start") != std::string::npos);
  CHECK(o.output.find("Result: ") != std::string::npos);
}

TEST_CASE("a program reads lines typed on the terminal") {
  std::string program = std::string(BENDC_SOURCE_DIR) + "/samples/io/sum_stdin.bend";
  Outcome o = runOnTerminal({"--run", program}, "5\n37\n\n");
  CHECK(WIFEXITED(o.status));
  CHECK(WEXITSTATUS(o.status) == 0);
  INFO(o.output);
  CHECK(o.output.find("sum: 42") != std::string::npos);
}

TEST_CASE("Ctrl-C stops the run and keeps what the program wrote") {
  std::string path = writeProgram(EndlessProgram);
  int out[2], err[2];
  REQUIRE(pipe(out) == 0);
  REQUIRE(pipe(err) == 0);
  pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    dup2(out[1], 1);
    dup2(err[1], 2);
    close(out[0]);
    close(err[0]);
    execl(BENDC_PATH, BENDC_PATH, "--run", "--threads=2", "-s", path.c_str(), (char *)nullptr);
    _exit(127);
  }
  close(out[1]);
  close(err[1]);
  // The program's first line arrives while it computes: stdout is not held back.
  std::string got;
  char buf[256];
  while (got.find('\n') == std::string::npos) {
    ssize_t n = read(out[0], buf, sizeof buf);
    REQUIRE(n > 0);
    got.append(buf, size_t(n));
  }
  CHECK(got == "before\n");
  kill(pid, SIGINT);
  int status = 0;
  waitpid(pid, &status, 0);
  std::string errText;
  ssize_t n;
  while ((n = read(err[0], buf, sizeof buf)) > 0)
    errText.append(buf, size_t(n));
  // -s shows the work done until the interrupt.
  while ((n = read(out[0], buf, sizeof buf)) > 0)
    got.append(buf, size_t(n));
  CHECK(got.find("- ITRS: ") != std::string::npos);
  close(out[0]);
  close(err[0]);
  unlink(path.c_str());
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 130);
  CHECK(errText.find("interrupted") != std::string::npos);
}

TEST_CASE("the progress text names interactions, rate and memory") {
  bendc::rt::ProgressSample s;
  s.interactions = 12345678;
  s.bytesInUse = uint64_t(3) << 30;
  CHECK(bendc::rt::ProgressLine::format(s, 2.0) ==
        "bendc: 12.3M interactions, 6.2 MIPS, 3.0 GiB in use");
}
