// The IR interpreter on SIMT kernels (traced with loom::trace(..., /*simt=*/true)): thread
// geometry, shared memory and barriers, atomics, warp shuffles and votes, the errors it reports
// (deadlocks, shared indices out of range, the step limit), the uncertainty it tracks, and
// bit-for-bit agreement with the compiled CPU code on kernels whose results do not depend on the
// order of the blocks.
#include "support/TestUtil.h"

#include "ir/Build.h"
#include "ir/Interpreter.h"
#include "ir/Lower.h"
#include "ir/Printer.h"
#include "ir/Semantics.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <numeric>
#include <tuple>

using namespace loom;
using loom::ir::Buffer;
using loom::ir::InterpreterArg;
using loom::ir::InterpreterOptions;
using loomtest::random_vector;

namespace {

using Shape = std::array<unsigned, 3>;

template <class T> Buffer buffer(std::vector<int64_t> shape, const std::vector<T> &values) {
  Buffer b(dtype_of<T>(), std::move(shape));
  if (!values.empty())
    std::memcpy(b.data(), values.data(), values.size() * sizeof(T));
  return b;
}
template <class T> InterpreterArg array(const std::vector<T> &values) {
  return InterpreterArg::of_array(buffer<T>({static_cast<int64_t>(values.size())}, values));
}
template <class T> std::vector<T> values_of(const InterpreterArg &a) {
  std::vector<T> v(a.array.size());
  if (!v.empty())
    std::memcpy(v.data(), a.array.bytes.data(), a.array.bytes.size());
  return v;
}

InterpreterOptions launch(Shape grid, Shape block) {
  InterpreterOptions o;
  o.simt_grid = grid;
  o.simt_block = block;
  return o;
}

// Runs `k` on the interpreter and on the compiled CPU code with the same 1-D arrays and launch,
// and expects every array to have the same bytes afterwards.
template <class... T>
void expect_same_bits_as_cpu(const ir::Kernel &k, Shape grid, Shape block,
                             const std::vector<T> &...inputs) {
  std::vector<InterpreterArg> args = {array<T>(inputs)...};
  ir::interpret(k, args, launch(grid, block));
  std::tuple<std::vector<T>...> compiled_args(inputs...);
  loom::Kernel compiled = loom::detail::make_kernel(k);
  compiled.on(ir::Target::CPU)
      .shape(Dim3(grid[0], grid[1], grid[2]), Dim3(block[0], block[1], block[2]));
  std::apply([&](auto &...v) { compiled(v...); }, compiled_args);
  size_t p = 0;
  auto compare = [&](const auto &v) {
    using E = typename std::decay_t<decltype(v)>::value_type;
    const std::vector<E> interpreted = values_of<E>(args[p]);
    ASSERT_EQ(interpreted.size(), v.size());
    for (size_t e = 0; e < v.size(); ++e)
      ASSERT_EQ(std::memcmp(&interpreted[e], &v[e], sizeof(E)), 0)
          << k.name << ": parameter " << k.params[p].name << " element " << e << ": interpreter "
          << interpreted[e] << ", compiled " << v[e];
    ++p;
  };
  std::apply([&](const auto &...v) { (compare(v), ...); }, compiled_args);
}

// ---- the kernels -------------------------------------------------------------------------------

// The calling thread's warp in the whole launch (1-D blocks, the last warp of a block may be
// partial).
Index warp_index() {
  return Index(block_idx().x) * Index((block_dim().x + 31) / 32) + Index(thread_idx().x / 32);
}

ir::Kernel geometry2d() {
  return trace(
      "grid2",
      [](Array2<int32_t> out) {
        auto [x, y] = grid<2>();
        if_(y < out.dim(0) && x < out.dim(1), [&] {
          out(y, x) = block_idx().y * 1000000 + block_idx().x * 10000 + thread_idx().y * 100 +
                      thread_idx().x + grid_dim().x * 0 + block_dim().y * 0;
        });
      },
      {"out"}, true);
}

ir::Kernel reverse_blocks() {
  return trace(
      "reverse_blocks",
      [](Array<int32_t> x, Array<int32_t> y) {
        auto tile = shared_array<int32_t>(64);
        I32 t = thread_idx().x;
        Index base = Index(block_idx().x) * 64;
        tile[t] = x[base + t];
        barrier();
        y[base + t] = tile[63 - t] + 1;
      },
      {"x", "y"}, true);
}

// A tree in shared memory, a barrier per level; per-block partials, then one atomic_add a block.
ir::Kernel block_sum() {
  return trace(
      "block_sum",
      [](Array<float> x, Array<float> partials, Array<float> total) {
        auto partial = shared_array<float>(128);
        I32 t = thread_idx().x;
        Index i = grid<1>();
        // Both arms of a select are evaluated: the load is clamped into range.
        partial[t] = select(i < x.size(), x[min(i, x.size() - 1)], 0.0f);
        barrier();
        for (int stride = 64; stride > 0; stride /= 2) {
          if_(t < stride, [&] { partial[t] += partial[t + stride]; });
          barrier();
        }
        if_(t == 0, [&] {
          partials[block_idx().x] = partial[0];
          atomic_add(total[0], partial[0]);
        });
      },
      {"x", "partials", "total"}, true);
}

ir::Kernel histogram() {
  return trace(
      "histogram",
      [](Array<int32_t> x, Array<int32_t> bins, Array<int32_t> extremes, Array<int64_t> big) {
        auto local = shared_array<int32_t>(8);
        I32 t = thread_idx().x;
        Index i = grid<1>();
        if_(i < x.size(), [&] {
          atomic_add(bins[x[i] % 16], 1);
          atomic_add(local[x[i] & 7], 1);
          atomic_min(extremes[0], x[i]);
          atomic_max(extremes[1], x[i]);
          atomic_add(big[0], cast<int64_t>(x[i]) * 4096);
        });
        barrier();
        if_(t < 8, [&] { atomic_add(bins[16 + t], local[t]); });
      },
      {"x", "bins", "extremes", "big"}, true);
}

ir::Kernel float_extremes() {
  return trace(
      "float_extremes",
      [](Array<double> x, Array<double> extremes, Array<float> fx, Array<float> fext) {
        Index i = grid<1>();
        if_(i < x.size(), [&] {
          atomic_min(extremes[0], x[i]);
          atomic_max(extremes[1], x[i]);
          atomic_min(fext[0], fx[i]);
          atomic_max(fext[1], fx[i]);
        });
      },
      {"x", "extremes", "fx", "fext"}, true);
}

ir::Kernel claim() {
  return trace(
      "claim",
      [](Array<int32_t> flag, Array<int32_t> winners, Array<int32_t> slot, Array<int32_t> olds) {
        Index i = grid<1>();
        I32 id = I32(i) + 1;
        I32 seen = atomic_cas(flag[0], 0, id);
        if_(seen == 0, [&] { atomic_add(winners[0], 1); });
        olds[i] = atomic_exchange(slot[0], id);
      },
      {"flag", "winners", "slot", "olds"}, true);
}

// Shuffles of every type: a down-shuffle tree sum (i32), a butterfly sum every lane gets (f64 of
// integers: exact), a broadcast from lane 3 (i64 past 2^32), an up-shuffle inclusive scan (f32 of
// small integers: exact), and the raw down-shuffle by 5 (partial warps: own value past the end).
ir::Kernel shuffles() {
  return trace(
      "shuffles",
      [](Array<int32_t> a, Array<double> b, Array<int64_t> c, Array<float> d, Array<int32_t> sums,
         Array<double> bsum, Array<int64_t> bcast, Array<float> scan, Array<int32_t> down5) {
        Index i = grid<1>();
        I32 lane = lane_id();
        Var<int32_t> s = a[i];
        down5[i] = shfl_down_sync(s, 5);
        for (int off = 16; off > 0; off /= 2)
          s += shfl_down_sync(s, off);
        if_(lane == 0, [&] { sums[warp_index()] = s; });
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
      {"a", "b", "c", "d", "sums", "bsum", "bcast", "scan", "down5"}, true);
}

ir::Kernel votes() {
  return trace(
      "votes",
      [](Array<int32_t> x, Array<int32_t> ballots, Array<int32_t> flags) {
        Index i = grid<1>();
        Bool positive = x[i] > 0;
        I32 bits = ballot_sync(positive);
        Bool any = any_sync(positive), all = all_sync(positive);
        if_(lane_id() == 0, [&] {
          ballots[warp_index()] = bits;
          flags[warp_index()] = select(any, 1, 0) + select(all, 2, 0);
        });
      },
      {"x", "ballots", "flags"}, true);
}

// ---- warp_result, the semantics the runtime and the interpreter share ---------------------------

TEST(WarpResult, ShufflesReadActiveLanesAndElseTheirOwnValue) {
  uint64_t values[32];
  for (int l = 0; l < 32; ++l)
    values[l] = 100 + l;
  const uint32_t all = 0xffffffffu, low20 = (1u << 20) - 1;
  using ir::WarpOpKind;
  EXPECT_EQ(ir::warp_result(WarpOpKind::ShflIdx, values, all, 7, 107, 35), 103u); // 35 & 31
  EXPECT_EQ(ir::warp_result(WarpOpKind::ShflUp, values, all, 2, 102, 3), 102u);   // below 0
  EXPECT_EQ(ir::warp_result(WarpOpKind::ShflUp, values, all, 9, 109, 3), 106u);
  EXPECT_EQ(ir::warp_result(WarpOpKind::ShflDown, values, all, 30, 130, 4), 130u);   // past 31
  EXPECT_EQ(ir::warp_result(WarpOpKind::ShflDown, values, low20, 17, 117, 4), 117u); // inactive
  EXPECT_EQ(ir::warp_result(WarpOpKind::ShflXor, values, all, 5, 105, 16), 121u);
  uint64_t bools[32] = {};
  bools[3] = bools[25] = 1;
  EXPECT_EQ(ir::warp_result(WarpOpKind::Ballot, bools, all, 0, 0, 0), (1u << 3) | (1u << 25));
  EXPECT_EQ(ir::warp_result(WarpOpKind::Ballot, bools, low20, 0, 0, 0), 1u << 3); // active only
  EXPECT_EQ(ir::warp_result(WarpOpKind::Any, bools, all, 0, 0, 0), 1u);
  EXPECT_EQ(ir::warp_result(WarpOpKind::All, bools, all, 0, 0, 0), 0u);
  for (int l = 0; l < 32; ++l)
    bools[l] = l < 20;
  EXPECT_EQ(ir::warp_result(WarpOpKind::All, bools, low20, 0, 1, 0), 1u); // over active lanes
  EXPECT_EQ(ir::value_from_bits(ir::ScalarType::I32, 0xfffffffeu).i, -2);
  EXPECT_EQ(ir::value_bits(ir::ScalarType::I32, ir::int_value(ir::ScalarType::I32, -2)),
            0xfffffffeu);
  EXPECT_EQ(ir::value_bits(ir::ScalarType::F32, ir::float_value(ir::ScalarType::F32, -0.0)),
            0x80000000u);
}

// ---- the interpreter -------------------------------------------------------------------------

// A 2-D grid of 2-D blocks: grid<2>() and every register along x and y, before and after
// lowering for either target.
TEST(SimtInterpreter, TwoDimensionalGrid) {
  const int rows = 21, cols = 37;
  for (int form = 0; form < 3; ++form) {
    std::vector<InterpreterArg> args = {InterpreterArg::of_array(
        buffer<int32_t>({rows, cols}, std::vector<int32_t>(rows * cols, -1)))};
    InterpreterOptions o = launch({5, 6, 1}, {8, 4, 1});
    if (form == 0)
      ir::interpret(geometry2d(), args, o);
    else
      ir::interpret(ir::lower(geometry2d(), form == 1 ? ir::Target::CPU : ir::Target::GPU), args,
                    o);
    std::vector<int32_t> out = values_of<int32_t>(args[0]);
    for (int y = 0; y < rows; ++y)
      for (int x = 0; x < cols; ++x)
        ASSERT_EQ(out[y * cols + x], (y / 4) * 1000000 + (x / 8) * 10000 + (y % 4) * 100 + x % 8)
            << "form " << form << ": " << y << "," << x;
  }
}

// Each block stages 64 elements in shared memory and writes them back reversed: reads after the
// barrier see what other threads wrote before it.
TEST(SimtInterpreter, SharedMemoryAndBarrier) {
  const int blocks = 7;
  std::vector<int32_t> x = random_vector<int32_t>(blocks * 64, -1000000, 1000000, 3);
  std::vector<InterpreterArg> args = {array(x), array(std::vector<int32_t>(x.size(), 0))};
  ir::interpret(reverse_blocks(), args, launch({blocks, 1, 1}, {64, 1, 1}));
  std::vector<int32_t> y = values_of<int32_t>(args[1]);
  for (int b = 0; b < blocks; ++b)
    for (int t = 0; t < 64; ++t)
      ASSERT_EQ(y[b * 64 + t], x[b * 64 + 63 - t] + 1) << b << "," << t;
}

// The f32 block tree reduction: each block's partial is exactly the f32 tree a host computes, and
// the total (blocks in order, as the interpreter runs them) is within 1e-5 of the sum of
// magnitudes of a double reference.
TEST(SimtInterpreter, BlockReductionWithAtomicAdd) {
  const int n = 3000, threads = 128, blocks = (n + threads - 1) / threads;
  std::vector<float> x = random_vector<float>(n, -1, 1, 5);
  std::vector<InterpreterArg> args = {array(x), array(std::vector<float>(blocks, 0)),
                                      array(std::vector<float>{0.5f})};
  ir::interpret(block_sum(), args, launch({blocks, 1, 1}, {threads, 1, 1}));
  std::vector<float> partials = values_of<float>(args[1]);
  float total = 0.5f;
  for (int b = 0; b < blocks; ++b) {
    std::vector<float> tree(threads);
    for (int t = 0; t < threads; ++t)
      tree[t] = b * threads + t < n ? x[b * threads + t] : 0.0f;
    for (int stride = threads / 2; stride > 0; stride /= 2)
      for (int t = 0; t < stride; ++t)
        tree[t] += tree[t + stride];
    ASSERT_EQ(partials[b], tree[0]) << b;
    total += tree[0];
  }
  EXPECT_EQ(values_of<float>(args[2])[0], total);
  double ref = 0.5, mag = 0.5;
  for (float v : x)
    ref += v, mag += std::abs(v);
  EXPECT_NEAR(values_of<float>(args[2])[0], ref, 1e-5 * mag);
}

// Integer atomics, exact: a histogram into global and shared memory, min, max, an i64 sum.
TEST(SimtInterpreter, IntegerAtomicsAreExact) {
  const int n = 2000;
  std::vector<int32_t> x = random_vector<int32_t>(n, 0, 1 << 30, 7);
  std::vector<InterpreterArg> args = {array(x), array(std::vector<int32_t>(24, 0)),
                                      array(std::vector<int32_t>{1 << 30, -1}),
                                      array(std::vector<int64_t>{int64_t(1) << 40})};
  ir::interpret(histogram(), args, launch({(n + 127) / 128, 1, 1}, {128, 1, 1}));
  std::vector<int32_t> want(24, 0);
  int64_t big = int64_t(1) << 40;
  for (int32_t v : x) {
    ++want[v % 16];
    ++want[16 + (v & 7)];
    big += int64_t(v) * 4096;
  }
  EXPECT_EQ(values_of<int32_t>(args[1]), want);
  EXPECT_EQ(values_of<int32_t>(args[2])[0], *std::min_element(x.begin(), x.end()));
  EXPECT_EQ(values_of<int32_t>(args[2])[1], *std::max_element(x.begin(), x.end()));
  EXPECT_EQ(values_of<int64_t>(args[3])[0], big);
}

// Float atomic min and max are fmin/fmax: exact, and a NaN element is replaced.
TEST(SimtInterpreter, FloatAtomicMinMax) {
  const int n = 500;
  std::vector<double> x = random_vector<double>(n, -1e6, 1e6, 9);
  std::vector<float> fx = random_vector<float>(n, -1e3, 1e3, 10);
  std::vector<InterpreterArg> args = {array(x), array(std::vector<double>{1e300, -1e300}),
                                      array(fx), array(std::vector<float>{NAN, NAN})};
  ir::interpret(float_extremes(), args, launch({4, 1, 1}, {128, 1, 1}));
  EXPECT_EQ(values_of<double>(args[1])[0], *std::min_element(x.begin(), x.end()));
  EXPECT_EQ(values_of<double>(args[1])[1], *std::max_element(x.begin(), x.end()));
  EXPECT_EQ(values_of<float>(args[3])[0], *std::min_element(fx.begin(), fx.end()));
  EXPECT_EQ(values_of<float>(args[3])[1], *std::max_element(fx.begin(), fx.end()));
}

// Compare-and-swap: exactly one thread claims the flag (the first to run: thread 0 of block 0);
// exchange hands every value on exactly once, and in the interpreter's order (blocks and threads
// in turn) each thread gets its predecessor's id.
TEST(SimtInterpreter, CompareAndSwapAndExchange) {
  const int blocks = 5, threads = 96, all = blocks * threads;
  std::vector<InterpreterArg> args = {
      array(std::vector<int32_t>{0}), array(std::vector<int32_t>{0}),
      array(std::vector<int32_t>{0}), array(std::vector<int32_t>(all, -1))};
  ir::interpret(claim(), args, launch({blocks, 1, 1}, {threads, 1, 1}));
  EXPECT_EQ(values_of<int32_t>(args[0])[0], 1);
  EXPECT_EQ(values_of<int32_t>(args[1])[0], 1);
  EXPECT_EQ(values_of<int32_t>(args[2])[0], all);
  std::vector<int32_t> olds = values_of<int32_t>(args[3]);
  for (int i = 0; i < all; ++i)
    ASSERT_EQ(olds[i], i) << i;
}

TEST(SimtInterpreter, WarpShuffles) {
  const int warps = 8, n = warps * 32;
  std::vector<int32_t> a = random_vector<int32_t>(n, -100000, 100000, 13);
  std::vector<double> b = random_vector<double>(n, -1000, 1000, 14);
  for (double &v : b)
    v = std::round(v);
  std::vector<int64_t> c = random_vector<int64_t>(n, -(int64_t(1) << 50), int64_t(1) << 50, 15);
  std::vector<float> d = random_vector<float>(n, -50, 50, 16);
  for (float &v : d)
    v = std::round(v);
  std::vector<InterpreterArg> args = {array(a),
                                      array(b),
                                      array(c),
                                      array(d),
                                      array(std::vector<int32_t>(warps, 0)),
                                      array(std::vector<double>(n, 0)),
                                      array(std::vector<int64_t>(n, 0)),
                                      array(std::vector<float>(n, 0)),
                                      array(std::vector<int32_t>(n, 0))};
  ir::interpret(shuffles(), args, launch({warps / 2, 1, 1}, {64, 1, 1}));
  std::vector<int32_t> sums = values_of<int32_t>(args[4]), down5 = values_of<int32_t>(args[8]);
  std::vector<double> bsum = values_of<double>(args[5]);
  std::vector<int64_t> bcast = values_of<int64_t>(args[6]);
  std::vector<float> scan = values_of<float>(args[7]);
  for (int w = 0; w < warps; ++w) {
    ASSERT_EQ(sums[w], std::accumulate(a.begin() + w * 32, a.begin() + w * 32 + 32, 0)) << w;
    const double bwant = std::accumulate(b.begin() + w * 32, b.begin() + w * 32 + 32, 0.0);
    float running = 0;
    for (int l = 0; l < 32; ++l) {
      const int i = w * 32 + l;
      running += d[i];
      ASSERT_EQ(bsum[i], bwant) << i;
      ASSERT_EQ(bcast[i], c[w * 32 + 3]) << i;
      ASSERT_EQ(scan[i], running) << i;
      ASSERT_EQ(down5[i], l + 5 < 32 ? a[i + 5] : a[i]) << i;
    }
  }
}

TEST(SimtInterpreter, WarpVotes) {
  const int warps = 6;
  std::vector<int32_t> x = random_vector<int32_t>(warps * 32, -3, 10, 17);
  for (int l = 0; l < 32; ++l) // warp 1: all positive; warp 2: none
    x[32 + l] = 1 + l, x[64 + l] = -l;
  std::vector<InterpreterArg> args = {array(x), array(std::vector<int32_t>(warps, 0)),
                                      array(std::vector<int32_t>(warps, 0))};
  ir::interpret(votes(), args, launch({warps / 2, 1, 1}, {64, 1, 1}));
  std::vector<int32_t> ballots = values_of<int32_t>(args[1]), flags = values_of<int32_t>(args[2]);
  for (int w = 0; w < warps; ++w) {
    uint32_t want = 0;
    for (int l = 0; l < 32; ++l)
      if (x[w * 32 + l] > 0)
        want |= 1u << l;
    ASSERT_EQ(uint32_t(ballots[w]), want) << w;
    ASSERT_EQ(flags[w], (want != 0 ? 1 : 0) + (want == 0xffffffffu ? 2 : 0)) << w;
  }
}

// ---- errors ----------------------------------------------------------------------------------

// Threads that wait at a barrier while others of their warp wait at a warp collective: the
// interpreter reports the deadlock instead of hanging.
TEST(SimtInterpreter, DivergentBarrierIsADeadlock) {
  ir::Kernel k = trace(
      "divergent",
      [](Array<int32_t> x) {
        I32 t = thread_idx().x;
        if_(t < 16, [&] { barrier(); }).else_([&] { x[t] = any_sync(t > 0); });
      },
      {"x"}, true);
  std::vector<InterpreterArg> args = {array(std::vector<int32_t>(64, 0))};
  try {
    ir::interpret(k, args, launch({2, 1, 1}, {32, 1, 1}));
    FAIL() << "a divergent barrier ran to the end";
  } catch (const InterpreterError &e) {
    std::string m = e.what();
    EXPECT_NE(m.find("kernel 'divergent', block (0, 0, 0): SIMT block of 32 threads deadlocked: "
                     "16 wait at a barrier, 16 at a warp collective, 0 have finished"),
              std::string::npos)
        << m;
  }
}

// A shared index out of range names the shared array, the index, the extent and the thread.
TEST(SimtInterpreter, SharedIndexOutOfRangeNamesTheArray) {
  ir::Kernel k = trace(
      "shared_out_of_range",
      [](Array<int32_t> x) {
        auto s = shared_array<int32_t>(32);
        I32 t = thread_idx().x;
        s[t] = t; // threads 32 to 63 write past the end
        barrier();
        x[t] = s[t & 31];
      },
      {"x"}, true);
  std::vector<InterpreterArg> args = {array(std::vector<int32_t>(64, 0))};
  try {
    ir::interpret(k, args, launch({1, 1, 1}, {64, 1, 1}));
    FAIL() << "a shared index out of range went unnoticed";
  } catch (const InterpreterError &e) {
    std::string m = e.what();
    EXPECT_NE(m.find("index 32 is out of bounds of dimension 0 of shared array 'shared0' "
                     "(extent 32)"),
              std::string::npos)
        << m;
    EXPECT_NE(m.find("in thread (32, 0, 0) of block (0, 0, 0)"), std::string::npos) << m;
  }
  ir::interpret(k, args, launch({2, 1, 1}, {32, 1, 1})); // in range: runs
  for (int t = 0; t < 32; ++t)
    ASSERT_EQ(values_of<int32_t>(args[0])[t], t);
}

// Steps count the statements of every thread together; the limit stops a thread that loops.
TEST(SimtInterpreter, StepsCountEveryThread) {
  ir::Kernel k = trace(
      "one_store", [](Array<int64_t> x) { x[grid<1>()] = grid<1>(); }, {"x"}, true);
  std::vector<InterpreterArg> args = {array(std::vector<int64_t>(96, 0))};
  ir::InterpreterResult r = ir::interpret(k, args, launch({3, 1, 1}, {32, 1, 1}));
  EXPECT_EQ(r.steps, 96u);
  std::vector<int64_t> want(96);
  std::iota(want.begin(), want.end(), 0);
  EXPECT_EQ(values_of<int64_t>(args[0]), want);

  ir::Kernel forever = trace(
      "forever",
      [](Array<int32_t> x) {
        Var<int32_t> n = thread_idx().x;
        while_(n >= 0, [&] { n = n * 1; });
        x[0] = n;
      },
      {"x"}, true);
  InterpreterOptions o = launch({1, 1, 1}, {32, 1, 1});
  o.step_limit = 1000;
  std::vector<InterpreterArg> x = {array(std::vector<int32_t>(1, 0))};
  try {
    ir::interpret(forever, x, o);
    FAIL() << "no error";
  } catch (const InterpreterError &e) {
    EXPECT_NE(std::string(e.what()).find("step limit of 1000"), std::string::npos) << e.what();
  }
}

TEST(SimtInterpreter, LaunchShapeIsChecked) {
  ir::Kernel k = trace(
      "one_store", [](Array<int64_t> x) { x[grid<1>()] = 1; }, {"x"}, true);
  std::vector<InterpreterArg> args = {array(std::vector<int64_t>(2048, 0))};
  EXPECT_THROW(ir::interpret(k, args, launch({1, 1, 1}, {2048, 1, 1})), ArgumentError);
  EXPECT_THROW(ir::interpret(k, args, launch({0, 1, 1}, {32, 1, 1})), ArgumentError);
  EXPECT_THROW(ir::interpret(k, args, launch({1, 1, 1}, {32, 0, 1})), ArgumentError);
}

// ---- uncertainty -------------------------------------------------------------------------------

// A shuffled value carries its source lane's bound; the old value an atomic returns is unknown
// (the threads' order is open), an integer count is exact, and a float atomic sum is bounded.
TEST(SimtInterpreter, UncertaintyThroughShufflesAndAtomics) {
  ir::Kernel k = trace(
      "uncertain",
      [](Array<float> x, Array<float> y, Array<int32_t> count, Array<int32_t> olds,
         Array<float> total, Array<float> plain) {
        Index i = grid<1>();
        F32 e = select(lane_id() % 2 == 0, exp(x[i]), x[i]);
        y[i] = shfl_xor_sync(e, 1);
        plain[i] = shfl_xor_sync(x[i], 1);
        olds[i] = atomic_add(count[0], 1);
        atomic_add(total[0], x[i]);
      },
      {"x", "y", "count", "olds", "total", "plain"}, true);
  const int n = 64;
  std::vector<float> x = random_vector<float>(n, -1, 1, 23);
  std::vector<InterpreterArg> args = {array(x),
                                      array(std::vector<float>(n, 0)),
                                      array(std::vector<int32_t>{0}),
                                      array(std::vector<int32_t>(n, 0)),
                                      array(std::vector<float>{0}),
                                      array(std::vector<float>(n, 0))};
  InterpreterOptions o = launch({2, 1, 1}, {32, 1, 1});
  o.track_uncertainty = true;
  ir::InterpreterResult r = ir::interpret(k, args, o);
  EXPECT_EQ(r.inconclusive, "");
  for (int i = 0; i < n; ++i) {
    // Odd lanes read an even lane's exp, even lanes an odd lane's exact input.
    if (i % 2 == 1) {
      EXPECT_GT(r.error_bounds[1][i], 0) << i;
      EXPECT_LT(r.error_bounds[1][i], 1e-5) << i;
    } else {
      EXPECT_EQ(r.error_bounds[1][i], 0) << i;
    }
    EXPECT_EQ(r.error_bounds[5][i], 0) << i;
    EXPECT_TRUE(std::isinf(r.error_bounds[3][i])) << i;
  }
  EXPECT_EQ(r.error_bounds[2][0], 0);
  EXPECT_GT(r.error_bounds[4][0], 0);
  EXPECT_LT(r.error_bounds[4][0], 1e-3);
}

// ---- agreement with the compiled CPU code
// --------------------------------------------------------

// The same ir::Kernel through the interpreter and through loom::Kernel on the CPU gives the same
// bits, on kernels whose results do not depend on the order in which blocks run (the CPU runs
// them in parallel): partial warps included (48 threads a block: the second warp has 16 lanes).
TEST(SimtInterpreter, AgreesBitForBitWithTheCompiledCpuCode) {
  {
    SCOPED_TRACE("reverse_blocks");
    std::vector<int32_t> x = random_vector<int32_t>(6 * 64, -1000000, 1000000, 31);
    expect_same_bits_as_cpu(reverse_blocks(), {6, 1, 1}, {64, 1, 1}, x,
                            std::vector<int32_t>(x.size(), 0));
  }
  {
    SCOPED_TRACE("block_sum partials");
    // One block: the atomic total is then order-independent as well.
    std::vector<float> x = random_vector<float>(128, -1, 1, 32);
    expect_same_bits_as_cpu(block_sum(), {1, 1, 1}, {128, 1, 1}, x, std::vector<float>(1, 0),
                            std::vector<float>{0.25f});
  }
  {
    SCOPED_TRACE("histogram");
    std::vector<int32_t> x = random_vector<int32_t>(1000, 0, 1 << 30, 33);
    expect_same_bits_as_cpu(histogram(), {8, 1, 1}, {128, 1, 1}, x, std::vector<int32_t>(24, 0),
                            std::vector<int32_t>{1 << 30, -1}, std::vector<int64_t>{7});
  }
  {
    SCOPED_TRACE("float_extremes");
    std::vector<double> x = random_vector<double>(300, -1e6, 1e6, 34);
    std::vector<float> fx = random_vector<float>(300, -1e3, 1e3, 35);
    expect_same_bits_as_cpu(float_extremes(), {3, 1, 1}, {128, 1, 1}, x,
                            std::vector<double>{1e300, -1e300}, fx, std::vector<float>{NAN, NAN});
  }
  for (unsigned threads : {64u, 48u}) {
    SCOPED_TRACE("shuffles, " + std::to_string(threads) + " threads a block");
    const int n = 4 * threads, warps = 4 * ((threads + 31) / 32);
    std::vector<double> b = random_vector<double>(n, -1000, 1000, 14);
    expect_same_bits_as_cpu(shuffles(), {4, 1, 1}, {threads, 1, 1},
                            random_vector<int32_t>(n, -100000, 100000, 13), b,
                            random_vector<int64_t>(n, -(int64_t(1) << 50), int64_t(1) << 50, 15),
                            random_vector<float>(n, -50, 50, 16), std::vector<int32_t>(warps, 0),
                            std::vector<double>(n, 0), std::vector<int64_t>(n, 0),
                            std::vector<float>(n, 0), std::vector<int32_t>(n, 0));
    SCOPED_TRACE("votes");
    std::vector<int32_t> x = random_vector<int32_t>(n, -3, 10, 17);
    expect_same_bits_as_cpu(votes(), {4, 1, 1}, {threads, 1, 1}, x, std::vector<int32_t>(warps, 0),
                            std::vector<int32_t>(warps, 0));
  }
}

} // namespace

namespace {

// ir::AsyncCopy with a count of valid elements (the wgmma tile's copies at the loops' ends): the
// first `valid` of its elements copied, the rest of the destination zeros, nothing else read.
// Thread t of one block of 4 copies src[4t .. 4t+3] with t valid, then stores what landed.
TEST(SimtInterpreter, AsyncCopyZeroFillsPastItsValidCount) {
  using namespace ir;
  ir::Kernel k;
  k.name = "zero_fill";
  k.params = {{"src", ParamKind::Array, ScalarType::F32, 1, nullptr},
              {"dst", ParamKind::Array, ScalarType::F32, 1, nullptr}};
  Shared s = make_shared_array("s", ScalarType::F32, {16});
  k.shared = {s};
  k.schedule.mapping = Mapping::Simt;
  Expr t = reg_i64(Reg::ThreadIdx, 0), first = mul(t, i64(4));
  std::vector<Stmt> body = {AsyncCopy::make(s, {first}, 0, ScalarType::F32, {first}, 16, t),
                            AsyncWait::make(), Barrier::make()};
  for (int v = 0; v < 4; ++v)
    body.push_back(Store::make(1, {add(first, i64(v))}, SharedLoad::make(s, {add(first, i64(v))})));
  k.body = Block::make(std::move(body));
  const std::vector<float> src = random_vector<float>(16, 1, 2, 41);
  std::vector<InterpreterArg> args = {array(src), array(std::vector<float>(16, -1.0f))};
  interpret(k, args, launch({1, 1, 1}, {4, 1, 1}));
  const std::vector<float> dst = values_of<float>(args[1]);
  for (int e = 0; e < 16; ++e)
    EXPECT_EQ(dst[size_t(e)], e % 4 < e / 4 ? src[size_t(e)] : 0.0f) << "element " << e;
  expect_same_bits_as_cpu(k, {1, 1, 1}, {4, 1, 1}, src, std::vector<float>(16, -1.0f));
}

// Memory barriers (ir::Mbarrier) are made by the wgmma tile's lowering for the GPU: their
// construction checks the array, the index and the value each operation takes, the printer
// names each operation, the interpreter runs them (and says when a wait can never end), and the
// CPU refuses them with a clear error.
TEST(SimtInterpreter, MemoryBarriersAreCheckedPrintedAndRunInTheInterpreter) {
  using namespace ir;
  Shared bars = make_shared_array("bars", ScalarType::I64, {4});
  Shared floats = make_shared_array("floats", ScalarType::F32, {4});
  auto ill_typed = [](auto make, const std::string &what) {
    try {
      make();
      ADD_FAILURE() << "no error for " << what;
    } catch (const VerifyError &e) {
      EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
    }
  };
  ill_typed([&] { Mbarrier::make(Mbarrier::Op::Arrive, bars, i64(0), i64(1)); },
            "memory barrier arrival with a value");
  ill_typed([&] { Mbarrier::make(Mbarrier::Op::Wait, bars, i64(0)); },
            "memory barrier init or wait without its count or parity");
  ill_typed([&] { Mbarrier::make(Mbarrier::Op::Init, floats, i64(0), i64(32)); },
            "memory barrier outside a shared array of i64 or the dynamic shared array");
  ill_typed([&] { Mbarrier::make(Mbarrier::Op::Init, bars, i32(0), i64(32)); },
            "memory barrier index that is not an i64");
  ill_typed(
      [&] {
        Mbarrier::make(Mbarrier::Op::Wait, bars, i64(0), FloatConst::make(ScalarType::F32, 0.0));
      },
      "memory barrier count or parity that is not an i64");

  ir::Kernel k;
  k.name = "handover";
  k.params = {{"x", ParamKind::Array, ScalarType::F32, 1, nullptr}};
  k.shared = {bars};
  k.schedule.mapping = Mapping::Simt;
  Expr t = reg_i64(Reg::ThreadIdx, 0);
  k.body = Block::make(
      {IfThenElse::make(eq(t, i64(0)), Mbarrier::make(Mbarrier::Op::Init, bars, i64(1), i64(32))),
       Barrier::make(), Mbarrier::make(Mbarrier::Op::Arrive, bars, i64(1)),
       Mbarrier::make(Mbarrier::Op::ArriveOnCopies, bars, i64(1)),
       Mbarrier::make(Mbarrier::Op::Wait, bars, i64(1), i64(0))});
  const std::string text = ir::to_string(k);
  for (const char *line :
       {"mbarrier.init bars[1], 32 arrivals a phase", "mbarrier.arrive bars[1]\n",
        "mbarrier.arrive bars[1] once the thread's async copies are complete",
        "mbarrier.wait bars[1], phase parity 0"})
    EXPECT_NE(text.find(line), std::string::npos) << line << " in\n" << text;

  // The interpreter runs them: a phase completes when 32 threads have arrived (the 64 arrivals
  // above complete two), and a wait lets the other threads run until it does.
  ir::Kernel handover = k;
  handover.body = Block::make(
      {IfThenElse::make(eq(t, i64(0)), Mbarrier::make(Mbarrier::Op::Init, bars, i64(1), i64(32))),
       Barrier::make(), Mbarrier::make(Mbarrier::Op::Wait, bars, i64(1), i64(1)),
       Store::make(0, {t}, FloatConst::make(ScalarType::F32, 1.0)),
       Mbarrier::make(Mbarrier::Op::Arrive, bars, i64(1)),
       Mbarrier::make(Mbarrier::Op::Wait, bars, i64(1), i64(0)),
       Store::make(0, {t}, FloatConst::make(ScalarType::F32, 2.0))});
  std::vector<InterpreterArg> args = {array(std::vector<float>(32, 0.0f))};
  ir::interpret(handover, args, launch({1, 1, 1}, {32, 1, 1}));
  EXPECT_EQ(values_of<float>(args[0]), std::vector<float>(32, 2.0f));
  // A wait no arrival can end (thread 0 never arrives), and a barrier used before its init.
  auto refused = [&](const Stmt &body, const std::string &what) {
    ir::Kernel bad = k;
    bad.body = body;
    std::vector<InterpreterArg> a = {array(std::vector<float>(32, 0.0f))};
    try {
      ir::interpret(bad, a, launch({1, 1, 1}, {32, 1, 1}));
      ADD_FAILURE() << "no error for " << what;
    } catch (const InterpreterError &e) {
      EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
    }
  };
  refused(Block::make(
              {IfThenElse::make(eq(t, i64(0)),
                                Mbarrier::make(Mbarrier::Op::Init, bars, i64(1), i64(32))),
               Barrier::make(),
               IfThenElse::make(gt(t, i64(0)), Mbarrier::make(Mbarrier::Op::Arrive, bars, i64(1))),
               Mbarrier::make(Mbarrier::Op::Wait, bars, i64(1), i64(0))}),
          "kernel 'handover': a memory barrier's wait for the phase of parity 0 can never end: "
          "the block's threads all wait, and none arrives");
  refused(Mbarrier::make(Mbarrier::Op::Arrive, bars, i64(2)),
          "kernel 'handover': a memory barrier used before its init");
  loom::Kernel compiled = loom::detail::make_kernel(k);
  compiled.on(ir::Target::CPU).shape(Dim3(1, 1, 1), Dim3(32, 1, 1));
  std::vector<float> x(32, 0.0f);
  try {
    compiled(x);
    ADD_FAILURE() << "the CPU ran a memory barrier";
  } catch (const CompileError &e) {
    EXPECT_NE(std::string(e.what()).find(
                  "a memory barrier (mbarrier) is GPU code; the CPU has no code for it"),
              std::string::npos)
        << e.what();
  }
}

} // namespace
