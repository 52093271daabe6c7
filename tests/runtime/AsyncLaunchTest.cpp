// Kernel::launch_async against loom's fake driver (tests/cache/FakeCudaDriver.cpp), so it runs on
// any machine: which driver calls an asynchronous launch makes and which it must not (no wait
// for the stream or the context), what it refuses, and when it must wait after all (reductions
// moving to another stream, bounds-checked kernels). tests/e2e/async_test.cpp checks results on
// a real GPU.
#include "cache/FakeDriver.h"

#include "loom/loom.hpp"
#include "runtime/Driver.h"

#include <gtest/gtest.h>

using namespace loom;
using namespace loomtest;

namespace {

const bool fake_driver_loaded = fake_cuda::load_without_disk_cache();

using fake_cuda::calls;
int waits() {
  return calls("cuCtxSynchronize") + calls("cuStreamSynchronize");
}

Kernel make_axpb() {
  return kernel("axpb",
                [](F32 a, Array<float> x, Array<float> y, F32 b) {
                  parallel_for(x.size(), [&](Index i) { y[i] = a * x[i] + b; });
                },
                {"a", "x", "y", "b"});
}

TEST(AsyncLaunch, QueuesWithoutWaitingAndWaitsOnlyWhenAsked) {
  ASSERT_TRUE(fake_driver_loaded) << runtime::Driver::get().unavailable_reason();
  Kernel k = make_axpb().on(ir::Target::GPU);
  auto x = DeviceArray<float>::uninitialized({4096});
  auto y = DeviceArray<float>::uninitialized({4096});
  Stream stream;
  k.launch_async(stream, 2.0f, x, y, 1.0f); // compiles on the first call
  const int launches = calls("cuLaunchKernel"), before = waits();
  for (int i = 0; i < 10; ++i)
    k.launch_async(stream, 2.0f, x, y, 1.0f);
  EXPECT_EQ(launches + 10, calls("cuLaunchKernel"));
  EXPECT_EQ(before, waits()) << "an asynchronous launch waited";
  stream.synchronize();
  EXPECT_EQ(before + 1, calls("cuStreamSynchronize") + calls("cuCtxSynchronize"));
  // A synchronous call still waits.
  k(2.0f, x, y, 1.0f);
  EXPECT_EQ(before + 2, waits());
}

TEST(AsyncLaunch, RefusesHostArrays) {
  ASSERT_TRUE(fake_driver_loaded) << runtime::Driver::get().unavailable_reason();
  Kernel k = make_axpb().on(ir::Target::GPU);
  auto x = DeviceArray<float>::uninitialized({16});
  std::vector<float> y(16, 0.0f);
  Stream stream;
  try {
    k.launch_async(stream, 2.0f, x, y, 1.0f);
    FAIL() << "no ArgumentError";
  } catch (const ArgumentError &e) {
    EXPECT_NE(std::string::npos,
              std::string(e.what()).find("argument 3 ('y') of kernel 'axpb' is a host array"))
        << e.what();
  }
}

TEST(AsyncLaunch, ReductionsWaitOnlyWhenTheyChangeStreams) {
  ASSERT_TRUE(fake_driver_loaded) << runtime::Driver::get().unavailable_reason();
  Kernel sum = kernel("sum_async",
                      [](Array<float> x, Array<float> total) {
                        parallel_for(x.size(), [&](Index i) { total[0] += x[i]; });
                      },
                      {"x", "total"})
                   .on(ir::Target::GPU);
  auto x = DeviceArray<float>::uninitialized({1 << 16});
  auto total = DeviceArray<float>::uninitialized({1});
  Stream a, b;
  sum.launch_async(a, x, total);
  int before = waits();
  sum.launch_async(a, x, total); // same stream: in order there, no wait
  EXPECT_EQ(before, waits());
  sum.launch_async(b, x, total); // the scratch memory moves to b: a's launches finish first
  EXPECT_EQ(before + 1, calls("cuStreamSynchronize") + calls("cuCtxSynchronize"));
  sum(x, total); // synchronous: waits for b's launch, then for itself
  EXPECT_EQ(before + 3, waits());
}

TEST(AsyncLaunch, BoundsCheckedLaunchWaitsForItsStream) {
  ASSERT_TRUE(fake_driver_loaded) << runtime::Driver::get().unavailable_reason();
  Kernel k = make_axpb().on(ir::Target::GPU);
  k.bounds_check();
  auto x = DeviceArray<float>::uninitialized({64});
  auto y = DeviceArray<float>::uninitialized({64});
  Stream stream;
  k.launch_async(stream, 2.0f, x, y, 1.0f);
  const int before = calls("cuStreamSynchronize");
  k.launch_async(stream, 2.0f, x, y, 1.0f);
  EXPECT_EQ(before + 1, calls("cuStreamSynchronize"));
}

TEST(AsyncLaunch, EventsRecordAndQuery) {
  ASSERT_TRUE(fake_driver_loaded) << runtime::Driver::get().unavailable_reason();
  Stream stream;
  Event start, stop;
  start.record(&stream);
  stop.record(&stream);
  EXPECT_TRUE(stop.done());
  EXPECT_GE(stop.elapsed_ms(start), 0.0f);
  Stream moved = std::move(stream);
  EXPECT_NO_THROW(moved.synchronize());
}

} // namespace
