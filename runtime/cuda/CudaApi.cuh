// The CUDA the kernels are written against: the toolkit's headers, or the
// host emulation of the same subset (-DBENDC_CUDA=EMULATE). The two helpers
// below are the only places where the two builds differ in syntax.
#pragma once

#if defined(BENDC_CUDA_EMULATE)
#include "runtime/cuda/emulate/CudaEmulation.h"
#else
#include <cuda/atomic>
#include <cuda_runtime.h>
#endif

#include <cstddef>
#include <utility>

namespace bendc::rt::cuda_rt {

/// `kernel<<<blocks, threads, sharedBytes>>>(args...)`; returns the launch's error.
template <class... Params, class... Args>
cudaError_t launch(void (*kernel)(Params...), unsigned blocks, unsigned threads, size_t sharedBytes,
                   Args &&...args) {
#if defined(BENDC_CUDA_EMULATE)
  return emu::launch(kernel, blocks, threads, sharedBytes, std::forward<Args>(args)...);
#else
  kernel<<<blocks, threads, sharedBytes>>>(std::forward<Args>(args)...);
  return cudaGetLastError();
#endif
}

/// The block's dynamic shared memory (the third launch parameter), as T[].
template <class T> __device__ __forceinline__ T *dynamicShared() {
#if defined(BENDC_CUDA_EMULATE)
  return static_cast<T *>(emu::detail::self().sharedDynamic);
#else
  extern __shared__ __align__(16) unsigned char sharedBytes[];
  return reinterpret_cast<T *>(sharedBytes);
#endif
}

} // namespace bendc::rt::cuda_rt
