// Reduction on CPU threads: per-thread redex stacks, allocation from
// thread-owned chunks with reuse of freed nodes, and work sharing through a
// pool that busy threads fill when others are hungry.
#pragma once

#include "runtime/Runtime.h"

namespace bendc::rt {

RunResult runCpu(const Book &book, const RunOptions &options);

} // namespace bendc::rt
