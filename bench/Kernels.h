// The loom kernels the benchmarks time: the same code as examples/saxpy.cpp and
// examples/matmul.cpp, so the figures are those of what a user writes. Each call traces a new
// Kernel object; the name is part of the kernel, so a new name gets the first-call and
// compile-time figures a kernel the in-memory cache has not seen (and those benchmarks turn the
// disk cache off).
#pragma once

#include <loom/loom.hpp>

#include <string>

namespace bench {

// y = a*x + y
inline loom::Kernel make_saxpy(const std::string &name) {
  return loom::kernel(name,
                      [](loom::F32 a, loom::Array<float> x, loom::Array<float> y) {
                        loom::parallel_for(x.size(),
                                           [&](loom::Index i) { y[i] = a * x[i] + y[i]; });
                      },
                      {"a", "x", "y"});
}

// total[0] += x[i]: a reduction into one element (per-block partials, then the blocks in order).
inline loom::Kernel make_sum(const std::string &name) {
  return loom::kernel(name,
                      [](loom::Array<float> x, loom::Array<float> total) {
                        loom::parallel_for(x.size(), [&](loom::Index i) { total[0] += x[i]; });
                      },
                      {"x", "total"});
}

// The naive matmul: one parallel iteration per element of C, an inner loop over k.
inline loom::Kernel make_matmul(const std::string &name) {
  return loom::kernel(name,
                      [](loom::Array2<float> A, loom::Array2<float> B, loom::Array2<float> C) {
                        loom::parallel_for({C.dim(0), C.dim(1)}, [&](loom::Index i, loom::Index j) {
                          loom::Var<float> acc("acc", 0.0f);
                          loom::for_range(A.dim(1),
                                          [&](loom::Index k) { acc += A(i, k) * B(k, j); });
                          C(i, j) = acc;
                        });
                      },
                      {"A", "B", "C"});
}

} // namespace bench
