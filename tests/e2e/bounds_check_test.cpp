// Bounds checking (Kernel::bounds_check, @kernel(bounds_check=True), LOOM_BOUNDS_CHECK=1): every
// seeded out-of-range access is caught on each target and reported as a BoundsError naming the
// kernel, array, dimension, index and extent; checked kernels compute exactly what unchecked
// ones do; a kernel stays usable after a violation.
#include "support/TestUtil.h"

#include "loom/Module.hpp"

#include <cstdlib>
#include <cstring>

using namespace loom;
using loomtest::random_vector;

namespace {

class BoundsCheck : public loomtest::TargetTest {
protected:
  // Calls `k` (bounds-checked) with `args` and requires a BoundsError with these fields.
  template <class... Args>
  void expect_violation(Kernel &k, const std::string &array, int dimension, int64_t index,
                        int64_t extent, Args &&...args) {
    if (enable_)
      k.bounds_check();
    prepare(k);
    try {
      k(std::forward<Args>(args)...);
      ADD_FAILURE() << "kernel '" << k.name() << "': no BoundsError";
    } catch (const BoundsError &e) {
      EXPECT_EQ(k.name(), e.kernel());
      EXPECT_EQ(array, e.array()) << e.what();
      EXPECT_EQ(dimension, e.dimension()) << e.what();
      EXPECT_EQ(index, e.index()) << e.what();
      EXPECT_EQ(extent, e.extent()) << e.what();
      std::string expected = "kernel '" + k.name() + "': index " + std::to_string(index) +
                             " is out of bounds for dimension " + std::to_string(dimension) +
                             " of array '" + array + "' (extent " + std::to_string(extent) + ")";
      EXPECT_EQ(expected, e.what());
    }
  }
  bool enable_ = true; // expect_violation turns checking on itself
};

TEST_P(BoundsCheck, ReadPastTheEnd) {
  auto k = kernel("shift_left",
                  [](Array<float> x, Array<float> y) {
                    parallel_for(x.size(), [&](Index i) { y[i] = x[i + 1]; });
                  },
                  {"x", "y"});
  auto x = random_vector<float>(1000, -1, 1, 1), y = random_vector<float>(1000, -1, 1, 2);
  expect_violation(k, "x", 0, 1000, 1000, x, y);
}

TEST_P(BoundsCheck, NegativeIndex) {
  auto k = kernel("shift_right",
                  [](Array<float> x, Array<float> y) {
                    parallel_for(x.size(), [&](Index i) { y[i] = x[i - 1] * 2.0f; });
                  },
                  {"x", "y"});
  auto x = random_vector<float>(4097, -1, 1, 3), y = random_vector<float>(4097, -1, 1, 4);
  expect_violation(k, "x", 0, -1, 4097, x, y);
}

TEST_P(BoundsCheck, WritePastTheEnd) {
  auto k = kernel("spread",
                  [](Array<int32_t> x, Array<int32_t> y) {
                    parallel_for(x.size(), [&](Index i) { y[i * 2] = x[i]; });
                  },
                  {"x", "y"});
  // y holds 2n - 2 elements: only the last iteration writes past it.
  auto x = random_vector<int32_t>(500, -100, 100, 5), y = random_vector<int32_t>(998, -1, 1, 6);
  expect_violation(k, "y", 0, 998, 998, x, y);
}

TEST_P(BoundsCheck, SecondDimensionOfAMatrix) {
  auto k =
      kernel("right_neighbour",
             [](Array2<double> a, Array2<double> b) {
               parallel_for({a.dim(0), a.dim(1)}, [&](Index i, Index j) { b(i, j) = a(i, j + 1); });
             },
             {"a", "b"});
  // Row-major, a(i, cols) is a(i + 1, 0): in the buffer, but not in the matrix.
  auto a = random_vector<double>(64 * 48, -1, 1, 7), b = random_vector<double>(64 * 48, -1, 1, 8);
  expect_violation(k, "a", 1, 48, 48, view(a, {64, 48}), view(b, {64, 48}));
}

TEST_P(BoundsCheck, FirstDimensionOfAThreeDimensionalArray) {
  auto k = kernel("next_plane",
                  [](Array3<float> a, Array3<float> b) {
                    parallel_for({a.dim(0), a.dim(1), a.dim(2)},
                                 [&](Index i, Index j, Index l) { b(i, j, l) = a(i + 1, j, l); });
                  },
                  {"a", "b"});
  auto a = random_vector<float>(5 * 6 * 7, -1, 1, 9),
       b = random_vector<float>(5 * 6 * 7, -1, 1, 10);
  expect_violation(k, "a", 0, 5, 5, view(a, {5, 6, 7}), view(b, {5, 6, 7}));
}

TEST_P(BoundsCheck, InnerSequentialLoopRunsOnePast) {
  auto k = kernel("row_sums",
                  [](Array2<float> a, Array<float> s) {
                    parallel_for(a.dim(0), [&](Index i) {
                      Var<float> acc("acc", 0.0f);
                      for_range(a.dim(1) + 1, [&](Index j) { acc += a(i, j); });
                      s[i] = acc;
                    });
                  },
                  {"a", "s"});
  auto a = random_vector<float>(33 * 20, -1, 1, 11), s = random_vector<float>(33, -1, 1, 12);
  expect_violation(k, "a", 1, 20, 20, view(a, {33, 20}), s);
}

TEST_P(BoundsCheck, DataDependentHistogramBin) {
  auto k = kernel("histogram",
                  [](Array<int32_t> bins, Array<int32_t> counts) {
                    parallel_for(bins.size(), [&](Index i) { counts[bins[i]] += 1; });
                  },
                  {"bins", "counts"});
  auto bins = random_vector<int32_t>(100000, 0, 15, 13);
  bins[61234] = 16; // one bin past the 16 counters
  std::vector<int32_t> counts(16, 0);
  expect_violation(k, "counts", 0, 16, 16, bins, counts);
}

TEST_P(BoundsCheck, SumIntoAnElementPastTheEnd) {
  auto k = kernel("sum_into",
                  [](Array<float> x, Array<float> total, I64 at) {
                    parallel_for(x.size(), [&](Index i) { total[at] += x[i]; });
                  },
                  {"x", "total", "at"});
  auto x = random_vector<float>(10000, -1, 1, 14);
  std::vector<float> total = {0.5f, 1.5f};
  expect_violation(k, "total", 0, 2, 2, x, total, int64_t{2});
}

TEST_P(BoundsCheck, SerialCode) {
  auto k = kernel("first_and_last",
                  [](Array<int64_t> x, Array<int64_t> out) {
                    out[0] = x[0];
                    out[1] = x[x.size()];
                  },
                  {"x", "out"});
  std::vector<int64_t> x = {4, 5, 6}, out = {0, 0};
  expect_violation(k, "x", 0, 3, 3, x, out);
}

TEST_P(BoundsCheck, TextKernelWithTheOption) {
  Module m = compile("@kernel(bounds_check=True)\n"
                     "def stencil(u: f32[n], v: f32[n]):\n"
                     "    for i in parallel(n):\n"
                     "        v[i] = u[i - 1] + u[i] + u[i + 1]\n");
  EXPECT_TRUE(m["stencil"].ir().bounds_check);
  auto u = random_vector<float>(300, -1, 1, 15), v = random_vector<float>(300, -1, 1, 16);
  // Iterations 0 and n - 1 both violate; whichever claims the record first is reported.
  Kernel &k = m["stencil"];
  prepare(k);
  try {
    k(u, v);
    ADD_FAILURE() << "no BoundsError";
  } catch (const BoundsError &e) {
    EXPECT_EQ("u", e.array());
    EXPECT_TRUE(e.index() == -1 || e.index() == 300) << e.what();
    EXPECT_EQ(300, e.extent());
  }
}

TEST_P(BoundsCheck, CheckedKernelsComputeWhatUncheckedOnesDo) {
  auto make = [] {
    return kernel("matmul_checked",
                  [](Array2<float> A, Array2<float> B, Array2<float> C) {
                    parallel_for({C.dim(0), C.dim(1)}, [&](Index i, Index j) {
                      Var<float> acc("acc", 0.0f);
                      for_range(A.dim(1), [&](Index l) { acc += A(i, l) * B(l, j); });
                      C(i, j) = acc;
                    });
                  },
                  {"A", "B", "C"});
  };
  Kernel plain = make(), checked = make();
  checked.bounds_check();
  prepare(plain);
  prepare(checked);
  const int64_t n = 70, kk = 45, m = 90;
  auto A = random_vector<float>(n * kk, -1, 1, 17), B = random_vector<float>(kk * m, -1, 1, 18);
  std::vector<float> C1(n * m, 0.0f), C2(n * m, 0.0f);
  plain(view(A, {n, kk}), view(B, {kk, m}), view(C1, {n, m}));
  checked(view(A, {n, kk}), view(B, {kk, m}), view(C2, {n, m}));
  loomtest::expect_matmul(A, B, C2, n, kk, m);
  EXPECT_EQ(0, std::memcmp(C1.data(), C2.data(), C1.size() * sizeof(float)))
      << "the checked kernel's results differ from the unchecked one's";
  EXPECT_NE(std::string::npos, checked.explain().find("bounds checks: every array access"));
  EXPECT_EQ(std::string::npos, plain.explain().find("bounds checks"));
  EXPECT_NE(std::string::npos, checked.llvm(false).find("out_of_bounds"));
  EXPECT_EQ(std::string::npos, plain.llvm(false).find("out_of_bounds"));
}

TEST_P(BoundsCheck, AKernelStaysUsableAfterAViolation) {
  auto k = kernel("gather",
                  [](Array<int32_t> idx, Array<float> x, Array<float> y) {
                    parallel_for(idx.size(), [&](Index i) { y[i] = x[idx[i]]; });
                  },
                  {"idx", "x", "y"});
  auto x = random_vector<float>(64, -1, 1, 19);
  auto idx = random_vector<int32_t>(5000, 0, 63, 20);
  std::vector<float> y(5000, 7.0f);
  idx[4321] = 64;
  expect_violation(k, "x", 0, 64, 64, idx, x, y);
  if (target() == ir::Target::GPU) { // host arrays are not copied back after a violation
    for (float v : y)
      ASSERT_EQ(7.0f, v);
  }
  idx[4321] = 17;
  k(idx, x, y); // the record was reset: no stale report
  for (size_t i = 0; i < y.size(); ++i)
    ASSERT_EQ(x[idx[i]], y[i]) << "at " << i;
}

TEST_P(BoundsCheck, EnvironmentVariableChecksEveryNewKernel) {
  setenv("LOOM_BOUNDS_CHECK", "1", 1);
  auto k = kernel("shift_env",
                  [](Array<float> x, Array<float> y) {
                    parallel_for(x.size(), [&](Index i) { y[i] = x[i + 3]; });
                  },
                  {"x", "y"});
  unsetenv("LOOM_BOUNDS_CHECK");
  EXPECT_TRUE(k.ir().bounds_check);
  auto plain = kernel(
      "shift_env_off",
      [](Array<float> x, Array<float> y) { parallel_for(x.size(), [&](Index i) { y[i] = x[i]; }); },
      {"x", "y"});
  EXPECT_FALSE(plain.ir().bounds_check);
  auto x = random_vector<float>(100, -1, 1, 21), y = random_vector<float>(100, -1, 1, 22);
  enable_ = false; // the environment did
  expect_violation(k, "x", 0, 100, 100, x, y);
}

LOOM_INSTANTIATE_TARGETS(BoundsCheck);

} // namespace
