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
// The naive matmul of n x n row-major matrices: rows among threads, then j, then k innermost.
void matmul_gpp(const float *A, const float *B, float *C, int64_t n);
// Threads an OpenMP parallel region of this file gets.
int gpp_threads();

} // namespace bench
