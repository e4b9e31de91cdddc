#include "support/LargeStack.h"

#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>

namespace bendc {

namespace {

// The stack of this thread when `runOnLargeStack` made it: its lowest
// usable address (0 on any other thread). Stacks grow down.
thread_local uintptr_t stackLow = 0;

// A fault this far below the stack (a large frame may jump its guard page)
// or just above its reported end is taken for the stack running out.
constexpr uintptr_t kBelow = uintptr_t(1) << 20;
constexpr uintptr_t kAbove = uintptr_t(64) << 10;
constexpr size_t kAltStackBytes = size_t(64) << 10;

const char *exhaustedMessage = nullptr;
int exhaustedStatus = 1;
struct sigaction previousAction;

// Only async-signal-safe calls here.
void onFault(int, siginfo_t *info, void *) {
  uintptr_t at = reinterpret_cast<uintptr_t>(info->si_addr);
  bool fault = info->si_code > 0; // from the kernel, not sent
  if (fault && stackLow != 0 && at + kBelow >= stackLow && at < stackLow + kAbove) {
    ssize_t ignored = write(STDERR_FILENO, exhaustedMessage, strlen(exhaustedMessage));
    (void)ignored;
    _exit(exhaustedStatus);
  }
  // Anything else goes to the handler from before: a fault when its
  // instruction runs again, a signal sent when it is sent again.
  sigaction(SIGSEGV, &previousAction, nullptr);
  if (!fault)
    raise(SIGSEGV);
}

struct Job {
  llvm::function_ref<void()> fn;
};

void *runJob(void *arg) {
  Job &job = *static_cast<Job *>(arg);
  pthread_attr_t attr;
  if (pthread_getattr_np(pthread_self(), &attr) == 0) {
    void *low = nullptr;
    size_t size = 0;
    if (pthread_attr_getstack(&attr, &low, &size) == 0)
      stackLow = reinterpret_cast<uintptr_t>(low);
    pthread_attr_destroy(&attr);
  }
  // A handler needs a stack of its own to run on when this one is used up.
  stack_t alternate{};
  alternate.ss_sp = malloc(kAltStackBytes);
  alternate.ss_size = kAltStackBytes;
  bool haveAlternate = alternate.ss_sp && sigaltstack(&alternate, nullptr) == 0;
  job.fn();
  if (haveAlternate) {
    stack_t off{};
    off.ss_flags = SS_DISABLE;
    sigaltstack(&off, nullptr);
  }
  free(alternate.ss_sp);
  stackLow = 0;
  return nullptr;
}

} // namespace

void runOnLargeStack(llvm::function_ref<void()> fn, size_t bytes) {
  Job job{fn};
  pthread_attr_t attr;
  pthread_t thread;
  bool made = pthread_attr_init(&attr) == 0;
  if (made && pthread_attr_setstacksize(&attr, bytes) == 0 &&
      pthread_create(&thread, &attr, runJob, &job) == 0) {
    pthread_join(thread, nullptr);
    pthread_attr_destroy(&attr);
    return;
  }
  if (made)
    pthread_attr_destroy(&attr);
  fn();
}

void exitOnStackExhaustion(const char *message, int status) {
  exhaustedMessage = message;
  exhaustedStatus = status;
  struct sigaction action {};
  action.sa_sigaction = onFault;
  action.sa_flags = SA_SIGINFO | SA_ONSTACK;
  sigemptyset(&action.sa_mask);
  sigaction(SIGSEGV, &action, &previousAction);
}

} // namespace bendc
