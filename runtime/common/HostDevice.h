// Marks functions that compile for both the host and a CUDA device.
#pragma once

// BENDC_HD_CALL marks the few that recurse (the rare joins of clashes): kept
// out of line, so that the hot functions that call them stay inlined.
// BENDC_RARE(cond) marks a branch that is rarely taken.
// BENDC_HD_HOT marks the hot steps every rule is made of (the linker's two,
// a commutation, the copy of a call), inlined everywhere.
#if defined(__CUDACC__)
#define BENDC_HD __host__ __device__ __forceinline__
#define BENDC_HD_HOT __host__ __device__ __forceinline__
#define BENDC_HD_CALL __host__ __device__ __noinline__
#else
#define BENDC_HD inline
#define BENDC_HD_HOT inline __attribute__((always_inline))
#define BENDC_HD_CALL __attribute__((noinline)) // templates only: no `inline` needed
#endif
#define BENDC_RARE(cond) __builtin_expect(!!(cond), 0)
