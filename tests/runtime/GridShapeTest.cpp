// Grid sizing is pure arithmetic: every case here runs without a GPU. Figures use the H200's 132
// SMs.
#include "runtime/GridShape.h"
#include "support/Error.h"

#include <gtest/gtest.h>

using namespace loom;
using namespace loom::runtime;

namespace {

void expect_shape(const GridShape &shape, std::array<unsigned, 3> grid,
                  std::array<unsigned, 3> block) {
  EXPECT_EQ(grid[0], shape.grid[0]);
  EXPECT_EQ(grid[1], shape.grid[1]);
  EXPECT_EQ(grid[2], shape.grid[2]);
  EXPECT_EQ(block[0], shape.block[0]);
  EXPECT_EQ(block[1], shape.block[1]);
  EXPECT_EQ(block[2], shape.block[2]);
}

} // namespace

TEST(runtime_grid, SerialTaskIsOneThread) {
  GridShape shape = compute_grid({}, 1024, 2, 132);
  expect_shape(shape, {1, 1, 1}, {1, 1, 1});
  EXPECT_NE(shape.reason.find("serial"), std::string::npos) << shape.reason;
}

TEST(runtime_grid, OneDimensionSmallExtentIsNotCapped) {
  GridShape shape = compute_grid({100'000}, 256, 8, 132);
  expect_shape(shape, {391, 1, 1}, {256, 1, 1});
  EXPECT_NE(shape.reason.find("at most 1 per thread"), std::string::npos) << shape.reason;
}

// Fewer iterations than the suggested blocks hold on every SM: blocks shrink (powers of two, at
// least a warp) so that they reach every SM.
TEST(runtime_grid, FewIterationsSpreadOverEverySm) {
  // 8192 rows: 1024-thread blocks would be 8 blocks on 8 of 132 SMs; 8192 / 132 = 62 -> 32.
  GridShape rows = compute_grid({8192}, 1024, 2, 132);
  expect_shape(rows, {256, 1, 1}, {32, 1, 1});
  EXPECT_NE(rows.reason.find("8192 iterations for 132 SMs: blocks of 32 (not 1024) threads spread "
                             "them over every SM"),
            std::string::npos)
      << rows.reason;
  // 100,000 / 132 = 757 -> 512 threads, 196 blocks: two on 64 SMs, one on the rest; blocks of
  // 256 (391) put three on most and two on the others, at most 768 threads where 512 put 1024.
  expect_shape(compute_grid({100'000}, 1024, 2, 132), {391, 1, 1}, {256, 1, 1});
  // 1000 iterations: warps on 32 SMs; 2-D: the warp's 32 threads keep x first.
  expect_shape(compute_grid({1000}, 256, 8, 132), {32, 1, 1}, {32, 1, 1});
  expect_shape(compute_grid({64, 64}, 256, 8, 132), {2, 64, 1}, {32, 1, 1});
  // Enough iterations for every SM: the suggested block stays.
  expect_shape(compute_grid({135'168}, 1024, 2, 132), {132, 1, 1}, {1024, 1, 1});
  // A block the kernel's policy sets is kept.
  LaunchPolicy policy;
  policy.block = {1024, 1, 1};
  expect_shape(compute_grid({8192}, 1024, 2, 132, policy), {8, 1, 1}, {1024, 1, 1});
}

// choose_grid shrinks the block before it asks the driver how many blocks an SM holds, so the
// explanation states the occupancy of the block launched; compute_grid must then keep that block.
TEST(runtime_grid, SpreadBlockSizeComesFirstAndIsKept) {
  std::string why;
  EXPECT_EQ(32, spread_block_size({8192}, 1024, 132, &why));
  EXPECT_NE(why.find("blocks of 32 (not 1024)"), std::string::npos) << why;
  EXPECT_EQ(256, spread_block_size({100'000}, 1024, 132, &why));
  EXPECT_NE(
      why.find("even out their loads (at most 768 threads on an SM, 1024 with blocks of 512)"),
      std::string::npos)
      << why;
  // doitgen's 140 x 150: 32 x 4 blocks put 256 threads on some SMs, 32 x 2 at most 192.
  EXPECT_EQ(64, spread_block_size({140, 150}, 1024, 132, &why));
  EXPECT_EQ(1024, spread_block_size({135'168}, 1024, 132, &why));
  EXPECT_TRUE(why.empty()) << why;
  EXPECT_EQ(256, spread_block_size({}, 256, 132, &why));
  // With the occupancy of 32-thread blocks (32 per SM), the shrunk block stays and the reason
  // gives that occupancy, not the 1024-thread block's.
  GridShape rows = compute_grid({8192}, spread_block_size({8192}, 1024, 132, &why), 32, 132);
  expect_shape(rows, {256, 1, 1}, {32, 1, 1});
  EXPECT_NE(rows.reason.find("32 blocks/SM resident"), std::string::npos) << rows.reason;
  EXPECT_EQ(rows.reason.find("spread them"), std::string::npos) << rows.reason;
  for (std::vector<int64_t> domain : {std::vector<int64_t>{100'000}, {64, 64}, {3000, 7}, {5}}) {
    int block = spread_block_size(domain, 1024, 132, &why);
    GridShape once = compute_grid(domain, 1024, 4, 132),
              twice = compute_grid(domain, block, 4, 132);
    EXPECT_EQ(once.to_string(), twice.to_string()) << domain.size() << "-D, block " << block;
  }
}

// A persistent task (the wgmma tile's producer warpgroup) launches one wave: a block per SM at one
// resident block each, every block taking a tile every gridDim.x.
TEST(runtime_grid, OneWaveForPersistentTasks) {
  LaunchPolicy policy;
  policy.block = {384, 1, 1};
  policy.max_waves = 1;
  GridShape shape = compute_grid({512 * 384}, 384, 1, 132, policy);
  expect_shape(shape, {132, 1, 1}, {384, 1, 1});
  EXPECT_NE(shape.reason.find("grid capped at 1 wave = 132 blocks (132,1,1)"), std::string::npos)
      << shape.reason;
}

TEST(runtime_grid, OneDimensionExtentOneAndZeroStillLaunchOneBlock) {
  expect_shape(compute_grid({1}, 128, 16, 132), {1, 1, 1}, {32, 1, 1});
  expect_shape(compute_grid({0}, 128, 16, 132), {1, 1, 1}, {32, 1, 1});
}

TEST(runtime_grid, OneDimensionHugeExtentIsCappedAtFourWaves) {
  // saxpy over 2^28 floats: 1024-thread blocks, 2 resident per SM.
  GridShape shape = compute_grid({int64_t{1} << 28}, 1024, 2, 132);
  expect_shape(shape, {1056, 1, 1}, {1024, 1, 1});
  EXPECT_EQ("grid (1056,1,1) x block (1024,1,1)", shape.to_string());
  EXPECT_EQ(1056u, shape.block_count());
  EXPECT_EQ(1024u, shape.threads_per_block());
  // ceil(2^28 / (1056 * 1024)) = 249 iterations for the busiest thread.
  EXPECT_NE(shape.reason.find("capped at 4 waves = 1056 blocks"), std::string::npos)
      << shape.reason;
  EXPECT_NE(shape.reason.find("at most 249 per thread"), std::string::npos) << shape.reason;
  EXPECT_NE(shape.reason.find("2 blocks/SM resident on 132 SMs = 264 blocks per wave"),
            std::string::npos)
      << shape.reason;
}

TEST(runtime_grid, OneDimensionExactFitOfTheCapIsNotCapped) {
  // 1056 blocks of 1024 threads exactly: the cap allows it.
  GridShape shape = compute_grid({1056 * 1024}, 1024, 2, 132);
  expect_shape(shape, {1056, 1, 1}, {1024, 1, 1});
  EXPECT_EQ(shape.reason.find("capped"), std::string::npos) << shape.reason;
}

TEST(runtime_grid, OneDimensionGridXLimit) {
  // 2^40 iterations with an absurdly large device: only CUDA's x limit binds.
  GridShape shape = compute_grid({int64_t{1} << 40}, 256, 1 << 20, 1 << 20);
  expect_shape(shape, {2147483647u, 1, 1}, {256, 1, 1});
  EXPECT_NE(shape.reason.find("limited by CUDA"), std::string::npos) << shape.reason;
}

TEST(runtime_grid, TwoDimensionsSquareUsesWarpWideRows) {
  // The 1024x1024 matmul: 1024 threads suggested, but 2-D blocks stay at 256 (32x8); 8 such
  // blocks per SM; a 32x128 grid = 4096 blocks, under the 4224 cap.
  GridShape shape = compute_grid({1024, 1024}, 1024, 8, 132);
  expect_shape(shape, {32, 128, 1}, {32, 8, 1});
  EXPECT_EQ(shape.reason.find("capped"), std::string::npos) << shape.reason;
}

TEST(runtime_grid, TwoDimensionsCapTakesBlocksFromYFirst) {
  // 8192x8192 with 256-thread blocks (32x8): 256 x 1024 blocks wanted, 16 waves of 1056 = 16896
  // allowed (2-D domains: 16 waves); x keeps all 256 blocks and y drops to 16896 / 256 = 66.
  GridShape shape = compute_grid({8192, 8192}, 256, 8, 132);
  expect_shape(shape, {256, 66, 1}, {32, 8, 1});
  EXPECT_NE(shape.reason.find("capped at 16 waves = 16896 blocks"), std::string::npos)
      << shape.reason;
  // A block the policy sets keeps the policy's 4 waves: 4224 / 256 = 16.
  LaunchPolicy policy;
  policy.block = {32, 8, 1};
  expect_shape(compute_grid({8192, 8192}, 256, 8, 132, policy), {256, 16, 1}, {32, 8, 1});
}

// A launch policy may set the most threads of an automatic 2-D block (the covering launch's small
// and large blocks); 0 keeps max_multi_dimensional_block.
TEST(runtime_grid, PolicyLimitsTheThreadsOfAnAutomaticBlock) {
  EXPECT_EQ((std::array<unsigned, 3>{32, 8, 1}), compute_block({4096, 4096}, 1024));
  EXPECT_EQ((std::array<unsigned, 3>{32, 4, 1}), compute_block({4096, 4096}, 1024, 128));
  EXPECT_EQ((std::array<unsigned, 3>{32, 32, 1}), compute_block({4096, 4096}, 1024, 1024));
  // Occupancy's suggestion still bounds it.
  EXPECT_EQ((std::array<unsigned, 3>{32, 16, 1}), compute_block({4096, 4096}, 512, 1024));
  LaunchPolicy policy;
  policy.max_waves = 0;
  policy.max_multi_dimensional_threads = 1024;
  // Uncapped: one iteration per thread, 128 x 128 blocks of 32 x 32.
  expect_shape(compute_grid({4096, 4096}, 1024, 2, 132, policy), {128, 128, 1}, {32, 32, 1});
}

TEST(runtime_grid, TwoDimensionsNarrowInnermostExtent) {
  // Innermost extent 5 rounds up to 8 threads along x; y takes the other 32 of 256.
  expect_shape(compute_grid({100'000, 5}, 256, 8, 132), {1, 3125, 1}, {8, 32, 1});
}

TEST(runtime_grid, TwoDimensionsTinyDomainShrinksTheBlock) {
  expect_shape(compute_grid({3, 3}, 1024, 2, 132), {1, 1, 1}, {4, 4, 1});
}

TEST(runtime_grid, TwoDimensionsBlockSizeBelowAWarp) {
  expect_shape(compute_grid({100, 100}, 16, 8, 132), {7, 100, 1}, {16, 1, 1});
}

TEST(runtime_grid, TwoDimensionsGridYLimit) {
  // 10^7 rows of 4: block (4,64,1); 156250 blocks wanted along y, CUDA allows 65535.
  GridShape shape = compute_grid({10'000'000, 4}, 256, 100, 1000);
  expect_shape(shape, {1, 65535, 1}, {4, 64, 1});
  EXPECT_NE(shape.reason.find("limited by CUDA"), std::string::npos) << shape.reason;
}

TEST(runtime_grid, ThreeDimensionsCube) {
  // 512 threads suggested, 256 used: 32 along x, 8 along y, none left for z; 2 x 8 x 64 blocks.
  expect_shape(compute_grid({64, 64, 64}, 512, 4, 132), {2, 8, 64}, {32, 8, 1});
}

TEST(runtime_grid, ThreeDimensionsSmallInnerExtentsGiveThreadsToZ) {
  // 256 threads: x: 2, y: 4 (3 rounded up), z: the remaining 32; 10000 / 32 -> 313 blocks
  // along z.
  expect_shape(compute_grid({10'000, 3, 2}, 1024, 2, 132), {1, 1, 313}, {2, 4, 32});
}

TEST(runtime_grid, ThreeDimensionsCapTakesBlocksFromZFirst) {
  // 2 x 512 x 4096 blocks wanted, 16896 allowed: z drops to 16896 / 1024 = 16, x and y are kept.
  expect_shape(compute_grid({4096, 4096, 64}, 256, 8, 132), {2, 512, 16}, {32, 8, 1});
}

TEST(runtime_grid, ThreeDimensionsCapReachesYWhenZIsExhausted) {
  // 64 x 1024 x 2 blocks wanted (block 32x8x1), 16 x 264 = 4224 allowed: z goes to 1, then y to
  // 4224 / 64 = 66.
  expect_shape(compute_grid({2, 8192, 2048}, 256, 2, 132), {64, 66, 1}, {32, 8, 1});
}

TEST(runtime_grid, ThreeDimensionsShortOutermostExtentIsWalkedByEachThread) {
  // hotspot3D's 8 x 512 x 512: 16 x 64 blocks of 32 x 8 are 97% of a wave at 8 blocks an SM
  // (1056): each thread walks the 8 layers, one block along z.
  GridShape walked = compute_grid({8, 512, 512}, 256, 8, 132);
  expect_shape(walked, {16, 64, 1}, {32, 8, 1});
  EXPECT_NE(walked.reason.find("the outermost extent, 8, is walked by each thread (one block "
                               "along z: the other two give 1024 blocks, 96% of a wave)"),
            std::string::npos)
      << walked.reason;
  EXPECT_NE(walked.reason.find("at most 8 per thread"), std::string::npos) << walked.reason;
  // Half as many rows are 48%: z keeps its 8 blocks.
  expect_shape(compute_grid({8, 256, 512}, 256, 8, 132), {16, 32, 8}, {32, 8, 1});
  // 16 layers over 1024 x 1024 are walked; 17 are not (the 16-wave cap then leaves 4 blocks
  // along z).
  expect_shape(compute_grid({16, 1024, 1024}, 256, 8, 132), {32, 128, 1}, {32, 8, 1});
  expect_shape(compute_grid({17, 1024, 1024}, 256, 8, 132), {32, 128, 4}, {32, 8, 1});
  // Inner extents that do not fill a wave keep their blocks along z.
  EXPECT_EQ(8u, compute_grid({8, 64, 64}, 256, 8, 132).grid[2]);
  // A covering launch (no cap, so no grid-stride loop) never walks.
  LaunchPolicy covering;
  covering.max_waves = 0;
  expect_shape(compute_grid({8, 1024, 1024}, 256, 8, 132, covering), {32, 128, 8}, {32, 8, 1});
}

TEST(runtime_grid, ThreeDimensionsGridZLimit) {
  // Only the outermost extent is large: block (1,1,64), 156250 blocks wanted along z.
  expect_shape(compute_grid({10'000'000, 1, 1}, 64, 100, 1000), {1, 1, 65535}, {1, 1, 64});
}

TEST(runtime_grid, DegenerateOccupancyFiguresAreClamped) {
  // Block size, blocks per SM and SM count of 0 count as 1: one thread per block, cap 4 blocks.
  expect_shape(compute_grid({1000}, 0, 0, 0), {4, 1, 1}, {1, 1, 1});
}

TEST(runtime_grid, BlockShapeIsStableUnderItsOwnThreadCount) {
  // choose_grid asks occupancy for the block actually launched and recomputes the shape from its
  // thread count; that must give the same block.
  const std::vector<std::vector<int64_t>> domains = {{1000},      {1024, 1024}, {1000, 5}, {3, 3},
                                                     {100, 3, 2}, {64, 64, 64}, {7, 1, 1}, {0, 0}};
  for (const auto &domain : domains)
    for (int block_size : {32, 96, 128, 256, 640, 768, 1024}) {
      std::array<unsigned, 3> block = compute_block(domain, block_size);
      int threads = static_cast<int>(block[0] * block[1] * block[2]);
      EXPECT_LE(threads, block_size);
      EXPECT_EQ(block, compute_block(domain, threads)) << "block size " << block_size;
    }
}

TEST(runtime_grid, RejectsMoreThanThreeDimensionsAndNegativeExtents) {
  EXPECT_THROW(compute_grid({1, 2, 3, 4}, 256, 2, 132), ArgumentError);
  try {
    compute_grid({10, -5}, 256, 2, 132);
    FAIL() << "expected ArgumentError";
  } catch (const ArgumentError &e) {
    EXPECT_NE(std::string(e.what()).find("-5"), std::string::npos) << e.what();
  }
}

namespace {

TEST(runtime_grid, PolicyBlockReplacesTheAutomaticOne) {
  loom::runtime::LaunchPolicy policy;
  policy.block = {32, 8, 1};
  GridShape shape = compute_grid({4096, 4096}, 1024, 8, 132, policy);
  EXPECT_EQ(shape.block[0], 32u);
  EXPECT_EQ(shape.block[1], 8u);
  // 4 waves of 8 blocks on 132 SMs = 4224 blocks; x keeps all 128 columns of blocks, y gets 33.
  EXPECT_EQ(shape.grid[0], 128u);
  EXPECT_EQ(shape.grid[1], 33u);
  EXPECT_NE(shape.reason.find("block set by the kernel's launch policy"), std::string::npos);
}

TEST(runtime_grid, PolicyWithoutCapGivesOneIterationPerThread) {
  loom::runtime::LaunchPolicy policy;
  policy.max_waves = 0;
  GridShape shape = compute_grid({4096, 4096}, 1024, 2, 132, policy);
  EXPECT_EQ(uint64_t(shape.grid[0]) * shape.block[0], 4096u);
  EXPECT_EQ(uint64_t(shape.grid[1]) * shape.block[1], 4096u);
  GridShape one_d = compute_grid({int64_t{1} << 28}, 1024, 2, 132, policy);
  EXPECT_EQ(one_d.grid[0], (1u << 28) / 1024);
}

} // namespace
