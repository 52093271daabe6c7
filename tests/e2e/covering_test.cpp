// One iteration per GPU thread where the launch covers the domain (ir::LowerOptions::
// covering_launch): parallel loops without runs or reductions run under an `if` instead of
// grid-stride loops, with an uncapped grid. Results are the grid-stride code's bit for bit; a
// domain that CUDA's grid limits keep the grid from covering runs the grid-stride code.
#include "support/TestUtil.h"

#include <bit>
#include <cmath>
#include <cstdint>

using namespace loom;

namespace {

bool skip_without_gpu(std::string *why) {
  return !runtime::GpuContext::usable(why);
}

Kernel make_matmul() {
  return kernel("matmul_cover", [](Array2<float> A, Array2<float> B, Array2<float> C) {
    parallel_for({C.dim(0), C.dim(1)}, [&](Index i, Index j) {
      Var<float> acc = 0.0f;
      for_range(A.dim(1), [&](Index l) { acc += A(i, l) * B(l, j); });
      C(i, j) = acc;
    });
  });
}

bool covers(const Kernel &k) {
  return k.explain().find("one iteration per thread") != std::string::npos;
}

// The PTX a call runs needs no GPU: the covering code has no grid-stride loop (no %nctaid); a
// launch policy that caps the grid keeps the grid-stride loops, an uncapped one does not.
TEST(Covering, PtxOfACoveringLaunchHasNoGridStride) {
  Kernel k = make_matmul();
  std::string ptx = k.ptx("sm_90");
  EXPECT_EQ(ptx.find("%nctaid"), std::string::npos) << ptx;
  runtime::LaunchPolicy policy;
  policy.block = {32, 8, 1};
  k.launch_policy(policy);
  EXPECT_NE(k.ptx("sm_90").find("%nctaid"), std::string::npos);
  policy.max_waves = 0; // an uncapped grid covers the domain whatever the block
  k.launch_policy(policy);
  EXPECT_EQ(k.ptx("sm_90").find("%nctaid"), std::string::npos);
}

TEST(CoveringGpu, MatmulMatchesTheGridStrideCodeBitForBit) {
  std::string why;
  if (skip_without_gpu(&why))
    GTEST_SKIP() << "no usable GPU: " << why;
  const int64_t n = 67, m = 45, kk = 129;
  auto A = loomtest::random_vector<float>(n * kk, -1, 1, 41);
  auto B = loomtest::random_vector<float>(kk * m, -1, 1, 42);
  std::vector<float> C(n * m, NAN), strided(n * m, NAN);
  Kernel k = make_matmul().on(ir::Target::GPU);
  k(view(A, {n, kk}), view(B, {kk, m}), view(C, {n, m}));
  loomtest::expect_matmul(A, B, C, n, kk, m);
  EXPECT_TRUE(covers(k)) << k.explain();
  EXPECT_NE(k.explain().find("the grid is not capped"), std::string::npos) << k.explain();

  // A 2-block grid: grid-stride loops, each thread many iterations.
  runtime::LaunchPolicy policy;
  policy.block = {16, 4, 1};
  policy.max_waves = 1;
  Kernel g = make_matmul().on(ir::Target::GPU);
  g.launch_policy(policy);
  g(view(A, {n, kk}), view(B, {kk, m}), view(strided, {n, m}));
  EXPECT_FALSE(covers(g)) << g.explain();
  for (size_t e = 0; e < C.size(); ++e)
    ASSERT_EQ(std::bit_cast<uint32_t>(strided[e]), std::bit_cast<uint32_t>(C[e]))
        << "element " << e;
}

// A 1-D loop with an inner loop (no runs: its accesses are 2-D) covers too.
TEST(CoveringGpu, RowLoopOfOneDimension) {
  std::string why;
  if (skip_without_gpu(&why))
    GTEST_SKIP() << "no usable GPU: " << why;
  Kernel rows = kernel("row_norms", [](Array2<float> x, Array<double> y) {
    parallel_for(x.dim(0), [&](Index r) {
      Var<double> s = 0.0;
      for_range(x.dim(1), [&](Index c) { s += cast<double>(x(r, c)) * cast<double>(x(r, c)); });
      y[r] = s;
    });
  });
  rows.on(ir::Target::GPU);
  const int64_t n = 3001, m = 37;
  auto x = loomtest::random_vector<float>(n * m, -2, 2, 43);
  std::vector<double> y(n, NAN);
  rows(view(x, {n, m}), y);
  EXPECT_TRUE(covers(rows)) << rows.explain();
  // One thread walks each row: explain() points at the schedule that splits rows.
  EXPECT_NE(rows.explain().find("block_per_iteration(256) splits them"), std::string::npos)
      << rows.explain();
  for (int64_t r = 0; r < n; ++r) {
    double s = 0; // the same order of additions in double: exact agreement
    for (int64_t c = 0; c < m; ++c)
      s += double(x[r * m + c]) * double(x[r * m + c]);
    ASSERT_EQ(s, y[r]) << "row " << r;
  }
}

// 2^26 + 3 rows of one column (each summing its one element in a loop, the kind of body that
// covers where it can): blocks of at most 1 x 1024 threads would need at least 65,537 blocks
// along y, past CUDA's 65,535, so no grid covers the domain and the call runs the grid-stride
// code.
TEST(CoveringGpu, GridLimitFallsBackToGridStrideLoops) {
  std::string why;
  if (skip_without_gpu(&why))
    GTEST_SKIP() << "no usable GPU: " << why;
  Kernel k = kernel("column", [](Array2<float> x, Array2<float> y) {
    parallel_for({x.dim(0), x.dim(1)}, [&](Index i, Index j) {
      Var<float> s = 0.0f;
      for_range(x.dim(1), [&](Index c) { s += x(i, c); });
      y(i, j) = s * 2.0f + cast<float>(i % 1000);
    });
  });
  k.on(ir::Target::GPU);
  const int64_t rows = (int64_t{1} << 26) + 3;
  std::vector<float> x(rows), y(rows, NAN);
  for (int64_t i = 0; i < rows; ++i)
    x[i] = static_cast<float>(i % 977) * 0.5f;
  k(view(x, {rows, 1}), view(y, {rows, 1}));
  EXPECT_FALSE(covers(k)) << k.explain();
  for (int64_t i : {int64_t{0}, int64_t{1}, rows / 2, rows - 2, rows - 1})
    EXPECT_EQ(x[i] * 2.0f + static_cast<float>(i % 1000), y[i]) << "row " << i;
  int64_t wrong = 0;
  for (int64_t i = 0; i < rows; ++i)
    wrong += y[i] != x[i] * 2.0f + static_cast<float>(i % 1000);
  EXPECT_EQ(0, wrong);
}

} // namespace
