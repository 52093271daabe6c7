// A 2-D heat equation split in row blocks over MPI ranks: each step runs a loom kernel over a
// rank's own rows, then exchanges halo rows with the neighbouring ranks (MPI_Sendrecv). Rank 0
// gathers the grid (MPI_Gatherv) and checks it bit for bit against the same kernel run in one
// process over the whole grid.
//
//   mpirun -np 2 build/examples/mpi_heat/mpi_heat [rows cols steps]
//
// Blocks are host arrays (std::vector), which loom copies to the GPU and back around each call
// when it runs there; on the GPU the blocks are also run as DeviceArrays, resident on the GPU,
// with their halo rows staged through host memory for MPI (Halo.h).
#include "../Report.h"
#include "Halo.h"
#include "Heat.h"
#include "RowBlocks.h"

#include <mpi.h>

#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace {

// [rows cols steps] from the command line, each a positive integer (rows and cols at least 3).
bool parse_grid(int argc, char **argv, heat::Grid &grid, std::string &error) {
  if (argc != 1 && argc != 4) {
    error = "expected no arguments or three (rows cols steps)";
    return false;
  }
  if (argc == 1)
    return true;
  int64_t *fields[] = {&grid.rows, &grid.cols, &grid.steps};
  const int64_t least[] = {3, 3, 0};
  for (int k = 0; k < 3; ++k) {
    char *end = nullptr;
    long long value = std::strtoll(argv[k + 1], &end, 10);
    if (*argv[k + 1] == '\0' || *end != '\0' || value < least[k]) {
      error = std::string("'") + argv[k + 1] + "' is no integer of at least " +
              std::to_string(least[k]);
      return false;
    }
    *fields[k] = value;
  }
  return true;
}

// The kernels every rank runs.
struct Kernels {
  loom::Kernel step = heat::step_kernel();
  loom::Kernel copy_row = heat::row_copy_kernel();
  std::optional<loom::Device> device; // the rank's GPU, when it runs on one
};

// Seconds of one run: all steps, and of them the kernel calls and the halo exchanges.
struct Timing {
  double total = 0, kernel = 0, halo = 0;
};

// The slowest rank's seconds, on rank 0.
Timing slowest(const Timing &mine, MPI_Comm comm) {
  double local[3] = {mine.total, mine.kernel, mine.halo}, worst[3] = {0, 0, 0};
  MPI_Reduce(local, worst, 3, MPI_DOUBLE, MPI_MAX, 0, comm);
  return {worst[0], worst[1], worst[2]};
}

// Host arrays: the block and its halo rows in std::vectors, u -> v each step, then swapped. v
// starts as a copy of u, so the border columns and boundary rows no step writes stay fixed in both.
std::vector<double> run_host_arrays(const heat::Grid &grid, const heat::RowBlock &block, Kernels &k,
                                    Timing &t, MPI_Comm comm) {
  const int64_t local_rows = block.rows + 2;
  std::vector<double> u = heat::initial_rows(grid, block.first - 1, local_rows), v = u;
  MPI_Barrier(comm);
  const double start = MPI_Wtime();
  for (int64_t s = 0; s < grid.steps; ++s) {
    const double t0 = MPI_Wtime();
    k.step(grid.alpha, loom::view(u, {local_rows, grid.cols}),
           loom::view(v, {local_rows, grid.cols}));
    std::swap(u, v);
    const double t1 = MPI_Wtime();
    heat::exchange_halos(block, grid.cols, u, comm);
    t.kernel += t1 - t0;
    t.halo += MPI_Wtime() - t1;
  }
  t.total = MPI_Wtime() - start;
  return u;
}

// DeviceArrays: the block and its halo rows stay on the GPU; only halo rows travel (Halo.h).
std::vector<double> run_device_arrays(const heat::Grid &grid, const heat::RowBlock &block,
                                      Kernels &k, Timing &t, MPI_Comm comm) {
  const int64_t local_rows = block.rows + 2;
  const std::vector<double> initial = heat::initial_rows(grid, block.first - 1, local_rows);
  loom::DeviceArray<double> u(*k.device, initial, {local_rows, grid.cols}),
      v(*k.device, initial, {local_rows, grid.cols});
  heat::DeviceHaloExchange exchange(block, grid.cols, k.copy_row);
  MPI_Barrier(comm);
  const double start = MPI_Wtime();
  for (int64_t s = 0; s < grid.steps; ++s) {
    const double t0 = MPI_Wtime();
    k.step(grid.alpha, u, v);
    std::swap(u, v);
    const double t1 = MPI_Wtime();
    exchange(u, comm);
    t.kernel += t1 - t0;
    t.halo += MPI_Wtime() - t1;
  }
  t.total = MPI_Wtime() - start;
  return u.to_host();
}

// The reference: the same kernel over the whole grid in this process alone.
std::vector<double> run_one_process(const heat::Grid &grid, Kernels &k, double &seconds) {
  std::vector<double> u = heat::initial_rows(grid, 0, grid.rows), v = u;
  const double start = MPI_Wtime();
  for (int64_t s = 0; s < grid.steps; ++s) {
    k.step(grid.alpha, loom::view(u, {grid.rows, grid.cols}),
           loom::view(v, {grid.rows, grid.cols}));
    std::swap(u, v);
  }
  seconds = MPI_Wtime() - start;
  return u;
}

double mean(const std::vector<double> &values) {
  double sum = 0;
  for (double x : values)
    sum += x;
  return values.empty() ? 0 : sum / static_cast<double>(values.size());
}

// Rank 0: the time per step, and whether `gathered` equals `reference` bit for bit (memcmp of
// each element: -0.0 differs from 0.0 and a NaN equals only the same NaN).
bool report(const char *what, const heat::Grid &grid, const Timing &t,
            const std::vector<double> &gathered, const std::vector<double> &reference) {
  const double per_step = grid.steps ? 1e3 / static_cast<double>(grid.steps) : 0;
  std::printf(
      "%s: %.3f ms per step (kernel %.3f ms, halo exchange %.3f ms; each the slowest rank's)\n",
      what, t.total * per_step, t.kernel * per_step, t.halo * per_step);
  int64_t differing = 0, first = -1;
  for (size_t e = 0; e < reference.size(); ++e)
    if (std::memcmp(&gathered[e], &reference[e], sizeof(double)) != 0 && differing++ == 0)
      first = static_cast<int64_t>(e);
  if (differing == 0) {
    std::printf(
        "%s: PASS (the gathered %lld x %lld grid equals the one-process grid bit for bit)\n", what,
        static_cast<long long>(grid.rows), static_cast<long long>(grid.cols));
    return true;
  }
  std::printf("%s: FAIL (%lld of %zu elements differ; the first at [%lld, %lld]: %.17g, one "
              "process %.17g)\n",
              what, static_cast<long long>(differing), reference.size(),
              static_cast<long long>(first / grid.cols), static_cast<long long>(first % grid.cols),
              gathered[first], reference[first]);
  return false;
}

int run(int argc, char **argv, MPI_Comm comm) {
  int rank = 0, ranks = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &ranks);
  heat::Grid grid;
  std::string error;
  if (!parse_grid(argc, argv, grid, error)) {
    if (rank == 0)
      std::fprintf(stderr, "mpi_heat: %s\nusage: mpirun -np RANKS mpi_heat [rows cols steps]\n",
                   error.c_str());
    return 2;
  }
  if (grid.rows - 2 < ranks)
    error = "the " + std::to_string(grid.rows - 2) + " interior rows cannot be split over " +
            std::to_string(ranks) + " ranks: each rank needs one row at least";
  else if (grid.cols > INT_MAX / grid.rows)
    error = "a " + std::to_string(grid.rows) + " x " + std::to_string(grid.cols) +
            " grid is too large: MPI_Gatherv counts its elements in an int";
  if (!error.empty()) {
    if (rank == 0)
      std::fprintf(stderr, "mpi_heat: %s\n", error.c_str());
    return 2;
  }
  const heat::RowBlock block = heat::row_block(grid, rank, ranks);

  Kernels k;
  if (loom::choose_target().target == loom::Target::GPU) {
    // One GPU per rank of a node, round-robin when the ranks outnumber the GPUs: the launcher's
    // local rank picks it (LOOM_DEVICE=local-rank does the same for kernels that name none).
    // Started without a launcher, the one process takes the default device.
    try {
      k.device = loom::device_for_local_rank();
    } catch (const loom::TargetError &) {
      k.device = loom::Device::default_device();
    }
    k.step.on(*k.device);
    k.copy_row.on(*k.device);
  }
  // Compiled before the clock starts (on the GPU the first call still loads the module). The
  // ranks of a machine compile it once between them: the first to miss the disk cache compiles
  // and stores it, the others wait for its compile lock and load it (docs/caching.md).
  MPI_Barrier(comm);
  double compile_seconds = MPI_Wtime();
  k.step.compile();
  compile_seconds = MPI_Wtime() - compile_seconds;
  MPI_Allreduce(MPI_IN_PLACE, &compile_seconds, 1, MPI_DOUBLE, MPI_MAX, comm);
  const loom::CompileTimes step_times = k.step.compile_times();

  // The DeviceArray run needs a GPU on every rank; the ranks decide together, as it exchanges.
  int gpu = loom::choose_target().target == loom::Target::GPU;
  MPI_Allreduce(MPI_IN_PLACE, &gpu, 1, MPI_INT, MPI_LAND, comm);

  if (rank == 0) {
    std::printf("mpi_heat: %lld x %lld grid of f64, %lld steps, %d rank%s (interior rows per rank:",
                static_cast<long long>(grid.rows), static_cast<long long>(grid.cols),
                static_cast<long long>(grid.steps), ranks, ranks == 1 ? "" : "s");
    for (int r = 0; r < ranks && r < 8; ++r)
      std::printf(" %lld", static_cast<long long>(heat::row_block(grid, r, ranks).rows));
    std::printf("%s), on %s\n", ranks > 8 ? " ..." : "", example::where_it_runs().c_str());
    std::printf("first compile of the step kernel: %.1f ms (the slowest rank's); rank 0's code: "
                "%s\n",
                compile_seconds * 1e3, step_times.detail.c_str());
  }
  if (k.device)
    std::printf("rank %d: %s\n", rank, k.device->to_string().c_str());

  Timing host_time;
  std::vector<double> host_block = run_host_arrays(grid, block, k, host_time, comm);
  host_time = slowest(host_time, comm);
  std::vector<double> host_grid = heat::gather_grid(grid, block, host_block, comm);

  std::vector<double> device_grid;
  Timing device_time;
  if (gpu) {
    k.copy_row.compile();
    std::vector<double> device_block = run_device_arrays(grid, block, k, device_time, comm);
    device_time = slowest(device_time, comm);
    device_grid = heat::gather_grid(grid, block, device_block, comm);
  }

  int pass = 1;
  if (rank == 0) {
    double one_process_seconds = 0;
    std::vector<double> reference = run_one_process(grid, k, one_process_seconds);
    std::printf("one process, whole grid: %.3f ms per step; mean temperature %.6f (%.6f before "
                "the first step)\n",
                grid.steps ? one_process_seconds * 1e3 / static_cast<double>(grid.steps) : 0.0,
                mean(reference), mean(heat::initial_rows(grid, 0, grid.rows)));
    pass = report("host arrays, MPI_Sendrecv halos", grid, host_time, host_grid, reference);
    if (gpu)
      pass &= report("DeviceArrays, host-staged halos", grid, device_time, device_grid, reference);
    else
      std::printf("DeviceArrays, host-staged halos: not run (DeviceArrays live on a GPU, and the "
                  "ranks run on the CPU)\n");
  }
  MPI_Bcast(&pass, 1, MPI_INT, 0, comm);
  return pass ? 0 : 1;
}

} // namespace

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  int status = 1;
  try {
    status = run(argc, argv, MPI_COMM_WORLD);
  } catch (const std::exception &e) {
    // The other ranks would wait for this one at the next exchange: end them all.
    std::fprintf(stderr, "mpi_heat: rank %d: %s\n", rank, e.what());
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  MPI_Finalize();
  return status;
}
