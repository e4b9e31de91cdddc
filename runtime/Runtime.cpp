#include "runtime/Runtime.h"
#include "runtime/Io.h"
#include "runtime/cpu/CpuRuntime.h"

#include <cmath>
#include <cstdlib>
#include <unistd.h>

namespace bendc::rt {

#ifdef BENDC_HAVE_CUDA
RunResult runCuda(const Book &book, const RunOptions &options, bool required);
#endif

RunResult run(const Book &book, const RunOptions &options) {
  switch (options.backend) {
  case Backend::Cpu:
    return runCpu(book, options);
  case Backend::Cuda:
#ifdef BENDC_HAVE_CUDA
    return runCuda(book, options, /*required=*/true);
#else
    return RunResult{RunStatus::NoDevice,
                     "no CUDA backend: this bendc was built without the CUDA toolkit; use "
                     "--backend=cpu or rebuild with nvcc installed",
                     {}, {}};
#endif
  case Backend::Auto:
#ifdef BENDC_HAVE_CUDA
  {
    RunResult r = runCuda(book, options, /*required=*/false);
    if (r.status != RunStatus::NoDevice)
      return r;
  }
#endif
    return runCpu(book, options);
  }
  return runCpu(book, options);
}

void takeNormalForm(RunResult &result, SlotReader slots, const Book &book,
                    const RunOptions &options) {
  result.normalForm = readback(slots);
  if (result.normalForm.broken != ~Loc(0)) {
    result.status = RunStatus::Fault;
    result.message = "the normal form holds a broken term (in slot " +
                     std::to_string(result.normalForm.broken) +
                     "): this is a bug in bendc's runtime, not in the program";
    return;
  }
  result.ioPending = !options.io && isIoCall(slots, book, RootSlot);
}

uint64_t defaultMemBytes() {
  long pages = sysconf(_SC_PHYS_PAGES);
  long size = sysconf(_SC_PAGE_SIZE);
  if (pages <= 0 || size <= 0)
    return uint64_t(4) << 30;
  return uint64_t(pages) * uint64_t(size) / 2;
}

bool parseMemSize(const std::string &text, uint64_t &bytes) {
  if (text.empty())
    return false;
  char *end = nullptr;
  double value = std::strtod(text.c_str(), &end);
  if (end == text.c_str() || !(value > 0) || !std::isfinite(value))
    return false;
  std::string unit(end);
  double scale = 1;
  if (unit.empty() || unit == "B")
    scale = 1;
  else if (unit == "K" || unit == "KB" || unit == "KiB" || unit == "k")
    scale = 1024.0;
  else if (unit == "M" || unit == "MB" || unit == "MiB" || unit == "m")
    scale = 1024.0 * 1024;
  else if (unit == "G" || unit == "GB" || unit == "GiB" || unit == "g")
    scale = 1024.0 * 1024 * 1024;
  else if (unit == "T" || unit == "TB" || unit == "TiB" || unit == "t")
    scale = 1024.0 * 1024 * 1024 * 1024;
  else
    return false;
  double total = value * scale;
  if (total >= 1.8e19)
    return false;
  bytes = uint64_t(total);
  return bytes != 0;
}

int exitCodeFor(RunStatus status) {
  switch (status) {
  case RunStatus::Ok: return 0;
  case RunStatus::OutOfMemory:
  case RunStatus::InteractionLimit:
  case RunStatus::NoDevice:
  case RunStatus::DeviceError:
  case RunStatus::NoMpi: return 3;
  case RunStatus::Fault: return 4;
  case RunStatus::Interrupted: return 130;
  }
  return 4;
}

} // namespace bendc::rt
