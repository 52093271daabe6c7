// A kernel's scratch arrays (ir::ScratchArray) on the GPU path, against loom's fake driver
// (tests/cache/FakeCudaDriver.cpp): pathfinder's loop of 99 steps, 16 a launch
// (ir/StepsPerLaunch.cpp), launches a copy of its first row and then its steps task 7 times; the
// two rows the launches pass on are device memory the kernel object allocates on its first call,
// keeps for the next, and grows for a wider call. explain() names the steps.
// tests/e2e/steps_per_launch_test.cpp checks the results on a real GPU.
#include "cache/FakeDriver.h"
#include "support/Pathfinder.h"

#include "loom/loom.hpp"
#include "runtime/Driver.h"

#include <gtest/gtest.h>

#include <string>

using namespace loom;
using namespace loomtest;

namespace {

const bool fake_driver_loaded = fake_cuda::load_without_disk_cache();

using fake_cuda::calls;

int launches() {
  return calls("cuLaunchKernel") + calls("cuLaunchKernelEx");
}

TEST(ScratchArray, AllocatedOnceAndGrownForAWiderCall) {
  ASSERT_TRUE(fake_driver_loaded) << runtime::Driver::get().unavailable_reason();
  Module m = compile(pathfinder_source);
  Kernel k = m["pathfinder"].on(ir::Target::GPU);
  auto wall = DeviceArray<int32_t>::uninitialized({100, 5000});
  auto cost = DeviceArray<int32_t>::uninitialized({2, 5000});
  int allocs = calls("cuMemAlloc_v2"), before = launches();
  k(wall, cost);
  EXPECT_EQ(calls("cuMemAlloc_v2") - allocs, 1); // the rows, 2 x 5,000 i32
  EXPECT_EQ(launches() - before, 8);             // the copy, then ceil(99 / 16) launches
  const std::string explained = k.explain();
  EXPECT_NE(explained.find("16 steps of the loop over 't' a launch: blocks of 256 threads compute "
                           "224 columns of 'cost' each"),
            std::string::npos)
      << explained;
  EXPECT_NE(explained.find("copies row [0] of 'cost' for the loop's first launch to read"),
            std::string::npos)
      << explained;

  // The same extents, and fewer columns: the kernel's row again.
  allocs = calls("cuMemAlloc_v2");
  k(wall, cost);
  EXPECT_EQ(calls("cuMemAlloc_v2") - allocs, 0);
  auto narrow_wall = DeviceArray<int32_t>::uninitialized({20, 1000});
  auto narrow_cost = DeviceArray<int32_t>::uninitialized({2, 1000});
  allocs = calls("cuMemAlloc_v2");
  before = launches();
  k(narrow_wall, narrow_cost);
  EXPECT_EQ(calls("cuMemAlloc_v2") - allocs, 0);
  EXPECT_EQ(launches() - before, 3); // the copy; 19 steps: 16, then 3

  // More columns: larger rows.
  auto wide_wall = DeviceArray<int32_t>::uninitialized({3, 9000});
  auto wide_cost = DeviceArray<int32_t>::uninitialized({2, 9000});
  allocs = calls("cuMemAlloc_v2");
  k(wide_wall, wide_cost);
  EXPECT_EQ(calls("cuMemAlloc_v2") - allocs, 1);
}

} // namespace
