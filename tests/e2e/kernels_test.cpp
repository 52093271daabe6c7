// Whole kernels: index spaces of 1 to 3 dimensions, control flow, matmul, several launches,
// device arrays and copy rules.
#include "support/TestUtil.h"

#include <cmath>

using namespace loom;
using loomtest::random_vector;

namespace {

class Kernels : public loomtest::TargetTest {};

TEST_P(Kernels, Saxpy) {
  auto k = kernel("saxpy", [](F32 a, Array<float> x, Array<float> y) {
    parallel_for(x.size(), [&](Index i) { y[i] = a * x[i] + y[i]; });
  });
  prepare(k);
  for (size_t n : {size_t(0), size_t(1), size_t(1000), size_t(1) << 20}) {
    auto x = random_vector<float>(n, -1, 1, 21), y = random_vector<float>(n, -1, 1, 22);
    std::vector<float> y0 = y;
    k(1.5f, x, y);
    for (size_t i = 0; i < n; ++i)
      ASSERT_NEAR(y[i], 1.5 * x[i] + y0[i], 1e-6) << i;
  }
}

TEST_P(Kernels, EveryPointOfOneTwoAndThreeDimensionalSpaces) {
  auto k1 = kernel(
      "fill1", [](Array<int64_t> a) { parallel_for(a.size(), [&](Index i) { a[i] = i * 3; }); });
  auto k2 = kernel("fill2", [](Array2<int64_t> a) {
    parallel_for({a.dim(0), a.dim(1)}, [&](Index i, Index j) { a(i, j) = i * 1000 + j; });
  });
  auto k3 = kernel("fill3", [](Array3<int64_t> a) {
    parallel_for({a.dim(0), a.dim(1), a.dim(2)},
                 [&](Index i, Index j, Index l) { a(i, j, l) = i * 1000000 + j * 1000 + l; });
  });
  prepare(k1), prepare(k2), prepare(k3);
  std::vector<int64_t> a(100003, -1);
  k1(a);
  for (int64_t i = 0; i < 100003; ++i)
    ASSERT_EQ(a[i], i * 3);
  std::vector<int64_t> b(517 * 301, -1);
  k2(view(b, {517, 301}));
  for (int64_t i = 0; i < 517; ++i)
    for (int64_t j = 0; j < 301; ++j)
      ASSERT_EQ(b[i * 301 + j], i * 1000 + j);
  std::vector<int64_t> c(37 * 53 * 71, -1);
  k3(view(c, {37, 53, 71}));
  for (int64_t i = 0; i < 37; ++i)
    for (int64_t j = 0; j < 53; ++j)
      for (int64_t l = 0; l < 71; ++l)
        ASSERT_EQ(c[(i * 53 + j) * 71 + l], i * 1000000 + j * 1000 + l);
}

// Collatz step counts: while_, if_/else_ and mutable locals, exact in integers.
TEST_P(Kernels, WhileLoopsAndBranches) {
  auto k = kernel("collatz", [](Array<int64_t> start, Array<int32_t> steps) {
    parallel_for(start.size(), [&](Index i) {
      Var<int64_t> n("n", start[i]);
      Var<int32_t> count("count", 0);
      while_(n != 1, [&] {
        if_(n % 2 == 0, [&] { n = n / 2; }).else_([&] { n = 3 * n + 1; });
        count += 1;
      });
      steps[i] = count;
    });
  });
  prepare(k);
  auto start = random_vector<int64_t>(5000, 1, 1000000, 23);
  std::vector<int32_t> steps(start.size(), -1);
  k(start, steps);
  for (size_t i = 0; i < start.size(); ++i)
    ASSERT_EQ(steps[i], loomtest::collatz_steps(start[i])) << start[i];
}

TEST_P(Kernels, NaiveMatmulAgainstDoubleReference) {
  auto k = kernel("matmul", [](Array2<float> A, Array2<float> B, Array2<float> C) {
    parallel_for({C.dim(0), C.dim(1)}, [&](Index i, Index j) {
      Var<float> acc = 0.0f;
      for_range(A.dim(1), [&](Index l) { acc += A(i, l) * B(l, j); });
      C(i, j) = acc;
    });
  });
  prepare(k);
  const int64_t n = 61, m = 47, kk = 133;
  auto A = random_vector<float>(n * kk, -1, 1, 24), B = random_vector<float>(kk * m, -1, 1, 25);
  std::vector<float> C(n * m, NAN);
  k(view(A, {n, kk}), view(B, {kk, m}), view(C, {n, m}));
  loomtest::expect_matmul(A, B, C, n, kk, m);
}

// The second loop reads what the first wrote, in reverse: each top-level loop is its own launch.
// x, overwritten whole before it is read, is not copied to the GPU: its NaNs must not show.
TEST_P(Kernels, TopLevelLoopsRunInOrderWithSerialCodeBetween) {
  auto k = kernel("stages", [](Array<float> x, Array<float> y, F32 scale) {
    parallel_for(x.size(), [&](Index i) { x[i] = cast<float>(i) * scale; });
    x[0] = -1.0f; // serial: runs once, after the first loop
    Index n = x.size();
    parallel_for(n, [&](Index i) { y[i] = x[n - 1 - i] + 0.5f; });
  });
  prepare(k);
  std::vector<float> x(70001, NAN), y(70001, NAN);
  k(x, y, 2.0f);
  for (int64_t i = 0; i < 70001; ++i) {
    float xi = i == 0 ? -1.0f : float(i) * 2.0f;
    ASSERT_EQ(x[i], xi);
    float xr = (70000 - i) == 0 ? -1.0f : float(70000 - i) * 2.0f;
    ASSERT_EQ(y[i], xr + 0.5f);
  }
  EXPECT_NE(k.explain().find("wholly overwritten, then read: copied out only"), std::string::npos)
      << k.explain();
}

// A host array the kernel writes only in part keeps its other elements.
TEST_P(Kernels, PartlyWrittenArraysKeepTheRest) {
  auto k =
      kernel("half", [](Array<float> x, I64 n) { parallel_for(n, [&](Index i) { x[i] = 1.0f; }); });
  prepare(k);
  auto x = random_vector<float>(10000, 5, 6, 26);
  std::vector<float> x0 = x;
  k(x, int64_t(4000));
  for (int i = 0; i < 10000; ++i)
    ASSERT_EQ(x[i], i < 4000 ? 1.0f : x0[i]) << i;
}

TEST_P(Kernels, DeviceArraysStayOnTheDevice) {
  std::string why;
  if (!runtime::GpuContext::usable(&why))
    GTEST_SKIP() << "device arrays need a usable GPU: " << why;
  auto k = kernel("axpy", [](F32 a, Array<float> x, Array<float> y) {
    parallel_for(x.size(), [&](Index i) { y[i] = a * x[i] + y[i]; });
  });
  prepare(k);
  auto x = random_vector<float>(123457, -1, 1, 27), y = random_vector<float>(123457, -1, 1, 28);
  DeviceArray<float> dx(x), dy(y);
  k(2.0f, dx, dy);
  k(2.0f, dx, dy);
  std::vector<float> out = dy.to_host();
  for (size_t i = 0; i < x.size(); ++i)
    ASSERT_NEAR(out[i], y[i] + 4.0 * x[i], 1e-5);
}

TEST_P(Kernels, ExplainSaysTargetAndCopies) {
  auto k = kernel(
      "mm",
      [](Array2<float> A, Array2<float> C) {
        parallel_for({C.dim(0), C.dim(1)}, [&](Index i, Index j) { C(i, j) = A(i, j) * 2.0f; });
      },
      {"A", "C"});
  prepare(k);
  std::vector<float> A(64, 1.0f), C(64);
  k(view(A, {8, 8}), view(C, {8, 8}));
  std::string e = k.explain();
  EXPECT_NE(e.find(target() == ir::Target::GPU ? "target: GPU" : "target: CPU"), std::string::npos)
      << e;
  EXPECT_NE(e.find("array A: read only: copied in only"), std::string::npos) << e;
  EXPECT_NE(e.find("array C: wholly overwritten: copied out only"), std::string::npos) << e;
  if (target() == ir::Target::GPU) {
    EXPECT_NE(e.find("last launch: grid ("), std::string::npos) << e;
  }
  EXPECT_EQ(C[63], 2.0f);
}

// Arrays of rank 4 to 8, in both front ends: every element read and written at its row-major
// position, shapes and sizes as arguments give them.
TEST_P(Kernels, ArraysOfRanksFourToEight) {
  auto k = kernel("rank8", [](ArrayN<float, 8> a, ArrayN<int64_t, 5> b, Array<float> flat) {
    parallel_for({a.dim(0), a.dim(1), a.dim(2)}, [&](Index i, Index j, Index l) {
      for_range(a.dim(3), [&](Index m) {
        for_range(a.dim(4) * a.dim(5) * a.dim(6) * a.dim(7), [&](Index rest) {
          Index p = rest / (a.dim(5) * a.dim(6) * a.dim(7));
          Index q = rest / (a.dim(6) * a.dim(7)) % a.dim(5);
          Index r = rest / a.dim(7) % a.dim(6), s = rest % a.dim(7);
          Index linear =
              ((((((i * a.dim(1) + j) * a.dim(2) + l) * a.dim(3) + m) * a.dim(4) + p) * a.dim(5) +
                q) *
                   a.dim(6) +
               r) *
                  a.dim(7) +
              s;
          a(i, j, l, m, p, q, r, s) = a(i, j, l, m, p, q, r, s) + flat[linear];
        });
      });
    });
    parallel_for(b.size(), [&](Index n) {
      Index e4 = b.dim(4), e3 = b.dim(3), e2 = b.dim(2), e1 = b.dim(1);
      b(n / (e1 * e2 * e3 * e4), n / (e2 * e3 * e4) % e1, n / (e3 * e4) % e2, n / e4 % e3, n % e4) =
          n * 3 + b.size();
    });
  });
  prepare(k);
  const std::vector<int64_t> shape8 = {2, 3, 2, 2, 1, 3, 2, 2}, shape5 = {2, 1, 3, 2, 4};
  const int64_t n8 = 2 * 3 * 2 * 2 * 1 * 3 * 2 * 2, n5 = 2 * 1 * 3 * 2 * 4;
  std::vector<float> a = random_vector<float>(n8, -1, 1, 41),
                     flat = random_vector<float>(n8, -1, 1, 42);
  std::vector<float> a0 = a;
  std::vector<int64_t> b(n5, -1);
  k(view(a, shape8), view(b, shape5), flat);
  for (int64_t x = 0; x < n8; ++x)
    ASSERT_EQ(a[x], a0[x] + flat[x]) << x;
  for (int64_t x = 0; x < n5; ++x)
    ASSERT_EQ(b[x], x * 3 + n5) << x;

  Module m = compile(R"(
@kernel
def scale6(x: f64[a, b, c, d, e, f], s: f64):
    for i, j in parallel(a, b):
        for k in range(c):
            for l in range(d):
                for p in range(e):
                    for q in range(f):
                        x[i, j, k, l, p, q] *= s + x.shape[5]
)",
                     "rank6.loom");
  Kernel &scale = m["scale6"];
  prepare(scale);
  const std::vector<int64_t> shape6 = {2, 2, 3, 1, 2, 3};
  std::vector<double> x = random_vector<double>(72, -3, 3, 43), x0 = x;
  scale(view(x, shape6), 0.5);
  for (size_t i = 0; i < x.size(); ++i)
    ASSERT_EQ(x[i], x0[i] * 3.5) << i;
}

LOOM_INSTANTIATE_TARGETS(Kernels);

} // namespace
