// SIMT kernels of the text DSL (@kernel(simt=True)) compiled with loom::compile and launched with
// Kernel::shape(grid, block) on each target, checked against host references: the kernels of
// tests/e2e/simt_test.cpp, written as a Numba user would write them.
#include "support/TestUtil.h"

#include "ir/Interpreter.h"

#include <algorithm>
#include <cmath>
#include <numeric>

using namespace loom;
using loomtest::random_vector;

namespace {

const char *source = R"(
@kernel(simt=True)
def block_sum(x: f32[n], total: f32[1]):
    partial = shared.array(256, f32)
    t = threadIdx.x
    i = grid(1)
    partial[t] = x[min(i, n - 1)] if i < n else 0.0
    syncthreads()
    stride = 128
    while stride > 0:
        if t < stride:
            partial[t] += partial[t + stride]
        syncthreads()
        stride /= 2
    if t == 0:
        atomic.add(total, 0, partial[0])

# Numba's spelling, with the cuda. prefix.
@kernel(simt=True)
def grid2(out: i32[H, W]):
    x, y = cuda.grid(2)
    if y < H and x < W:
        out[y, x] = (cuda.blockIdx.y * 1000000 + cuda.blockIdx.x * 10000 +
                     cuda.threadIdx.y * 100 + cuda.threadIdx.x)

@kernel(simt=True)
def shuffles(a: i32[n], b: f64[n], c: i64[n], d: f32[n], sums: i32[w], bsum: f64[n],
             bcast: i64[n], scan: f32[n]):
    i = grid(1)
    s = a[i]
    off = 16
    while off > 0:
        s += shfl_down_sync(0xffffffff, s, off)
        off /= 2
    if laneid == 0:
        sums[i / warpsize] = s
    t = b[i]
    m = 1
    while m < 32:
        t += shfl_xor_sync(0xffffffff, t, m)
        m *= 2
    bsum[i] = t
    bcast[i] = shfl_sync(0xffffffff, c[i], 3)
    p = d[i]
    off = 1
    while off < 32:
        up = shfl_up_sync(0xffffffff, p, off)
        if laneid >= off:
            p += up
        off *= 2
    scan[i] = p

@kernel(simt=True)
def votes(x: i32[n], ballots: i32[w], flags: i32[w]):
    i = grid(1)
    positive = x[i] > 0
    bits = ballot_sync(-1, positive)
    some = any_sync(-1, positive)
    every = all_sync(-1, x[i] > 0)
    if laneid == 0:
        ballots[i / 32] = bits
        flags[i / 32] = (1 if some else 0) + (2 if every else 0)

# Per-block histograms in shared memory merged into the global one; a compare-and-swap that
# exactly one thread wins; exchanges that hand every value on once; float min and max.
@kernel(simt=True)
def atomics(x: i32[n], bins: i32[8], flag: i32[1], winners: i32[1], slot: i32[1],
            olds: i32[n], f: f64[n], extremes: f64[2]):
    local = shared.array(8, i32)
    t = threadIdx.x
    if t < 8:
        local[t] = 0
    syncthreads()
    i = grid(1)
    if i < n:
        atomic.add(local, x[i] & 7, 1)
        id = i32(i) + 1
        if atomic.cas(flag, 0, 0, id) == 0:
            atomic.add(winners, 0, 1)
        olds[i] = atomic.exch(slot, 0, id)
        atomic.min(extremes, 0, f[i])
        atomic.max(extremes, (1,), f[i])
    syncthreads()
    if t < 8:
        atomic.add(bins, t, local[t])

@kernel(simt=True)
def tiled_matmul(A: f32[N, K], B: f32[K, M], C: f32[N, M]):
    As = shared.array((16, 16), f32)
    Bs = shared.array((16, 16), f32)
    tx = threadIdx.x
    ty = threadIdx.y
    row = i64(blockIdx.y) * 16 + ty
    col = i64(blockIdx.x) * 16 + tx
    acc: f32 = 0.0
    for k in range((K + 15) / 16):
        ak = k * 16 + tx
        bk = k * 16 + ty
        As[ty, tx] = A[min(row, N - 1), min(ak, K - 1)] if row < N and ak < K else 0.0
        Bs[ty, tx] = B[min(bk, K - 1), min(col, M - 1)] if bk < K and col < M else 0.0
        syncthreads()
        for e in range(16):
            acc += As[ty, e] * Bs[e, tx]
        syncthreads()
    if row < N and col < M:
        C[row, col] = acc

# The dynamic shared array (shared.array(0, type)): one element per thread of a block whose size
# the launch chooses, shape(grid, block, block * 4) ...
@kernel(simt=True)
def dynamic_block_sum(x: f32[n], total: f32[1]):
    partial = shared.array(0, f32)
    t = threadIdx.x
    i = grid(1)
    partial[t] = x[min(i, n - 1)] if i < n else 0.0
    syncthreads()
    stride = len(partial) / 2
    while stride > 0:
        if t < stride:
            partial[t] += partial[t + stride]
        syncthreads()
        stride /= 2
    if t == 0:
        atomic.add(total, 0, partial[0])

# ... and a T x (T + 1) tile of a transpose, T chosen at run time: shape(grid, (T, T),
# T * (T + 1) * 4). Its size checks the tile fits.
@kernel(simt=True)
def dynamic_transpose(a: f32[n, m], b: f32[m, n], T: i32, fits: i32[1]):
    tile = cuda.shared.array(0, f32)
    if threadIdx.x == 0 and threadIdx.y == 0 and blockIdx.x == 0 and blockIdx.y == 0:
        fits[0] = 1 if tile.shape[0] == T * (T + 1) and tile.size == len(tile) else 0
    r = blockIdx.y * T + threadIdx.y
    c = blockIdx.x * T + threadIdx.x
    if r < n and c < m:
        tile[threadIdx.y * (T + 1) + threadIdx.x] = a[r, c]
    syncthreads()
    r2 = blockIdx.x * T + threadIdx.y
    c2 = blockIdx.y * T + threadIdx.x
    if r2 < m and c2 < n:
        b[r2, c2] = tile[threadIdx.x * (T + 1) + threadIdx.y]

# A grid-stride loop: any launch shape covers the array.
@kernel(simt=True)
def fill_positions(out: i64[n]):
    i = grid(1)
    while i < n:
        out[i] = i * 3 + 1
        i += gridsize(1)
)";

class TextSimt : public loomtest::TargetTest {
protected:
  static Module &module() {
    static Module m = compile(source, "simt.loom");
    return m;
  }
  Kernel &get(const std::string &name) { return prepare(module()[name]); }
};

TEST_P(TextSimt, BlockReductionWithAtomicAdd) {
  Kernel &k = get("block_sum");
  EXPECT_TRUE(k.ir().simt());
  const size_t n = 100000;
  std::vector<float> x = random_vector<float>(n, -1, 1, 5), total{0.5f};
  k.shape(unsigned((n + 255) / 256), 256)(x, total);
  double ref = 0.5, mag = 0.5;
  for (float v : x)
    ref += v, mag += std::abs(v);
  EXPECT_NEAR(total[0], ref, 1e-5 * mag);
}

TEST_P(TextSimt, TwoDimensionalGrid) {
  Kernel &k = get("grid2");
  const int rows = 21, cols = 37;
  std::vector<int32_t> out(rows * cols, -1);
  k.shape({5, 6}, {8, 4})(view(out, {rows, cols}));
  for (int y = 0; y < rows; ++y)
    for (int x = 0; x < cols; ++x)
      ASSERT_EQ(out[y * cols + x], (y / 4) * 1000000 + (x / 8) * 10000 + (y % 4) * 100 + x % 8)
          << y << "," << x;
}

TEST_P(TextSimt, WarpShuffles) {
  Kernel &k = get("shuffles");
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
    ASSERT_EQ(sums[w], std::accumulate(a.begin() + w * 32, a.begin() + w * 32 + 32, 0)) << w;
    double bwant = std::accumulate(b.begin() + w * 32, b.begin() + w * 32 + 32, 0.0);
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

TEST_P(TextSimt, WarpVotes) {
  Kernel &k = get("votes");
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

TEST_P(TextSimt, SharedAndGlobalAtomics) {
  Kernel &k = get("atomics");
  const size_t n = 30000;
  std::vector<int32_t> x = random_vector<int32_t>(n, 0, 1000, 11);
  std::vector<double> f = random_vector<double>(n, -1e6, 1e6, 9);
  std::vector<int32_t> bins(8, 0), flag{0}, winners{0}, slot{0}, olds(n, -1);
  std::vector<double> extremes{1e300, -1e300};
  k.shape(unsigned((n + 255) / 256), 256)(x, bins, flag, winners, slot, olds, f, extremes);
  std::vector<int32_t> want(8, 0);
  for (int32_t v : x)
    ++want[v & 7];
  EXPECT_EQ(bins, want);
  EXPECT_EQ(winners[0], 1);
  EXPECT_GE(flag[0], 1);
  EXPECT_LE(flag[0], int32_t(n));
  std::vector<int32_t> all = olds;
  all.push_back(slot[0]);
  std::sort(all.begin(), all.end());
  for (int32_t v = 0; v <= int32_t(n); ++v)
    ASSERT_EQ(all[v], v) << "exchange lost or duplicated a value";
  EXPECT_EQ(extremes[0], *std::min_element(f.begin(), f.end()));
  EXPECT_EQ(extremes[1], *std::max_element(f.begin(), f.end()));
}

TEST_P(TextSimt, TiledMatmulInSharedMemory) {
  Kernel &k = get("tiled_matmul");
  const int n = 70, kk = 45, m = 53;
  std::vector<float> A = random_vector<float>(n * kk, -1, 1, 19);
  std::vector<float> B = random_vector<float>(kk * m, -1, 1, 20);
  std::vector<float> C(n * m, 0);
  k.shape({(m + 15) / 16, (n + 15) / 16}, {16, 16})(view(A, {n, kk}), view(B, {kk, m}),
                                                    view(C, {n, m}));
  loomtest::expect_matmul(A, B, C, n, kk, m);
}

TEST_P(TextSimt, GridStrideLoop) {
  Kernel &k = get("fill_positions");
  std::vector<int64_t> out(10007, -1);
  k.shape(3, 96)(out);
  for (int64_t i = 0; i < int64_t(out.size()); ++i)
    ASSERT_EQ(out[i], i * 3 + 1) << i;
}

TEST_P(TextSimt, DynamicSharedBlockReduction) {
  Kernel &k = get("dynamic_block_sum");
  const size_t n = 30001;
  std::vector<float> x = random_vector<float>(n, -1, 1, 6);
  double ref = 0.5, mag = 0.5;
  for (float v : x)
    ref += v, mag += std::abs(v);
  for (unsigned threads : {256u, 64u}) {
    std::vector<float> total{0.5f};
    k.shape(unsigned((n + threads - 1) / threads), threads, threads * sizeof(float))(x, total);
    EXPECT_NEAR(total[0], ref, 1e-5 * mag) << threads << " threads";
  }
}

TEST_P(TextSimt, DynamicSharedTiledTranspose) {
  Kernel &k = get("dynamic_transpose");
  const int64_t n = 37, m = 50;
  std::vector<float> a = random_vector<float>(n * m, -5, 5, 7);
  for (int T : {8, 16}) {
    std::vector<float> b(m * n, 0.0f);
    std::vector<int32_t> fits{-1};
    k.shape({unsigned((m + T - 1) / T), unsigned((n + T - 1) / T)}, {unsigned(T), unsigned(T)},
            size_t(T) * (T + 1) * 4)(view(a, {n, m}), view(b, {m, n}), T, fits);
    EXPECT_EQ(fits[0], 1) << T;
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < m; ++j)
        ASSERT_EQ(b[j * n + i], a[i * m + j]) << "T " << T << ": " << j << "," << i;
  }
}

LOOM_INSTANTIATE_TARGETS(TextSimt);

// The dynamic shared array on the interpreter, as loom-run runs it: the tile's extent is the
// launch's bytes over 4.
TEST(TextSimtModule, DynamicSharedOnTheInterpreter) {
  Module m = compile(source, "simt.loom");
  const ir::Kernel &k = m["dynamic_transpose"].ir();
  const int64_t n = 9, cols = 6, T = 4;
  std::vector<ir::InterpreterArg> args = {
      ir::InterpreterArg::of_array(ir::Buffer(ir::ScalarType::F32, {n, cols})),
      ir::InterpreterArg::of_array(ir::Buffer(ir::ScalarType::F32, {cols, n})),
      ir::InterpreterArg::of_scalar(ir::int_value(ir::ScalarType::I32, T)),
      ir::InterpreterArg::of_array(ir::Buffer(ir::ScalarType::I32, {1}))};
  for (int64_t e = 0; e < n * cols; ++e)
    args[0].array.set(e, ir::float_value(ir::ScalarType::F32, double(e) * 0.5));
  ir::InterpreterOptions o;
  o.simt_grid = {unsigned((cols + T - 1) / T), unsigned((n + T - 1) / T), 1};
  o.simt_block = {unsigned(T), unsigned(T), 1};
  o.simt_dynamic_shared_bytes = T * (T + 1) * 4;
  ir::interpret(k, args, o);
  EXPECT_EQ(args[3].array.get(0).i, 1);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < cols; ++j)
      ASSERT_EQ(args[1].array.get(j * n + i).f, double(i * cols + j) * 0.5) << j << "," << i;
}

// A SIMT kernel of a module needs a launch shape, as one of the embedded DSL does.
TEST(TextSimtModule, NeedsALaunchShape) {
  setenv("LOOM_TARGET", "cpu", 1);
  Module m = compile(source, "simt.loom");
  std::vector<int64_t> out(64, 0);
  try {
    m["fill_positions"](out);
    FAIL() << "a SIMT kernel ran without a launch shape";
  } catch (const ArgumentError &e) {
    EXPECT_NE(std::string(e.what()).find("shape(grid, block)"), std::string::npos) << e.what();
  }
  EXPECT_NE(m["block_sum"].ir_text().find("simt kernel block_sum("), std::string::npos);
  EXPECT_NE(m["block_sum"].ptx("sm_90").find("bar.sync"), std::string::npos);
  unsetenv("LOOM_TARGET");
}

} // namespace
