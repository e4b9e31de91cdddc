// Threads with large stacks for the recursive phases, and what happens when
// even such a stack runs out: a message and an exit status, not a crash. Each
// case that ends a process runs in a child of its own.
#include "support/LargeStack.h"

#include <doctest/doctest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <string>

using namespace bendc;

namespace {

volatile int stopAt = -1; // never reached: the recursion is unbounded

/// Recurses until the stack runs out (the pad keeps each frame large and the
/// call out of tail position).
int recurse(int depth) {
  volatile char pad[512];
  pad[0] = char(depth);
  if (depth == stopAt)
    return pad[0];
  return recurse(depth + 1) + pad[0];
}

struct Outcome {
  bool exited = false;
  int status = 0; // the exit status, or the signal that ended the child
  std::string stderrText;
};

/// Runs `body` in a child process; what ended it and what it wrote to stderr.
template <typename Body> Outcome inChild(Body body) {
  int fds[2];
  REQUIRE(pipe(fds) == 0);
  pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    close(fds[0]);
    dup2(fds[1], STDERR_FILENO);
    body();
    _exit(0);
  }
  close(fds[1]);
  Outcome out;
  char buf[256];
  for (ssize_t n; (n = read(fds[0], buf, sizeof buf)) > 0;)
    out.stderrText.append(buf, size_t(n));
  close(fds[0]);
  int status = 0;
  REQUIRE(waitpid(pid, &status, 0) == pid);
  out.exited = WIFEXITED(status);
  out.status = out.exited ? WEXITSTATUS(status) : WIFSIGNALED(status) ? WTERMSIG(status) : -1;
  return out;
}

} // namespace

TEST_CASE("a job runs on the large stack and its effects are seen after") {
  int seen = 0;
  runOnLargeStack([&] { seen = 42; }, size_t(8) << 20);
  CHECK(seen == 42);
}

TEST_CASE("a large stack holds what the default one would not") {
  // 200 000 frames of over 512 bytes: about 100 MB, beyond an 8 MB default.
  stopAt = 200000;
  int result = 0;
  runOnLargeStack([&] { result = recurse(0); }, size_t(256) << 20);
  stopAt = -1;
  CHECK(result != 0);
}

TEST_CASE("a used-up stack is a message and an exit status") {
  Outcome out = inChild([] {
    exitOnStackExhaustion("stack used up\n", 7);
    runOnLargeStack([] { recurse(0); }, size_t(1) << 20);
  });
  CHECK(out.exited);
  CHECK(out.status == 7);
  CHECK(out.stderrText == "stack used up\n");
}

TEST_CASE("any other fault is still a crash") {
  // (The test runner's own crash handler is put aside: the default action
  // is what the handler from before does here.)
  Outcome null = inChild([] {
    signal(SIGSEGV, SIG_DFL);
    exitOnStackExhaustion("stack used up\n", 7);
    runOnLargeStack([] { *static_cast<volatile int *>(nullptr) = 1; }, size_t(1) << 20);
  });
  CHECK_FALSE(null.exited);
  CHECK(null.status == SIGSEGV);
  // (A sanitizer may say something about the null write first.)
  CHECK(null.stderrText.find("stack used up") == std::string::npos);
  Outcome sent = inChild([] {
    signal(SIGSEGV, SIG_DFL);
    exitOnStackExhaustion("stack used up\n", 7);
    runOnLargeStack([] { raise(SIGSEGV); }, size_t(1) << 20);
  });
  CHECK_FALSE(sent.exited);
  CHECK(sent.status == SIGSEGV);
  CHECK(sent.stderrText.find("stack used up") == std::string::npos);
}
