// The emulated CUDA device's settings, for tests and for the BENDC_EMULATE
// environment variable; see CudaEmulation.h for what it emulates. This header
// declares no CUDA names, so any translation unit may include it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace bendc::emu {

/// What the emulated device looks like and how it schedules; small by default
/// so tests reach the paths a big GPU rarely takes.
struct Properties {
  unsigned sms = 2;                     // multiprocessors; also the most blocks run at once
  size_t sharedPerBlock = 48 << 10;     // dynamic + static, without opting in
  size_t sharedPerBlockOptin = 64 << 10;
  size_t sharedPerSm = 100 << 10;
  size_t reservedSharedPerBlock = 1 << 10;
  size_t memory = size_t(512) << 20;    // device memory
  unsigned maxThreadsPerSm = 2048;
  unsigned maxBlocksPerSm = 32;
  unsigned workers = 0;                 // host threads running blocks; 0: min(sms, cores)
  enum class Order { Forward, Reverse, Shuffled } order = Order::Forward;
  uint64_t seed = 1;                    // for Order::Shuffled
  unsigned failLaunch = 0;              // the n-th launch (from 1) fails; 0: none
  bool present = true;                  // false: no device at all
};

/// The properties in effect: set by configure(), else read once from the
/// environment variable BENDC_EMULATE ("sms=4,shared=16K,memory=64M,order=reverse,
/// seed=7,fail-launch=3,workers=2,present=0"; also shared-optin, shared-sm);
/// a bad setting is reported on stderr and the whole variable ignored.
Properties properties();
/// Replaces the properties, frees nothing, and clears the sticky error and
/// the launch counter: a fresh emulated device.
void configure(const Properties &p);

/// The per-thread stack the program last asked for (cudaLimitStackSize; 1 KiB,
/// CUDA's default, until it asks).
size_t stackLimit();
/// Bytes cudaMemcpy has copied from the device to the host since the start.
uint64_t bytesCopiedToHost();
/// Parses the BENDC_EMULATE syntax; false with `error` set on a bad value.
bool parseProperties(const std::string &text, Properties &out, std::string &error);


} // namespace bendc::emu
