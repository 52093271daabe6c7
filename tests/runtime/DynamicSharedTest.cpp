// Dynamic shared memory on the GPU path, against loom's fake driver
// (tests/cache/FakeCudaDriver.cpp, which allows a block 48 KiB, or 227 KiB once the kernel opts
// in): the launch carries the size, a size past 48 KiB opts the kernel in once through
// cuFuncSetAttribute, a size past the device's limit less the kernel's static shared bytes is an
// ArgumentError naming both, and a refused cuFuncSetAttribute is a DriverError naming the call.
// tests/e2e/dynamic_shared_test.cpp checks results on a real GPU.
#include "cache/FakeDriver.h"

#include "loom/loom.hpp"
#include "runtime/Driver.h"

#include <gtest/gtest.h>

using namespace loom;
using namespace loomtest;

namespace {

const bool fake_driver_loaded = fake_cuda::load_without_disk_cache();

using fake_cuda::calls;
unsigned last_launch_shared_bytes() {
  return fake_cuda::function<unsigned (*)()>("loom_fake_cuda_last_launch_shared_bytes")();
}

// A dynamic f32 array after a static one of 1024 f32 (4 KiB), which it must leave room for.
Kernel make_kernel(const std::string &name) {
  return simt_kernel(name,
                     [](Array<float> out) {
                       auto fixed = shared_array<float>(1024);
                       auto tile = dynamic_shared_array<float>();
                       I32 t = thread_idx().x;
                       fixed[t] = 1.0f;
                       tile[t] = 2.0f;
                       barrier();
                       out[Index(t)] = fixed[t] + tile[tile.size() - 1 - Index(t)];
                     },
                     {"out"});
}

TEST(DynamicSharedGpu, TheLaunchCarriesTheSizeAndOptsInPast48KiB) {
  ASSERT_TRUE(fake_driver_loaded) << runtime::Driver::get().unavailable_reason();
  Kernel k = make_kernel("dynamic_opt_in").on(ir::Target::GPU);
  auto out = DeviceArray<float>::uninitialized({64});
  const int opted = calls("cuFuncSetAttribute");
  k.shape(1, 64, 40 * 1024)(out); // with the static 4 KiB: 44 KiB, no opt-in
  EXPECT_EQ(last_launch_shared_bytes(), 40u * 1024);
  EXPECT_EQ(calls("cuFuncSetAttribute"), opted);
  k.shape(1, 64, 100 * 1024)(out); // opts in (the fake refuses the launch otherwise)
  EXPECT_EQ(last_launch_shared_bytes(), 100u * 1024);
  EXPECT_EQ(calls("cuFuncSetAttribute"), opted + 1);
  k(out);
  k.shape(1, 64, 80 * 1024)(out); // within what it was allowed: no call
  EXPECT_EQ(last_launch_shared_bytes(), 80u * 1024);
  EXPECT_EQ(calls("cuFuncSetAttribute"), opted + 1);
  k.shape(1, 64, 223 * 1024)(out); // 227 KiB with the static 4 KiB: the most there is
  EXPECT_EQ(last_launch_shared_bytes(), 223u * 1024);
  EXPECT_EQ(calls("cuFuncSetAttribute"), opted + 2);
  EXPECT_NE(k.explain().find("228352 bytes of dynamic shared memory"), std::string::npos)
      << k.explain();
}

TEST(DynamicSharedGpu, PastTheDevicesLimitIsAnArgumentErrorNamingIt) {
  ASSERT_TRUE(fake_driver_loaded) << runtime::Driver::get().unavailable_reason();
  Kernel k = make_kernel("dynamic_too_large").on(ir::Target::GPU);
  auto out = DeviceArray<float>::uninitialized({64});
  const int launches = calls("cuLaunchKernel");
  try {
    k.shape(1, 64, 224 * 1024)(out);
    FAIL() << "224 KiB of dynamic shared memory next to 4 KiB of static";
  } catch (const ArgumentError &e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("at most 232448 bytes (227 KiB) of shared memory"), std::string::npos)
        << what;
    EXPECT_NE(what.find("its static shared arrays take 4096"), std::string::npos) << what;
    EXPECT_NE(what.find("at most 228352 bytes of dynamic shared memory"), std::string::npos)
        << what;
  }
  EXPECT_EQ(calls("cuLaunchKernel"), launches);
  // Missing and broken sizes are refused on the GPU path too.
  EXPECT_THROW(k.shape(1, 64)(out), ArgumentError);
  EXPECT_THROW(k.shape(1, 64, 1022)(out), ArgumentError);
  EXPECT_EQ(calls("cuLaunchKernel"), launches);
}

TEST(DynamicSharedGpu, ARefusedOptInIsADriverErrorNamingTheCall) {
  ASSERT_TRUE(fake_driver_loaded) << runtime::Driver::get().unavailable_reason();
  Kernel k = make_kernel("dynamic_refused").on(ir::Target::GPU);
  auto out = DeviceArray<float>::uninitialized({64});
  fake_cuda::function<void (*)()>("loom_fake_cuda_fail_set_attribute")();
  try {
    k.shape(1, 64, 64 * 1024)(out);
    FAIL() << "the refused cuFuncSetAttribute went unnoticed";
  } catch (const DriverError &e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("cuFuncSetAttribute(dynamic_refused, "
                        "CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, 65536)"),
              std::string::npos)
        << what;
  }
  k(out); // the next call asks again, and runs
  EXPECT_EQ(last_launch_shared_bytes(), 64u * 1024);
}

} // namespace
