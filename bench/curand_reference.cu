// The cuRAND peer of philox_bench.cpp: 2^28 uniform floats into device memory by cuRAND's host
// API with its Philox4x32-10 generator (CURAND_RNG_PSEUDO_PHILOX4_32_10, curandGenerateUniform,
// default ordering). Built and run on the GPU machine by run_gpu.sh (nvcc -O3 -arch=sm_90 ...
// -lcurand); prints the same `RESULT name value unit` lines. cuRAND's uniforms are in (0, 1]
// (loom's in [0, 1)); its sequence is not loom's, only the work is the same: one Philox block
// for every four numbers, each number written once.
#include "CudaSupport.cuh"

#include <curand.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CURAND_CHECK(call)                                                                         \
  do {                                                                                             \
    curandStatus_t status_ = (call);                                                               \
    if (status_ != CURAND_STATUS_SUCCESS) {                                                        \
      std::printf("FAILED %s at %s:%d: cuRAND status %d\n", #call, __FILE__, __LINE__,             \
                  int(status_));                                                                   \
      std::exit(1);                                                                                \
    }                                                                                              \
  } while (0)

int main() {
  const size_t n = size_t(1) << 28;
  const unsigned long long seed = bench::fresh_seed();
  std::printf("cuRAND Philox4x32-10 curandGenerateUniform, n = 2^28, seed %llu\n", seed);
  float *y = nullptr;
  CUDA_CHECK(cudaMalloc(&y, n * sizeof(float)));
  curandGenerator_t generator;
  CURAND_CHECK(curandCreateGenerator(&generator, CURAND_RNG_PSEUDO_PHILOX4_32_10));
  CURAND_CHECK(curandSetPseudoRandomGeneratorSeed(generator, seed));
  // The first call sets the generator up; the timed ones continue its sequence.
  CURAND_CHECK(curandGenerateUniform(generator, y, n));
  CUDA_CHECK(cudaDeviceSynchronize());

  std::vector<float> host = bench::host_copy(y, n);
  double sum = 0;
  size_t outside = 0;
  for (float v : host) {
    outside += !(v > 0.0f && v <= 1.0f);
    sum += v;
  }
  const double mean = sum / double(n);
  const bool ok = outside == 0 && std::abs(mean - 0.5) < 5 / std::sqrt(12.0 * double(n));
  std::printf("CHECK %s cuRAND Philox uniform (outside (0, 1]: %zu, mean %.6f)\n",
              ok ? "PASS" : "FAIL", outside, mean);

  std::vector<double> ms = bench::time_launches(
      [&] { CURAND_CHECK(curandGenerateUniform(generator, y, n)); }, 3, bench::timed_runs);
  bench::print_times("curandGenerateUniform 2^28", ms);
  const double median = bench::median(ms);
  bench::result("curand_philox_uniform_ms", median, "ms");
  bench::result("curand_philox_uniform_gnumbers", double(n) / (median * 1e6), "G/s");

  CURAND_CHECK(curandDestroyGenerator(generator));
  CUDA_CHECK(cudaFree(y));
  return ok ? 0 : 1;
}
