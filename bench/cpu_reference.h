// The plain C++ peers of loom's CPU kernels: the same loops, in the same order, compiled by the
// host compiler with -O3 -march=native -fopenmp (bench/CMakeLists.txt sets those for
// cpu_reference.cpp alone, so the rest of the benchmark builds like the rest of loom).
#pragma once

#include <cstdint>

namespace bench {

// y = a*x + y, the loop split among OpenMP threads.
void saxpy_gpp(float a, const float *x, float *y, int64_t n);
// The sum of x, with OpenMP's reduction(+) (per-thread partials; strict float semantics, so g++
// does not vectorize the adds without -ffast-math, and neither does loom without fastmath).
float sum_gpp(const float *x, int64_t n);
// The same sum in the order loom computes it (ir/CpuLanes.cpp): each thread's chunk (split as
// loom splits it) in 16 lanes, iteration l of each whole group of 16 into lane l and the rest
// into lane 0, the lanes then the threads combined in order. No lane waits on another, so g++
// vectorizes it without -ffast-math.
float sum_lanes_gpp(const float *x, int64_t n);
// The naive matmul of n x n row-major matrices: rows among threads, then j, then k innermost.
void matmul_gpp(const float *A, const float *B, float *C, int64_t n);
// The same, blocked as the tile schedule {64, 128, 8, 32} runs it on the CPU (n a multiple of
// 128): tiles among threads, register blocks of 8 x 32 outputs.
// g++'s default contracts a * b + c into fma; the strict variant does not (as loom without
// fastmath).
// The same without contracting a * b + c into fma (g++'s default), as loom computes it without
// fastmath.
void matmul_strict_gpp(const float *A, const float *B, float *C, int64_t n);
// The tile schedule's blocking in C++: 64 x 128 tiles, blocks of block_rows (8 or 4) x 32.
void matmul_tiled_gpp(const float *A, const float *B, float *C, int64_t n, int block_rows);
void matmul_tiled_strict_gpp(const float *A, const float *B, float *C, int64_t n, int block_rows);
// The naive matmul as a C programmer orders its loops for speed: rows among threads, then k,
// then j innermost (C[i, :] += A[i, k] * B[k, :], vectorized along j, a * b + c contracted into
// fma as g++ does by default). The peer of loom's natural i, j, k loop under the schedule loom
// chooses itself.
void matmul_ikj_gpp(const float *A, const float *B, float *C, int64_t n);
void matmul_ikj_gpp(const double *A, const double *B, double *C, int64_t n);
// The 5-point stencil over the interior of an n x m row-major grid: rows among threads.
void stencil_gpp(const float *u, float *v, int64_t n, int64_t m);
// Softmax of each row of an n x m row-major matrix: rows among threads, expf from libm.
void softmax_gpp(const float *x, float *y, int64_t n, int64_t m);
// Threads an OpenMP parallel region of this file gets.
// PolyBench's doitgen: A[r, q, :] = A[r, q, :] * C4 through a scratch row of each (r, q), private
// to the OpenMP thread (at most 256 elements), compiled without contraction as loom computes.
void doitgen_strict_gpp(double *A, const double *C4, int64_t R, int64_t Q, int64_t P);
// PolyBench's syrk with its OpenMP loop (rows among threads; i, k, j), compiled without
// contraction as loom computes: C = alpha * A * A^T + beta * C on the lower triangle, f64.
void syrk_strict_gpp(double *C, const double *A, int64_t n, int64_t m, double alpha, double beta);

int gpp_threads();

} // namespace bench
