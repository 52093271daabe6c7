// Asynchronous launches on streams on a real GPU (skipped, saying why, without one): work queued
// on two streams interleaved gives exactly the results of running it in order, a kernel with a
// reduction alternating between streams stays right (its scratch memory is serialized), and
// events time the queued work. tests/runtime/AsyncLaunchTest.cpp checks the driver calls on any
// machine.
#include "support/TestUtil.h"

using namespace loom;
using loomtest::random_vector;

namespace {

#define REQUIRE_GPU()                                                                              \
  do {                                                                                             \
    std::string why;                                                                               \
    if (!runtime::GpuContext::usable(&why))                                                        \
      GTEST_SKIP() << "no usable GPU: " << why;                                                    \
  } while (0)

Kernel make_accumulate() {
  return kernel("accumulate",
                [](F32 a, Array<float> x, Array<float> y) {
                  parallel_for(x.size(), [&](Index i) { y[i] = y[i] + a * x[i]; });
                },
                {"a", "x", "y"});
}

TEST(Async, TwoStreamsInterleavedGiveTheInOrderResults) {
  REQUIRE_GPU();
  Kernel k = make_accumulate().on(ir::Target::GPU);
  const size_t n = (size_t(1) << 22) + 5;
  // Small integers: every partial result is exact in f32, so the check is exact.
  auto x1 = random_vector<int32_t>(n, -8, 8, 1), x2 = random_vector<int32_t>(n, -8, 8, 2);
  std::vector<float> fx1(x1.begin(), x1.end()), fx2(x2.begin(), x2.end());
  DeviceArray<float> dx1(fx1), dx2(fx2), dy1(std::vector<float>(n, 1.0f)),
      dy2(std::vector<float>(n, -1.0f));
  Stream s1, s2;
  Event start1, stop1;
  start1.record(&s1);
  for (int r = 0; r < 20; ++r) {
    k.launch_async(s1, 1.0f, dx1, dy1);
    k.launch_async(s2, 2.0f, dx2, dy2);
  }
  stop1.record(&s1);
  s2.synchronize();
  float ms = stop1.elapsed_ms(start1);
  EXPECT_GT(ms, 0.0f);
  EXPECT_TRUE(stop1.done());
  std::vector<float> y1 = dy1.to_host(), y2 = dy2.to_host();
  for (size_t i = 0; i < n; ++i) {
    ASSERT_EQ(1.0f + 20.0f * fx1[i], y1[i]) << "stream 1, element " << i;
    ASSERT_EQ(-1.0f + 40.0f * fx2[i], y2[i]) << "stream 2, element " << i;
  }
}

TEST(Async, ReductionAlternatingBetweenStreams) {
  REQUIRE_GPU();
  Kernel sum = kernel("sum_async",
                      [](Array<int32_t> x, Array<int64_t> total) {
                        parallel_for(x.size(), [&](Index i) { total[0] += I64(x[i]); });
                      },
                      {"x", "total"})
                   .on(ir::Target::GPU);
  const size_t n = (size_t(1) << 24) + 3;
  auto x = random_vector<int32_t>(n, -1000000, 1000000, 3);
  int64_t exact = 0;
  for (int32_t v : x)
    exact += v;
  DeviceArray<int32_t> dx(x);
  DeviceArray<int64_t> t1(std::vector<int64_t>{0}), t2(std::vector<int64_t>{5});
  Stream a, b;
  for (int r = 0; r < 6; ++r) {
    sum.launch_async(a, dx, t1);
    sum.launch_async(b, dx, t2);
  }
  a.synchronize();
  b.synchronize();
  EXPECT_EQ(6 * exact, t1.to_host()[0]);
  EXPECT_EQ(5 + 6 * exact, t2.to_host()[0]);
}

} // namespace
