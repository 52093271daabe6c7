// Reductions inside parallel loops: into one element (per-worker partials combined in a fixed
// order), into the iteration's own element (plain updates) and into data-dependent elements
// (atomics). Float results are checked against a double-precision reference within the error
// bound of a sum in any order; integer results exactly.
#include "support/TestUtil.h"

#include "loom/Module.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>

using namespace loom;
using loomtest::random_vector;

namespace {

class Reductions : public loomtest::TargetTest {};

// |any order's float sum - exact| <= (n - 1) * u * sum|x| (first order), u the unit roundoff.
template <class T> double sum_bound(const std::vector<T> &x) {
  double magnitude = 0;
  for (T v : x)
    magnitude += std::fabs(static_cast<double>(v));
  const double u = std::numeric_limits<T>::epsilon() / 2;
  return 1.01 * static_cast<double>(x.size()) * u * magnitude + 1e-30;
}

// explain() says, per updated array, which way its updates went and why.
TEST_P(Reductions, ExplainSaysHowEachUpdateRuns) {
  auto k =
      kernel("three",
             [](Array<int32_t> bin, Array<int32_t> hist, Array<int32_t> own, Array<int32_t> total) {
               parallel_for(bin.size(), [&](Index i) {
                 own[i] += 2;
                 total[0] += bin[i];
                 hist[bin[i]] += 1;
               });
             },
             {"bin", "hist", "own", "total"});
  prepare(k);
  std::vector<int32_t> bin = {0, 3, 3, 1, 0, 3}, hist(4, 0), own(6, 5), total(1, 0);
  k(bin, hist, own, total);
  EXPECT_EQ(hist, (std::vector<int32_t>{2, 1, 0, 3}));
  EXPECT_EQ(own, std::vector<int32_t>(6, 7));
  EXPECT_EQ(total[0], 10);
  const std::string text = k.explain();
  EXPECT_NE(text.find("updates of own[i]: each iteration's own elements"), std::string::npos)
      << text;
  EXPECT_NE(text.find("updates of total[0]: one element for every iteration"), std::string::npos)
      << text;
  EXPECT_NE(text.find("updates of hist[i64(bin[i])]: atomic read-modify-writes, as two "
                      "iterations may update one element"),
            std::string::npos)
      << text;
}

TEST_P(Reductions, FloatSumIntoOneElementKeepsItsValue) {
  auto k = kernel("sum", [](Array<float> x, Array<float> total) {
    parallel_for(x.size(), [&](Index i) { total[0] += x[i]; });
  });
  prepare(k);
  for (size_t n : {size_t(0), size_t(1), size_t(1000), size_t(1) << 20, (size_t(1) << 20) + 17}) {
    auto x = random_vector<float>(n, -1, 1, 31 + n);
    std::vector<float> total = {2.5f};
    k(x, total);
    double exact = 2.5;
    for (float v : x)
      exact += v;
    EXPECT_NEAR(total[0], exact, sum_bound(x) + 1e-6) << "n = " << n;
  }
}

TEST_P(Reductions, DoubleSumOverTwoDimensions) {
  auto k = kernel("sum2", [](Array2<double> a, Array<double> total) {
    parallel_for({a.dim(0), a.dim(1)}, [&](Index i, Index j) { total[0] += a(i, j) * 2.0; });
  });
  prepare(k);
  const int64_t rows = 517, cols = 1031;
  auto a = random_vector<double>(rows * cols, -10, 10, 32);
  std::vector<double> total = {0};
  k(view(a, {rows, cols}), total);
  double exact = 0;
  for (double v : a)
    exact += 2 * v;
  EXPECT_NEAR(total[0], exact, 2 * sum_bound(a));
}

TEST_P(Reductions, IntegerSumMinMaxAndProductAreExact) {
  auto k = kernel("stats", [](Array<int32_t> x, Array<int64_t> sum, Array<int32_t> lo,
                              Array<int32_t> hi, Array<int32_t> prod) {
    parallel_for(x.size(), [&](Index i) {
      sum[0] += I64(x[i]);
      lo[0] = min(lo[0], x[i]);
      hi[0] = max(hi[0], x[i]);
      prod[0] *= x[i] | 1;
    });
  });
  prepare(k);
  for (size_t n : {size_t(1), size_t(999), size_t(300001)}) {
    auto x = random_vector<int32_t>(n, -2000000000, 2000000000, 33 + n);
    std::vector<int64_t> sum = {7};
    std::vector<int32_t> lo = {std::numeric_limits<int32_t>::max()},
                         hi = {std::numeric_limits<int32_t>::min()}, prod = {3};
    k(x, sum, lo, hi, prod);
    int64_t s = 7;
    int32_t l = lo[0], h = hi[0];
    uint32_t p = 3; // wraps like loom's i32
    l = std::numeric_limits<int32_t>::max(), h = std::numeric_limits<int32_t>::min();
    for (int32_t v : x) {
      s += v, l = std::min(l, v), h = std::max(h, v);
      p *= static_cast<uint32_t>(v | 1);
    }
    EXPECT_EQ(sum[0], s) << n;
    EXPECT_EQ(lo[0], l) << n;
    EXPECT_EQ(hi[0], h) << n;
    EXPECT_EQ(prod[0], static_cast<int32_t>(p)) << n;
  }
}

// `-=` into one element is a reduction too (x -= v is x += -v): exact for integers, and for
// floats within the rounding of any order, where a plain load and store would race.
TEST_P(Reductions, SubtractionIntoOneElementCombines) {
  auto k = kernel(
      "debits", [](Array<int64_t> x, Array<double> d, Array<int64_t> balance, Array<double> level) {
        parallel_for(x.size(), [&](Index i) {
          balance[1] -= x[i];
          level[0] = level[0] - d[i];
        });
      });
  prepare(k);
  EXPECT_NE(k.ir_text().find("p2[1] += -p0[i]"), std::string::npos) << k.ir_text();
  const size_t n = 200003;
  auto x = random_vector<int64_t>(n, -1000000, 1000000, 91);
  auto d = random_vector<double>(n, 0, 1, 92);
  std::vector<int64_t> balance = {5, 1000};
  std::vector<double> level = {0.5};
  k(x, d, balance, level);
  int64_t want = 1000;
  double want_level = 0.5, magnitude = 0.5;
  for (size_t i = 0; i < n; ++i)
    want -= x[i], want_level -= d[i], magnitude += d[i];
  EXPECT_EQ(balance[0], 5);
  EXPECT_EQ(balance[1], want);
  EXPECT_NEAR(level[0], want_level, 1e-13 * magnitude);
}

TEST_P(Reductions, FloatMinMaxAndProduct) {
  auto k =
      kernel("fstats", [](Array<double> x, Array<double> lo, Array<double> hi, Array<double> prod) {
        parallel_for(x.size(), [&](Index i) {
          lo[0] = min(lo[0], x[i]);
          hi[0] = max(hi[0], x[i]);
          prod[0] *= 1.0 + x[i] * 1e-3;
        });
      });
  prepare(k);
  auto x = random_vector<double>(200003, -1, 1, 34);
  std::vector<double> lo = {0.25}, hi = {0.25}, prod = {1};
  k(x, lo, hi, prod);
  double l = 0.25, h = 0.25;
  long double p = 1;
  for (double v : x)
    l = std::min(l, v), h = std::max(h, v), p *= 1.0L + v * 1e-3L;
  EXPECT_EQ(lo[0], l);
  EXPECT_EQ(hi[0], h);
  EXPECT_NEAR(prod[0], static_cast<double>(p), 1e-9 * std::fabs(static_cast<double>(p)));
}

// The element may be chosen by a scalar parameter; several reductions share one launch.
TEST_P(Reductions, ElementChosenByAParameter) {
  auto k = kernel("pick", [](Array<float> x, Array<float> sums, I64 slot) {
    parallel_for(x.size(), [&](Index i) {
      sums[slot] += x[i];
      sums[slot + 1] += x[i] * x[i];
    });
  });
  prepare(k);
  auto x = random_vector<float>(123457, 0, 1, 35);
  std::vector<float> sums = {-1, -1, 0, 0, -1};
  k(x, sums, int64_t{2});
  double s = 0, q = 0;
  std::vector<float> squares;
  for (float v : x)
    s += v, q += double(v) * v, squares.push_back(v * v);
  EXPECT_EQ(sums[0], -1);
  EXPECT_EQ(sums[1], -1);
  EXPECT_NEAR(sums[2], s, sum_bound(x));
  EXPECT_NEAR(sums[3], q, sum_bound(squares) + 1e-3);
  EXPECT_EQ(sums[4], -1);
}

// Data-dependent elements: atomic updates (integers exact, floats within the sum bound).
TEST_P(Reductions, HistogramThroughAtomics) {
  auto k = kernel(
      "hist", [](Array<int32_t> bin, Array<float> w, Array<int32_t> count, Array<float> weight) {
        parallel_for(bin.size(), [&](Index i) {
          count[bin[i]] += 1;
          weight[bin[i]] += w[i];
        });
      });
  prepare(k);
  const int bins = 37;
  auto bin = random_vector<int32_t>(500000, 0, bins - 1, 36);
  auto w = random_vector<float>(500000, 0, 1, 37);
  std::vector<int32_t> count(bins, 0);
  std::vector<float> weight(bins, 0);
  k(bin, w, count, weight);
  std::vector<int32_t> c(bins, 0);
  std::vector<double> ws(bins, 0);
  std::vector<std::vector<float>> terms(bins);
  for (size_t i = 0; i < bin.size(); ++i)
    ++c[bin[i]], ws[bin[i]] += w[i], terms[bin[i]].push_back(w[i]);
  for (int b = 0; b < bins; ++b) {
    EXPECT_EQ(count[b], c[b]) << b;
    EXPECT_NEAR(weight[b], ws[b], sum_bound(terms[b])) << b;
  }
}

// Each iteration owns its element: the update is an ordinary read-modify-write.
TEST_P(Reductions, RowSumsIntoTheIterationsOwnElement) {
  auto k = kernel("rows", [](Array2<double> a, Array<double> sums) {
    parallel_for(a.dim(0),
                 [&](Index i) { for_range(0, a.dim(1), [&](Index j) { sums[i] += a(i, j); }); });
  });
  prepare(k);
  const int64_t rows = 1000, cols = 77;
  auto a = random_vector<double>(rows * cols, -1, 1, 38);
  std::vector<double> sums(rows, 1.0);
  k(view(a, {rows, cols}), sums);
  for (int64_t i = 0; i < rows; ++i) {
    double s = 1.0;
    for (int64_t j = 0; j < cols; ++j)
      s += a[i * cols + j];
    ASSERT_DOUBLE_EQ(sums[i], s) << i; // sequential, in order: the same sum
  }
  EXPECT_EQ(k.lowered(target()).find("combine"), std::string::npos) << k.lowered(target());
}

// All-pairs shortest paths (Floyd-Warshall) as one call: a sequential loop over k around a
// parallel min into each iteration's own P[i, j], which also reads row and column k. The update
// is plain (no atomics: loads elsewhere do not make it shared); with non-negative weights step k
// leaves row and column k unchanged, so the result is defined, and with integer weights exact.
TEST_P(Reductions, ShortestPathsUpdateTheirOwnElementWithoutAtomics) {
  Module m = compile(R"(
@kernel
def shortest_paths(P: f32[n, n]):
    for k in range(n):
        for i, j in parallel(n, n):
            P[i, j] = min(P[i, j], P[i, k] + P[k, j])
)");
  Kernel &k = m["shortest_paths"];
  prepare(k);
  const int64_t n = 97;
  std::mt19937 rng(41);
  std::uniform_int_distribution<int> weight(1, 50), edge(0, 9);
  const float none = std::numeric_limits<float>::infinity();
  std::vector<float> P(n * n);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < n; ++j)
      P[i * n + j] = i == j ? 0.0f : edge(rng) < 3 ? float(weight(rng)) : none;
  // The reference: Dijkstra from every vertex, in double (a different algorithm).
  std::vector<double> expected(n * n, HUGE_VAL);
  for (int64_t s = 0; s < n; ++s) {
    std::vector<double> d(n, HUGE_VAL);
    std::vector<bool> done(n, false);
    d[s] = 0;
    for (int64_t round = 0; round < n; ++round) {
      int64_t u = -1;
      for (int64_t v = 0; v < n; ++v)
        if (!done[v] && (u < 0 || d[v] < d[u]))
          u = v;
      done[u] = true;
      for (int64_t v = 0; v < n; ++v)
        if (P[u * n + v] != none)
          d[v] = std::min(d[v], d[u] + P[u * n + v]);
    }
    std::copy(d.begin(), d.end(), expected.begin() + s * n);
  }
  k(view(P, {n, n}));
  int64_t reachable = 0;
  for (int64_t e = 0; e < n * n; ++e) {
    ASSERT_EQ(double(P[e]), expected[e]) << "P[" << e / n << ", " << e % n << "]";
    reachable += std::isfinite(expected[e]);
  }
  EXPECT_GT(reachable, n * n / 2); // the graph is mostly connected: the test covers paths
  // An atomic update prints as `P[i, j] min= ...`, a plain one as a load, min and store.
  const std::string lowered = k.lowered(target());
  EXPECT_EQ(lowered.find("min="), std::string::npos) << lowered;
  EXPECT_NE(lowered.find("P[i, j] = min(P[i, j], P[i, k] + P[k, j])"), std::string::npos)
      << lowered;
  EXPECT_NE(k.explain().find("updates of P[i, j]: each iteration's own elements"),
            std::string::npos)
      << k.explain();
}

// Per-iteration partial sums, cleared at one index and updated at another of the iteration's own
// slice (k-means' partial centres): iteration t owns partial[t, :, :], whatever the other indices,
// so both are plain stores, and the sums are exact (small integers in f32).
TEST_P(Reductions, PartialSumsClearedAndUpdatedInTheirOwnSliceWithoutAtomics) {
  Module m = compile(R"(
@kernel
def partial_centres(points: f32[P, F], nearest: i32[P], partial: f32[T, C, F]):
    for t in parallel(T):
        for c in range(C):
            for f in range(F):
                partial[t, c, f] = 0.0
        for p in range(t, P, T):
            for f in range(F):
                partial[t, nearest[p], f] += points[p, f]
)");
  Kernel &k = m["partial_centres"];
  prepare(k);
  const int64_t points = 5003, features = 7, centres = 5, parts = 13;
  std::mt19937 rng(43);
  std::uniform_int_distribution<int> value(-20, 20), centre(0, centres - 1);
  std::vector<float> x(points * features);
  std::vector<int32_t> nearest(points);
  for (float &v : x)
    v = float(value(rng));
  for (int32_t &c : nearest)
    c = centre(rng);
  std::vector<float> partial(parts * centres * features, 99.0f); // stale values to be cleared
  std::vector<double> expected(partial.size(), 0.0);
  for (int64_t p = 0; p < points; ++p)
    for (int64_t f = 0; f < features; ++f)
      expected[((p % parts) * centres + nearest[p]) * features + f] += x[p * features + f];
  k(view(x, {points, features}), nearest, view(partial, {parts, centres, features}));
  for (size_t e = 0; e < partial.size(); ++e)
    ASSERT_EQ(double(partial[e]), expected[e]) << "element " << e;
  const std::string lowered = k.lowered(target());
  EXPECT_EQ(lowered.find("+="), std::string::npos) << lowered;
  EXPECT_NE(k.explain().find("each iteration's own elements"), std::string::npos) << k.explain();
}

// With a fixed launch shape (thread count), a float sum gives the same bits on every run.
TEST_P(Reductions, FloatSumIsDeterministic) {
  auto k = kernel("dsum", [](Array<float> x, Array<float> total) {
    parallel_for(x.size(), [&](Index i) { total[0] += x[i] * 1.5f; });
  });
  prepare(k);
  auto x = random_vector<float>((1 << 22) + 5, -1, 1, 39);
  std::vector<float> first = {0};
  k(x, first);
  for (int run = 0; run < 5; ++run) {
    std::vector<float> again = {0};
    k(x, again);
    ASSERT_EQ(std::memcmp(&first[0], &again[0], sizeof(float)), 0)
        << first[0] << " then " << again[0] << " on run " << run;
  }
  std::string lowered = k.lowered(target());
  EXPECT_NE(lowered.find("combine p1_partial0 of every worker: p1[0] += total"), std::string::npos)
      << lowered;
}

// The text DSL writes the same reductions, Numba-style.
TEST_P(Reductions, TextKernels) {
  Module m = compile(R"(
@kernel
def stats(x: f64[n], out: f64[3]):
    for i in parallel(n):
        out[0] += x[i]
        out[1] = max(out[1], x[i])
        out[2] = out[2] + x[i] * x[i]
)");
  Kernel &k = m["stats"];
  prepare(k);
  auto x = random_vector<double>(65537, -3, 3, 40);
  std::vector<double> out = {0, -1e300, 0};
  k(x, out);
  double s = 0, mx = -1e300, q = 0;
  std::vector<double> squares;
  for (double v : x)
    s += v, mx = std::max(mx, v), q += v * v, squares.push_back(v * v);
  EXPECT_NEAR(out[0], s, sum_bound(x));
  EXPECT_EQ(out[1], mx);
  EXPECT_NEAR(out[2], q, sum_bound(squares));
}

// fastmath lets the CPU vectorize the sum (reassociated adds); it stays within the bound of a
// sum in any order, and the GPU's stays right too.
TEST_P(Reductions, FastMathSum) {
  Module m = compile(R"(
@kernel(fastmath=True)
def fsum(x: f32[n], total: f32[1]):
    for i in parallel(n):
        total[0] += x[i] * 0.5
)");
  Kernel &k = m["fsum"];
  prepare(k);
  auto x = random_vector<float>((1 << 20) + 3, -1, 1, 43);
  std::vector<float> total = {1.0f};
  k(x, total);
  double exact = 1.0;
  for (float v : x)
    exact += 0.5 * v;
  EXPECT_NEAR(total[0], exact, sum_bound(x));
}

// The same option from C++: Kernel::fast_math(), which explain() reports; turning it off again
// gives the strict code back.
TEST_P(Reductions, FastMathFromCpp) {
  auto k = kernel("fsum_cpp", [](Array<float> x, Array<float> total) {
    parallel_for(x.size(), [&](Index i) { total[0] += x[i] * 0.5f; });
  });
  prepare(k);
  auto x = random_vector<float>((1 << 20) + 3, -1, 1, 44);
  double exact = 1.0;
  for (float v : x)
    exact += 0.5 * v;
  for (bool fast : {true, false}) {
    k.fast_math(fast);
    std::vector<float> total = {1.0f};
    k(x, total);
    EXPECT_NEAR(total[0], exact, sum_bound(x)) << (fast ? "fastmath" : "strict");
    EXPECT_EQ(fast, k.explain().find("fastmath: on") != std::string::npos) << k.explain();
    EXPECT_EQ(fast, k.ir().fast_math);
  }
  if (target() == ir::Target::CPU) { // reassociated adds: LLVM vectorizes the sum
    k.fast_math(true);
    EXPECT_NE(k.llvm().find("fadd reassoc"), std::string::npos);
  }
}

LOOM_INSTANTIATE_TARGETS(Reductions);

// A CPU chunk's float sum as loom defines it (docs/semantics.md, Reductions): 16 lanes, the l-th
// iteration of each whole group of 16 into lane l, the rest into lane 0, the lanes added in order.
// Written as a plain loop here, independently of ir/CpuLanes.cpp.
float lanes_sum(const float *x, int64_t n) {
  float lane[16] = {};
  int64_t i = 0;
  for (; i + 16 <= n; i += 16)
    for (int l = 0; l < 16; ++l)
      lane[l] += x[i + l];
  for (; i < n; ++i)
    lane[0] += x[i];
  float total = lane[0];
  for (int l = 1; l < 16; ++l)
    total += lane[l];
  return total;
}

double exact_sum(const std::vector<float> &x) {
  double s = 0;
  for (float v : x)
    s += v;
  return s;
}

loom::Kernel cpu_sum() {
  auto k = kernel("cpu_sum", [](Array<float> x, Array<float> total) {
    parallel_for(x.size(), [&](Index i) { total[0] += x[i]; });
  });
  k.on(ir::Target::CPU);
  return k;
}

bool same_bits(float a, float b) {
  return std::memcmp(&a, &b, sizeof(float)) == 0;
}

// With one CPU thread a float sum into one element is the one chunk's sum in lanes, bit for bit
// (100003 = 6250 groups of 16 and 3 more); set_cpu_threads(0) goes back to the default, and a
// negative count is refused.
TEST(CpuThreads, OneThreadSumsInLanes) {
  const int before = cpu_threads();
  set_cpu_threads(1);
  EXPECT_EQ(cpu_threads(), 1);
  loom::Kernel k = cpu_sum();
  auto x = random_vector<float>(100003, -1, 1, 41);
  std::vector<float> total = {0};
  k(x, total);
  const float expected = lanes_sum(x.data(), int64_t(x.size()));
  EXPECT_TRUE(same_bits(total[0], expected)) << total[0] << " " << expected;
  EXPECT_NEAR(total[0], exact_sum(x), 1e-6 * x.size()); // n * u * sum|x|, u < 1e-7
  set_cpu_threads(0);
  EXPECT_EQ(cpu_threads(), before);
  EXPECT_THROW(set_cpu_threads(-1), ArgumentError);
  EXPECT_EQ(cpu_threads(), before);
}

// Two threads: each takes half of the loop (the first the larger half when n is odd) and sums it
// in lanes; the halves are added in order to the element's old value.
TEST(CpuThreads, TwoThreadsSumTheirHalvesInLanes) {
  set_cpu_threads(2);
  loom::Kernel k = cpu_sum();
  auto x = random_vector<float>(200001, -1, 1, 43);
  std::vector<float> total = {0.5f};
  k(x, total);
  const int64_t half = 100001;
  const float expected =
      (0.5f + lanes_sum(x.data(), half)) + lanes_sum(x.data() + half, int64_t(x.size()) - half);
  EXPECT_TRUE(same_bits(total[0], expected)) << total[0] << " " << expected;
  set_cpu_threads(0);
}

// A loop of light iterations (no inner loop) gives each thread at least 4096 of them: 1000
// iterations run as one chunk whatever the core count, so the sum is one chunk's sum in lanes
// (62 groups of 16 and 8 more into lane 0).
TEST(CpuThreads, SmallLightLoopsRunOnOneThread) {
  set_cpu_threads(8);
  loom::Kernel k = cpu_sum();
  auto x = random_vector<float>(1000, -1, 1, 42);
  std::vector<float> total = {0};
  k(x, total);
  const float expected = lanes_sum(x.data(), int64_t(x.size()));
  EXPECT_TRUE(same_bits(total[0], expected)) << total[0] << " " << expected;
  set_cpu_threads(0);
}

// Over two dimensions the lanes run along the inner one and carry over from row to row: of each
// row's 16-column groups, column 16 g + l into lane l, the last m % 16 columns into lane 0. A
// product of values near 1 takes lanes the same way (starting at 1).
TEST(CpuThreads, LanesRunAlongTheInnerDimension) {
  set_cpu_threads(1);
  const int64_t n = 37, m = 45; // 2 groups of 16 and 13 more per row
  auto x = random_vector<float>(size_t(n * m), -1, 1, 44);
  auto k =
      kernel("grid_sum_product", [](Array2<float> a, Array<float> total, Array<float> product) {
        parallel_for({a.dim(0), a.dim(1)}, [&](Index i, Index j) {
          total[0] += a(i, j);
          product[0] *= 1.0f + a(i, j) / 64.0f;
        });
      });
  k.on(ir::Target::CPU);
  std::vector<float> total = {0}, product = {1};
  k(view(x, {n, m}), total, product);
  float sum_lane[16] = {}, product_lane[16];
  std::fill(std::begin(product_lane), std::end(product_lane), 1.0f);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < m; ++j) {
      const int l = j < m / 16 * 16 ? int(j % 16) : 0;
      sum_lane[l] += x[size_t(i * m + j)];
      product_lane[l] *= 1.0f + x[size_t(i * m + j)] / 64.0f;
    }
  float sum = sum_lane[0], prod = product_lane[0];
  for (int l = 1; l < 16; ++l) {
    sum += sum_lane[l];
    prod *= product_lane[l];
  }
  EXPECT_TRUE(same_bits(total[0], sum)) << total[0] << " " << sum;
  EXPECT_TRUE(same_bits(product[0], prod)) << product[0] << " " << prod;
  set_cpu_threads(0);
}

// A vectorize schedule of the summed loop changes its code, not its order: the same lanes, the
// same bits.
TEST(CpuThreads, SchedulesKeepTheLanes) {
  set_cpu_threads(2);
  auto x = random_vector<float>(100003, -1, 1, 46);
  loom::Kernel plain = cpu_sum(), scheduled = cpu_sum();
  scheduled.vectorize("i", 8);
  std::vector<float> want = {0.25f}, got = {0.25f};
  plain(x, want);
  scheduled(x, got);
  EXPECT_TRUE(same_bits(got[0], want[0])) << got[0] << " " << want[0];
  EXPECT_NE(scheduled.lowered(ir::Target::CPU).find("_lane15"), std::string::npos);
  set_cpu_threads(0);
}

// Lanes are for float sums and products in loops they can copy: with fastmath LLVM reassociates
// the sum itself, and an iteration that runs a loop keeps one accumulator; both print no lanes.
TEST(CpuThreads, LanesOnlyWhereTheyApply) {
  loom::Module m = loom::compile(R"(
@kernel
def strict_sum(x: f32[n], total: f32[1]):
    for i in parallel(n):
        total[0] += x[i]

@kernel(fastmath=True)
def fast_sum(x: f32[n], total: f32[1]):
    for i in parallel(n):
        total[0] += x[i]

@kernel
def row_loop_sum(a: f32[n, m], total: f32[1]):
    for i in parallel(n):
        s: f32 = 0.0
        for j in range(m):
            s += a[i, j]
        total[0] += s

@kernel
def int_sum(x: i32[n], total: i32[1]):
    for i in parallel(n):
        total[0] += x[i]
)");
  auto lowered = [&](const char *name) { return m[name].lowered(ir::Target::CPU); };
  EXPECT_NE(lowered("strict_sum").find("_lane15"), std::string::npos) << lowered("strict_sum");
  for (const char *name : {"fast_sum", "row_loop_sum", "int_sum"})
    EXPECT_EQ(lowered(name).find("_lane"), std::string::npos) << lowered(name);
  // explain() says so once the kernel is compiled.
  loom::Kernel &strict = m["strict_sum"];
  strict.on(ir::Target::CPU);
  auto x = random_vector<float>(100, -1, 1, 45);
  std::vector<float> total = {0};
  strict(x, total);
  EXPECT_NE(strict.explain().find("run in 16 lanes"), std::string::npos) << strict.explain();
}

} // namespace
