// What the CUDA C peers (reference.cu, cublas_reference.cu) share: checked runtime calls, CUDA
// event timing and device copies. nvcc only; the checks and `RESULT` lines are BenchSupport.h's.
#pragma once

#include "BenchSupport.h"

#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

// Every runtime call is checked: a failed launch or copy must not yield a figure.
#define CUDA_CHECK(call)                                                                           \
  do {                                                                                             \
    cudaError_t status_ = (call);                                                                  \
    if (status_ != cudaSuccess) {                                                                  \
      std::printf("FAILED %s at %s:%d: %s\n", #call, __FILE__, __LINE__,                           \
                  cudaGetErrorString(status_));                                                    \
      std::exit(1);                                                                                \
    }                                                                                              \
  } while (0)

namespace bench {

constexpr int timed_runs = 30;

inline std::string name_of(const char *format, long long a, long long b = 0, long long c = 0) {
  char buffer[128];
  std::snprintf(buffer, sizeof buffer, format, a, b, c);
  return buffer;
}

// Median of `runs` event-timed launches of `launch`, after a few untimed ones; checks each launch.
template <class F> std::vector<double> time_launches(F &&launch, int warmup, int runs) {
  cudaEvent_t start, stop;
  CUDA_CHECK(cudaEventCreate(&start));
  CUDA_CHECK(cudaEventCreate(&stop));
  for (int r = 0; r < warmup; ++r) {
    launch();
    CUDA_CHECK(cudaGetLastError());
  }
  CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<double> ms;
  for (int r = 0; r < runs; ++r) {
    CUDA_CHECK(cudaEventRecord(start));
    launch();
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaEventRecord(stop));
    CUDA_CHECK(cudaEventSynchronize(stop));
    float elapsed = 0;
    CUDA_CHECK(cudaEventElapsedTime(&elapsed, start, stop));
    ms.push_back(elapsed);
  }
  CUDA_CHECK(cudaEventDestroy(start));
  CUDA_CHECK(cudaEventDestroy(stop));
  return ms;
}

inline void print_times(const std::string &what, const std::vector<double> &ms) {
  std::printf("  %s: median %.4f ms (min %.4f, max %.4f over %zu runs)\n", what.c_str(),
              bench::median(ms), bench::min_of(ms), bench::max_of(ms), ms.size());
}

template <class T> T *device_copy(const std::vector<T> &host) {
  T *p = nullptr;
  CUDA_CHECK(cudaMalloc(&p, host.size() * sizeof(T)));
  CUDA_CHECK(cudaMemcpy(p, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice));
  return p;
}

// A device array of `count` floats copied back to the host.
inline std::vector<float> host_copy(const float *device, size_t count) {
  std::vector<float> host(count);
  CUDA_CHECK(cudaMemcpy(host.data(), device, count * sizeof(float), cudaMemcpyDeviceToHost));
  return host;
}

} // namespace bench
