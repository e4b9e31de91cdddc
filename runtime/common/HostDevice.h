// Marks functions that compile for both the host and a CUDA device.
#pragma once

#if defined(__CUDACC__)
#define BENDC_HD __host__ __device__ __forceinline__
#else
#define BENDC_HD inline
#endif
