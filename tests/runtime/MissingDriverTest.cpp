// With LOOM_CUDA_DRIVER naming a library that does not exist, the driver must report why it is
// unavailable and every GPU entry point must refuse with that reason. The driver is loaded once per
// process, so this is its own executable and sets the variable before anything loads it.
#include "runtime/DeviceArray.h"
#include "runtime/DeviceBuffer.h"
#include "runtime/Driver.h"
#include "runtime/GpuContext.h"
#include "runtime/GpuModule.h"
#include "support/Error.h"

#include <gtest/gtest.h>

#include <cstdlib>

using namespace loom;
using namespace loom::runtime;

namespace {

constexpr const char *missing_library = "/nonexistent/libcuda-for-loom-test.so.1";

// Points the driver at the missing library before the first Driver::get() in this process.
const Driver &missing_driver() {
  static const Driver &driver = []() -> const Driver & {
    setenv("LOOM_CUDA_DRIVER", missing_library, 1);
    return Driver::get();
  }();
  return driver;
}

bool contains(const std::string &text, const std::string &fragment) {
  return text.find(fragment) != std::string::npos;
}

} // namespace

TEST(runtime_missing_driver, ReasonNamesTheLibrary) {
  const Driver &driver = missing_driver();
  EXPECT_FALSE(driver.available());
  EXPECT_EQ(0, driver.device_count());
  EXPECT_EQ(missing_library, driver.library_path());
  const std::string &reason = driver.unavailable_reason();
  EXPECT_TRUE(contains(reason, std::string(missing_library) + " (from LOOM_CUDA_DRIVER) could "
                                                              "not be loaded ("))
      << reason;
  EXPECT_TRUE(contains(reason, "No such file or directory")) << reason; // dlerror's own words
  EXPECT_EQ(nullptr, driver.cuInit);
}

TEST(runtime_missing_driver, ContextRefusesWithTheReason) {
  missing_driver();
  std::string reason;
  EXPECT_FALSE(GpuContext::usable(&reason));
  EXPECT_TRUE(contains(reason, missing_library)) << reason;
  try {
    GpuContext::get();
    FAIL() << "expected TargetError";
  } catch (const TargetError &e) {
    EXPECT_TRUE(contains(e.what(), "no usable GPU: ")) << e.what();
    EXPECT_TRUE(contains(e.what(), missing_library)) << e.what();
  }
}

TEST(runtime_missing_driver, GpuObjectsRefuseWithTargetError) {
  missing_driver();
  EXPECT_THROW(DeviceBuffer(16), TargetError);
  EXPECT_THROW(DeviceArray<float>({4, 4}), TargetError);
  EXPECT_THROW(GpuModule(".version 6.4\n"), TargetError);
  // Nothing to allocate needs no GPU.
  EXPECT_NO_THROW(DeviceBuffer(0));
}

TEST(runtime_missing_driver, CheckNamesCallAndErrorWithoutTheDriver) {
  const Driver &driver = missing_driver();
  EXPECT_NO_THROW(driver.check(CUDA_SUCCESS, "cuInit"));
  try {
    driver.check(CUDA_ERROR_OUT_OF_MEMORY, "cuMemAlloc_v2");
    FAIL() << "expected OutOfMemoryError";
  } catch (const OutOfMemoryError &e) {
    EXPECT_EQ("cuMemAlloc_v2 failed: CUDA_ERROR_OUT_OF_MEMORY (out of memory)",
              std::string(e.what()));
    EXPECT_EQ("cuMemAlloc_v2", e.call());
    EXPECT_EQ(2, e.code());
    EXPECT_EQ("CUDA_ERROR_OUT_OF_MEMORY", e.code_name());
  }
  try {
    driver.check(CUDA_ERROR_ILLEGAL_ADDRESS, "cuCtxSynchronize");
    FAIL() << "expected DriverError";
  } catch (const DriverError &e) {
    EXPECT_TRUE(contains(e.what(), "cuCtxSynchronize failed: CUDA_ERROR_ILLEGAL_ADDRESS (an "
                                   "illegal memory access was encountered)"))
        << e.what();
    EXPECT_TRUE(contains(e.what(), "must restart")) << e.what();
  }
  try {
    driver.check(static_cast<CUresult>(12345), "cuSomething");
    FAIL() << "expected DriverError";
  } catch (const DriverError &e) {
    EXPECT_EQ("cuSomething failed: CUDA error 12345", std::string(e.what()));
  }
}
