// The subset of CUDA that runtime/cuda uses, implemented on the host, so the
// very same kernels compile as C++ (-DBENDC_CUDA=EMULATE) and run in tests on
// machines without a GPU.
//
// The model:
//   * A launch runs its blocks concurrently on host worker threads (as many as
//     the emulated device has SMs, at most the host's cores); a worker runs one
//     block at a time. Blocks therefore race with each other as on a GPU.
//   * The threads of a block are fibers on their worker. They run one at a
//     time and switch only where CUDA threads of a block meet: __syncthreads
//     and the warp shuffles, which are real barriers (every thread of the
//     block, or every lane of the warp, must arrive before any leaves). Which
//     runnable thread goes first is configurable (forward, reverse, shuffled).
//   * `__shared__` variables are `static thread_local`: one copy per worker,
//     so per block. Dynamic shared memory (dynamicShared<T>()) is a buffer per
//     block that ends at a guard page, so reading past its end faults.
//   * Barriers are checked: threads that reach different __syncthreads calls,
//     or a barrier some threads of the block exited without reaching, fail
//     the launch (cudaErrorLaunchFailure, sticky as on a device); its
//     cudaGetErrorString names the call sites.
//   * Under ThreadSanitizer every thread is a fiber TSan knows, switching
//     without synchronising; barriers are the only happens-before edges the
//     emulation adds, so TSan sees exactly the ordering a GPU guarantees
//     within a block.
//   * Device memory is host memory mapped with a guard page after each
//     allocation; the emulated device has a fixed, configurable size.
//
// Only what runtime/cuda uses is here; a new CUDA call in the kernels needs a
// line here too.
#pragma once

#include "runtime/cuda/emulate/EmulatedDevice.h"

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>

// --- keywords -----------------------------------------------------------------

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __shared__ static thread_local
#define __launch_bounds__(...)

// --- types and error codes ------------------------------------------------------

struct dim3 {
  unsigned x = 1, y = 1, z = 1;
  constexpr dim3(unsigned vx = 1, unsigned vy = 1, unsigned vz = 1) : x(vx), y(vy), z(vz) {}
};

enum cudaError {
  cudaSuccess = 0,
  cudaErrorInvalidValue = 1,
  cudaErrorMemoryAllocation = 2,
  cudaErrorInitializationError = 3,
  cudaErrorInvalidConfiguration = 9,
  cudaErrorInsufficientDriver = 35,
  cudaErrorNoDevice = 100,
  cudaErrorInvalidDevice = 101,
  cudaErrorLaunchOutOfResources = 701,
  cudaErrorLaunchFailure = 719,
};
using cudaError_t = cudaError;

// Only the per-thread stack is a limit the runtime sets.
enum cudaLimit { cudaLimitStackSize = 0 };

enum cudaMemcpyKind {
  cudaMemcpyHostToHost = 0,
  cudaMemcpyHostToDevice = 1,
  cudaMemcpyDeviceToHost = 2,
  cudaMemcpyDeviceToDevice = 3,
  cudaMemcpyDefault = 4,
};

enum cudaFuncAttribute {
  cudaFuncAttributeMaxDynamicSharedMemorySize = 8,
};

struct cudaDeviceProp {
  char name[256];
  size_t totalGlobalMem;
  size_t sharedMemPerBlock;
  size_t sharedMemPerMultiprocessor;
  size_t sharedMemPerBlockOptin;
  size_t reservedSharedMemPerBlock;
  int warpSize;
  int maxThreadsPerBlock;
  int maxThreadsPerMultiProcessor;
  int maxBlocksPerMultiProcessor;
  int multiProcessorCount;
  int major, minor;
};

namespace bendc::emu {

namespace detail {

/// Where in the source a thread waits (a barrier's call site).
struct Site {
  const char *file;
  unsigned line;
};

/// The identity of one emulated CUDA thread, readable from its code.
struct ThreadState {
  dim3 threadIndex, blockIndex, blockSize, gridSize;
  void *sharedDynamic = nullptr;
};
/// The running thread's identity. Atomic only so ThreadSanitizer sees no race
/// between the scheduler setting it and the threads reading it (they run one
/// at a time on their worker anyway).
inline thread_local std::atomic<ThreadState *> current{nullptr};
inline ThreadState &self() { return *current.load(std::memory_order_relaxed); }

struct LaunchSpec {
  const void *kernel;
  unsigned blocks, threads;
  size_t sharedBytes;
  void (*body)(void *);
  void *arg;
};
cudaError_t launch(const LaunchSpec &spec);

void syncthreads(Site site);
uint64_t shuffleDown(unsigned mask, uint64_t value, unsigned delta, Site site);

int occupancy(const void *kernel, int blockSize, size_t sharedBytes);
cudaError_t setMaxDynamicShared(const void *kernel, int bytes);

} // namespace detail

/// Runs `kernel(args...)` on a grid of `blocks` x `threads` with `sharedBytes`
/// of dynamic shared memory; returns when every block has finished.
template <class... Params, class... Args>
cudaError_t launch(void (*kernel)(Params...), unsigned blocks, unsigned threads, size_t sharedBytes,
                   Args &&...args) {
  using Pack = std::tuple<std::decay_t<Params>...>;
  struct Call {
    void (*kernel)(Params...);
    Pack params;
  };
  Call call{kernel, Pack(std::forward<Args>(args)...)};
  auto body = [](void *p) {
    auto *c = static_cast<Call *>(p);
    std::apply(c->kernel, c->params); // each thread gets its own copy of the parameters
  };
  return detail::launch(
      {reinterpret_cast<const void *>(kernel), blocks, threads, sharedBytes, body, &call});
}

} // namespace bendc::emu

// --- built-in variables ---------------------------------------------------------

#define threadIdx (::bendc::emu::detail::self().threadIndex)
#define blockIdx (::bendc::emu::detail::self().blockIndex)
#define blockDim (::bendc::emu::detail::self().blockSize)
#define gridDim (::bendc::emu::detail::self().gridSize)

// --- device functions -------------------------------------------------------------

// The call site comes from default arguments, so barriers can be told apart.
inline void __syncthreads(const char *file = __builtin_FILE(), unsigned line = __builtin_LINE()) {
  ::bendc::emu::detail::syncthreads({file, line});
}
inline void __threadfence() { std::atomic_thread_fence(std::memory_order_seq_cst); }
inline void __threadfence_block() { std::atomic_thread_fence(std::memory_order_seq_cst); }

template <class T>
T __shfl_down_sync(unsigned mask, T value, unsigned delta, const char *file = __builtin_FILE(),
                   unsigned line = __builtin_LINE()) {
  static_assert(std::is_trivially_copyable_v<T> && sizeof(T) <= 8, "a shuffle moves at most 8 bytes");
  uint64_t bits = 0;
  std::memcpy(&bits, &value, sizeof(T));
  bits = ::bendc::emu::detail::shuffleDown(mask, bits, delta, {file, line});
  std::memcpy(&value, &bits, sizeof(T));
  return value;
}

// CUDA's atomics are relaxed read-modify-writes on global or shared memory.
template <class T> T atomicAdd(T *address, T value) {
  return std::atomic_ref<T>(*address).fetch_add(value, std::memory_order_relaxed);
}
template <class T> T atomicExch(T *address, T value) {
  return std::atomic_ref<T>(*address).exchange(value, std::memory_order_relaxed);
}
template <class T> T atomicOr(T *address, T value) {
  return std::atomic_ref<T>(*address).fetch_or(value, std::memory_order_relaxed);
}
template <class T> T atomicCAS(T *address, T expected, T desired) {
  std::atomic_ref<T>(*address).compare_exchange_strong(expected, desired, std::memory_order_relaxed);
  return expected; // the old value either way
}

// --- libcu++'s atomic_ref -----------------------------------------------------------

namespace cuda {
enum thread_scope { thread_scope_system, thread_scope_device, thread_scope_block, thread_scope_thread };
namespace std {
using memory_order = ::std::memory_order;
inline constexpr memory_order memory_order_relaxed = ::std::memory_order_relaxed;
inline constexpr memory_order memory_order_acquire = ::std::memory_order_acquire;
inline constexpr memory_order memory_order_release = ::std::memory_order_release;
inline constexpr memory_order memory_order_acq_rel = ::std::memory_order_acq_rel;
inline constexpr memory_order memory_order_seq_cst = ::std::memory_order_seq_cst;
} // namespace std
template <class T, thread_scope Scope = thread_scope_system> class atomic_ref : public ::std::atomic_ref<T> {
public:
  using ::std::atomic_ref<T>::atomic_ref;
};
} // namespace cuda

// --- the runtime API ----------------------------------------------------------------

cudaError_t cudaGetDeviceCount(int *count);
cudaError_t cudaGetDevice(int *device);
cudaError_t cudaSetDevice(int device);
cudaError_t cudaGetDeviceProperties(cudaDeviceProp *prop, int device);
cudaError_t cudaMalloc(void **ptr, size_t bytes);
cudaError_t cudaFree(void *ptr);
cudaError_t cudaMemcpy(void *dst, const void *src, size_t bytes, cudaMemcpyKind kind);
cudaError_t cudaMemset(void *ptr, int value, size_t bytes);
cudaError_t cudaMemGetInfo(size_t *freeBytes, size_t *totalBytes);
cudaError_t cudaDeviceSynchronize();
cudaError_t cudaDeviceReset();
cudaError_t cudaDeviceSetLimit(cudaLimit limit, size_t value);
cudaError_t cudaDeviceGetLimit(size_t *value, cudaLimit limit);
cudaError_t cudaGetLastError();
cudaError_t cudaPeekAtLastError();
const char *cudaGetErrorName(cudaError_t error);
const char *cudaGetErrorString(cudaError_t error);

template <class Kernel>
cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int *blocks, Kernel kernel, int blockSize,
                                                          size_t dynamicShared) {
  *blocks = ::bendc::emu::detail::occupancy(reinterpret_cast<const void *>(kernel), blockSize, dynamicShared);
  return cudaSuccess;
}

template <class Kernel> cudaError_t cudaFuncSetAttribute(Kernel kernel, cudaFuncAttribute attribute, int value) {
  if (attribute != cudaFuncAttributeMaxDynamicSharedMemorySize)
    return cudaErrorInvalidValue;
  return ::bendc::emu::detail::setMaxDynamicShared(reinterpret_cast<const void *>(kernel), value);
}
