// Tiered compiles (Kernel::tiered) against loom's fake driver (tests/cache/FakeCudaDriver.cpp),
// so that the switching runs on any machine: quick code first, the optimized code from a
// background compile next, what waits for what, and what is never compiled twice.
// tests/e2e/tiered_test.cpp checks both tiers' results on a real GPU.
#include "cache/FakeDriver.h"

#include "loom/loom.hpp"
#include "runtime/Driver.h"

#include <gtest/gtest.h>

#include <chrono>
#include <thread>

using namespace loom;
using namespace loomtest;

namespace {

const bool fake_driver_loaded = fake_cuda::load_without_disk_cache();

using fake_cuda::calls;

Kernel make_axpb(const std::string &name) {
  return kernel(name,
                [](F32 a, Array<float> x, Array<float> y, F32 b) {
                  parallel_for(x.size(), [&](Index i) { y[i] = a * x[i] + b; });
                },
                {"a", "x", "y", "b"});
}

bool quick(const Kernel &k) {
  return k.compile_times().detail.find("quick code compiled by LLVM") != std::string::npos;
}
bool optimized(const Kernel &k) {
  return k.compile_times().detail.find("optimized code, made in the background") !=
         std::string::npos;
}

TEST(TieredCompile, QuickCodeFirstThenTheOptimizedCode) {
  ASSERT_TRUE(fake_driver_loaded) << runtime::Driver::get().unavailable_reason();
  Kernel k = make_axpb("axpb_tiered").on(ir::Target::GPU).tiered();
  auto x = DeviceArray<float>::uninitialized({4096});
  auto y = DeviceArray<float>::uninitialized({4096});
  const int links = calls("cuLinkComplete"), launches = calls("cuLaunchKernel");
  k(2.0f, x, y, 1.0f);
  EXPECT_TRUE(quick(k)) << k.compile_times().detail;
  EXPECT_NE(k.explain().find("tier: quick code"), std::string::npos) << k.explain();
  k.await_optimized();
  EXPECT_EQ(links + 2, calls("cuLinkComplete")) << "the quick code and the optimized code";
  EXPECT_TRUE(optimized(k)) << k.compile_times().detail;
  EXPECT_NE(k.explain().find("tier: optimized code"), std::string::npos) << k.explain();
  for (int i = 0; i < 5; ++i)
    k(2.0f, x, y, 1.0f);
  EXPECT_EQ(launches + 6, calls("cuLaunchKernel"));
  EXPECT_EQ(links + 2, calls("cuLinkComplete")) << "nothing compiled again";
  k.await_optimized(); // nothing in the background: returns at once
  EXPECT_TRUE(optimized(k));
}

TEST(TieredCompile, CallsSwitchByThemselves) {
  ASSERT_TRUE(fake_driver_loaded) << runtime::Driver::get().unavailable_reason();
  Kernel k = make_axpb("axpb_tiered_switch").on(ir::Target::GPU).tiered();
  auto x = DeviceArray<float>::uninitialized({1000});
  auto y = DeviceArray<float>::uninitialized({1000});
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  k(2.0f, x, y, 1.0f);
  EXPECT_TRUE(quick(k));
  while (!optimized(k) && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
    k(2.0f, x, y, 1.0f);
  }
  EXPECT_TRUE(optimized(k)) << k.compile_times().detail;
}

TEST(TieredCompile, OffUnlessAsked) {
  ASSERT_TRUE(fake_driver_loaded) << runtime::Driver::get().unavailable_reason();
  Kernel k = make_axpb("axpb_untiered").on(ir::Target::GPU);
  auto x = DeviceArray<float>::uninitialized({64});
  auto y = DeviceArray<float>::uninitialized({64});
  const int links = calls("cuLinkComplete");
  k(2.0f, x, y, 1.0f);
  EXPECT_EQ(k.compile_times().detail.rfind("compiled by LLVM", 0), 0u) << k.compile_times().detail;
  EXPECT_EQ(links + 1, calls("cuLinkComplete"));
  EXPECT_EQ(k.explain().find("tier:"), std::string::npos) << k.explain();
}

// An option that changes the code (here fast_math) waits for the background compile of the old
// code, which is dropped: the next call compiles quick code for the new options.
TEST(TieredCompile, ChangingTheCodeDropsTheBackgroundCompile) {
  ASSERT_TRUE(fake_driver_loaded) << runtime::Driver::get().unavailable_reason();
  Kernel k = make_axpb("axpb_tiered_options").on(ir::Target::GPU).tiered();
  auto x = DeviceArray<float>::uninitialized({64});
  auto y = DeviceArray<float>::uninitialized({64});
  k(2.0f, x, y, 1.0f);
  EXPECT_TRUE(quick(k));
  k.fast_math();
  k(2.0f, x, y, 1.0f);
  EXPECT_TRUE(quick(k)) << k.compile_times().detail;
  EXPECT_NE(k.explain().find("fastmath: on"), std::string::npos);
  k.await_optimized();
  EXPECT_TRUE(optimized(k)) << k.compile_times().detail;
}

// Kernel objects of one kernel share its optimized code through the memory cache: a second object
// created while the first one's background compile runs waits for that compile (no quick code,
// no second compile).
TEST(TieredCompile, OneOptimizedCompilePerKernel) {
  ASSERT_TRUE(fake_driver_loaded) << runtime::Driver::get().unavailable_reason();
  auto x = DeviceArray<float>::uninitialized({64});
  auto y = DeviceArray<float>::uninitialized({64});
  const int links = calls("cuLinkComplete");
  Kernel first = make_axpb("axpb_tiered_shared").on(ir::Target::GPU).tiered();
  first(2.0f, x, y, 1.0f);
  Kernel second = make_axpb("axpb_tiered_shared").on(ir::Target::GPU).tiered();
  second(2.0f, x, y, 1.0f);
  EXPECT_EQ(second.compile_times().source, CodeSource::MemoryCache)
      << second.compile_times().detail;
  first.await_optimized();
  EXPECT_EQ(links + 2, calls("cuLinkComplete"));
}

// Threads calling tiered kernels while their background compiles run (ThreadSanitizer runs this
// in CI's TSan stage).
TEST(TieredCompile, ThreadsCallingWhileCompilesRun) {
  ASSERT_TRUE(fake_driver_loaded) << runtime::Driver::get().unavailable_reason();
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([t] {
      Kernel own = make_axpb("axpb_tiered_thread" + std::to_string(t % 2)).on(ir::Target::GPU);
      own.tiered();
      auto x = DeviceArray<float>::uninitialized({256});
      auto y = DeviceArray<float>::uninitialized({256});
      for (int i = 0; i < 20; ++i)
        own(2.0f, x, y, 1.0f);
      own.await_optimized();
      own(2.0f, x, y, 1.0f);
    });
  for (std::thread &t : threads)
    t.join();
}

} // namespace
