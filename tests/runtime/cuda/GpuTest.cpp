// The CUDA runtime against the CPU runtime: for every rule and for small and
// medium parallel programs, the same result text and the same interaction
// counts by rule (interaction nets are confluent, so counts do not depend on
// the schedule). Without a device the GPU cases print "skipped: no CUDA
// device" (ctest reports the test as skipped); the no-device behaviour itself
// is checked everywhere.
#include "runtime/common/Numeric.h"
#include "tests/runtime/RunText.h"
#include "tests/runtime/TestNets.h"

#include <doctest/doctest.h>

#ifdef BENDC_CUDA_EMULATE
#include "runtime/cuda/emulate/EmulatedDevice.h"
#endif

#include <cstdio>
#include <cstdlib>
#include <string>

using namespace bendc;
using testing::Outcome;
namespace nets = testing::nets;

namespace {

// Under ThreadSanitizer every access is checked and every thread switch
// costs, and under compute-sanitizer every device access is: the same programs
// at smaller sizes. BENDC_GPU_TEST_SMALL=1 asks for them (tools/gpu-check sets
// it for the sanitizer runs).
#if defined(__SANITIZE_THREAD__)
constexpr bool ThreadSanitized = true;
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
constexpr bool ThreadSanitized = true;
#else
constexpr bool ThreadSanitized = false;
#endif
#else
constexpr bool ThreadSanitized = false;
#endif

const bool Small = [] {
  const char *small = std::getenv("BENDC_GPU_TEST_SMALL");
  return ThreadSanitized || (small && *small && std::string(small) != "0");
}();

Outcome runText(const std::string &text, rt::Backend backend, uint64_t mem = 256 << 20) {
  rt::RunOptions options;
  options.backend = backend;
  options.threads = backend == rt::Backend::Cpu ? 2 : 0;
  options.memBytes = mem;
  return testing::runText(text, options);
}

/// A book whose @main is the number 1, built by hand so probing needs nothing else.
rt::Book trivialBook() {
  rt::Book book;
  book.names = {"main"};
  rt::DefInfo main;
  main.root = rt::numTerm(rt::num::makeU24(1));
  book.defs = {main};
  return book;
}

rt::RunResult runTrivial(rt::Backend backend) {
  rt::RunOptions options;
  options.backend = backend;
  options.memBytes = 16 << 20;
  return rt::run(trivialBook(), options);
}

/// Whether a usable CUDA device is present; says so once when it is not.
bool devicePresent() {
  static const bool present = [] {
    bool found = runTrivial(rt::Backend::Cuda).status != rt::RunStatus::NoDevice;
    if (!found)
      std::printf("skipped: no CUDA device\n");
    return found;
  }();
  return present;
}

#define REQUIRE_DEVICE()                                                                          \
  do {                                                                                            \
    if (!devicePresent())                                                                         \
      return;                                                                                     \
  } while (0)

#ifdef BENDC_CUDA_EMULATE
/// The emulated device changed for one test case, then restored.
struct EmulatedDevice {
  emu::Properties saved = emu::properties();
  template <class Change> explicit EmulatedDevice(Change change) {
    emu::Properties p = saved;
    change(p);
    emu::configure(p);
  }
  ~EmulatedDevice() { emu::configure(saved); }
};
#endif

/// Runs `program` on both backends and requires the same outcome.
void sameOnBoth(const std::string &program, uint64_t mem = 256 << 20) {
  CAPTURE(program);
  CAPTURE(mem);
  Outcome cpu = runText(program, rt::Backend::Cpu, mem);
  Outcome gpu = runText(program, rt::Backend::Cuda, mem);
  INFO(cpu.diagnostics);
  INFO("cpu: ", cpu.run.message);
  INFO("cuda: ", gpu.run.message);
  REQUIRE(int(gpu.run.status) == int(cpu.run.status));
  CHECK(gpu.run.stats.backend.rfind("cuda (", 0) == 0);
  if (cpu.run.status != rt::RunStatus::Ok)
    return;
  CHECK(gpu.result == cpu.result);
  CHECK(gpu.run.stats.interactions == cpu.run.stats.interactions);
  for (unsigned r = 0; r < rt::RuleCount; ++r) {
    CAPTURE(r);
    CHECK(gpu.run.stats.byRule[r] == cpu.run.stats.byRule[r]);
  }
}

// A definition of about `n` nodes: a function that duplicates its argument
// into a pair with a long list. Applied twice in parallel and once more through
// a duplicator (the definition duplicates, so it is expanded, not copied).
std::string bigDefinition(unsigned n) {
  std::string list = "y";
  for (unsigned i = n; i > 0; --i)
    list = "(" + std::to_string(i % 1000) + " " + list + ")";
  return "@main = ((a b) (c d)) & @big ~ (1 a) & @big ~ (2 b) & {(3 c) (4 d)} ~ @big\n"
         "@big = ({x y} (x " + list + "))\n";
}

} // namespace

TEST_CASE("--backend=cuda without a device is NoDevice with a message") {
  rt::RunResult r = runTrivial(rt::Backend::Cuda);
  if (r.status == rt::RunStatus::Ok) {
    MESSAGE("a CUDA device is present; run this test with CUDA_VISIBLE_DEVICES= to check the no-device path");
    CHECK(testing::resultText(r, trivialBook()) == "1");
    return;
  }
  CHECK(r.status == rt::RunStatus::NoDevice);
  CHECK(!r.message.empty());
  CHECK(r.message.find("--backend=cpu") != std::string::npos);
  CHECK(testing::resultText(r, trivialBook()).empty());
  // Auto falls back to the CPU, quietly.
  rt::RunResult a = runTrivial(rt::Backend::Auto);
  CHECK(a.status == rt::RunStatus::Ok);
  CHECK(testing::resultText(a, trivialBook()) == "1");
  CHECK(a.stats.backend == "cpu");
}

TEST_CASE("gpu: every rule gives the CPU's result and counts") {
  REQUIRE_DEVICE();
  for (const nets::RuleNet &r : nets::rules) {
    CAPTURE(r.name);
    sameOnBoth(r.text);
    CHECK(runText(r.text, rt::Backend::Cuda).result == r.result);
  }
}

#ifdef BENDC_CUDA_EMULATE
// A clash recurses on the device thread's stack (see DeviceStackBytes): with
// CUDA's default 1 KiB, a pair applied as a function overflowed it on an H200.
TEST_CASE("gpu: a run gives each device thread the stack a clash needs") {
  REQUIRE_DEVICE();
  sameOnBoth(nets::rules[0].text);
  CHECK(emu::stackLimit() >= rt::DeviceStackBytes);
}
#endif

#ifdef BENDC_CUDA_EMULATE
// Readback fetches the pages the reading reaches. It copied every node ever
// handed out, 45 GB to read one number on an H200.
TEST_CASE("gpu: reading a small result back copies little of a large net") {
  REQUIRE_DEVICE();
  uint64_t before = emu::bytesCopiedToHost();
  Outcome gpu = runText(nets::sum(16), rt::Backend::Cuda);
  uint64_t copied = emu::bytesCopiedToHost() - before;
  REQUIRE(gpu.run.status == rt::RunStatus::Ok);
  CHECK(gpu.result == nets::sumResult(16));
  uint64_t netBytes = gpu.run.stats.peakNodes * 2 * sizeof(rt::Term);
  REQUIRE(netBytes > (uint64_t(8) << 20)); // the net is large
  CHECK(copied < netBytes / 8);
}
#endif

TEST_CASE("gpu: parallel sum and tree programs match the CPU") {
  REQUIRE_DEVICE();
  for (unsigned depth : {1u, 4u, 10u, 14u, 18u})
    if (!Small || depth <= 10)
      sameOnBoth(nets::sum(depth));
  for (unsigned depth : {1u, 6u, 12u, 16u})
    if (!Small || depth <= 8)
      sameOnBoth(nets::tree(depth));
  CHECK(runText(nets::sum(10), rt::Backend::Cuda).result == nets::sumResult(10));
}

TEST_CASE("gpu: little memory: pooled free nodes and the large-definition pass") {
  REQUIRE_DEVICE();
  // With 64 MiB the per-thread scratch is tiny, so nearly every expansion goes
  // through the large-definition pass, and allocation runs near the limit.
  sameOnBoth(nets::sum(Small ? 10 : 16), 64 << 20);
  sameOnBoth(nets::tree(Small ? 8 : 14), 64 << 20);
}

TEST_CASE("gpu: definitions larger than a thread's scratch") {
  REQUIRE_DEVICE();
  sameOnBoth(bigDefinition(3000), 1ull << 30);
  sameOnBoth(bigDefinition(3000), 64 << 20);
}

TEST_CASE("gpu: a large definition expanded by fewer threads than there are rules") {
  REQUIRE_DEVICE();
  // With 1 MiB the big-call pass fits only a couple of threads of scratch:
  // every rule's count of the block must still reach the scatter's offsets.
  sameOnBoth(bigDefinition(3000), 1 << 20);
}

// A call of a curried function of 16 erased parameters, applied to 16
// lambdas, fused level by level: each level pushes an eraser against a lambda,
// 17 redexes for one call of a definition with none of its own. 256 such calls
// reach the block-local kernel together.
std::string fusedCallsProgram() {
  std::string chain = "r", stars = "7";
  for (unsigned i = 0; i < 16; ++i) {
    chain = "((x" + std::to_string(i) + " x" + std::to_string(i) + ") " + chain + ")";
    stars = "(* " + stars + ")";
  }
  return "@main = r & @sum ~ (8 r)\n"
         "@sum = (?((@leaf @sum/go) f) f)\n"
         "@sum/go = ({p q} r) &! @sum ~ (p $([+] $(s r))) &! @sum ~ (q s)\n"
         "@leaf = r & @f ~ " + chain + "\n"
         "@f = " + stars + "\n";
}

TEST_CASE("gpu: fused expansions push more than their definition's redexes") {
  REQUIRE_DEVICE();
#ifdef BENDC_CUDA_EMULATE
  // Little shared memory: the block-local kernel's buffers are small, so a
  // round sized for too few pushes per redex overflows them.
  EmulatedDevice device([](emu::Properties &p) { p.sharedPerBlockOptin = 16 << 10; });
#endif
  sameOnBoth(fusedCallsProgram(), 64 << 20);
  Outcome o = runText(fusedCallsProgram(), rt::Backend::Cuda, 64 << 20);
  CHECK(o.result == "1792");
}

#ifdef BENDC_CUDA_EMULATE
TEST_CASE("gpu: a failed launch is a device error, then the device is gone for the process") {
  REQUIRE_DEVICE();
  EmulatedDevice device([](emu::Properties &p) { p.failLaunch = 3; });
  Outcome failed = runText(nets::sum(10), rt::Backend::Cuda);
  CHECK(failed.run.status == rt::RunStatus::DeviceError);
  CHECK(failed.run.message.find("CUDA error while") == 0);
  CHECK(failed.run.message.find("unspecified launch failure") != std::string::npos);
  CHECK(failed.run.message.find("--backend=cpu") != std::string::npos);
  // The error is sticky, as on a device: later runs say so at once ...
  Outcome again = runText(nets::sum(10), rt::Backend::Cuda);
  CHECK(again.run.status == rt::RunStatus::NoDevice);
  CHECK(again.run.message.find("failed earlier in this process") != std::string::npos);
  // ... and --backend=auto falls back to the CPU.
  rt::RunResult fallback = runTrivial(rt::Backend::Auto);
  CHECK(fallback.status == rt::RunStatus::Ok);
  CHECK(fallback.stats.backend == "cpu");
}

TEST_CASE("gpu: a small shared bag spills to the round buffer") {
  REQUIRE_DEVICE();
  // The smallest bag (two redexes per thread): a pass of pushes overflows it.
  EmulatedDevice device([](emu::Properties &p) {
    p.sharedPerBlock = 9 << 10;
    p.sharedPerSm = 20 << 10;
  });
  sameOnBoth(nets::sum(Small ? 8 : 12));
  sameOnBoth(nets::tree(Small ? 6 : 10));
}

TEST_CASE("gpu: blocks race: the results hold under every thread order") {
  REQUIRE_DEVICE();
  for (auto order : {emu::Properties::Order::Reverse, emu::Properties::Order::Shuffled}) {
    EmulatedDevice device([&](emu::Properties &p) {
      p.order = order;
      p.seed = 12345;
      p.sms = 4;
    });
    sameOnBoth(nets::sum(Small ? 8 : 12));
    sameOnBoth(nets::tree(Small ? 6 : 10));
    sameOnBoth(fusedCallsProgram());
  }
}
#endif

TEST_CASE("gpu: f24 math gives the CPU's bits") {
  REQUIRE_DEVICE();
  // atan2, log, pow, sine and tangent over a spread of operands: every result
  // in one tuple, so a single differing bit shows.
  const char *const ops[] = {"&", "|", "^", "<<", ">>", "*", "/", "%"};
  std::string results = "*", redexes;
  unsigned n = 0;
  for (const char *op : ops)
    for (int i = 1; i <= 12; ++i)
      for (int j = 1; j <= 6; ++j, ++n) {
        char a[32], b[32];
        std::snprintf(a, sizeof a, "%.3f", 0.37 * i * (i % 2 ? 1 : -1) + 0.011 * j);
        std::snprintf(b, sizeof b, "%.3f", 1.9 / j + 0.07 * i);
        std::string r = "r" + std::to_string(n);
        results = "(" + r + " " + results + ")";
        redexes += " & " + std::string(a) + " ~ $([" + op + "] $(" + b + " " + r + "))";
      }
  std::string program = "@main = " + results + redexes + "\n";
  Outcome cpu = runText(program, rt::Backend::Cpu);
  INFO(cpu.diagnostics);
  REQUIRE(cpu.run.status == rt::RunStatus::Ok);
  CHECK(cpu.result.find("nan") == std::string::npos);
  sameOnBoth(program);
}

TEST_CASE("gpu: a long sequential loop reuses memory") {
  REQUIRE_DEVICE();
  sameOnBoth(nets::loop(Small ? 2000 : 50000), 16 << 20);
}

TEST_CASE("gpu: running out of device memory is reported, not a crash") {
  REQUIRE_DEVICE();
  Outcome o = runText("@main = r & @grow ~ (1 r)\n@grow = ({a b} (c d)) & @grow ~ (a c) & @grow ~ (b d)\n",
                      rt::Backend::Cuda, 1 << 20);
  CHECK(o.run.status == rt::RunStatus::OutOfMemory);
  CHECK(o.run.message.find("out of memory") == 0);
  CHECK(o.run.message.find("--mem") != std::string::npos);
}

TEST_CASE("gpu: timing and backend name") {
  REQUIRE_DEVICE();
  Outcome o = runText(nets::sum(10), rt::Backend::Cuda);
  REQUIRE(o.run.status == rt::RunStatus::Ok);
  CHECK(o.run.stats.seconds > 0);
  CHECK(o.run.stats.threads > 0);
  CHECK(o.run.stats.peakNodes > 0);
}
