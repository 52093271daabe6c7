// The heat equation of the example: the grid, its initial and boundary values, and one explicit
// time step as a loom kernel. Nothing here knows about MPI: a rank's block of rows and the
// one-process reference over the whole grid run the same kernel.
#pragma once

#include <loom/loom.hpp>

#include <cstdint>
#include <vector>

namespace heat {

struct Grid {
  int64_t rows = 513; // 511 interior rows, which no rank count from 2 to 6 divides
  int64_t cols = 512;
  int64_t steps = 200;
  double alpha = 0.2; // k dt / h^2; the explicit scheme is stable up to 0.25
};

// The temperature at global element (i, j) before the first step. The edges hold the fixed
// boundary values (a hot top edge, a cold bottom edge, cool sides); the interior starts as a
// checkerboard of 32 x 32 squares, so every rank's rows change from the first step on.
inline double initial_value(const Grid &grid, int64_t i, int64_t j) {
  if (i == 0)
    return 1.0;
  if (i == grid.rows - 1)
    return 0.0;
  if (j == 0 || j == grid.cols - 1)
    return 0.25;
  return (i / 32 + j / 32) % 2 ? 1.0 : 0.0;
}

// Global rows [first, first + count) of the initial grid, row-major.
inline std::vector<double> initial_rows(const Grid &grid, int64_t first, int64_t count) {
  std::vector<double> rows(static_cast<size_t>(count * grid.cols));
  for (int64_t r = 0; r < count; ++r)
    for (int64_t j = 0; j < grid.cols; ++j)
      rows[r * grid.cols + j] = initial_value(grid, first + r, j);
  return rows;
}

// One explicit Euler step of u_t = alpha * laplacian(u) with the 5-point stencil: v = u + alpha *
// (sum of the 4 neighbours - 4 u) on the interior of u; v's border rows and columns are not
// written. On a rank's block (its rows with one halo row above and one below) the interior is
// the rank's own rows. Each element is computed by the same operations in the same order
// wherever it lies, so a block's values equal the whole grid's bit for bit.
inline loom::Kernel step_kernel() {
  return loom::kernel("heat_step",
                      [](loom::F64 alpha, loom::Array2<double> u, loom::Array2<double> v) {
                        loom::parallel_for(
                            {loom::range(1, u.dim(0) - 1), loom::range(1, u.dim(1) - 1)},
                            [&](loom::Index i, loom::Index j) {
                              v(i, j) = u(i, j) + alpha * (((u(i - 1, j) + u(i + 1, j)) +
                                                            (u(i, j - 1) + u(i, j + 1))) -
                                                           4.0 * u(i, j));
                            });
                      },
                      {"alpha", "u", "v"});
}

} // namespace heat
