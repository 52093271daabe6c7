// Parallel loops over ranges, parallel(b, e, s) (Numba's prange): positive, negative and run-time
// steps, empty ranges, 2-D ranges with a plain extent, in both front ends, against the same loop
// in C++; updates of an iteration's own element through a range's index (or a shifted one) stay
// plain stores, not atomics.
#include "support/TestUtil.h"

#include <loom/loom.hpp>

#include <cmath>
#include <cstdint>
#include <vector>

using namespace loom;
using loomtest::random_vector;

namespace {

class ParallelRanges : public loomtest::TargetTest {};

// i = b, b + s, ... while short of e, as Python's range.
std::vector<int64_t> python_range(int64_t b, int64_t e, int64_t s) {
  std::vector<int64_t> out;
  for (int64_t i = b; s > 0 ? i < e : i > e; i += s)
    out.push_back(i);
  return out;
}

TEST_P(ParallelRanges, StepsOfEverySignAgainstPythonsRange) {
  auto k = kernel("marks", [](I64 b, I64 e, I64 s, Array<int32_t> hits) {
    parallel_for(range(b, e, s), [&](Index i) { hits[i] += 1; });
  });
  prepare(k);
  const int64_t cases[][3] = {{0, 50, 1},  {3, 50, 7},  {49, 0, -1}, {49, -1, -3},
                              {10, 10, 1}, {20, 10, 2}, {5, 40, 100}};
  for (const auto &c : cases) {
    std::vector<int32_t> hits(50, 0);
    k(c[0], c[1], c[2], hits);
    std::vector<int32_t> expected(50, 0);
    for (int64_t i : python_range(c[0], c[1], c[2]))
      expected[i] += 1;
    EXPECT_EQ(hits, expected) << "range(" << c[0] << ", " << c[1] << ", " << c[2] << ")";
  }
}

// A step given at run time that is 0: an ArgumentError naming the range, before anything runs.
TEST_P(ParallelRanges, AZeroStepAtRunTimeIsAnArgumentError) {
  auto k = kernel("marks", [](I64 b, I64 e, I64 s, Array<int32_t> hits) {
    parallel_for(range(b, e, s + 0), [&](Index i) { hits[i] += 1; });
  });
  prepare(k);
  std::vector<int32_t> hits(50, 0);
  try {
    k(int64_t(0), int64_t(50), int64_t(0), hits);
    ADD_FAILURE() << "a step of 0 ran";
  } catch (const ArgumentError &e) {
    EXPECT_NE(std::string(e.what()).find("kernel 'marks': the step of loom::range() at "),
              std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("parallel_range_test.cpp:"), std::string::npos)
        << e.what();
  }
  EXPECT_EQ(hits, std::vector<int32_t>(50, 0));
  Module m = compile("@kernel\ndef k(x: f32[n], s: i32):\n    for i in parallel(0, n, s):\n"
                     "        x[i] = 1.0\n",
                     "step.loom");
  Kernel &t = prepare(m["k"]);
  std::vector<float> x(10, 0.0f);
  t(x, int32_t(3));
  EXPECT_EQ(x, std::vector<float>({1, 0, 0, 1, 0, 0, 1, 0, 0, 1}));
  try {
    t(x, int32_t(0));
    ADD_FAILURE() << "a step of 0 ran";
  } catch (const ArgumentError &e) {
    EXPECT_NE(std::string(e.what()).find(
                  "kernel 'k': the step of parallel() on line 3 is 0; a parallel range needs a "
                  "non-zero step"),
              std::string::npos)
        << e.what();
  }
}

TEST_P(ParallelRanges, TwoDimensionalInteriorWithLiteralRanges) {
  auto k = kernel("interior", [](Array2<float> u, Array2<float> v) {
    parallel_for({range(1, u.dim(0) - 1), range(1, u.dim(1) - 1, 2)}, [&](Index i, Index j) {
      v(i, j) = 0.25f * (u(i - 1, j) + u(i + 1, j) + u(i, j - 1) + u(i, j + 1));
    });
  });
  prepare(k);
  const int64_t n = 37, m = 41;
  std::vector<float> u = random_vector<float>(n * m, -1, 1, 3), v(n * m, -7.0f);
  k(view(u, {n, m}), view(v, {n, m}));
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < m; ++j) {
      float expected = -7.0f;
      if (i >= 1 && i < n - 1 && j >= 1 && j < m - 1 && (j - 1) % 2 == 0)
        expected =
            0.25f * (u[(i - 1) * m + j] + u[(i + 1) * m + j] + u[i * m + j - 1] + u[i * m + j + 1]);
      ASSERT_EQ(v[i * m + j], expected) << i << ", " << j;
    }
}

// The text DSL's spellings: one variable with (b, e[, s]), and one tuple per dimension.
TEST_P(ParallelRanges, TextDslSpellings) {
  Module m = compile(R"(
@kernel
def every_third(x: f64[n], y: f64[n]):
    for i in parallel(n - 1, -1, -3):
        y[i] = 2.0 * x[i]

@kernel
def box(A: i32[N, M]):
    for i, j in parallel((1, N - 1), M):
        A[i, j] += i * 100 + j
)",
                     "ranges.loom");
  Kernel &third = m["every_third"], &box = m["box"];
  prepare(third);
  prepare(box);
  std::vector<double> x = random_vector<double>(31, -5, 5, 4), y(31, 0.5);
  third(x, y);
  for (int64_t i = 0; i < 31; ++i)
    EXPECT_EQ(y[i], (30 - i) % 3 == 0 ? 2.0 * x[i] : 0.5) << i;
  const int64_t rows = 6, cols = 5;
  std::vector<int32_t> a(rows * cols, 1);
  box(view(a, {rows, cols}));
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j)
      EXPECT_EQ(a[i * cols + j], 1 + (i >= 1 && i < rows - 1 ? int32_t(i * 100 + j) : 0));
}

// x[i] += v at a range's index, and a shifted A[i + 1, j] += B[i, j], update each iteration's own
// element: plain loads and stores on both targets, no atomic read-modify-write.
TEST_P(ParallelRanges, OwnElementUpdatesThroughAnAffineIndexAreNotAtomic) {
  auto k = kernel("shifted", [](Array2<double> A, Array2<double> B, Array<double> x) {
    parallel_for({A.dim(0) - 1, A.dim(1)}, [&](Index i, Index j) { A(i + 1, j) += B(i, j); });
    parallel_for(range(2, x.size(), 3), [&](Index i) { x[i] += 1.5; });
  });
  prepare(k);
  const std::string code = target() == ir::Target::GPU ? k.ptx() : k.llvm();
  EXPECT_EQ(code.find(target() == ir::Target::GPU ? "atom." : "atomicrmw"), std::string::npos)
      << code;
  const int64_t n = 9, m = 7;
  std::vector<double> A = random_vector<double>(n * m, -1, 1, 5),
                      B = random_vector<double>(n * m, -1, 1, 6), x(20, 1.0);
  std::vector<double> A0 = A;
  k(view(A, {n, m}), view(B, {n, m}), x);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < m; ++j)
      EXPECT_EQ(A[i * m + j], i == 0 ? A0[j] : A0[i * m + j] + B[(i - 1) * m + j]);
  for (int64_t i = 0; i < 20; ++i)
    EXPECT_EQ(x[i], i >= 2 && (i - 2) % 3 == 0 ? 2.5 : 1.0) << i;
}

// A column owned by the iteration over j while a sequential loop walks it: C[k, j] += B[k, j]
// (and a read of C[k, j] in the same index tuple) stays plain, with the sums in k's order.
TEST_P(ParallelRanges, AColumnOwnedByItsIterationIsUpdatedWithoutAtomics) {
  auto k = kernel("columns", [](Array2<double> C, Array2<double> B) {
    parallel_for(C.dim(1), [&](Index j) {
      for_range(1, C.dim(0), [&](Index r) { C(r, j) += B(r, j) * C(r - 1, j) + C(r, j); });
    });
  });
  auto plain = kernel("columns_plain", [](Array2<double> C, Array2<double> B) {
    parallel_for(C.dim(1),
                 [&](Index j) { for_range(C.dim(0), [&](Index r) { C(r, j) += B(r, j); }); });
  });
  prepare(k);
  prepare(plain);
  const std::string code = target() == ir::Target::GPU ? plain.ptx() : plain.llvm();
  EXPECT_EQ(code.find(target() == ir::Target::GPU ? "atom." : "atomicrmw"), std::string::npos)
      << code;
  const int64_t n = 13, m = 300;
  std::vector<double> C = random_vector<double>(n * m, -1, 1, 7),
                      B = random_vector<double>(n * m, -1, 1, 8);
  std::vector<double> expected = C, C2 = C;
  for (int64_t j = 0; j < m; ++j)
    for (int64_t r = 0; r < n; ++r)
      expected[r * m + j] += B[r * m + j];
  plain(view(C, {n, m}), view(B, {n, m}));
  EXPECT_EQ(C, expected); // one addition per element: exact
  // A read of another row of the column (C[r - 1, j]) is another index tuple: the rule does not
  // apply, and the update combines as a reduction; the result is the sequential one still.
  std::vector<double> seq = C2;
  for (int64_t j = 0; j < m; ++j)
    for (int64_t r = 1; r < n; ++r)
      seq[r * m + j] += B[r * m + j] * seq[(r - 1) * m + j] + seq[r * m + j];
  k(view(C2, {n, m}), view(B, {n, m}));
  for (int64_t e = 0; e < n * m; ++e)
    EXPECT_NEAR(C2[e], seq[e], 1e-12 * (1 + std::abs(seq[e]))) << e;
}

TEST(ParallelRangeErrors, AZeroStepIsRefusedInBothFrontEnds) {
  EXPECT_THROW(kernel("zero",
                      [](Array<float> x) {
                        parallel_for(range(0, x.size(), 0), [&](Index i) { x[i] = 1.0f; });
                      }),
               DslError);
  try {
    compile("@kernel\ndef k(x: f32[n]):\n    for i in parallel(0, n, 0):\n"
            "        x[i] = 1.0\n",
            "zero.loom");
    FAIL() << "a step of 0 compiled";
  } catch (const SourceError &e) {
    EXPECT_NE(std::string(e.what()).find("zero.loom:3:29: error: the step of parallel() must not "
                                         "be 0"),
              std::string::npos)
        << e.what();
  }
  try {
    compile("@kernel\ndef k(x: f32[n]):\n    for i in parallel((0, n, 1, 2)):\n"
            "        x[i] = 1.0\n",
            "four.loom");
    FAIL() << "a range of four values compiled";
  } catch (const SourceError &e) {
    EXPECT_NE(std::string(e.what()).find("a range of parallel() is (begin, end) or (begin, end, "
                                         "step), got 4 values"),
              std::string::npos)
        << e.what();
  }
}

LOOM_INSTANTIATE_TARGETS(ParallelRanges);

} // namespace
