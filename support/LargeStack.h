#pragma once
// Phases that recurse over terms run on threads with large stacks: a list
// literal is as deep as it is long. Running out of even that stack is made a
// message and an exit status, not a crash, by a process that asks for it.

#include "llvm/ADT/STLFunctionalExtras.h"

#include <cstddef>

namespace bendc {

/// What the compile phases get: 1 GiB.
constexpr size_t kLargeStackBytes = size_t(1) << 30;

/// Runs `fn` on a thread of its own whose stack holds `bytes`, and waits for
/// it; runs it on this thread where no such thread can be made. The thread
/// has an alternate signal stack, so the handler of `exitOnStackExhaustion`
/// can run when its own stack is used up.
void runOnLargeStack(llvm::function_ref<void()> fn, size_t bytes = kLargeStackBytes);

/// From then on, a thread of `runOnLargeStack` that uses up its stack writes
/// `message` to stderr and ends the process with `status`. Any other fault
/// stays a crash. For a program's `main`: it installs a SIGSEGV handler.
void exitOnStackExhaustion(const char *message, int status);

} // namespace bendc
