#include "runtime/GridShape.h"

#include "runtime/Driver.h"
#include "runtime/GpuContext.h"
#include "runtime/GpuModule.h"
#include "support/Error.h"

#include <algorithm>
#include <cstdio>

namespace loom::runtime {

namespace {

// The smallest power of two >= n (n >= 1), saturating far above any block extent.
uint64_t power_of_two_at_least(uint64_t n) {
  uint64_t p = 1;
  while (p < n && p < (uint64_t{1} << 40))
    p <<= 1;
  return p;
}

// Extents innermost first (x, y, z), each >= 0; missing dimensions are 1.
std::array<uint64_t, 3> extents_xyz(const std::vector<int64_t> &domain) {
  if (domain.size() > 3)
    throw ArgumentError("a parallel domain has at most 3 dimensions, got " +
                        std::to_string(domain.size()));
  std::array<uint64_t, 3> xyz = {1, 1, 1};
  for (size_t k = 0; k < domain.size(); ++k) {
    if (domain[k] < 0)
      throw ArgumentError("extent " + std::to_string(k) + " of a parallel domain is negative (" +
                          std::to_string(domain[k]) + ")");
    xyz[domain.size() - 1 - k] = static_cast<uint64_t>(domain[k]);
  }
  return xyz;
}

std::string count_of(uint64_t n, const char *thing) {
  return std::to_string(n) + " " + thing + (n == 1 ? "" : "s");
}

std::string triple(const unsigned v[3]) {
  std::string text = "(";
  for (int d = 0; d < 3; ++d)
    text += std::to_string(v[d]) + (d < 2 ? "," : ")");
  return text;
}

} // namespace

std::string GridShape::to_string() const {
  std::string text = "grid " + triple(grid) + " x block " + triple(block);
  if (dynamic_shared_bytes > 0)
    text += ", " + std::to_string(dynamic_shared_bytes) + " bytes of dynamic shared memory";
  return text;
}

uint64_t GridShape::threads_per_block() const {
  return uint64_t{block[0]} * block[1] * block[2];
}

uint64_t GridShape::block_count() const {
  return uint64_t{grid[0]} * grid[1] * grid[2];
}

std::array<unsigned, 3> compute_block(const std::vector<int64_t> &domain, int block_size,
                                      unsigned max_multi_dimensional_threads) {
  std::array<uint64_t, 3> extent = extents_xyz(domain);
  uint64_t threads = static_cast<uint64_t>(std::max(block_size, 1));
  if (domain.empty())
    return {1, 1, 1};
  if (domain.size() == 1)
    return {static_cast<unsigned>(threads), 1, 1};

  // Multi-dimensional blocks stay at 256 threads (32x8 for large extents): on the H200 the naive
  // matmul ran faster with 32x4 or 32x8 blocks than with 32x32 at the same occupancy
  // (bench/launch_sweep.cpp; bench/RESULTS.md, "Launch shape: automatic against the best of a
  // sweep").
  threads =
      std::min<uint64_t>(threads, max_multi_dimensional_threads > 0 ? max_multi_dimensional_threads
                                                                    : max_multi_dimensional_block);
  // A warp along x reads 32 consecutive elements: one or a few full cache lines.
  uint64_t x = extent[0] >= 32 ? 32 : power_of_two_at_least(std::max<uint64_t>(extent[0], 1));
  x = std::min(x, threads);
  uint64_t left = threads / x;
  uint64_t y = std::min(left, power_of_two_at_least(std::max<uint64_t>(extent[1], 1)));
  uint64_t z = 1;
  if (domain.size() == 3)
    z = std::min(
        {left / y, power_of_two_at_least(std::max<uint64_t>(extent[2], 1)), uint64_t{max_block_z}});
  return {static_cast<unsigned>(x), static_cast<unsigned>(y), static_cast<unsigned>(z)};
}

int spread_block_size(const std::vector<int64_t> &domain, int block_size, int sm_count,
                      std::string *why) {
  // Fewer iterations than the suggested blocks would hold on every SM at once: smaller blocks (a
  // power of two, at least a warp), so that the iterations spread over every SM instead of
  // filling a few (8192 rows in blocks of 1024 would run on 8 of 132 SMs).
  why->clear();
  std::array<uint64_t, 3> extent = extents_xyz(domain);
  const uint64_t total = extent[0] * extent[1] * extent[2];
  const uint64_t sms = static_cast<uint64_t>(std::max(sm_count, 1));
  if (domain.empty() || block_size <= 32 || total >= static_cast<uint64_t>(block_size) * sms)
    return block_size;
  uint64_t threads = 32;
  while (threads * 2 <= total / sms && threads * 2 <= static_cast<uint64_t>(block_size))
    threads *= 2;
  // Then a smaller block where it evens out the SMs' loads: the busiest SM runs ceil(blocks /
  // SMs) blocks, of the block's threads each (counted with the block's shape, padding included).
  // doitgen's 140 x 150 iterations in blocks of 32 x 4 (175 blocks) put two blocks on 43 of the
  // H200's 132 SMs and one on the rest; in blocks of 32 x 2 no SM has more than 192 threads
  // (bench/RESULTS.md, "doitgen").
  auto busiest = [&](uint64_t b) {
    std::array<unsigned, 3> block = compute_block(domain, static_cast<int>(b), 0);
    uint64_t blocks = 1;
    for (int d = 0; d < 3; ++d)
      blocks *= (extent[d] + block[d] - 1) / std::max(block[d], 1u);
    return (blocks + sms - 1) / sms * b;
  };
  // Only where the SMs have at most two blocks each: there one block more on some SMs is a large
  // share of their time.
  const uint64_t first = threads;
  if (busiest(first) <= 2 * first)
    for (uint64_t b = first / 2; b >= 32; b /= 2)
      if (busiest(b) < busiest(threads))
        threads = b;
  *why =
      count_of(total, "iteration") + " for " + count_of(sms, "SM") + ": blocks of " +
      std::to_string(threads) + " (not " + std::to_string(block_size) +
      ") threads spread them over every SM" +
      (threads != first ? " and even out their loads (at most " + std::to_string(busiest(threads)) +
                              " threads on an SM, " + std::to_string(busiest(first)) +
                              " with blocks of " + std::to_string(first) + ")"
                        : std::string()) +
      "; ";
  return static_cast<int>(threads);
}

GridShape compute_grid(const std::vector<int64_t> &domain, int block_size,
                       int max_active_blocks_per_sm, int sm_count, const LaunchPolicy &policy) {
  std::array<uint64_t, 3> extent = extents_xyz(domain);
  GridShape shape;
  const bool forced = policy.block[0] != 0 && !domain.empty();
  const uint64_t sms = static_cast<uint64_t>(std::max(sm_count, 1));
  std::string spread;
  if (!forced)
    block_size = spread_block_size(domain, block_size, sm_count, &spread);
  std::array<unsigned, 3> block =
      forced ? policy.block
             : compute_block(domain, block_size, policy.max_multi_dimensional_threads);
  for (unsigned &b : block)
    b = std::max(b, 1u);
  std::copy(block.begin(), block.end(), shape.block);
  if (domain.empty()) {
    shape.reason = "serial task: one thread runs it";
    return shape;
  }

  // Blocks to give every thread at most one iteration, within CUDA's grid limits.
  uint64_t grid[3];
  bool hit_cuda_limit = false;
  for (int d = 0; d < 3; ++d) {
    uint64_t limit = d == 0 ? max_grid_x : max_grid_yz;
    uint64_t needed = std::max<uint64_t>(1, (extent[d] + block[d] - 1) / block[d]);
    hit_cuda_limit |= needed > limit;
    grid[d] = std::min(needed, limit);
  }

  // Cap at a few waves, taking blocks away from the outermost dimension first.
  uint64_t per_sm = static_cast<uint64_t>(std::max(max_active_blocks_per_sm, 1));
  uint64_t wave = per_sm * sms;
  // The default cap depends on the dimensions: on the H200 (bench/launch_sweep.cpp) 2-D kernels
  // with the automatic block ran faster at 16 waves than at 4 (the stencil, the naive matmul),
  // 1-D ones alike at both (docs/decisions.md, "Grid-stride loops and a capped grid").
  int waves = policy.max_waves;
  if (waves == max_grid_waves && !forced && domain.size() > 1)
    waves = max_grid_waves_multi_dimensional;
  uint64_t cap = waves > 0 ? wave * waves : UINT64_MAX;
  // A short outermost dimension of a 3-D domain whose other two fill three quarters of a wave or
  // more: each thread walks it (one block along z), paying its setup once for those iterations
  // instead of once each, as Rodinia's hotspot3D kernel walks each column along z (there, 512 x
  // 512 threads are 97% of the H200's wave). Grid-stride code only (a covering launch, waves 0,
  // has no loop to walk it with).
  bool walked = false;
  if (domain.size() == 3 && waves > 0 && !forced && extent[2] > 1 &&
      extent[2] <= max_walked_extent && block[2] == 1 && 4 * grid[0] * grid[1] >= 3 * wave) {
    grid[2] = 1;
    walked = true;
  }
  bool capped = false;
  for (int d = 2; d >= 0 && waves > 0; --d) {
    uint64_t total = grid[0] * grid[1] * grid[2];
    if (total <= cap)
      break;
    uint64_t others = total / grid[d];
    grid[d] = std::max<uint64_t>(1, cap / others);
    capped = true;
  }
  for (int d = 0; d < 3; ++d)
    shape.grid[d] = static_cast<unsigned>(grid[d]);

  // Iterations each thread runs at most: the grid-stride loop trip counts multiplied.
  double iterations = 1, per_thread = 1;
  for (int d = 0; d < 3; ++d) {
    iterations *= static_cast<double>(extent[d]);
    uint64_t covered = grid[d] * block[d];
    per_thread *= static_cast<double>((extent[d] + covered - 1) / covered);
  }
  char text[512];
  std::snprintf(text, sizeof(text),
                "block %s = %llu threads; %llu blocks/SM resident on %llu SMs = %llu blocks per "
                "wave; ",
                triple(shape.block).c_str(), (unsigned long long)shape.threads_per_block(),
                (unsigned long long)per_sm, (unsigned long long)sms, (unsigned long long)wave);
  shape.reason =
      (forced ? "block set by the kernel's launch policy; " : "") + spread + std::string(text);
  if (hit_cuda_limit)
    shape.reason += "grid limited by CUDA's maximum extents (2^31-1, 65535, 65535); ";
  if (walked)
    shape.reason += "the outermost extent, " + std::to_string(extent[2]) +
                    ", is walked by each thread (one block along z: the other two give " +
                    std::to_string(grid[0] * grid[1]) + " blocks, " +
                    std::to_string(100 * grid[0] * grid[1] / wave) + "% of a wave); ";
  if (capped)
    shape.reason += "grid capped at " + count_of(uint64_t(waves), "wave") + " = " +
                    count_of(shape.block_count(), "block") + " " + triple(shape.grid) + "; ";
  else
    shape.reason +=
        "grid " + triple(shape.grid) + " = " + count_of(shape.block_count(), "block") + "; ";
  std::snprintf(text, sizeof(text), "%.0f iterations, at most %.0f per thread%s", iterations,
                per_thread, per_thread > 1 ? " (grid-stride loops)" : "");
  shape.reason += text;
  return shape;
}

GridShape choose_grid(const GpuFunction &function, const std::vector<int64_t> &domain,
                      const DeviceInfo &device, const LaunchPolicy &policy,
                      unsigned dynamic_shared_bytes) {
  if (domain.empty())
    return compute_grid(domain, 1, 1, device.sm_count);
  const Driver &cu = GpuContext::activate();
  if (policy.block[0] != 0) {
    unsigned threads =
        policy.block[0] * std::max(policy.block[1], 1u) * std::max(policy.block[2], 1u);
    int active_blocks = 0;
    std::string call = "cuOccupancyMaxActiveBlocksPerMultiprocessor(" + function.name + ")";
    cu.check(cu.cuOccupancyMaxActiveBlocksPerMultiprocessor(
                 &active_blocks, function.handle, static_cast<int>(threads), dynamic_shared_bytes),
             call.c_str());
    return compute_grid(domain, static_cast<int>(threads), active_blocks, device.sm_count, policy);
  }
  int min_grid_size = 0, suggested_block = 0;
  std::string call = "cuOccupancyMaxPotentialBlockSize(" + function.name + ")";
  cu.check(cu.cuOccupancyMaxPotentialBlockSize(&min_grid_size, &suggested_block, function.handle,
                                               nullptr, 0, 0),
           call.c_str());
  // A small domain takes smaller blocks (spread_block_size), and a 2-D or 3-D one with small
  // extents may use fewer threads than that; occupancy is asked for the block actually launched,
  // which compute_grid then leaves as it is.
  std::string spread;
  int block_size = spread_block_size(domain, suggested_block, device.sm_count, &spread);
  std::array<unsigned, 3> block =
      compute_block(domain, block_size, policy.max_multi_dimensional_threads);
  int threads = static_cast<int>(block[0] * block[1] * block[2]);
  int active_blocks = 0;
  call = "cuOccupancyMaxActiveBlocksPerMultiprocessor(" + function.name + ")";
  cu.check(
      cu.cuOccupancyMaxActiveBlocksPerMultiprocessor(&active_blocks, function.handle, threads, 0),
      call.c_str());
  GridShape shape = compute_grid(domain, threads, active_blocks, device.sm_count, policy);
  shape.reason = "cuOccupancyMaxPotentialBlockSize suggests " + std::to_string(suggested_block) +
                 " threads per block for " + function.name + " (" +
                 std::to_string(function.num_regs) + " registers per thread); " + spread +
                 shape.reason;
  return shape;
}

GridShape choose_covering_grid(const GpuFunction &function, const std::vector<int64_t> &domain,
                               const DeviceInfo &device, LaunchPolicy policy) {
  policy.max_waves = 0;
  int64_t iterations = 1;
  for (int64_t extent : domain)
    iterations *= extent;
  if (policy.block[0] == 0 && policy.max_multi_dimensional_threads == 0)
    policy.max_multi_dimensional_threads = iterations >= covering_large_domain ? 1024 : 128;
  GridShape shape = choose_grid(function, domain, device, policy);
  shape.reason = "one iteration per thread (the code has no grid-stride loop), so the grid is not "
                 "capped; " +
                 shape.reason;
  return shape;
}

GridShape choose_block_per_iteration_grid(const GpuFunction &function, int64_t iterations,
                                          int threads, const DeviceInfo &device,
                                          LaunchPolicy policy, unsigned dynamic_shared_bytes) {
  // (No .maxntid in the PTX to bound the registers instead: ptxas then scheduled the softmax
  // slower; docs/decisions.md.)
  policy.block = {unsigned(threads), 1, 1};
  return choose_grid(function, {iterations * threads}, device, policy, dynamic_shared_bytes);
}

} // namespace loom::runtime
