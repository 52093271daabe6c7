// A sticky driver error (an illegal address inside a kernel, a trap) leaves the GPU context
// unusable: loom marks it poisoned, and every later GPU operation of the process fails at once
// with loom::ContextPoisonedError, without calling the driver. Against loom's fake driver
// (tests/cache/FakeCudaDriver.cpp), so it runs on any machine; its own process, because the
// poisoning lasts for the process. The same on a real GPU: GpuTest.cpp, IllegalAddress*.
#include "cache/FakeDriver.h"

#include "loom/loom.hpp"
#include "runtime/Driver.h"

#include <gtest/gtest.h>

#include <random>

using namespace loom;
using namespace loomtest;

namespace {

const bool fake_driver_loaded = fake_cuda::load_without_disk_cache();

using fake_cuda::calls;
void trap_at_next_synchronize() {
  fake_cuda::function<void (*)()>("loom_fake_cuda_trap")();
}
int driver_calls() {
  return calls("cuLaunchKernel") + calls("cuMemAlloc_v2") + calls("cuMemcpyHtoD_v2") +
         calls("cuMemcpyDtoH_v2") + calls("cuCtxSynchronize");
}

TEST(PoisonedContext, AStickyErrorPoisonsTheContextAndLaterCallsFailFast) {
  ASSERT_TRUE(fake_driver_loaded) << runtime::Driver::get().unavailable_reason();
  Kernel saxpy = make_saxpy().on(ir::Target::GPU);
  std::vector<float> x(1000, 1.0f), y(1000, 2.0f);
  ASSERT_NO_THROW(saxpy(2.0f, x, y));
  EXPECT_FALSE(runtime::Driver::get().poisoned());

  // The kernel "faults": the synchronization after it reports an illegal address.
  trap_at_next_synchronize();
  try {
    saxpy(2.0f, x, y);
    FAIL() << "the faulting call did not throw";
  } catch (const ContextPoisonedError &e) {
    FAIL() << "the first failure must be the driver's own error, not the poisoned one: "
           << e.what();
  } catch (const DriverError &e) {
    EXPECT_EQ("cuCtxSynchronize after saxpy", e.call());
    EXPECT_EQ("CUDA_ERROR_ILLEGAL_ADDRESS", e.code_name());
    EXPECT_NE(std::string::npos, std::string(e.what()).find("context is now unusable")) << e.what();
  }
  EXPECT_TRUE(runtime::Driver::get().poisoned());

  // Every later GPU operation fails at once, naming the first failure, without a driver call.
  const int before = driver_calls();
  for (int attempt = 0; attempt < 3; ++attempt) {
    try {
      saxpy(2.0f, x, y);
      FAIL() << "a call on a poisoned context did not throw";
    } catch (const ContextPoisonedError &e) {
      EXPECT_EQ("cuCtxSynchronize after saxpy", e.call());
      EXPECT_EQ("CUDA_ERROR_ILLEGAL_ADDRESS", e.code_name());
      std::string what = e.what();
      EXPECT_NE(std::string::npos, what.find("the GPU context is unusable since "
                                             "cuCtxSynchronize after saxpy failed: "
                                             "CUDA_ERROR_ILLEGAL_ADDRESS"))
          << what;
      EXPECT_NE(std::string::npos, what.find("restart the process")) << what;
    }
  }
  // Device memory and compiling a new kernel for the GPU fail the same way.
  EXPECT_THROW(runtime::DeviceBuffer(1024), ContextPoisonedError);
  clear_memory_cache();
  Kernel scale = loom::kernel("scale",
                              [](F32 a, Array<float> in, Array<float> out) {
                                parallel_for(in.size(), [&](Index i) { out[i] = a * in[i]; });
                              },
                              {"a", "in", "out"})
                     .on(ir::Target::GPU);
  EXPECT_THROW(scale(3.0f, x, y), ContextPoisonedError);
  EXPECT_EQ(before, driver_calls()) << "a poisoned context was used again";

  // The CPU target is unaffected.
  Kernel on_cpu = make_saxpy().on(ir::Target::CPU);
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> dist(-4.0f, 4.0f);
  for (size_t i = 0; i < x.size(); ++i)
    x[i] = dist(rng), y[i] = dist(rng);
  std::vector<float> expected(y.size());
  for (size_t i = 0; i < y.size(); ++i)
    expected[i] = static_cast<float>(1.5 * static_cast<double>(x[i]) + y[i]);
  on_cpu(1.5f, x, y);
  for (size_t i = 0; i < y.size(); ++i)
    ASSERT_NEAR(expected[i], y[i], 1e-5f * (1.0f + std::fabs(expected[i]))) << "at " << i;
}

} // namespace
