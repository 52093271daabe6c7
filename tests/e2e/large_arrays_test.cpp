// Arrays of more than 2^31 elements: index arithmetic must be 64-bit wherever an extent can
// exceed 2^31 - 1. On the GPU, saxpy and a sum over 2^31 + 17 f32 elements (8 GiB per array, in
// device memory), checked at the first elements, around 2^31 and at the last ones. The same code
// runs on a small instance on every target, so the checks themselves are checked everywhere.
#include "support/TestUtil.h"

#include <cstdint>

using namespace loom;

namespace {

// x[i] = (i % 4096) / 4 and y[i] = i % 1000, then y = 2x + y: every value exact in f32.
Kernel make_fill() {
  return kernel("fill",
                [](Array<float> x, Array<float> y) {
                  parallel_for(x.size(), [&](Index i) {
                    x[i] = F32(i % 4096) * 0.25f;
                    y[i] = F32(i % 1000);
                  });
                },
                {"x", "y"});
}
Kernel make_saxpy() {
  return kernel("saxpy_large",
                [](F32 a, Array<float> x, Array<float> y) {
                  parallel_for(x.size(), [&](Index i) { y[i] = a * x[i] + y[i]; });
                },
                {"a", "x", "y"});
}
Kernel make_sum() {
  return kernel("sum_large",
                [](Array<float> x, Array<double> total) {
                  parallel_for(x.size(), [&](Index i) { total[0] += F64(x[i]); });
                },
                {"x", "total"});
}
// out[j] = y[at[j]]: a few elements of a large device array, without copying all of it back.
Kernel make_pick() {
  return kernel("pick",
                [](Array<float> y, Array<int64_t> at, Array<float> out) {
                  parallel_for(at.size(), [&](Index j) { out[j] = y[at[j]]; });
                },
                {"y", "at", "out"});
}

// Runs fill, saxpy and the sum over n elements on `target` and checks them; the arrays live in
// device memory on the GPU.
void check_saxpy_and_sum(ir::Target target, int64_t n) {
  Kernel fill = make_fill().on(target), saxpy = make_saxpy().on(target),
         sum = make_sum().on(target), pick = make_pick().on(target);
  std::vector<int64_t> at;
  for (int64_t i = 0; i < 4; ++i)
    at.push_back(i);
  for (int64_t i = (int64_t{1} << 31) - 3; i <= (int64_t{1} << 31) + 3; ++i)
    if (i >= 4 && i < n - 64)
      at.push_back(i);
  for (int64_t i = std::max<int64_t>(4, n - 64); i < n; ++i)
    at.push_back(i);
  std::vector<float> picked(at.size());
  std::vector<double> total = {0.0};

  auto run = [&](auto &x, auto &y) {
    fill(x, y);
    sum(x, total);
    saxpy(2.0f, x, y);
    pick(y, at, picked);
  };
  if (target == ir::Target::GPU) {
    auto x = runtime::DeviceArray<float>::uninitialized({n});
    auto y = runtime::DeviceArray<float>::uninitialized({n});
    run(x, y);
  } else {
    std::vector<float> x(static_cast<size_t>(n)), y(static_cast<size_t>(n));
    run(x, y);
  }

  for (size_t k = 0; k < at.size(); ++k) {
    int64_t i = at[k];
    float expected = static_cast<float>(i % 4096) * 0.5f + static_cast<float>(i % 1000);
    ASSERT_EQ(expected, picked[k]) << "y[" << i << "] of " << n;
  }
  // Every partial sum is a multiple of 1/4 below 2^53: exact in any order.
  const int64_t cycles = n / 4096, rest = n % 4096;
  const double expected_sum = 0.25 * (static_cast<double>(cycles) * (4095.0 * 4096.0 / 2) +
                                      static_cast<double>(rest) * (rest - 1) / 2);
  EXPECT_EQ(expected_sum, total[0]) << "sum of " << n << " elements";
}

class LargeArrays : public loomtest::TargetTest {};

TEST_P(LargeArrays, SmallInstanceChecksTheChecks) {
  check_saxpy_and_sum(target(), 10007);
}

TEST(LargeArraysGpu, SaxpyAndSumOverTwoToThe31PlusSeventeenElements) {
  std::string why;
  if (!runtime::GpuContext::usable(&why))
    GTEST_SKIP() << "no usable GPU: " << why;
  const int64_t n = (int64_t{1} << 31) + 17;
  const size_t needed = 2 * static_cast<size_t>(n) * sizeof(float) + (size_t{1} << 30);
  if (runtime::GpuContext::get().info().total_memory < needed)
    GTEST_SKIP() << "the GPU has less than the " << (needed >> 30) << " GiB this test needs";
  check_saxpy_and_sum(ir::Target::GPU, n);
}

LOOM_INSTANTIATE_TARGETS(LargeArrays);

} // namespace
