#include "cpu_reference.h"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <vector>

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

float sum_lanes_gpp(const float *x, int64_t n) {
  constexpr int lanes = 16;
  std::vector<float> partials(size_t(omp_get_max_threads()), 0.0f);
  int team_size = 1;
#pragma omp parallel
  {
    // loom's split of the iterations among the team (runtime/CpuLaunch.cpp).
    const int64_t team = omp_get_num_threads(), rank = omp_get_thread_num();
    const int64_t base = n / team, extra = n % team;
    const int64_t begin = rank * base + std::min(rank, extra);
    const int64_t end = begin + base + (rank < extra ? 1 : 0);
    float lane[lanes] = {};
    int64_t i = begin;
    for (; i + lanes <= end; i += lanes)
      for (int l = 0; l < lanes; ++l)
        lane[l] += x[i + l];
    for (; i < end; ++i)
      lane[0] += x[i];
    float partial = lane[0];
    for (int l = 1; l < lanes; ++l)
      partial += lane[l];
    partials[size_t(rank)] = partial;
    if (rank == 0)
      team_size = int(team);
  }
  float total = 0.0f;
  for (int t = 0; t < team_size; ++t)
    total += partials[size_t(t)];
  return total;
}

// The naive matmul, one body compiled twice: as g++ does by default (a * b + c contracted into
// fma) and, as matmul_strict_gpp below, without contraction.
#define LOOM_MATMUL_BODY                                                                           \
  _Pragma("omp parallel for schedule(static)") for (int64_t i = 0; i < n; ++i) {                   \
    for (int64_t j = 0; j < n; ++j) {                                                              \
      float acc = 0.0f;                                                                            \
      for (int64_t k = 0; k < n; ++k)                                                              \
        acc += A[i * n + k] * B[k * n + j];                                                        \
      C[i * n + j] = acc;                                                                          \
    }                                                                                              \
  }

void matmul_gpp(const float *A, const float *B, float *C, int64_t n) {
  LOOM_MATMUL_BODY
}

namespace {
template <class T> void matmul_ikj(const T *A, const T *B, T *C, int64_t n) {
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < n; ++i) {
    T *c = C + i * n;
    for (int64_t j = 0; j < n; ++j)
      c[j] = 0;
    for (int64_t k = 0; k < n; ++k) {
      const T a = A[i * n + k];
      const T *b = B + k * n;
      for (int64_t j = 0; j < n; ++j)
        c[j] += a * b[j];
    }
  }
}
} // namespace

void matmul_ikj_gpp(const float *A, const float *B, float *C, int64_t n) {
  matmul_ikj(A, B, C, n);
}
void matmul_ikj_gpp(const double *A, const double *B, double *C, int64_t n) {
  matmul_ikj(A, B, C, n);
}

// The matmul as the tile schedule runs it on the CPU (ir/Tile.cpp): tiles of 64 x 128 among the
// threads, each tile in register blocks of ROWS x 32 outputs whose k loops run together (the block
// in 16 vector registers: 8 rows of 512-bit vectors on AVX-512, 4 rows of 256-bit ones on AVX2).
// n must be a multiple of 128. One body, compiled four times: for each block, as g++ -O3
// -march=native does by default (a * b + c contracted into fma), and without contraction (every
// product rounded, as loom computes without fastmath).
#define LOOM_MATMUL_TILED_BODY(ROWS)                                                               \
  constexpr int64_t tile_rows = 64, tile_cols = 128, rows = ROWS, cols = 32;                       \
  const int64_t tiles_j = n / tile_cols, tiles = (n / tile_rows) * tiles_j;                        \
  _Pragma("omp parallel for schedule(static)") for (int64_t tile = 0; tile < tiles; ++tile) {      \
    const int64_t i0 = tile / tiles_j * tile_rows, j0 = tile % tiles_j * tile_cols;                \
    for (int64_t bi = i0; bi < i0 + tile_rows; bi += rows)                                         \
      for (int64_t bj = j0; bj < j0 + tile_cols; bj += cols) {                                     \
        float acc[rows][cols] = {};                                                                \
        for (int64_t k = 0; k < n; ++k)                                                            \
          for (int64_t r = 0; r < rows; ++r) {                                                     \
            const float a = A[(bi + r) * n + k];                                                   \
            for (int64_t c = 0; c < cols; ++c)                                                     \
              acc[r][c] += a * B[k * n + bj + c];                                                  \
          }                                                                                        \
        for (int64_t r = 0; r < rows; ++r)                                                         \
          for (int64_t c = 0; c < cols; ++c)                                                       \
            C[(bi + r) * n + bj + c] = acc[r][c];                                                  \
      }                                                                                            \
  }

namespace {
void tiled_8x32(const float *A, const float *B, float *C, int64_t n) {
  LOOM_MATMUL_TILED_BODY(8)
}
void tiled_4x32(const float *A, const float *B, float *C, int64_t n) {
  LOOM_MATMUL_TILED_BODY(4)
}
} // namespace

#pragma GCC push_options
#pragma GCC optimize("fp-contract=off")
// The naive matmul without contraction: every product rounded, as loom computes without fastmath.
void matmul_strict_gpp(const float *A, const float *B, float *C, int64_t n) {
  LOOM_MATMUL_BODY
}

namespace {
void tiled_strict_8x32(const float *A, const float *B, float *C, int64_t n) {
  LOOM_MATMUL_TILED_BODY(8)
}
void tiled_strict_4x32(const float *A, const float *B, float *C, int64_t n) {
  LOOM_MATMUL_TILED_BODY(4)
}
} // namespace
#pragma GCC pop_options

void matmul_tiled_gpp(const float *A, const float *B, float *C, int64_t n, int block_rows) {
  (block_rows == 8 ? tiled_8x32 : tiled_4x32)(A, B, C, n);
}

void matmul_tiled_strict_gpp(const float *A, const float *B, float *C, int64_t n, int block_rows) {
  (block_rows == 8 ? tiled_strict_8x32 : tiled_strict_4x32)(A, B, C, n);
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

#pragma GCC push_options
#pragma GCC optimize("fp-contract=off")
void doitgen_strict_gpp(double *A, const double *C4, int64_t R, int64_t Q, int64_t P) {
#pragma omp parallel
  {
    double sum[256]; // each thread's own scratch
#pragma omp for collapse(2) schedule(static)
    for (int64_t r = 0; r < R; ++r)
      for (int64_t q = 0; q < Q; ++q) {
        double *row = A + (r * Q + q) * P;
        for (int64_t p = 0; p < P; ++p) {
          double acc = 0.0;
          for (int64_t s = 0; s < P; ++s)
            acc += row[s] * C4[s * P + p];
          sum[p] = acc;
        }
        for (int64_t p = 0; p < P; ++p)
          row[p] = sum[p];
      }
  }
}
void syrk_strict_gpp(double *C, const double *A, int64_t n, int64_t m, double alpha, double beta) {
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t j = 0; j <= i; ++j)
      C[i * n + j] *= beta;
    for (int64_t k = 0; k < m; ++k)
      for (int64_t j = 0; j <= i; ++j)
        C[i * n + j] += alpha * A[i * m + k] * A[j * m + k];
  }
}
#pragma GCC pop_options

int gpp_threads() {
  return omp_get_max_threads();
}

} // namespace bench
