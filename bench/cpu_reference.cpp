#include "cpu_reference.h"

#include <omp.h>

namespace bench {

// schedule(static): contiguous, nearly equal chunks per thread, which is how loom splits a
// parallel loop too (runtime/CpuLaunch.h), so the two differ in code, not in work division.
void saxpy_gpp(float a, const float *x, float *y, int64_t n) {
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < n; ++i)
    y[i] = a * x[i] + y[i];
}

float sum_gpp(const float *x, int64_t n) {
  float s = 0.0f;
#pragma omp parallel for schedule(static) reduction(+ : s)
  for (int64_t i = 0; i < n; ++i)
    s += x[i];
  return s;
}

void matmul_gpp(const float *A, const float *B, float *C, int64_t n) {
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < n; ++j) {
      float acc = 0.0f;
      for (int64_t k = 0; k < n; ++k)
        acc += A[i * n + k] * B[k * n + j];
      C[i * n + j] = acc;
    }
}

int gpp_threads() {
  return omp_get_max_threads();
}

} // namespace bench
