// Marks functions that compile for both the host and a CUDA device.
#pragma once

// BENDC_HD_CALL marks the few that recurse, which cannot be inlined.
#if defined(__CUDACC__)
#define BENDC_HD __host__ __device__ __forceinline__
#define BENDC_HD_CALL __host__ __device__ __noinline__
#else
#define BENDC_HD inline
#define BENDC_HD_CALL inline
#endif
