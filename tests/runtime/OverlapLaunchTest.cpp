// A task loop's launches overlapping (programmatic dependent launch), against loom's fake driver
// (tests/cache/FakeCudaDriver.cpp, a device of compute capability 9.0): which kernels wait for
// the grid before them in their PTX, which launches of the captured graph ask the driver to begin
// early, and what explain() says. Built twice: runtime_overlap_launch_test, and
// runtime_overlap_off_test with LOOM_OVERLAP_LAUNCHES=0, which must launch none of them early.
// tests/e2e/task_loop_test.cpp checks the results of such graphs on a real GPU.
#include "cache/FakeDriver.h"

#include "loom/loom.hpp"
#include "runtime/Driver.h"
#include "support/Settings.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

using namespace loom;
using namespace loomtest;

namespace {

const bool fake_driver_loaded = [] {
#ifdef LOOM_OVERLAP_OFF
  setenv("LOOM_OVERLAP_LAUNCHES", "0", 1);
#endif
  return fake_cuda::load_without_disk_cache();
}();

using fake_cuda::calls;

// Two steps per iteration of the task loop: 2 * steps launches in one graph.
Kernel stencil_steps() {
  return kernel("steps", [](I64 steps, Array2<float> u, Array2<float> v) {
    for_range(steps, [&](Index) {
      parallel_for({range(1, u.dim(0) - 1), range(1, u.dim(1) - 1)}, [&](Index i, Index j) {
        v(i, j) = 0.25f * ((u(i - 1, j) + u(i + 1, j)) + (u(i, j - 1) + u(i, j + 1)));
      });
      parallel_for({range(1, u.dim(0) - 1), range(1, u.dim(1) - 1)}, [&](Index i, Index j) {
        u(i, j) = 0.25f * ((v(i - 1, j) + v(i + 1, j)) + (v(i, j - 1) + v(i, j + 1)));
      });
    });
  });
}

size_t count(const std::string &text, const std::string &what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1))
    ++n;
  return n;
}

TEST(OverlapLaunch, TaskLoopKernelsWaitForTheGridBeforeThemFromSm90On) {
  ASSERT_TRUE(fake_driver_loaded) << runtime::Driver::get().unavailable_reason();
  Kernel k = stencil_steps();
  const std::string sm90 = k.ptx("sm_90");
  // Each of the two kernels waits, then lets the next launch begin, before its first access.
  EXPECT_EQ(count(sm90, "griddepcontrol.wait;"), 2u) << sm90;
  EXPECT_EQ(count(sm90, "griddepcontrol.launch_dependents;"), 2u) << sm90;
  const size_t wait = sm90.find("griddepcontrol.wait;");
  EXPECT_LT(wait, sm90.find("ld.global")) << sm90;
  EXPECT_LT(wait, sm90.find("griddepcontrol.launch_dependents;")) << sm90;
  // sm_80 has no griddepcontrol; a kernel without task loops is launched alone.
  EXPECT_EQ(k.ptx("sm_80").find("griddepcontrol"), std::string::npos);
  Kernel saxpy = kernel("saxpy", [](F32 a, Array<float> x, Array<float> y) {
    parallel_for(x.size(), [&](Index i) { y[i] = a * x[i] + y[i]; });
  });
  EXPECT_EQ(saxpy.ptx("sm_90").find("griddepcontrol"), std::string::npos);
}

TEST(OverlapLaunch, EveryLaunchAfterTheFirstOverlapsTheOneBefore) {
  ASSERT_TRUE(fake_driver_loaded) << runtime::Driver::get().unavailable_reason();
  Kernel k = stencil_steps().on(ir::Target::GPU);
  const int64_t n = 64, steps = 5;
  auto u = DeviceArray<float>::uninitialized({n, n});
  auto v = DeviceArray<float>::uninitialized({n, n});
  const int ex = calls("cuLaunchKernelEx"), programmatic = calls("programmatic launch"),
            plain = calls("cuLaunchKernel");
  k(steps, u, v);
  const int early = settings::overlap_launches() ? 2 * steps - 1 : 0;
  EXPECT_EQ(calls("programmatic launch") - programmatic, early);
  EXPECT_EQ(calls("cuLaunchKernelEx") - ex, early);
  EXPECT_EQ(calls("cuLaunchKernel") - plain, 2 * steps - early); // the first one at least
  const std::string explained = k.explain();
  EXPECT_NE(explained.find("programmatic dependent launch"), std::string::npos) << explained;
  EXPECT_NE(explained.find("captured a new graph (the first call, or other launches); " +
                           std::to_string(early) + " launches overlapping the one before"),
            std::string::npos)
      << explained;
  // The same launches again: the kept graph, nothing captured.
  k(steps, u, v);
  EXPECT_EQ(calls("programmatic launch") - programmatic, early);
  EXPECT_NE(k.explain().find("ran the graph of the call before again; " + std::to_string(early) +
                             " launches overlapping"),
            std::string::npos)
      << k.explain();
}

// A driver that refuses programmatic launches in a capture gets the plain graph, captured again:
// the call runs, and explain() says that no launch overlapped.
TEST(OverlapLaunch, ADriverThatRefusesThemGetsThePlainGraph) {
  ASSERT_TRUE(fake_driver_loaded) << runtime::Driver::get().unavailable_reason();
  if (!settings::overlap_launches())
    GTEST_SKIP() << "LOOM_OVERLAP_LAUNCHES=0: no programmatic launch is asked for";
  Kernel k = stencil_steps().on(ir::Target::GPU);
  const int64_t n = 32, steps = 3;
  auto u = DeviceArray<float>::uninitialized({n, n});
  auto v = DeviceArray<float>::uninitialized({n, n});
  setenv("FAKE_CUDA_NO_PROGRAMMATIC", "1", 1);
  const int ex = calls("cuLaunchKernelEx"), programmatic = calls("programmatic launch"),
            plain = calls("cuLaunchKernel"), captures = calls("cuStreamBeginCapture_v2");
  k(steps, u, v);
  unsetenv("FAKE_CUDA_NO_PROGRAMMATIC");
  EXPECT_EQ(calls("cuLaunchKernelEx") - ex, 1); // the first refused one, then none
  EXPECT_EQ(calls("programmatic launch") - programmatic, 0);
  EXPECT_EQ(calls("cuLaunchKernel") - plain, 1 + 2 * steps); // the first try's first launch too
  EXPECT_EQ(calls("cuStreamBeginCapture_v2") - captures, 2);
  EXPECT_NE(k.explain().find("0 launches overlapping"), std::string::npos) << k.explain();
  // The kernel does not ask again.
  k(int64_t{1}, u, v);
  EXPECT_EQ(calls("cuLaunchKernelEx") - ex, 1);
}

} // namespace
