// Rodinia's lud diagonal block (lud_diagonal_omp), the kernel three lowering passes were made
// for (ir/PromoteUpdates.cpp, ir/SerialBlock.cpp, ir/ShortLoops.cpp): its text-DSL source, the
// same loops in C++ in its order of operations, and a random input without tiny pivots.
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace loomtest {

// The kernel `diagonal(a: f32[n, n], o: i64)`: factors the 16 x 16 block at (o, o) in place.
inline const std::string lud_diagonal_source = R"(
@kernel
def diagonal(a: f32[n, n], o: i64):
    for i in range(16):
        for j in range(i, 16):
            for k in range(i):
                a[o + i, o + j] = a[o + i, o + j] - a[o + i, o + k] * a[o + k, o + j]
        inverse = 1.0 / a[o + i, o + i]
        for j in range(i + 1, 16):
            for k in range(i):
                a[o + j, o + i] = a[o + j, o + i] - a[o + j, o + k] * a[o + k, o + i]
            a[o + j, o + i] = a[o + j, o + i] * inverse
)";

// The kernel's loops in C++, in the same order of operations (an n x n row-major matrix).
inline void lud_diagonal_reference(std::vector<float> &a, int64_t n, int64_t o) {
  auto at = [&](int64_t i, int64_t j) -> float & { return a[size_t((o + i) * n + o + j)]; };
  for (int i = 0; i < 16; ++i) {
    for (int j = i; j < 16; ++j)
      for (int k = 0; k < i; ++k)
        at(i, j) = at(i, j) - at(i, k) * at(k, j);
    float inverse = 1.0f / at(i, i);
    for (int j = i + 1; j < 16; ++j) {
      for (int k = 0; k < i; ++k)
        at(j, i) = at(j, i) - at(j, k) * at(k, i);
      at(j, i) = at(j, i) * inverse;
    }
  }
}

// An n x n matrix of uniform values in [-1, 1) from `seed`, 4 added on the diagonal: diagonally
// dominant, so no pivot is tiny.
inline std::vector<float> lud_diagonal_input(int64_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::vector<float> a(size_t(n * n));
  for (float &v : a)
    v = u(rng);
  for (int64_t i = 0; i < n; ++i)
    a[size_t(i * n + i)] += 4.0f;
  return a;
}

} // namespace loomtest
