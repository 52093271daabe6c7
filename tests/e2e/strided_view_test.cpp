// Strided views as kernel arguments: host views (loom::view with strides) and device views
// (DeviceArray::slice, select, transposed, view), read in place by code that reads their strides
// at run time, or staged dense where the target cannot read them in place. Each result against
// the same loop in C++ over the same elements; the elements a view does not cover must keep
// their values. And the views loom refuses: reaching outside their memory, writing through
// indices that name one element twice, overlapping another argument.
#include "support/TestUtil.h"

#include <loom/loom.hpp>

#include <cmath>
#include <complex>
#include <cstdint>
#include <numeric>
#include <vector>

using namespace loom;
using loomtest::random_vector;

namespace {

class StridedViews : public loomtest::TargetTest {};

Kernel make_matmul() {
  return kernel("matmul",
                [](Array2<float> A, Array2<float> B, Array2<float> C) {
                  parallel_for({A.dim(0), B.dim(1)}, [&](Index i, Index j) {
                    Var<float> acc("acc", 0.0f);
                    for_range(A.dim(1), [&](Index k) { acc += A(i, k) * B(k, j); });
                    C(i, j) = acc;
                  });
                },
                {"A", "B", "C"});
}

Kernel make_scale() {
  return kernel("scale",
                [](Array<float> x, F32 s, Array<float> y) {
                  parallel_for(x.size(), [&](Index i) { y[i] = s * x[i] + 1.0f; });
                },
                {"x", "s", "y"});
}

// C = A^T B with A stored K x N: A's transpose is a view, strides {1, N}.
TEST_P(StridedViews, TransposedMatmulAgainstDoubleReference) {
  Kernel k = make_matmul();
  prepare(k);
  const int64_t n = 37, kk = 53, m = 29;
  auto At = random_vector<float>(kk * n, -1, 1, 101); // A^T, row-major K x N
  auto B = random_vector<float>(kk * m, -1, 1, 102);
  std::vector<float> C(n * m, NAN);
  k(view(At, {n, kk}, {1, n}), view(B, {kk, m}), view(C, {n, m}));
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < m; ++j) {
      double want = 0;
      for (int64_t l = 0; l < kk; ++l)
        want += double(At[l * n + i]) * B[l * m + j];
      ASSERT_NEAR(C[i * m + j], want, 1e-4) << i << ", " << j;
    }
  // The CPU reads the host view in place, through its strides; the GPU stages it dense.
  EXPECT_EQ(k.explain().find("strided views: the last call passed 'A'") != std::string::npos,
            target() == ir::Target::CPU)
      << k.explain();
  // The dense call after it runs the row-major code again, with the same results.
  std::vector<float> A(n * kk);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t l = 0; l < kk; ++l)
      A[i * kk + l] = At[l * n + i];
  std::vector<float> C2(n * m, NAN);
  k(view(A, {n, kk}), view(B, {kk, m}), view(C2, {n, m}));
  EXPECT_EQ(C2, C);
  EXPECT_EQ(k.explain().find("strided views:"), std::string::npos);
}

// A column of a matrix written, read backwards from a vector with a negative stride; the other
// columns keep their values.
TEST_P(StridedViews, ColumnWrittenFromReversedVector) {
  Kernel k = make_scale();
  prepare(k);
  const int64_t rows = 1000, cols = 3;
  auto x = random_vector<float>(rows, -1, 1, 103);
  auto matrix = random_vector<float>(rows * cols, -1, 1, 104);
  const std::vector<float> before = matrix;
  // x reversed: element i is x[rows - 1 - i]; column 1 of matrix: element i is matrix[3 i + 1].
  k(view(x, {rows}, {-1}, rows - 1), 2.5f, view(matrix, {rows}, {cols}, 1));
  for (int64_t i = 0; i < rows; ++i) {
    // (The GPU contracts the multiply-add: within an ulp of it.)
    ASSERT_NEAR(matrix[i * cols + 1], 2.5f * x[rows - 1 - i] + 1.0f, 1e-6) << i;
    ASSERT_EQ(matrix[i * cols], before[i * cols]) << i;
    ASSERT_EQ(matrix[i * cols + 2], before[i * cols + 2]) << i;
  }
}

// Every other row and a step of 3 along the columns, from an offset, in 2-D; and a 3-D view
// with its dimensions permuted.
TEST_P(StridedViews, StepsOffsetsAndPermutedDimensions) {
  auto copy2 = kernel("copy2", [](Array2<int32_t> from, Array2<int32_t> to) {
    parallel_for({to.dim(0), to.dim(1)}, [&](Index i, Index j) { to(i, j) = from(i, j) * 2; });
  });
  prepare(copy2);
  std::vector<int32_t> big(20 * 30);
  std::iota(big.begin(), big.end(), 0);
  std::vector<int32_t> out(10 * 9, -1);
  // Rows 1, 3, ..., 19 and columns 2, 5, ..., 26.
  copy2(view(big, {10, 9}, {60, 3}, 32), view(out, {10, 9}));
  for (int64_t i = 0; i < 10; ++i)
    for (int64_t j = 0; j < 9; ++j)
      ASSERT_EQ(out[i * 9 + j], 2 * big[(2 * i + 1) * 30 + 2 + 3 * j]) << i << ", " << j;

  auto copy3 = kernel("copy3", [](Array3<double> from, Array3<double> to) {
    parallel_for({to.dim(0), to.dim(1), to.dim(2)},
                 [&](Index i, Index j, Index l) { to(i, j, l) = from(i, j, l) - 1.0; });
  });
  prepare(copy3);
  auto cube = random_vector<double>(4 * 5 * 6, -1, 1, 105);
  std::vector<double> permuted(6 * 4 * 5, NAN);
  // permuted[l, i, j] = cube[i, j, l] - 1, the view's strides those of cube's dimensions 2, 0, 1.
  copy3(view(cube, {6, 4, 5}, {1, 30, 6}), view(permuted, {6, 4, 5}));
  for (int64_t i = 0; i < 4; ++i)
    for (int64_t j = 0; j < 5; ++j)
      for (int64_t l = 0; l < 6; ++l)
        ASSERT_EQ(permuted[(l * 4 + i) * 5 + j], cube[(i * 5 + j) * 6 + l] - 1.0);
}

// A reduction through a view and into one: the sum of a column, into element [1] of a vector
// read with stride 2.
TEST_P(StridedViews, ReductionThroughViews) {
  auto column_sum = kernel("column_sum", [](Array2<double> m, Array<double> total) {
    parallel_for(m.dim(0), [&](Index i) { total[0] += m(i, 0); });
  });
  prepare(column_sum);
  const int64_t rows = 5000, cols = 4;
  auto matrix = random_vector<double>(rows * cols, -1, 1, 106);
  std::vector<double> totals = {10, 20, 30, 40};
  column_sum(view(matrix, {rows, 1}, {cols, 1}, 2), view(totals, {2}, {2}, 1));
  double want = 20;
  for (int64_t i = 0; i < rows; ++i)
    want += matrix[i * cols + 2];
  EXPECT_NEAR(totals[1], want, 1e-10);
  EXPECT_EQ(totals[0], 10);
  EXPECT_EQ(totals[2], 30);
  EXPECT_EQ(totals[3], 40);
}

// A complex matrix's conjugate transpose through a view: a complex view's strides count complex
// elements (the parts' code steps twice as far).
TEST_P(StridedViews, ComplexConjugateTransposeOfAView) {
  using c64 = std::complex<float>;
  auto conj_copy = kernel("conj_copy", [](Array2<c64> from, Array2<c64> to) {
    parallel_for({to.dim(0), to.dim(1)}, [&](Index i, Index j) { to(i, j) = conj(from(i, j)); });
  });
  prepare(conj_copy);
  const int64_t rows = 31, cols = 17;
  auto parts = random_vector<float>(2 * rows * cols, -1, 1, 110);
  std::vector<c64> m(rows * cols);
  for (int64_t k = 0; k < rows * cols; ++k)
    m[k] = {parts[2 * k], parts[2 * k + 1]};
  std::vector<c64> t(cols * rows, {NAN, NAN});
  conj_copy(view(m, {cols, rows}, {1, cols}), view(t, {cols, rows}));
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j)
      ASSERT_EQ(t[j * rows + i], std::conj(m[i * cols + j])) << i << ", " << j;
}

TEST_P(StridedViews, BadViewsAreArgumentErrors) {
  Kernel k = make_scale();
  prepare(k);
  std::vector<float> v(100, 1.0f), w(100, 0.0f);
  // Reaching outside the vector: from element 10 with stride -3, 5 elements reach -2.
  EXPECT_THROW(view(v, {5}, {-3}, 10), ArgumentError);
  EXPECT_THROW(view(v, {50}, {2}, 2), ArgumentError);
  EXPECT_THROW(view(v, {10, 10}, {10}), ArgumentError); // one stride for two dimensions
  try {
    view(v, {50}, {2}, 2);
  } catch (const ArgumentError &e) {
    EXPECT_NE(std::string(e.what()).find("reaches outside the vector's 100 elements"),
              std::string::npos)
        << e.what();
  }
  // Written through a stride of 0: every index names element 0.
  try {
    k(v, 1.0f, view(w, {100}, {0}));
    ADD_FAILURE() << "a written view with a stride of 0 was accepted";
  } catch (const ArgumentError &e) {
    EXPECT_NE(std::string(e.what()).find("several indices name one element"), std::string::npos)
        << e.what();
  }
  // Read through a stride of 0 (a broadcast) is fine.
  k(view(v, {100}, {0}), 3.0f, w);
  EXPECT_EQ(w[99], 4.0f);
  // The written view overlaps the one read: the even elements from 2 on inside the even ones.
  try {
    k(view(v, {49}, {2}), 1.0f, view(v, {49}, {2}, 2));
    ADD_FAILURE() << "overlapping views, one written, were accepted";
  } catch (const ArgumentError &e) {
    EXPECT_NE(std::string(e.what()).find("arguments 'y' and 'x' of kernel 'scale' overlap"),
              std::string::npos)
        << e.what();
  }
}

// Views of one vector or matrix whose elements interleave without meeting are separate
// arguments: the odd elements written from the even ones, a column from its neighbour, the
// imaginary parts of a complex vector (seen as floats) from its real parts.
TEST_P(StridedViews, InterleavedViewsOfOneBufferAreSeparateArguments) {
  Kernel k = make_scale();
  prepare(k);
  // s * x + 1: the GPU may contract it into one fused multiply-add (docs/semantics.md), the CPU
  // does not.
  const bool fused = GetParam() == ir::Target::GPU;
  auto scaled = [&](float s, float x) { return fused ? std::fma(s, x, 1.0f) : s * x + 1.0f; };
  auto v = loomtest::random_vector<float>(101, -4, 4, 61);
  const std::vector<float> before = v;
  k(view(v, {50}, {2}), 1.5f, view(v, {50}, {2}, 1));
  for (int64_t i = 0; i < 101; ++i)
    ASSERT_EQ(v[i], i % 2 == 1 && i < 100 ? scaled(1.5f, before[i - 1]) : before[i]) << i;

  const int64_t rows = 37, cols = 5;
  auto m = loomtest::random_vector<float>(rows * cols, -4, 4, 62);
  const std::vector<float> m_before = m;
  k(view(m, {rows}, {cols}, 3), -2.0f, view(m, {rows}, {cols}, 4)); // column 4 from column 3
  for (int64_t e = 0; e < rows * cols; ++e)
    ASSERT_EQ(m[e], e % cols == 4 ? scaled(-2.0f, m_before[e - 1]) : m_before[e]) << e;

  std::vector<std::complex<float>> z(64);
  for (size_t i = 0; i < z.size(); ++i)
    z[i] = {float(i), -float(i) / 2};
  auto *parts = reinterpret_cast<float *>(z.data());
  std::vector<float> flat(parts, parts + 2 * z.size());
  k(view(flat, {64}, {2}), 0.5f, view(flat, {64}, {2}, 1)); // imaginary = real / 2 + 1
  for (size_t i = 0; i < z.size(); ++i) {
    ASSERT_EQ(flat[2 * i], float(i)) << i;
    ASSERT_EQ(flat[2 * i + 1], scaled(0.5f, float(i))) << i;
  }
}

TEST_P(StridedViews, DeviceViewsSliceSelectTranspose) {
  if (target() != ir::Target::GPU)
    GTEST_SKIP() << "device views need a GPU (DeviceArray)";
  Kernel k = make_matmul();
  prepare(k);
  const int64_t n = 64, kk = 48, m = 40;
  auto At = random_vector<float>(kk * n, -1, 1, 107);
  auto B = random_vector<float>(kk * m * 2, -1, 1, 108);
  DeviceArray<float> dAt(At, {kk, n}), dB(B, {kk, m * 2});
  DeviceArray<float> dC(std::vector<float>(n * m * 3, NAN), {n, m * 3});
  // A = At^T; B: every other column of dB; C: columns m .. 2m - 1 of dC.
  k(dAt.transposed(), dB.slice(1, 0, 2 * m, 2), dC.slice(1, m, 2 * m));
  std::vector<float> C = dC.to_host();
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < m; ++j) {
      double want = 0;
      for (int64_t l = 0; l < kk; ++l)
        want += double(At[l * n + i]) * B[l * 2 * m + 2 * j];
      ASSERT_NEAR(C[i * 3 * m + m + j], want, 1e-4) << i << ", " << j;
      ASSERT_TRUE(std::isnan(C[i * 3 * m + j]) && std::isnan(C[i * 3 * m + 2 * m + j]));
    }
  // A view's to_host() copies only its elements; select() drops a dimension.
  std::vector<float> column = dAt.select(1, 5).to_host();
  ASSERT_EQ(column.size(), size_t(kk));
  for (int64_t l = 0; l < kk; ++l)
    ASSERT_EQ(column[l], At[l * n + 5]);
  std::vector<float> backwards = dAt.select(0, 2).slice(0, n - 1, -1, -1).to_host();
  for (int64_t i = 0; i < n; ++i)
    ASSERT_EQ(backwards[i], At[2 * n + n - 1 - i]);
  EXPECT_THROW(dAt.slice(0, 0, kk + 1), ArgumentError);
  EXPECT_THROW(dAt.view({kk, n}, {n, 1}, 1), ArgumentError); // one element past the end
  EXPECT_THROW(dAt.select(2, 0), ArgumentError);
}

// A device array not 16-byte aligned (a view from element 1) runs strided code on the GPU; on the
// CPU, device views are staged dense.
TEST_P(StridedViews, UnalignedDeviceViewAndDeviceViewsOnTheCpu) {
  std::string why;
  if (!runtime::GpuContext::usable(&why))
    GTEST_SKIP() << "device views need a GPU (DeviceArray): " << why;
  Kernel k = make_scale();
  prepare(k);
  auto x = random_vector<float>(1001, -1, 1, 109);
  DeviceArray<float> dx(x);
  DeviceArray<float> dy(std::vector<float>(2000, -7.0f));
  k(dx.slice(0, 1, 1001), 0.5f, dy.slice(0, 1, 2000, 2));
  std::vector<float> y = dy.to_host();
  for (int64_t i = 0; i < 1000; ++i) {
    ASSERT_NEAR(y[1 + 2 * i], 0.5f * x[1 + i] + 1.0f, 1e-6) << i;
    ASSERT_EQ(y[2 * i], -7.0f) << i;
  }
}

LOOM_INSTANTIATE_TARGETS(StridedViews);

} // namespace
