// Rodinia's lud perimeter (lud_perimeter_omp) in C++, in its order of operations: the blocks
// right of the diagonal block at (o, o), then the blocks below it, which the tests of
// ir/StagePrivate.cpp and ir/FuseTasks.cpp compare the text-DSL ports with.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace loomtest {

// The blocks right of the diagonal block, a column at a time: each row less the products of the
// rows above it in the block.
inline void lud_right_reference(std::vector<float> &a, int64_t n, int64_t o) {
  auto at = [&](int64_t i, int64_t j) -> float & { return a[size_t(i * n + j)]; };
  for (int64_t col = o + 16; col < n; col += 16)
    for (int64_t j = 0; j < 16; ++j)
      for (int64_t i = 0; i < 16; ++i) {
        float s = 0.0f;
        for (int64_t k = 0; k < i; ++k)
          s += at(o + i, o + k) * at(o + k, col + j);
        at(o + i, col + j) = at(o + i, col + j) - s;
      }
}

// The blocks below it, a row at a time, each element divided by the diagonal's.
inline void lud_below_reference(std::vector<float> &a, int64_t n, int64_t o) {
  auto at = [&](int64_t i, int64_t j) -> float & { return a[size_t(i * n + j)]; };
  for (int64_t row = o + 16; row < n; row += 16)
    for (int64_t i = 0; i < 16; ++i)
      for (int64_t j = 0; j < 16; ++j) {
        float s = 0.0f;
        for (int64_t k = 0; k < j; ++k)
          s += at(row + i, o + k) * at(o + k, o + j);
        at(row + i, o + j) = (at(row + i, o + j) - s) / at(o + j, o + j);
      }
}

} // namespace loomtest
