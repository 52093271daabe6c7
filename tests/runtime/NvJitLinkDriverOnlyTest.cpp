// LOOM_PTX_LINKER=driver: kernels are linked by the driver and nvJitLink is never loaded, though
// LOOM_NVJITLINK names a usable one. Its own process, so that nothing else has loaded it.
#include "FakeNvJitLink.h"

#include "runtime/GpuLinker.h"

using namespace loom;
using namespace loomtest;

namespace {

const bool fake_driver_loaded = fake_nvjitlink::load("driver");

TEST(NvJitLinkDriverOnly, TheDriverLinksAndNvJitLinkIsNeverLoaded) {
  ASSERT_TRUE(fake_driver_loaded) << runtime::Driver::get().unavailable_reason();
  ScopedEnv no_disk_cache("LOOM_CACHE", "off"); // so that the call links
  clear_memory_cache();
  int driver_links = fake_cuda::calls("cuLinkComplete");
  Kernel k = fake_nvjitlink::saxpy_called_once();
  EXPECT_EQ(driver_links + 1, fake_cuda::calls("cuLinkComplete"));
  EXPECT_EQ("compiled by LLVM, linked to machine code by the driver", k.compile_times().detail);
  std::string explain = k.explain();
  EXPECT_NE(std::string::npos, explain.find("  PTX to machine code: the driver's linker "
                                            "(cuLink*), because: LOOM_PTX_LINKER=driver\n"))
      << explain;
  EXPECT_EQ("driver", runtime::ptx_linker_identity());
  EXPECT_FALSE(fake_nvjitlink::is_loaded()) << "nvJitLink was loaded";
}

} // namespace
