// How the grid's interior rows are split among MPI ranks: each rank owns one contiguous block,
// the blocks as even as possible (when the ranks do not divide the rows, the first ones own one
// row more). A rank stores its block with one halo row above and one below, (rows + 2) x cols
// row-major: local row k is global row first - 1 + k. The halo rows hold the neighbours' edge
// rows, or the grid's fixed boundary row at the top and bottom of the grid.
#pragma once

#include "Heat.h"

#include <mpi.h>

#include <cstdint>
#include <vector>

namespace heat {

struct RowBlock {
  int64_t first = 1;        // the global index of the first row the rank owns
  int64_t rows = 0;         // how many rows it owns
  int up = MPI_PROC_NULL;   // the rank owning the row above `first`; none at the grid's top
  int down = MPI_PROC_NULL; // the rank owning the row below the last; none at the grid's bottom
};

// Rank `rank`'s block of the grid's rows - 2 interior rows over `ranks` ranks.
inline RowBlock row_block(const Grid &grid, int rank, int ranks) {
  const int64_t interior = grid.rows - 2, base = interior / ranks, extra = interior % ranks;
  RowBlock b;
  b.rows = base + (rank < extra ? 1 : 0);
  b.first = 1 + rank * base + (rank < extra ? rank : extra);
  b.up = rank > 0 ? rank - 1 : MPI_PROC_NULL;
  b.down = rank < ranks - 1 ? rank + 1 : MPI_PROC_NULL;
  return b;
}

// Gathers every rank's own rows (local rows 1 to rows of `block`) into the whole grid on rank 0,
// whose boundary rows are the fixed initial ones. Other ranks get an empty vector.
inline std::vector<double> gather_grid(const Grid &grid, const RowBlock &block,
                                       const std::vector<double> &local, MPI_Comm comm) {
  int rank = 0, ranks = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &ranks);
  std::vector<int> counts, offsets;
  std::vector<double> whole;
  if (rank == 0) {
    for (int r = 0; r < ranks; ++r) {
      RowBlock b = row_block(grid, r, ranks);
      counts.push_back(static_cast<int>(b.rows * grid.cols));
      offsets.push_back(static_cast<int>(b.first * grid.cols));
    }
    whole = initial_rows(grid, 0, grid.rows);
  }
  MPI_Gatherv(local.data() + grid.cols, static_cast<int>(block.rows * grid.cols), MPI_DOUBLE,
              whole.data(), counts.data(), offsets.data(), MPI_DOUBLE, 0, comm);
  return whole;
}

} // namespace heat
