// GPU index arithmetic: 32-bit where every array of the call has at most 2^30 elements and the
// grid at most 2^19 blocks per dimension (codegen::GpuTarget::index32), 64-bit otherwise. Each
// side of both limits runs, with its results checked and explain() naming the width it used.
#include "support/TestUtil.h"

#include <cstdint>

using namespace loom;

namespace {

bool skip_without_gpu(std::string *why) {
  return !runtime::GpuContext::usable(why);
}

std::string index_line(const Kernel &k) {
  std::string e = k.explain();
  size_t at = e.find("index arithmetic: ");
  return at == std::string::npos ? "(no index line in explain())\n" + e
                                 : e.substr(at, e.find('\n', at) - at);
}

Kernel make_ramp() {
  return kernel("ramp",
                [](Array<int32_t> x) {
                  parallel_for(x.size(), [&](Index i) { x[i] = I32(i % 1000003) - 7; });
                },
                {"x"});
}
// out[j] = x[at[j]]: a few elements of a large device array.
Kernel make_pick() {
  return kernel("pick_i32",
                [](Array<int32_t> x, Array<int64_t> at, Array<int32_t> out) {
                  parallel_for(at.size(), [&](Index j) { out[j] = x[at[j]]; });
                },
                {"x", "at", "out"});
}

// Fills n elements on the GPU and checks the first and last ones; returns ramp's index line.
std::string ramp_and_check(int64_t n, const runtime::LaunchPolicy &policy = {}) {
  Kernel ramp = make_ramp().on(ir::Target::GPU), pick = make_pick().on(ir::Target::GPU);
  ramp.launch_policy(policy);
  auto x = runtime::DeviceArray<int32_t>::uninitialized({n});
  std::vector<int64_t> at;
  for (int64_t i = 0; i < 4; ++i)
    at.push_back(i);
  for (int64_t i = std::max<int64_t>(4, n - 40); i < n; ++i)
    at.push_back(i);
  std::vector<int32_t> picked(at.size(), -1);
  ramp(x);
  pick(x, at, picked);
  for (size_t k = 0; k < at.size(); ++k)
    EXPECT_EQ(static_cast<int32_t>(at[k] % 1000003) - 7, picked[k])
        << "x[" << at[k] << "] of " << n;
  return index_line(ramp);
}

TEST(IndexWidthGpu, MatmulWithSmallArraysRuns32BitCode) {
  std::string why;
  if (skip_without_gpu(&why))
    GTEST_SKIP() << "no usable GPU: " << why;
  auto k = kernel("matmul32", [](Array2<float> A, Array2<float> B, Array2<float> C) {
    parallel_for({C.dim(0), C.dim(1)}, [&](Index i, Index j) {
      Var<float> acc = 0.0f;
      for_range(A.dim(1), [&](Index l) { acc += A(i, l) * B(l, j); });
      C(i, j) = acc;
    });
  });
  k.on(ir::Target::GPU);
  const int64_t n = 67, m = 45, kk = 129;
  auto A = loomtest::random_vector<float>(n * kk, -1, 1, 31);
  auto B = loomtest::random_vector<float>(kk * m, -1, 1, 32);
  std::vector<float> C(n * m, NAN);
  k(view(A, {n, kk}), view(B, {kk, m}), view(C, {n, m}));
  loomtest::expect_matmul(A, B, C, n, kk, m);
  EXPECT_NE(std::string::npos, index_line(k).find("32-bit")) << index_line(k);
}

TEST(IndexWidthGpu, ArraysOnEitherSideOfTwoToThe30Elements) {
  std::string why;
  if (skip_without_gpu(&why))
    GTEST_SKIP() << "no usable GPU: " << why;
  const int64_t limit = int64_t{1} << 30;
  if (runtime::GpuContext::get().info().total_memory < 3 * 4 * static_cast<size_t>(limit))
    GTEST_SKIP() << "the GPU has less than the 12 GiB this test needs";
  EXPECT_NE(std::string::npos, ramp_and_check(limit).find("32-bit"));
  EXPECT_NE(std::string::npos, ramp_and_check(limit + 1).find("64-bit"));
}

TEST(IndexWidthGpu, GridOfMoreThanTwoToThe19BlocksRuns64BitCode) {
  std::string why;
  if (skip_without_gpu(&why))
    GTEST_SKIP() << "no usable GPU: " << why;
  runtime::LaunchPolicy uncapped; // one iteration a thread: 2^20 + 1 blocks of 32 threads
  uncapped.block = {32, 1, 1};
  uncapped.max_waves = 0;
  EXPECT_NE(std::string::npos, ramp_and_check((int64_t{1} << 25) + 5, uncapped).find("64-bit"));
  // The same kernel object goes back to 32-bit code when the grid allows it.
  runtime::LaunchPolicy few;
  few.block = {32, 1, 1};
  EXPECT_NE(std::string::npos, ramp_and_check((int64_t{1} << 25) + 5, few).find("32-bit"));
}

} // namespace
