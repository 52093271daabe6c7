// The CUDA toolkit's own nvJitLink on a real GPU: its cubin loads and computes the right results,
// as the driver's linker's does. Skipped, saying why, without a usable GPU, without nvJitLink, or
// when nvJitLink is newer than the driver (whose loader may refuse its cubin).
#include "cache/CacheTestUtil.h"

#include "runtime/GpuContext.h"
#include "runtime/GpuLinker.h"
#include "runtime/GpuModule.h"
#include "runtime/NvJitLink.h"

using namespace loom;
using namespace loomtest;

namespace {

#define REQUIRE_GPU_AND_NVJITLINK()                                                                \
  do {                                                                                             \
    std::string reason;                                                                            \
    if (!runtime::GpuContext::usable(&reason))                                                     \
      GTEST_SKIP() << "no usable GPU: " << reason;                                                 \
    const runtime::NvJitLink &lib = runtime::NvJitLink::get();                                     \
    if (!lib.available())                                                                          \
      GTEST_SKIP() << "no nvJitLink: " << lib.unavailable_reason();                                \
    int driver = runtime::GpuContext::get().info().driver_version;                                 \
    if (lib.version() > driver)                                                                    \
      GTEST_SKIP() << "nvJitLink " << lib.version() << " is newer than the driver " << driver;     \
  } while (0)

TEST(NvJitLinkGpu, CubinLoadsAndHasTheKernel) {
  REQUIRE_GPU_AND_NVJITLINK();
  const runtime::DeviceInfo &d = runtime::GpuContext::get().info();
  Kernel k = make_saxpy().on(ir::Target::GPU);
  std::string cubin = runtime::link_with_nvjitlink(k.ptx(), "saxpy", d.cc_major, d.cc_minor);
  EXPECT_EQ(0, cubin.compare(0, 4,
                             "\x7f"
                             "ELF"))
      << "a cubin is an ELF file";
  runtime::GpuModule module = runtime::GpuModule::from_cubin(cubin);
  EXPECT_GT(module.function(k.name()).num_regs, 0);
}

TEST(NvJitLinkGpu, KernelsLinkedByNvJitLinkComputeTheRightResults) {
  REQUIRE_GPU_AND_NVJITLINK();
  ScopedEnv forced("LOOM_PTX_LINKER", "nvjitlink");
  ScopedEnv no_disk_cache("LOOM_CACHE", "off");
  clear_memory_cache();
  Kernel saxpy = make_saxpy().on(ir::Target::GPU);
  EXPECT_TRUE(saxpy_is_correct(saxpy));
  EXPECT_EQ(0u, saxpy.compile_times().detail.find(
                    "compiled by LLVM, linked to machine code by nvJitLink "))
      << saxpy.compile_times().detail;
  Kernel matmul = make_matmul().on(ir::Target::GPU);
  EXPECT_TRUE(matmul_is_correct(matmul));
  clear_memory_cache();
}

} // namespace
