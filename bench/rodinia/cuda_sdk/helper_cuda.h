// Stand-in for the CUDA samples' helper_cuda.h (NVIDIA's CUDA SDK, common/inc), which Rodinia's
// CUDA cfd includes and its makefile finds in the SDK; the toolkit does not ship it. Written for
// loom's bench (not NVIDIA's code): the two macros euler3d.cu uses, with the samples' behaviour
// (print the error where it happened and exit). build_cuda.sh puts this folder on the include
// path of cfd only (third_party/rodinia/ADAPTATIONS.md).
#pragma once

#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>

inline void loom_bench_check_cuda(cudaError_t result, const char *call, const char *file,
                                  int line) {
  if (result != cudaSuccess) {
    std::fprintf(stderr, "CUDA error at %s:%d code=%d (%s) \"%s\"\n", file, line, int(result),
                 cudaGetErrorString(result), call);
    std::exit(EXIT_FAILURE);
  }
}

inline void loom_bench_last_cuda_error(const char *message, const char *file, int line) {
  cudaError_t result = cudaGetLastError();
  if (result != cudaSuccess) {
    std::fprintf(stderr, "%s(%d) : getLastCudaError() CUDA error : %s : (%d) %s.\n", file, line,
                 message, int(result), cudaGetErrorString(result));
    std::exit(EXIT_FAILURE);
  }
}

#define checkCudaErrors(val) loom_bench_check_cuda((val), #val, __FILE__, __LINE__)
#define getLastCudaError(msg) loom_bench_last_cuda_error((msg), __FILE__, __LINE__)
