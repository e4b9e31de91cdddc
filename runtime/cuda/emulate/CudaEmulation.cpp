// The host emulation of CUDA: the device, its memory, launches, and the fibers
// that stand for the threads of a block. See CudaEmulation.h for the model.
#include "runtime/cuda/emulate/CudaEmulation.h"

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

#include <sys/mman.h>
#include <unistd.h>

#if !defined(__x86_64__)
#include <ucontext.h>
#endif

#if defined(__SANITIZE_THREAD__)
#define BENDC_EMU_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define BENDC_EMU_TSAN 1
#endif
#endif

#ifdef BENDC_EMU_TSAN
#include <sanitizer/tsan_interface.h>
#endif

// The built-in variables are macros for device code; this file names the
// fields they stand for directly.
#undef threadIdx
#undef blockIdx
#undef blockDim
#undef gridDim

namespace bendc::emu {
namespace {

// --- TSan: fibers and the happens-before edges of barriers -----------------------

#ifdef BENDC_EMU_TSAN
void *tsanCurrentFiber() { return __tsan_get_current_fiber(); }
void *tsanCreateFiber() { return __tsan_create_fiber(0); }
void tsanDestroyFiber(void *f) { __tsan_destroy_fiber(f); }
/// Switching into a fiber carries the scheduler's history (launch set-up);
/// switching out of one carries nothing, so the threads of a block are ordered
/// only by the barriers they meet.
void tsanSwitch(void *f, bool sync) { __tsan_switch_to_fiber(f, sync ? 0 : __tsan_switch_to_fiber_no_sync); }
void tsanRelease(void *a) { __tsan_release(a); }
void tsanAcquire(void *a) { __tsan_acquire(a); }
constexpr size_t StackBytes = size_t(512) << 10;
#else
void *tsanCurrentFiber() { return nullptr; }
void *tsanCreateFiber() { return nullptr; }
void tsanDestroyFiber(void *) {}
void tsanSwitch(void *, bool) {}
void tsanRelease(void *) {}
void tsanAcquire(void *) {}
constexpr size_t StackBytes = size_t(128) << 10;
#endif

// --- context switching ---------------------------------------------------------------

#if defined(__x86_64__)
// Saves the callee-saved registers on the current stack, stores the stack
// pointer in *save, and resumes the context whose stack pointer is `load`.
extern "C" void bendc_emu_switch(void **save, void *load);
asm(R"(
  .pushsection .text
  .globl bendc_emu_switch
  .hidden bendc_emu_switch
  .type bendc_emu_switch,@function
  .p2align 4
bendc_emu_switch:
  pushq %rbp
  pushq %rbx
  pushq %r12
  pushq %r13
  pushq %r14
  pushq %r15
  movq %rsp, (%rdi)
  movq %rsi, %rsp
  popq %r15
  popq %r14
  popq %r13
  popq %r12
  popq %rbx
  popq %rbp
  ret
  .size bendc_emu_switch,.-bendc_emu_switch
  .popsection
)");

struct Context {
  void *sp = nullptr;
  /// Prepares a context that starts `entry` (which never returns) on the
  /// stack ending at `top`.
  void start(char *top, void (*entry)()) {
    auto t = reinterpret_cast<uintptr_t>(top) & ~uintptr_t(15);
    auto **s = reinterpret_cast<void **>(t);
    *--s = nullptr;                          // entry's return address: none
    *--s = reinterpret_cast<void *>(entry);  // where the first switch "returns"
    for (int i = 0; i < 6; ++i)
      *--s = nullptr;                        // rbp rbx r12 r13 r14 r15
    sp = s;
  }
  using Target = void *;
  Target target() const { return sp; }
  void switchTo(Target next) { bendc_emu_switch(&sp, next); }
};
#else
struct Context {
  ucontext_t uc;
  void start(char *top, void (*entry)()) {
    getcontext(&uc);
    uc.uc_stack.ss_sp = top - StackBytes;
    uc.uc_stack.ss_size = StackBytes;
    uc.uc_link = nullptr;
    makecontext(&uc, entry, 0);
  }
  using Target = ucontext_t *;
  Target target() { return &uc; }
  void switchTo(Target next) { swapcontext(&uc, next); }
};
#endif

// --- the device's state ------------------------------------------------------------------

struct Device {
  std::mutex mutex;
  bool configured = false;
  Properties props;
  std::map<const void *, int> maxDynamicShared; // kernels that opted in
  std::map<char *, std::pair<char *, size_t>> allocations; // pointer -> mapping, mapped bytes
  size_t used = 0;
  std::atomic<int> sticky{cudaSuccess};     // an execution error: every call returns it
  std::string fault;                        // why, once sticky is set
  std::string faultText;                    // cudaGetErrorString's answer for it
  std::atomic<uint64_t> launches{0};
  std::vector<char *> stacks;               // free fiber stacks (StackBytes + guard)
  // cudaLimitStackSize: recorded only. A fiber's stack holds host frames, far
  // larger than a device thread's; the figure is kept so that tests can check
  // what the runtime asked for.
  size_t stackLimit = 1024;
  std::atomic<uint64_t> toHost{0};          // bytes copied device to host
};

Device &device() {
  static Device d;
  return d;
}

thread_local cudaError_t lastError = cudaSuccess;

cudaError_t record(cudaError_t e) {
  if (e != cudaSuccess)
    lastError = e;
  return e;
}

/// The sticky error, if any, else success.
cudaError_t stickyError() { return cudaError_t(device().sticky.load(std::memory_order_acquire)); }

Properties &propsLocked(Device &d) {
  if (!d.configured) {
    d.configured = true;
    if (const char *env = std::getenv("BENDC_EMULATE")) {
      std::string error;
      Properties p;
      if (parseProperties(env, p, error))
        d.props = p;
      else
        std::fprintf(stderr, "bendc: warning: ignoring BENDC_EMULATE: %s\n", error.c_str());
    }
  }
  return d.props;
}

void setSticky(cudaError_t e, std::string why) {
  Device &d = device();
  std::lock_guard lock(d.mutex);
  if (d.sticky.load(std::memory_order_relaxed) != cudaSuccess)
    return;
  d.fault = std::move(why);
  d.faultText = std::string("unspecified launch failure (emulated device: ") + d.fault + ")";
  d.sticky.store(e, std::memory_order_release);
}

size_t pageSize() {
  static const size_t page = size_t(sysconf(_SC_PAGESIZE));
  return page;
}
size_t roundUp(size_t n, size_t to) { return (n + to - 1) / to * to; }

/// `bytes` of fresh zeroed memory that ends next to an inaccessible page, so
/// running off the end faults. Returns the mapping's base in `base`.
char *mapGuarded(size_t bytes, size_t align, char *&base, size_t &mapped) {
  size_t page = pageSize();
  size_t body = roundUp(std::max<size_t>(bytes, 1), page);
  mapped = body + page;
  void *m = mmap(nullptr, mapped, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (m == MAP_FAILED)
    return nullptr;
  base = static_cast<char *>(m);
  mprotect(base + body, page, PROT_NONE);
  size_t lead = body - roundUp(std::max<size_t>(bytes, 1), align);
  return base + lead;
}

// --- fibers and blocks ----------------------------------------------------------------------

enum class Wait : uint8_t { Ready, Block, Warp, Done };

struct Fiber {
  Context ctx;
  char *stackTop = nullptr;
  detail::ThreadState state;
  std::atomic<Wait> wait{Wait::Ready};
  detail::Site site{"", 0};
  void *tsan = nullptr;
};

struct WarpState {
  std::atomic<unsigned> arrived{0};
  uint64_t values[32] = {};
};

/// One worker's blocks, run one after another.
struct BlockRunner {
  const detail::LaunchSpec *spec = nullptr;
  std::vector<Fiber> fibers;
  std::vector<WarpState> warps;
  std::atomic<unsigned> live{0}, arrived{0};
  Context scheduler;
  void *schedulerTsan = nullptr;
  Fiber *running = nullptr;
  std::atomic<bool> failed{false};
  std::string fault;
  char *shared = nullptr, *sharedBase = nullptr;
  size_t sharedMapped = 0;
  uint64_t rng = 0;
  std::vector<unsigned> order;
  char blockSync = 0, doneSync = 0; // addresses TSan synchronises on
};

thread_local BlockRunner *runner = nullptr;

std::string siteText(const detail::Site &s) {
  std::string file = s.file;
  size_t slash = file.rfind('/');
  if (slash != std::string::npos)
    file = file.substr(slash + 1);
  return file + ":" + std::to_string(s.line);
}

bool sameSite(const detail::Site &a, const detail::Site &b) {
  return a.line == b.line && std::strcmp(a.file, b.file) == 0;
}

void fail(BlockRunner &r, std::string why) {
  if (r.failed.load(std::memory_order_relaxed))
    return;
  r.fault = "block " + std::to_string(r.fibers.empty() ? 0 : r.fibers[0].state.blockIndex.x) + ": " + why;
  r.failed.store(true, std::memory_order_release);
}

/// Describes who waits where, grouped by call site: "threads 0-31 at X.cu:12".
std::string describeWaits(BlockRunner &r) {
  std::string out;
  auto flush = [&](unsigned first, unsigned last, const std::string &where) {
    if (!out.empty())
      out += ", ";
    out += first == last ? "thread " + std::to_string(first)
                         : "threads " + std::to_string(first) + "-" + std::to_string(last);
    out += " " + where;
  };
  std::string prev;
  unsigned first = 0;
  for (unsigned t = 0; t < r.fibers.size(); ++t) {
    const Fiber &f = r.fibers[t];
    Wait w = f.wait.load(std::memory_order_relaxed);
    std::string where = w == Wait::Done    ? "exited"
                        : w == Wait::Block ? "at __syncthreads " + siteText(f.site)
                        : w == Wait::Warp  ? "at a warp shuffle " + siteText(f.site)
                                           : "running";
    if (t == 0) {
      prev = where;
      continue;
    }
    if (where != prev) {
      flush(first, t - 1, prev);
      first = t;
      prev = where;
    }
  }
  if (!r.fibers.empty())
    flush(first, unsigned(r.fibers.size()) - 1, prev);
  return out;
}

/// Back to the worker's scheduler; returns when this fiber is resumed.
void yieldToScheduler(BlockRunner &r, Fiber &f) {
  // Everything this thread read or wrote, up to the switch, is ordered before
  // the end of the block by the release.
  void *scheduler = r.schedulerTsan;
  Context::Target to = r.scheduler.target();
  tsanRelease(&r.doneSync);
  tsanSwitch(scheduler, /*sync=*/false);
  f.ctx.switchTo(to);
}

/// Every thread of the block arrived: check they meet at one call site and let
/// them all go on.
void releaseBlockBarrier(BlockRunner &r) {
  tsanAcquire(&r.blockSync);
  const Fiber *first = nullptr;
  for (Fiber &f : r.fibers) {
    if (f.wait.load(std::memory_order_relaxed) != Wait::Block)
      continue;
    if (!first)
      first = &f;
    else if (!sameSite(first->site, f.site))
      return fail(r, "divergent __syncthreads: " + describeWaits(r));
  }
  r.arrived.store(0, std::memory_order_relaxed);
  for (Fiber &f : r.fibers)
    if (f.wait.load(std::memory_order_relaxed) == Wait::Block)
      f.wait.store(Wait::Ready, std::memory_order_relaxed);
  tsanRelease(&r.blockSync); // the sites read here, before their threads write them again
}

[[noreturn]] void fiberEntry() {
  BlockRunner &r = *runner;
  Fiber &f = *r.running;
  r.spec->body(r.spec->arg);
  f.wait.store(Wait::Done, std::memory_order_relaxed);
  unsigned live = r.live.fetch_sub(1, std::memory_order_relaxed) - 1;
  unsigned waiting = r.arrived.load(std::memory_order_relaxed);
  if (waiting != 0 && waiting == live)
    fail(r, "a thread exited while others wait at a barrier: " + describeWaits(r));
  yieldToScheduler(r, f);
  __builtin_trap(); // a finished fiber is never resumed
}

uint64_t nextRandom(uint64_t &s) {
  s ^= s << 13;
  s ^= s >> 7;
  s ^= s << 17;
  return s;
}

/// Runs block `b` to completion (or to its failure) on this worker.
void runBlock(BlockRunner &r, const Properties &props, unsigned b) {
  const detail::LaunchSpec &spec = *r.spec;
  unsigned n = spec.threads;
  // Shared memory starts with garbage, as on a device.
  if (r.shared && spec.sharedBytes)
    std::memset(r.shared, 0xA5, spec.sharedBytes);
  for (unsigned t = 0; t < n; ++t) {
    Fiber &f = r.fibers[t];
    f.state.threadIndex = dim3(t);
    f.state.blockIndex = dim3(b);
    f.state.blockSize = dim3(n);
    f.state.gridSize = dim3(spec.blocks);
    f.state.sharedDynamic = r.shared;
    f.wait.store(Wait::Ready, std::memory_order_relaxed);
    f.ctx.start(f.stackTop, fiberEntry);
    f.tsan = tsanCreateFiber();
  }
  for (WarpState &w : r.warps)
    w.arrived.store(0, std::memory_order_relaxed);
  r.live.store(n, std::memory_order_relaxed);
  r.arrived.store(0, std::memory_order_relaxed);
  r.rng = props.seed * 0x9E3779B97F4A7C15ull + b + 1;

  while (!r.failed.load(std::memory_order_acquire) && r.live.load(std::memory_order_relaxed) != 0) {
    // One pass over the runnable threads, in the configured order.
    for (unsigned t = 0; t < n; ++t)
      r.order[t] = props.order == Properties::Order::Reverse ? n - 1 - t : t;
    if (props.order == Properties::Order::Shuffled)
      for (unsigned t = n; t > 1; --t)
        std::swap(r.order[t - 1], r.order[nextRandom(r.rng) % t]);
    bool ran = false;
    for (unsigned k = 0; k < n && !r.failed.load(std::memory_order_acquire); ++k) {
      Fiber &f = r.fibers[r.order[k]];
      if (f.wait.load(std::memory_order_relaxed) != Wait::Ready)
        continue;
      ran = true;
      r.running = &f;
      detail::current.store(&f.state, std::memory_order_relaxed);
      tsanSwitch(f.tsan, /*sync=*/true);
      r.scheduler.switchTo(f.ctx.target());
      detail::current.store(nullptr, std::memory_order_relaxed);
    }
    if (!ran && !r.failed.load(std::memory_order_acquire)) {
      tsanAcquire(&r.doneSync); // the call sites the threads left
      fail(r, "deadlock: " + describeWaits(r));
    }
  }
  // The stacks and shared memory are reused by the next block of this worker.
  tsanAcquire(&r.doneSync);
  for (unsigned t = 0; t < n; ++t) {
    tsanDestroyFiber(r.fibers[t].tsan);
    r.fibers[t].tsan = nullptr;
  }
}

char *takeStack() {
  Device &d = device();
  {
    std::lock_guard lock(d.mutex);
    if (!d.stacks.empty()) {
      char *s = d.stacks.back();
      d.stacks.pop_back();
      return s;
    }
  }
  // A guard page below the stack, which grows down into it on overflow.
  size_t page = pageSize();
  void *m = mmap(nullptr, StackBytes + page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                 -1, 0);
  if (m == MAP_FAILED)
    return nullptr;
  mprotect(m, page, PROT_NONE);
  return static_cast<char *>(m) + page + StackBytes; // the top
}

void giveStacks(std::vector<Fiber> &fibers) {
  Device &d = device();
  std::lock_guard lock(d.mutex);
  for (Fiber &f : fibers)
    if (f.stackTop)
      d.stacks.push_back(f.stackTop);
}

struct LaunchState {
  const detail::LaunchSpec *spec;
  Properties props;
  std::atomic<unsigned> nextBlock{0};
  std::atomic<bool> failed{false};
  std::mutex mutex;
  std::string fault;
  char done = 0; // TSan: the launch's end, acquired by the host
};

void worker(LaunchState &L) {
  const detail::LaunchSpec &spec = *L.spec;
  BlockRunner r;
  r.spec = &spec;
  r.fibers = std::vector<Fiber>(spec.threads);
  r.warps = std::vector<WarpState>((spec.threads + 31) / 32);
  r.order.resize(spec.threads);
  r.schedulerTsan = tsanCurrentFiber();
  bool ok = true;
  for (Fiber &f : r.fibers)
    if (!(f.stackTop = takeStack()))
      ok = false;
  if (ok && spec.sharedBytes) {
    r.shared = mapGuarded(spec.sharedBytes, 16, r.sharedBase, r.sharedMapped);
    ok = r.shared != nullptr;
  }
  if (!ok) {
    fail(r, "the host could not map memory for the block's threads");
  } else {
    runner = &r;
    for (unsigned b; !L.failed.load(std::memory_order_relaxed) &&
                     (b = L.nextBlock.fetch_add(1, std::memory_order_relaxed)) < spec.blocks;) {
      runBlock(r, L.props, b);
      if (r.failed.load(std::memory_order_acquire))
        break;
    }
    runner = nullptr;
  }
  if (r.failed.load(std::memory_order_acquire)) {
    std::lock_guard lock(L.mutex);
    if (!L.failed.exchange(true))
      L.fault = r.fault;
  }
  if (r.sharedBase)
    munmap(r.sharedBase, r.sharedMapped);
  giveStacks(r.fibers);
  tsanRelease(&L.done);
}

} // namespace

// --- properties ----------------------------------------------------------------------------

bool parseProperties(const std::string &text, Properties &out, std::string &error) {
  Properties p;
  size_t at = 0;
  while (at < text.size()) {
    size_t end = text.find(',', at);
    if (end == std::string::npos)
      end = text.size();
    std::string item = text.substr(at, end - at);
    at = end + 1;
    if (item.empty())
      continue;
    size_t eq = item.find('=');
    std::string key = item.substr(0, eq), value = eq == std::string::npos ? "" : item.substr(eq + 1);
    if (key == "order") {
      if (value == "forward")
        p.order = Properties::Order::Forward;
      else if (value == "reverse")
        p.order = Properties::Order::Reverse;
      else if (value == "shuffled")
        p.order = Properties::Order::Shuffled;
      else
        return error = "order must be forward, reverse or shuffled, not '" + value + "'", false;
      continue;
    }
    char *endp = nullptr;
    errno = 0;
    unsigned long long v = std::strtoull(value.c_str(), &endp, 10);
    if (value.empty() || endp == value.c_str() || errno)
      return error = "'" + key + "' needs a number, not '" + value + "'", false;
    std::string unit(endp);
    if (unit == "K")
      v <<= 10;
    else if (unit == "M")
      v <<= 20;
    else if (unit == "G")
      v <<= 30;
    else if (!unit.empty())
      return error = "unknown unit '" + unit + "' in '" + item + "'", false;
    if (key == "sms")
      p.sms = unsigned(std::max<unsigned long long>(v, 1));
    else if (key == "shared")
      p.sharedPerBlock = v;
    else if (key == "shared-optin")
      p.sharedPerBlockOptin = v;
    else if (key == "shared-sm")
      p.sharedPerSm = v;
    else if (key == "memory")
      p.memory = v;
    else if (key == "workers")
      p.workers = unsigned(v);
    else if (key == "seed")
      p.seed = v;
    else if (key == "fail-launch")
      p.failLaunch = unsigned(v);
    else if (key == "present")
      p.present = v != 0;
    else
      return error = "unknown setting '" + key + "'", false;
  }
  p.sharedPerBlockOptin = std::max(p.sharedPerBlockOptin, p.sharedPerBlock);
  p.sharedPerSm = std::max(p.sharedPerSm, p.sharedPerBlockOptin);
  out = p;
  return true;
}

Properties properties() {
  Device &d = device();
  std::lock_guard lock(d.mutex);
  return propsLocked(d);
}

uint64_t bytesCopiedToHost() { return device().toHost.load(std::memory_order_relaxed); }

size_t stackLimit() {
  Device &d = device();
  std::lock_guard lock(d.mutex);
  return d.stackLimit;
}

void configure(const Properties &p) {
  Device &d = device();
  std::lock_guard lock(d.mutex);
  d.configured = true;
  d.props = p;
  d.maxDynamicShared.clear();
  d.sticky.store(cudaSuccess, std::memory_order_release);
  d.fault.clear();
  d.faultText.clear();
  d.launches.store(0);
  lastError = cudaSuccess;
}

namespace detail {

cudaError_t launch(const LaunchSpec &spec) {
  if (cudaError_t e = stickyError())
    return record(e);
  Device &d = device();
  LaunchState L;
  L.spec = &spec;
  int maxShared;
  {
    std::lock_guard lock(d.mutex);
    L.props = propsLocked(d);
    auto it = d.maxDynamicShared.find(spec.kernel);
    maxShared = it != d.maxDynamicShared.end() ? it->second : int(L.props.sharedPerBlock);
  }
  if (spec.blocks == 0 || spec.threads == 0 || spec.threads > 1024)
    return record(cudaErrorInvalidConfiguration);
  if (spec.sharedBytes > size_t(maxShared))
    return record(cudaErrorInvalidValue);
  uint64_t n = d.launches.fetch_add(1) + 1;
  if (L.props.failLaunch != 0 && n == L.props.failLaunch) {
    setSticky(cudaErrorLaunchFailure, "launch " + std::to_string(n) + " failed on purpose (fail-launch)");
    return cudaSuccess; // as on a device, the failure shows at the next call
  }
  unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  unsigned workers = L.props.workers ? L.props.workers : std::min(L.props.sms, cores);
  workers = std::max(1u, std::min(workers, spec.blocks));
  std::vector<std::thread> helpers;
  helpers.reserve(workers - 1);
  for (unsigned w = 1; w < workers; ++w)
    helpers.emplace_back([&L] { worker(L); });
  worker(L);
  for (std::thread &t : helpers)
    t.join();
  tsanAcquire(&L.done);
  if (L.failed.load())
    setSticky(cudaErrorLaunchFailure, L.fault);
  return cudaSuccess;
}

void syncthreads(Site site) {
  BlockRunner &r = *runner;
  Fiber &f = *r.running;
  f.site = site;
  f.wait.store(Wait::Block, std::memory_order_relaxed);
  tsanRelease(&r.blockSync);
  if (r.arrived.fetch_add(1, std::memory_order_relaxed) + 1 == r.live.load(std::memory_order_relaxed))
    releaseBlockBarrier(r);
  yieldToScheduler(r, f);
  tsanAcquire(&r.blockSync);
}

uint64_t shuffleDown(unsigned mask, uint64_t value, unsigned delta, Site site) {
  BlockRunner &r = *runner;
  Fiber &f = *r.running;
  unsigned tid = f.state.threadIndex.x, lane = tid % 32;
  WarpState &w = r.warps[tid / 32];
  unsigned lanes = std::min(32u, r.spec->threads - tid / 32 * 32);
  unsigned present = lanes == 32 ? 0xFFFFFFFFu : (1u << lanes) - 1;
  if ((mask & ~present) != 0 || !(mask >> lane & 1)) {
    fail(r, "warp shuffle at " + siteText(site) + " by lane " + std::to_string(lane) +
                " with a mask naming lanes that do not take part");
    yieldToScheduler(r, f);
  }
  unsigned expected = unsigned(std::popcount(mask));
  auto meet = [&] {
    f.site = site;
    f.wait.store(Wait::Warp, std::memory_order_relaxed);
    tsanRelease(&w);
    if (w.arrived.fetch_add(1, std::memory_order_relaxed) + 1 == expected) {
      tsanAcquire(&w);
      w.arrived.store(0, std::memory_order_relaxed);
      for (unsigned l = 0; l < lanes; ++l) {
        Fiber &o = r.fibers[tid / 32 * 32 + l];
        if (mask >> l & 1) {
          if (!sameSite(o.site, site))
            return fail(r, "divergent warp shuffle: " + describeWaits(r));
          o.wait.store(Wait::Ready, std::memory_order_relaxed);
        }
      }
      tsanRelease(&w);
    }
    yieldToScheduler(r, f);
    tsanAcquire(&w);
  };
  w.values[lane] = value;
  meet();
  unsigned src = lane + delta;
  uint64_t result = src < 32 && (mask >> src & 1) ? w.values[src] : value;
  meet(); // nobody overwrites a value before every lane has read its own
  return result;
}

int occupancy(const void *, int blockSize, size_t sharedBytes) {
  Properties p = properties();
  if (blockSize <= 0 || blockSize > 1024)
    return 0;
  size_t bySmem = p.sharedPerSm / (sharedBytes + p.reservedSharedPerBlock);
  size_t byThreads = p.maxThreadsPerSm / unsigned(blockSize);
  return int(std::min<size_t>({bySmem, byThreads, p.maxBlocksPerSm}));
}

cudaError_t setMaxDynamicShared(const void *kernel, int bytes) {
  Device &d = device();
  std::lock_guard lock(d.mutex);
  Properties &p = propsLocked(d);
  if (bytes < 0 || size_t(bytes) > p.sharedPerBlockOptin)
    return record(cudaErrorInvalidValue);
  d.maxDynamicShared[kernel] = bytes;
  return cudaSuccess;
}

} // namespace detail
} // namespace bendc::emu

// --- the runtime API ------------------------------------------------------------------------

using namespace bendc::emu;

namespace {
bool visible() {
  // CUDA_VISIBLE_DEVICES set to nothing (or to -1) hides every device.
  if (const char *v = std::getenv("CUDA_VISIBLE_DEVICES"))
    if (*v == 0 || std::strcmp(v, "-1") == 0)
      return false;
  return properties().present;
}
} // namespace

cudaError_t cudaGetDeviceCount(int *count) {
  *count = 0;
  if (!visible())
    return record(cudaErrorNoDevice);
  *count = 1;
  return cudaSuccess;
}

cudaError_t cudaGetDevice(int *dev) {
  *dev = 0;
  return visible() ? cudaSuccess : record(cudaErrorNoDevice);
}

cudaError_t cudaSetDevice(int dev) {
  if (!visible() || dev != 0)
    return record(cudaErrorInvalidDevice);
  return record(stickyError());
}

cudaError_t cudaGetDeviceProperties(cudaDeviceProp *prop, int dev) {
  if (!visible() || dev != 0)
    return record(cudaErrorInvalidDevice);
  Properties p = properties();
  *prop = cudaDeviceProp{};
  std::snprintf(prop->name, sizeof prop->name, "bendc emulated device (%u SMs)", p.sms);
  prop->totalGlobalMem = p.memory;
  prop->sharedMemPerBlock = p.sharedPerBlock;
  prop->sharedMemPerMultiprocessor = p.sharedPerSm;
  prop->sharedMemPerBlockOptin = p.sharedPerBlockOptin;
  prop->reservedSharedMemPerBlock = p.reservedSharedPerBlock;
  prop->warpSize = 32;
  prop->maxThreadsPerBlock = 1024;
  prop->maxThreadsPerMultiProcessor = int(p.maxThreadsPerSm);
  prop->maxBlocksPerMultiProcessor = int(p.maxBlocksPerSm);
  prop->multiProcessorCount = int(p.sms);
  prop->major = 9;
  prop->minor = 0;
  return cudaSuccess;
}

cudaError_t cudaMalloc(void **ptr, size_t bytes) {
  *ptr = nullptr;
  if (cudaError_t e = stickyError())
    return record(e);
  Device &d = device();
  std::lock_guard lock(d.mutex);
  Properties &p = propsLocked(d);
  size_t rounded = (bytes + 255) / 256 * 256;
  if (d.used + rounded > p.memory)
    return record(cudaErrorMemoryAllocation);
  char *base = nullptr;
  size_t mapped = 0;
  char *mem = mapGuarded(bytes, 256, base, mapped);
  if (!mem)
    return record(cudaErrorMemoryAllocation);
  d.allocations[mem] = {base, mapped};
  d.used += rounded;
  *ptr = mem;
  return cudaSuccess;
}

cudaError_t cudaFree(void *ptr) {
  if (!ptr)
    return cudaSuccess;
  Device &d = device();
  std::lock_guard lock(d.mutex);
  auto it = d.allocations.find(static_cast<char *>(ptr));
  if (it == d.allocations.end())
    return record(cudaErrorInvalidValue);
  size_t page = pageSize();
  size_t bytes = it->second.second - page - size_t(it->first - it->second.first);
  d.used -= std::min(d.used, (bytes + 255) / 256 * 256);
  munmap(it->second.first, it->second.second);
  d.allocations.erase(it);
  return cudaSuccess;
}

cudaError_t cudaMemcpy(void *dst, const void *src, size_t bytes, cudaMemcpyKind kind) {
  if (cudaError_t e = stickyError())
    return record(e);
  if (bytes)
    std::memcpy(dst, src, bytes);
  if (kind == cudaMemcpyDeviceToHost)
    device().toHost.fetch_add(bytes, std::memory_order_relaxed);
  return cudaSuccess;
}

cudaError_t cudaMemset(void *ptr, int value, size_t bytes) {
  if (cudaError_t e = stickyError())
    return record(e);
  if (bytes)
    std::memset(ptr, value, bytes);
  return cudaSuccess;
}

cudaError_t cudaMemGetInfo(size_t *freeBytes, size_t *totalBytes) {
  if (cudaError_t e = stickyError())
    return record(e);
  Device &d = device();
  std::lock_guard lock(d.mutex);
  Properties &p = propsLocked(d);
  *totalBytes = p.memory;
  *freeBytes = p.memory - std::min(p.memory, d.used);
  return cudaSuccess;
}

cudaError_t cudaDeviceSynchronize() { return record(stickyError()); }

cudaError_t cudaDeviceReset() {
  // As on a device, a sticky execution error outlives a reset: the process
  // must end before the device can be used again.
  Device &d = device();
  std::lock_guard lock(d.mutex);
  d.maxDynamicShared.clear();
  return cudaSuccess;
}

namespace {
/// Runs `use` on the recorded value of `limit` under the device's lock.
template <class Use> cudaError_t withLimit(cudaLimit limit, Use use) {
  if (cudaError_t e = stickyError())
    return record(e);
  if (limit != cudaLimitStackSize)
    return record(cudaErrorInvalidValue);
  Device &d = device();
  std::lock_guard lock(d.mutex);
  use(d.stackLimit);
  return cudaSuccess;
}
} // namespace

cudaError_t cudaDeviceSetLimit(cudaLimit limit, size_t value) {
  return withLimit(limit, [&](size_t &recorded) { recorded = value; });
}

cudaError_t cudaDeviceGetLimit(size_t *value, cudaLimit limit) {
  return withLimit(limit, [&](size_t &recorded) { *value = recorded; });
}

cudaError_t cudaGetLastError() {
  if (cudaError_t e = stickyError())
    return e;
  cudaError_t e = lastError;
  lastError = cudaSuccess;
  return e;
}

cudaError_t cudaPeekAtLastError() {
  if (cudaError_t e = stickyError())
    return e;
  return lastError;
}

const char *cudaGetErrorName(cudaError_t error) {
  switch (error) {
  case cudaSuccess: return "cudaSuccess";
  case cudaErrorInvalidValue: return "cudaErrorInvalidValue";
  case cudaErrorMemoryAllocation: return "cudaErrorMemoryAllocation";
  case cudaErrorInitializationError: return "cudaErrorInitializationError";
  case cudaErrorInvalidConfiguration: return "cudaErrorInvalidConfiguration";
  case cudaErrorInsufficientDriver: return "cudaErrorInsufficientDriver";
  case cudaErrorNoDevice: return "cudaErrorNoDevice";
  case cudaErrorInvalidDevice: return "cudaErrorInvalidDevice";
  case cudaErrorLaunchOutOfResources: return "cudaErrorLaunchOutOfResources";
  case cudaErrorLaunchFailure: return "cudaErrorLaunchFailure";
  }
  return "cudaErrorUnknown";
}

const char *cudaGetErrorString(cudaError_t error) {
  switch (error) {
  case cudaSuccess: return "no error";
  case cudaErrorInvalidValue: return "invalid argument";
  case cudaErrorMemoryAllocation: return "out of memory";
  case cudaErrorInitializationError: return "initialization error";
  case cudaErrorInvalidConfiguration: return "invalid configuration argument";
  case cudaErrorInsufficientDriver: return "CUDA driver version is insufficient for CUDA runtime version";
  case cudaErrorNoDevice: return "no CUDA-capable device is detected";
  case cudaErrorInvalidDevice: return "invalid device ordinal";
  case cudaErrorLaunchOutOfResources: return "too many resources requested for launch";
  case cudaErrorLaunchFailure: {
    Device &d = device();
    std::lock_guard lock(d.mutex);
    // Set once per process (the error is sticky), so the pointer stays valid.
    return d.faultText.empty() ? "unspecified launch failure" : d.faultText.c_str();
  }
  }
  return "unknown error";
}
