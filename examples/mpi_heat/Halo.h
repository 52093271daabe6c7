// The halo exchange after each step: a rank sends its first row to the rank above and its last
// row to the rank below, and receives their edge rows into its halo rows, with MPI_Sendrecv (the
// paired send and receive cannot deadlock however the ranks are ordered). At the grid's top and
// bottom the neighbour is MPI_PROC_NULL, which sends and receives nothing, so the halo there
// keeps the fixed boundary row. MPI errors abort the job (MPI_ERRORS_ARE_FATAL, the default).
#pragma once

#include "RowBlocks.h"

#include <loom/loom.hpp>
#include <mpi.h>

#include <cstdint>
#include <utility>
#include <vector>

namespace heat {

constexpr int kTagUp = 1;   // rows travelling to the rank above
constexpr int kTagDown = 2; // rows travelling to the rank below

// Host arrays: MPI reads and writes the rows in place in the block's std::vector.
inline void exchange_halos(const RowBlock &block, int64_t cols, std::vector<double> &u,
                           MPI_Comm comm) {
  const int n = static_cast<int>(cols);
  double *top_halo = u.data(), *first = u.data() + cols, *last = u.data() + block.rows * cols,
         *bottom_halo = u.data() + (block.rows + 1) * cols;
  MPI_Sendrecv(first, n, MPI_DOUBLE, block.up, kTagUp, bottom_halo, n, MPI_DOUBLE, block.down,
               kTagUp, comm, MPI_STATUS_IGNORE);
  MPI_Sendrecv(last, n, MPI_DOUBLE, block.down, kTagDown, top_halo, n, MPI_DOUBLE, block.up,
               kTagDown, comm, MPI_STATUS_IGNORE);
}

// Copies one row: `from` into `to`, either of them a host vector or a row of a DeviceArray
// (array.select(0, k)); loom copies a host vector to or from the GPU around the call.
inline loom::Kernel row_copy_kernel() {
  return loom::kernel("copy_row",
                      [](loom::Array<double> from, loom::Array<double> to) {
                        loom::parallel_for(to.size(), [&](loom::Index j) { to[j] = from[j]; });
                      },
                      {"from", "to"});
}

// DeviceArrays, host-staged: MPI is given host memory only, so each edge row is copied from the
// GPU into a host buffer, exchanged, and the received rows are copied into the halo rows on the
// GPU (2 rows each way per step; the rest of the block stays on the GPU). A CUDA-aware MPI could
// take the device addresses instead (README.md).
class DeviceHaloExchange {
public:
  DeviceHaloExchange(const RowBlock &block, int64_t cols, loom::Kernel copy_row)
      : block_(block), cols_(cols), copy_row_(std::move(copy_row)), send_up_(cols),
        send_down_(cols), from_above_(cols), from_below_(cols) {}

  void operator()(loom::DeviceArray<double> &u, MPI_Comm comm) {
    const int n = static_cast<int>(cols_);
    if (block_.up != MPI_PROC_NULL)
      copy_row_(u.select(0, 1), send_up_);
    if (block_.down != MPI_PROC_NULL)
      copy_row_(u.select(0, block_.rows), send_down_);
    MPI_Sendrecv(send_up_.data(), n, MPI_DOUBLE, block_.up, kTagUp, from_below_.data(), n,
                 MPI_DOUBLE, block_.down, kTagUp, comm, MPI_STATUS_IGNORE);
    MPI_Sendrecv(send_down_.data(), n, MPI_DOUBLE, block_.down, kTagDown, from_above_.data(), n,
                 MPI_DOUBLE, block_.up, kTagDown, comm, MPI_STATUS_IGNORE);
    // Without a neighbour nothing was received: that halo is the boundary row, already in place.
    if (block_.up != MPI_PROC_NULL)
      copy_row_(from_above_, u.select(0, 0));
    if (block_.down != MPI_PROC_NULL)
      copy_row_(from_below_, u.select(0, block_.rows + 1));
  }

private:
  RowBlock block_;
  int64_t cols_;
  loom::Kernel copy_row_;
  std::vector<double> send_up_, send_down_, from_above_, from_below_;
};

} // namespace heat
