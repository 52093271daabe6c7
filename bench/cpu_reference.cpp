#include "cpu_reference.h"

#include <omp.h>

#include <algorithm>
#include <cmath>

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

void stencil_gpp(const float *u, float *v, int64_t n, int64_t m) {
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < n - 2; ++i)
    for (int64_t j = 0; j < m - 2; ++j)
      v[(i + 1) * m + j + 1] =
          0.2f * (u[(i + 1) * m + j + 1] + u[i * m + j + 1] + u[(i + 2) * m + j + 1] +
                  u[(i + 1) * m + j] + u[(i + 1) * m + j + 2]);
}

void softmax_gpp(const float *x, float *y, int64_t n, int64_t m) {
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < n; ++i) {
    const float *row = x + i * m;
    float *out = y + i * m;
    float top = row[0];
    for (int64_t j = 0; j < m; ++j)
      top = std::max(top, row[j]);
    float total = 0.0f;
    for (int64_t j = 0; j < m; ++j) {
      float e = std::exp(row[j] - top);
      out[j] = e;
      total += e;
    }
    for (int64_t j = 0; j < m; ++j)
      out[j] = out[j] / total;
  }
}

int gpp_threads() {
  return omp_get_max_threads();
}

} // namespace bench
