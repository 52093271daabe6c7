// How a parallel index space is spread over a CUDA grid. Kernels loop with grid strides, so any
// grid covers the whole domain; the shape is chosen for speed alone: enough resident blocks to fill
// every SM a few times over, and the innermost index on threadIdx.x so neighbouring threads touch
// neighbouring addresses (coalesced accesses).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace loom::runtime {

struct GpuFunction;
struct DeviceInfo;

struct GridShape {
  unsigned grid[3] = {1, 1, 1};      // blocks along x, y, z
  unsigned block[3] = {1, 1, 1};     // threads along x, y, z
  unsigned dynamic_shared_bytes = 0; // per block (Kernel::shape's shared_bytes)
  std::string reason;                // why this shape, in words, for explain()

  // "grid (1056,1,1) x block (1024,1,1)", with ", 4096 bytes of dynamic shared memory" when
  // there are any.
  std::string to_string() const;
  uint64_t threads_per_block() const;
  uint64_t block_count() const;
};

// The grid is capped at this many waves (a wave: every SM holding as many blocks as fit at once).
// Beyond a few waves more blocks only add scheduling; grid-stride loops do the rest of the work.
constexpr int max_grid_waves = 4;
// The same for 2-D and 3-D domains with the automatic block (see compute_grid).
constexpr int max_grid_waves_multi_dimensional = 16;
// A 3-D domain's outermost extent at most this long is walked by each thread when the other two
// fill three quarters of a wave of blocks or more (compute_grid).
constexpr uint64_t max_walked_extent = 16;
// CUDA's limits on a grid's extents.
constexpr unsigned max_grid_x = 2147483647u;
constexpr unsigned max_grid_yz = 65535u;
// Threads per block for 2-D and 3-D domains at most (see compute_block).
constexpr unsigned max_multi_dimensional_block = 256u;
// CUDA's limit on a block's z extent (x and y allow 1024, which block_size never exceeds).
constexpr unsigned max_block_z = 64u;

// What a caller may impose on the automatic choice (schedules, benchmarks sweeping shapes).
struct LaunchPolicy {
  std::array<unsigned, 3> block{0, 0, 0}; // threads along x, y, z; {0,0,0}: chosen automatically
  int max_waves = max_grid_waves;         // grid cap in waves; 0: no cap (one iteration a thread)
  // Threads of an automatic 2-D or 3-D block at most (within the occupancy calculator's
  // suggestion); 0: max_multi_dimensional_block.
  unsigned max_multi_dimensional_threads = 0;
};

// The block for a domain (index-space extents, outermost first, 0..3 of them) given the threads
// per block to use. The innermost extent maps to x, the next to y, then z. 1-D: (block_size,1,1).
// 2-D and 3-D: at most max_multi_dimensional_block threads (or max_multi_dimensional_threads,
// when not 0); x is one warp (32) when the innermost
// extent is at least 32, else that extent rounded up to a power of two; y, then z, take what is
// left of block_size, each at most its own extent rounded up to a power of two. No domain (a serial
// task): one thread.
std::array<unsigned, 3> compute_block(const std::vector<int64_t> &domain, int block_size,
                                      unsigned max_multi_dimensional_threads = 0);

// The threads per block for `domain` given `block_size` suggested: when the domain has fewer
// iterations than block_size x sm_count, fewer threads (a power of two, at least 32) so that the
// blocks reach every SM, with the reason in *why; else block_size, and *why is left empty.
int spread_block_size(const std::vector<int64_t> &domain, int block_size, int sm_count,
                      std::string *why);

// The whole launch shape, without a GPU: the block from compute_block (of spread_block_size's
// threads, unless the policy sets the block), then per dimension
// ceil(extent / block) blocks (at least 1, so an empty domain still launches and its loop does not
// run), limited by CUDA's grid limits and then capped at max_grid_waves waves (for 2-D and 3-D
// domains with the automatic block, max_grid_waves_multi_dimensional) of
// `max_active_blocks_per_sm` x `sm_count` blocks, reducing z first, then y, then x, so that x keeps
// its coverage when it can. A 3-D domain whose outermost extent is at most max_walked_extent,
// while its other two fill three quarters of a wave, gets one block along z: each thread walks
// that dimension. Throws loom::ArgumentError for more than 3 dimensions or a negative
// extent.
// A policy's block, when given, replaces compute_block's, and its max_waves the default cap.
GridShape compute_grid(const std::vector<int64_t> &domain, int block_size,
                       int max_active_blocks_per_sm, int sm_count,
                       const LaunchPolicy &policy = LaunchPolicy());

// compute_grid with the block size the driver's occupancy calculator suggests for `function`
// (after spread_block_size) and the number of blocks of that size an SM holds at once.
// `dynamic_shared_bytes`: what each block's launch gives its dynamic shared memory (the occupancy
// the grid is sized by counts it).
GridShape choose_grid(const GpuFunction &function, const std::vector<int64_t> &domain,
                      const DeviceInfo &device, const LaunchPolicy &policy = LaunchPolicy(),
                      unsigned dynamic_shared_bytes = 0);

// The launch of a task whose code takes one iteration per thread (ir::Task::covering): no cap on
// the grid, which must cover the domain; 2-D and 3-D automatic blocks small for a domain of a few
// waves and as large as occupancy allows from covering_large_domain iterations on, where a block
// shares more of its rows and columns in L1 (docs/decisions.md, "One iteration per thread").
inline constexpr int64_t covering_large_domain = int64_t{1} << 22;
GridShape choose_covering_grid(const GpuFunction &function, const std::vector<int64_t> &domain,
                               const DeviceInfo &device, LaunchPolicy policy = LaunchPolicy());

// The launch of a task that runs each iteration of its 1-D domain on a block of `threads` threads
// (the block_per_iteration and tile schedules): a block per iteration, capped as usual in waves.
GridShape choose_block_per_iteration_grid(const GpuFunction &function, int64_t iterations,
                                          int threads, const DeviceInfo &device,
                                          LaunchPolicy policy = LaunchPolicy(),
                                          unsigned dynamic_shared_bytes = 0);

} // namespace loom::runtime
