// The SIMT level (loom::simt_kernel): thread geometry, shared arrays, barriers, atomics, warp
// shuffles and votes, and explicit launch shapes, on both targets. Integer results are checked
// exactly; float sums against references computed in double, with the stated tolerance.
#include "support/TestUtil.h"

#include "ir/Lower.h"
#include "ir/Printer.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <numeric>

using namespace loom;
using loomtest::random_vector;

namespace {

class Simt : public loomtest::TargetTest {};

// Every thread writes its position: grid<1>() covers [0, blocks * threads) once.
TEST_P(Simt, GridCoversEveryThreadOnce) {
  auto k = simt_kernel("positions",
                       [](Array<int64_t> out) {
                         Index i = grid<1>();
                         if_(i < out.size(), [&] {
                           out[i] = i * 1000 + Index(block_idx().x) * 7 + Index(thread_idx().x);
                         });
                       },
                       {"out"});
  prepare(k);
  const int64_t n = 1000, threads = 128, blocks = (n + threads - 1) / threads;
  std::vector<int64_t> out(n, -1);
  k.shape(unsigned(blocks), unsigned(threads))(out);
  for (int64_t i = 0; i < n; ++i)
    ASSERT_EQ(out[i], i * 1000 + (i / threads) * 7 + i % threads) << i;
}

// A 2-D grid of 2-D blocks: grid<2>() and every register along x and y.
TEST_P(Simt, TwoDimensionalGrid) {
  auto k = simt_kernel("grid2",
                       [](Array2<int32_t> out) {
                         auto [x, y] = grid<2>();
                         if_(y < out.dim(0) && x < out.dim(1), [&] {
                           out(y, x) = block_idx().y * 1000000 + block_idx().x * 10000 +
                                       thread_idx().y * 100 + thread_idx().x + grid_dim().x * 0 +
                                       block_dim().y * 0;
                         });
                       },
                       {"out"});
  prepare(k);
  const int rows = 21, cols = 37;
  std::vector<int32_t> out(rows * cols, -1);
  k.shape({5, 6}, {8, 4})(view(out, {rows, cols}));
  for (int y = 0; y < rows; ++y)
    for (int x = 0; x < cols; ++x)
      ASSERT_EQ(out[y * cols + x], (y / 4) * 1000000 + (x / 8) * 10000 + (y % 4) * 100 + x % 8)
          << y << "," << x;
}

// Each block stages 256 elements in shared memory and writes them back reversed: the reads after
// the barrier see what other threads wrote before it.
TEST_P(Simt, SharedMemoryAndBarrier) {
  auto k = simt_kernel("reverse_blocks",
                       [](Array<int32_t> x, Array<int32_t> y) {
                         auto tile = shared_array<int32_t>(256);
                         I32 t = thread_idx().x;
                         Index base = Index(block_idx().x) * 256;
                         tile[t] = x[base + t];
                         barrier();
                         y[base + t] = tile[255 - t] + 1;
                       },
                       {"x", "y"});
  prepare(k);
  const int blocks = 37;
  std::vector<int32_t> x = random_vector<int32_t>(blocks * 256, -1000000, 1000000, 3);
  std::vector<int32_t> y(x.size(), 0);
  k.shape(blocks, 256)(x, y);
  for (int b = 0; b < blocks; ++b)
    for (int t = 0; t < 256; ++t)
      ASSERT_EQ(y[b * 256 + t], x[b * 256 + 255 - t] + 1) << b << "," << t;
}

// The classic block reduction: a tree in shared memory with a barrier per level, then one
// atomic_add per block. f32 sums: within 1e-5 of the sum of magnitudes of a double reference.
TEST_P(Simt, BlockReductionWithAtomicAdd) {
  auto k = simt_kernel("block_sum",
                       [](Array<float> x, Array<float> total) {
                         auto partial = shared_array<float>(256);
                         I32 t = thread_idx().x;
                         Index i = grid<1>();
                         // select evaluates both arms: the load's index stays in range.
                         partial[t] = select(i < x.size(), x[min(i, x.size() - 1)], 0.0f);
                         barrier();
                         for (int stride = 128; stride > 0; stride /= 2) {
                           if_(t < stride, [&] { partial[t] += partial[t + stride]; });
                           barrier();
                         }
                         if_(t == 0, [&] { atomic_add(total[0], partial[0]); });
                       },
                       {"x", "total"});
  prepare(k);
  const size_t n = 100000;
  std::vector<float> x = random_vector<float>(n, -1, 1, 5), total{0.5f};
  k.shape(unsigned((n + 255) / 256), 256)(x, total);
  double ref = 0.5, mag = 0.5;
  for (float v : x)
    ref += v, mag += std::abs(v);
  EXPECT_NEAR(total[0], ref, 1e-5 * mag);
}

// Integer atomics on global memory: a histogram (add), extremes (min, max), exact.
TEST_P(Simt, GlobalIntegerAtomics) {
  auto k = simt_kernel("histogram",
                       [](Array<int32_t> x, Array<int32_t> bins, Array<int32_t> extremes) {
                         Index i = grid<1>();
                         if_(i < x.size(), [&] {
                           atomic_add(bins[x[i] % 16], 1);
                           atomic_min(extremes[0], x[i]);
                           atomic_max(extremes[1], x[i]);
                         });
                       },
                       {"x", "bins", "extremes"});
  prepare(k);
  const size_t n = 50000;
  std::vector<int32_t> x = random_vector<int32_t>(n, 0, 1 << 30, 7);
  std::vector<int32_t> bins(16, 0), extremes{1 << 30, -1};
  k.shape(unsigned((n + 127) / 128), 128)(x, bins, extremes);
  std::vector<int32_t> want(16, 0);
  for (int32_t v : x)
    ++want[v % 16];
  EXPECT_EQ(bins, want);
  EXPECT_EQ(extremes[0], *std::min_element(x.begin(), x.end()));
  EXPECT_EQ(extremes[1], *std::max_element(x.begin(), x.end()));
}

// Float min and max (fmin/fmax, a compare-and-swap loop) and i64 adds, exact.
TEST_P(Simt, FloatMinMaxAndI64Atomics) {
  auto k = simt_kernel("float_extremes",
                       [](Array<double> x, Array<double> extremes, Array<int64_t> sum) {
                         Index i = grid<1>();
                         if_(i < x.size(), [&] {
                           atomic_min(extremes[0], x[i]);
                           atomic_max(extremes[1], x[i]);
                           atomic_add(sum[0], Index(x[i] * 1000.0));
                         });
                       },
                       {"x", "extremes", "sum"});
  prepare(k);
  const size_t n = 20000;
  std::vector<double> x = random_vector<double>(n, -1e6, 1e6, 9);
  std::vector<double> extremes{1e300, -1e300};
  std::vector<int64_t> sum{int64_t(1) << 40};
  k.shape(unsigned((n + 63) / 64), 64)(x, extremes, sum);
  EXPECT_EQ(extremes[0], *std::min_element(x.begin(), x.end()));
  EXPECT_EQ(extremes[1], *std::max_element(x.begin(), x.end()));
  int64_t want = int64_t(1) << 40;
  for (double v : x)
    want += static_cast<int64_t>(v * 1000.0);
  EXPECT_EQ(sum[0], want);
}

// Compare-and-swap: exactly one thread of the launch claims the flag; exchange hands every value
// on exactly once (the old values and the last one left are a permutation of all of them).
TEST_P(Simt, CompareAndSwapAndExchange) {
  auto k = simt_kernel(
      "claim",
      [](Array<int32_t> flag, Array<int32_t> winners, Array<int32_t> slot, Array<int32_t> olds) {
        Index i = grid<1>();
        I32 id = I32(i) + 1;
        I32 seen = atomic_cas(flag[0], 0, id);
        if_(seen == 0, [&] { atomic_add(winners[0], 1); });
        olds[i] = atomic_exchange(slot[0], id);
      },
      {"flag", "winners", "slot", "olds"});
  prepare(k);
  const int threads = 96 * 40;
  std::vector<int32_t> flag{0}, winners{0}, slot{0}, olds(threads, -1);
  k.shape(40, 96)(flag, winners, slot, olds);
  EXPECT_EQ(winners[0], 1);
  EXPECT_GE(flag[0], 1);
  EXPECT_LE(flag[0], threads);
  std::vector<int32_t> all = olds;
  all.push_back(slot[0]);
  std::sort(all.begin(), all.end());
  for (int v = 0; v <= threads; ++v)
    ASSERT_EQ(all[v], v) << "exchange lost or duplicated a value";
}

// Atomics on shared memory: per-block histograms merged into the global one.
TEST_P(Simt, SharedAtomics) {
  auto k = simt_kernel("block_histogram",
                       [](Array<int32_t> x, Array<int32_t> bins) {
                         auto local = shared_array<int32_t>(8);
                         I32 t = thread_idx().x;
                         if_(t < 8, [&] { local[t] = 0; });
                         barrier();
                         Index i = grid<1>();
                         if_(i < x.size(), [&] { atomic_add(local[x[i] & 7], 1); });
                         barrier();
                         if_(t < 8, [&] { atomic_add(bins[t], local[t]); });
                       },
                       {"x", "bins"});
  prepare(k);
  const size_t n = 30000;
  std::vector<int32_t> x = random_vector<int32_t>(n, 0, 1000, 11);
  std::vector<int32_t> bins(8, 0), want(8, 0);
  for (int32_t v : x)
    ++want[v & 7];
  k.shape(unsigned((n + 255) / 256), 256)(x, bins);
  EXPECT_EQ(bins, want);
}

// Warp shuffles of every type: a down-shuffle tree sum (i32), a butterfly sum every lane gets
// (f64 of integers: exact), a broadcast from lane 3 (i64 past 2^32) and an up-shuffle
// inclusive scan (f32 of small integers: exact).
TEST_P(Simt, WarpShuffles) {
  auto k = simt_kernel("shuffles",
                       [](Array<int32_t> a, Array<double> b, Array<int64_t> c, Array<float> d,
                          Array<int32_t> sums, Array<double> bsum, Array<int64_t> bcast,
                          Array<float> scan) {
                         Index i = grid<1>();
                         I32 lane = lane_id();
                         Var<int32_t> s = a[i];
                         for (int off = 16; off > 0; off /= 2)
                           s += shfl_down_sync(s, off);
                         if_(lane == 0, [&] { sums[i / 32] = s; });
                         Var<double> t = b[i];
                         for (int m = 1; m < 32; m *= 2)
                           t += shfl_xor_sync(t, m);
                         bsum[i] = t;
                         bcast[i] = shfl_sync(c[i], 3);
                         Var<float> p = d[i];
                         for (int off = 1; off < 32; off *= 2) {
                           F32 up = shfl_up_sync(p, off);
                           if_(lane >= off, [&] { p += up; });
                         }
                         scan[i] = p;
                       },
                       {"a", "b", "c", "d", "sums", "bsum", "bcast", "scan"});
  prepare(k);
  const int warps = 24, n = warps * 32;
  std::vector<int32_t> a = random_vector<int32_t>(n, -100000, 100000, 13), sums(warps, 0);
  std::vector<double> b = random_vector<double>(n, -1000, 1000, 14), bsum(n, 0);
  for (double &v : b)
    v = std::round(v);
  std::vector<int64_t> c = random_vector<int64_t>(n, -(int64_t(1) << 50), int64_t(1) << 50, 15),
                       bcast(n, 0);
  std::vector<float> d = random_vector<float>(n, -50, 50, 16), scan(n, 0);
  for (float &v : d)
    v = std::round(v);
  k.shape(warps / 2, 64)(a, b, c, d, sums, bsum, bcast, scan);
  for (int w = 0; w < warps; ++w) {
    int32_t want = std::accumulate(a.begin() + w * 32, a.begin() + w * 32 + 32, 0);
    double bwant = std::accumulate(b.begin() + w * 32, b.begin() + w * 32 + 32, 0.0);
    ASSERT_EQ(sums[w], want) << w;
    float running = 0;
    for (int l = 0; l < 32; ++l) {
      const int i = w * 32 + l;
      running += d[i];
      ASSERT_EQ(bsum[i], bwant) << i;
      ASSERT_EQ(bcast[i], c[w * 32 + 3]) << i;
      ASSERT_EQ(scan[i], running) << i;
    }
  }
}

// Votes: any, all and the ballot's bits, against the host.
TEST_P(Simt, WarpVotes) {
  auto k = simt_kernel("votes",
                       [](Array<int32_t> x, Array<int32_t> ballots, Array<int32_t> flags) {
                         Index i = grid<1>();
                         Bool positive = x[i] > 0;
                         I32 bits = ballot_sync(positive);
                         Bool any = any_sync(positive), all = all_sync(positive);
                         if_(lane_id() == 0, [&] {
                           ballots[i / 32] = bits;
                           flags[i / 32] = select(any, 1, 0) + select(all, 2, 0);
                         });
                       },
                       {"x", "ballots", "flags"});
  prepare(k);
  const int warps = 16;
  std::vector<int32_t> x = random_vector<int32_t>(warps * 32, -3, 10, 17);
  for (int l = 0; l < 32; ++l) // warp 1: all positive; warp 2: none
    x[32 + l] = 1 + l, x[64 + l] = -l;
  std::vector<int32_t> ballots(warps, 0), flags(warps, 0);
  k.shape(warps, 32)(x, ballots, flags);
  for (int w = 0; w < warps; ++w) {
    uint32_t want = 0;
    for (int l = 0; l < 32; ++l)
      if (x[w * 32 + l] > 0)
        want |= 1u << l;
    ASSERT_EQ(uint32_t(ballots[w]), want) << w;
    ASSERT_EQ(flags[w], (want != 0 ? 1 : 0) + (want == 0xffffffffu ? 2 : 0)) << w;
  }
}

// The tiled matmul of CUDA's programming guide: 16 x 16 tiles of A and B staged in shared memory.
TEST_P(Simt, TiledMatmulInSharedMemory) {
  auto k = simt_kernel(
      "tiled_matmul",
      [](Array2<float> A, Array2<float> B, Array2<float> C) {
        auto As = shared_array<float>(16, 16);
        auto Bs = shared_array<float>(16, 16);
        I32 tx = thread_idx().x, ty = thread_idx().y;
        Index row = Index(block_idx().y) * 16 + Index(ty);
        Index col = Index(block_idx().x) * 16 + Index(tx);
        Index n = A.dim(0), kk = A.dim(1), m = B.dim(1);
        Var<float> acc = 0.0f;
        for_range(0, (kk + 15) / 16, [&](Index tile) {
          Index ak = tile * 16 + Index(tx), bk = tile * 16 + Index(ty);
          As(ty, tx) = select(row < n && ak < kk, A(min(row, n - 1), min(ak, kk - 1)), 0.0f);
          Bs(ty, tx) = select(bk < kk && col < m, B(min(bk, kk - 1), min(col, m - 1)), 0.0f);
          barrier();
          for (int e = 0; e < 16; ++e)
            acc += As(ty, e) * Bs(e, tx);
          barrier();
        });
        if_(row < n && col < m, [&] { C(row, col) = acc; });
      },
      {"A", "B", "C"});
  prepare(k);
  const int n = 70, kk = 45, m = 53;
  std::vector<float> A = random_vector<float>(n * kk, -1, 1, 19);
  std::vector<float> B = random_vector<float>(kk * m, -1, 1, 20);
  std::vector<float> C(n * m, 0);
  k.shape({(m + 15) / 16, (n + 15) / 16}, {16, 16})(view(A, {n, kk}), view(B, {kk, m}),
                                                    view(C, {n, m}));
  loomtest::expect_matmul(A, B, C, n, kk, m);
}

// An explicit shape also replaces the automatic one for kernels of parallel loops: their loops
// stride over whatever grid they get.
TEST_P(Simt, ExplicitShapeForParallelLoops) {
  auto k = kernel("saxpy_shaped",
                  [](F32 a, Array<float> x, Array<float> y) {
                    parallel_for(x.size(), [&](Index i) { y[i] = a * x[i] + y[i]; });
                  },
                  {"a", "x", "y"});
  prepare(k);
  const size_t n = 100003;
  std::vector<float> x = random_vector<float>(n, -1, 1, 21), y = random_vector<float>(n, -1, 1, 22);
  std::vector<float> y0 = y;
  k.shape(3, 64)(2.0f, x, y);
  for (size_t i = 0; i < n; ++i) // one rounding (contracted) or two
    ASSERT_NEAR(y[i], 2.0 * x[i] + y0[i], 1e-6) << i;
  if (target() == ir::Target::GPU) {
    EXPECT_NE(k.explain().find("grid (3,1,1) x block (64,1,1)"), std::string::npos) << k.explain();
  }
  k.automatic_shape();
  y = y0;
  k(2.0f, x, y);
  if (target() == ir::Target::GPU) {
    EXPECT_EQ(k.explain().find("given by Kernel::shape()"), std::string::npos) << k.explain();
  }
}

TEST_P(Simt, ErrorsSayWhatWasExpected) {
  auto k = simt_kernel("needs_shape", [](Array<int32_t> x) { x[grid<1>()] = 1; }, {"x"});
  k.on(target());
  std::vector<int32_t> x(64, 0);
  try {
    k(x);
    FAIL() << "a SIMT kernel ran without a launch shape";
  } catch (const ArgumentError &e) {
    EXPECT_NE(std::string(e.what()).find("shape(grid, block)"), std::string::npos) << e.what();
  }
  EXPECT_THROW(k.shape(1, 2048), ArgumentError);
  EXPECT_THROW(k.shape(0, 32), ArgumentError);
  EXPECT_THROW(k.shape(1, {8, 8, 65}), ArgumentError);
  EXPECT_THROW(k.automatic_shape(), ArgumentError);
  k.shape(2, 32)(x);
  EXPECT_EQ(std::count(x.begin(), x.end(), 1), 64);

  // The SIMT operations belong to SIMT kernels.
  EXPECT_THROW(kernel("no_simt", [](Array<int32_t> x) { x[0] = thread_idx().x; }), DslError);
  EXPECT_THROW(kernel("no_barrier", [](Array<int32_t>) { barrier(); }), DslError);
  // Too much shared memory for a block.
  auto big = simt_kernel("too_much_shared", [](Array<float> x) {
    auto s = shared_array<float>(16384);
    s[0] = 1.0f;
    x[0] = s[0];
  });
  big.on(target());
  big.shape(1, 1);
  std::vector<float> f(1, 0);
  try {
    big(f);
    FAIL() << "64 KiB of shared arrays compiled";
  } catch (const CompileError &e) {
    EXPECT_NE(std::string(e.what()).find("at most 49152"), std::string::npos) << e.what();
  }
}

// A bounds-checked SIMT kernel checks shared-array indices too, and atomics' array indices.
TEST_P(Simt, BoundsCheckCoversSharedArraysAndAtomics) {
  auto k = simt_kernel("shared_out_of_range",
                       [](Array<int32_t> x) {
                         auto s = shared_array<int32_t>(32);
                         I32 t = thread_idx().x;
                         s[t] = t; // threads 32 to 63 write past the end
                         barrier();
                         x[t] = s[t & 31];
                       },
                       {"x"});
  k.on(target()).bounds_check();
  std::vector<int32_t> x(64, 0);
  try {
    k.shape(1, 64)(x);
    FAIL() << "a shared index out of range went unnoticed";
  } catch (const BoundsError &e) {
    EXPECT_EQ(e.array(), "shared0 (shared)");
    EXPECT_EQ(e.extent(), 32);
    EXPECT_GE(e.index(), 32);
    EXPECT_LT(e.index(), 64);
  }
  k.shape(1, 32)(x); // in range: runs
  for (int t = 0; t < 32; ++t)
    ASSERT_EQ(x[t], t);

  auto a = simt_kernel("atomic_out_of_range",
                       [](Array<int32_t> x) { atomic_add(x[grid<1>() * 2], 1); }, {"x"});
  a.on(target()).bounds_check();
  try {
    a.shape(1, 64)(x);
    FAIL() << "an atomic's index out of range went unnoticed";
  } catch (const BoundsError &e) {
    EXPECT_EQ(e.array(), "x");
    EXPECT_EQ(e.extent(), 64);
  }
}

// Threads that communicate through a global array across barriers see each other's writes:
// written arrays are not noalias in SIMT code, so nothing loaded before a barrier is reused after.
TEST_P(Simt, GlobalMemoryAcrossBarriers) {
  auto k = simt_kernel("neighbours",
                       [](Array<int32_t> a, Array<int32_t> out) {
                         Var<int64_t> t("t", Index(thread_idx().x));
                         Var<int32_t> x1("x1", a[t + 1]);
                         barrier();
                         a[t] = x1 * 2;
                         barrier();
                         out[t] = a[t + 1];
                       },
                       {"a", "out"});
  prepare(k);
  std::vector<int32_t> a = random_vector<int32_t>(65, -1000, 1000, 23), a0 = a, out(64, 0);
  k.shape(1, 64)(a, out);
  for (int t = 0; t < 63; ++t)
    ASSERT_EQ(out[t], 2 * a0[t + 2]) << t;
  EXPECT_EQ(out[63], a0[64]);
}

// A shared store of a constant as the body's first statement (its base address is computed
// where the task starts), and `x[i] += v`, which in a SIMT kernel is a plain update (not an
// atomic), also on f16 arrays.
TEST_P(Simt, FirstStatementsAndPlainUpdates) {
  auto k = simt_kernel("zero_then_add",
                       [](Array<f16> h, Array<float> out) {
                         auto s = shared_array<float>(64);
                         I32 t = thread_idx().x;
                         s[t] = 0.0f;
                         barrier();
                         s[t] += 1.5f;
                         h[Index(t)] += s[t];
                         barrier();
                         out[Index(t)] = s[(t + 1) & 63];
                       },
                       {"h", "out"});
  prepare(k);
  std::vector<f16> h(64, f16(0.25f));
  std::vector<float> out(64, 0);
  k.shape(1, 64)(h, out);
  for (int t = 0; t < 64; ++t) {
    ASSERT_EQ(float(h[t]), 1.75f) << t;
    ASSERT_EQ(out[t], 1.5f) << t;
  }
  EXPECT_EQ(k.lowered(ir::Target::GPU).find("+="), std::string::npos) << k.lowered(ir::Target::GPU);
}

// Kernel::shape on a kernel of parallel loops: a serial task stays one thread, and block axes
// past the loop's dimensions do not run iterations twice.
TEST_P(Simt, ShapeOfParallelLoopKernels) {
  auto k = kernel("serial_then_sum",
                  [](Array<float> x, Array<float> total) {
                    total[0] = total[0] + 1.0f;
                    parallel_for(x.size(), [&](Index i) { total[1] += x[i]; });
                  },
                  {"x", "total"});
  prepare(k);
  std::vector<float> x(1000, 0.5f), total{0.0f, 0.0f};
  k.shape(4, {32, 4})(x, total);
  EXPECT_EQ(total[0], 1.0f);
  EXPECT_EQ(total[1], 500.0f);
}

// Typed errors at trace time: an atomic on a 16-bit array, a shared array too large to count.
TEST(SimtErrors, TraceTimeChecks) {
  EXPECT_THROW(simt_kernel("f16_atomic", [](Array<f16> h) { atomic_add(h[0], 1.0f); }),
               VerifyError);
  EXPECT_THROW(simt_kernel("huge_shared",
                           [](Array<float> x) {
                             auto s = shared_array<double>(1 << 20, 1 << 20, 1 << 20);
                             x[0] = s(0, 0, 0);
                           }),
               VerifyError);
}

// The compile caches' key describes the whole shared layout: kernels that differ only in a shared
// array the body never touches (it moves the others) are different code.
TEST(SimtCacheKey, SharedLayoutIsPartOfTheKey) {
  auto with = simt_kernel("layout", [](Array<int32_t> x) {
    auto unused = shared_array<float>(1000);
    auto s = shared_array<int32_t>(64);
    (void)unused;
    s[thread_idx().x] = 1;
    x[Index(thread_idx().x)] = s[thread_idx().x];
  });
  auto without = simt_kernel("layout", [](Array<int32_t> x) {
    auto s = shared_array<int32_t>(64);
    s[thread_idx().x] = 1;
    x[Index(thread_idx().x)] = s[thread_idx().x];
  });
  EXPECT_NE(ir::canonical_text(ir::lower(with.ir(), ir::Target::CPU)),
            ir::canonical_text(ir::lower(without.ir(), ir::Target::CPU)));
}

// On the CPU, threads that wait at different barriers are a deadlock, reported instead of hung.
TEST_P(Simt, DivergentBarrierIsReportedOnTheCpu) {
  if (target() == ir::Target::GPU)
    GTEST_SKIP() << "a divergent barrier is undefined behaviour on the GPU";
  auto k = simt_kernel("divergent",
                       [](Array<int32_t> x) {
                         I32 t = thread_idx().x;
                         if_(t < 16, [&] { barrier(); }).else_([&] { x[t] = any_sync(t > 0); });
                       },
                       {"x"});
  k.on(target());
  std::vector<int32_t> x(32, 0);
  try {
    k.shape(1, 32)(x);
    FAIL() << "a divergent barrier ran to the end";
  } catch (const DeadlockError &e) {
    EXPECT_NE(std::string(e.what()).find("deadlock"), std::string::npos) << e.what();
  }
}

LOOM_INSTANTIATE_TARGETS(Simt);

} // namespace
