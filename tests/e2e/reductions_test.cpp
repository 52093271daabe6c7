// Reductions inside parallel loops: into one element (per-worker partials combined in a fixed
// order), into the iteration's own element (plain updates) and into data-dependent elements
// (atomics). Float results are checked against a double-precision reference within the error
// bound of a sum in any order; integer results exactly.
#include "support/TestUtil.h"

#include "loom/Module.h"

#include <cmath>
#include <cstring>
#include <limits>

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

float sequential_sum(const std::vector<float> &x) {
  float s = 0;
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

// With one CPU thread a float sum into one element is the sequential sum, bit for bit;
// set_cpu_threads(0) goes back to the default, and a negative count is refused.
TEST(CpuThreads, OneThreadGivesTheSequentialSum) {
  const int before = cpu_threads();
  set_cpu_threads(1);
  EXPECT_EQ(cpu_threads(), 1);
  loom::Kernel k = cpu_sum();
  auto x = random_vector<float>(100003, -1, 1, 41);
  std::vector<float> total = {0};
  k(x, total);
  const float expected = sequential_sum(x);
  EXPECT_EQ(std::memcmp(&total[0], &expected, sizeof(float)), 0) << total[0] << " " << expected;
  set_cpu_threads(0);
  EXPECT_EQ(cpu_threads(), before);
  EXPECT_THROW(set_cpu_threads(-1), ArgumentError);
  EXPECT_EQ(cpu_threads(), before);
}

// A loop of light iterations (no inner loop) gives each thread at least 4096 of them: 1000
// iterations run as one chunk, whatever the core count, so the sum is the sequential one.
TEST(CpuThreads, SmallLightLoopsRunOnOneThread) {
  set_cpu_threads(8);
  loom::Kernel k = cpu_sum();
  auto x = random_vector<float>(1000, -1, 1, 42);
  std::vector<float> total = {0};
  k(x, total);
  const float expected = sequential_sum(x);
  EXPECT_EQ(std::memcmp(&total[0], &expected, sizeof(float)), 0) << total[0] << " " << expected;
  set_cpu_threads(0);
}

} // namespace
