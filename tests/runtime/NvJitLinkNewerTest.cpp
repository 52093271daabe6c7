// An nvJitLink newer than the driver (the fake reports 13.0, the fake driver 12.4): auto links
// with the driver, since the driver may not load a newer toolkit's cubin, and says so; forced,
// nvJitLink is used anyway. Its own process: nvJitLink reports its version once, when loaded.
#include "FakeNvJitLink.h"

#include "runtime/GpuLinker.h"
#include "runtime/NvJitLink.h"

using namespace loom;
using namespace loomtest;

namespace {

const bool fake_driver_loaded = fake_nvjitlink::load("auto", "13.0");

class NvJitLinkNewer : public CacheTest {
protected:
  void SetUp() override {
    ASSERT_TRUE(fake_driver_loaded) << runtime::Driver::get().unavailable_reason();
    CacheTest::SetUp();
  }
};

TEST_F(NvJitLinkNewer, AutoLinksWithTheDriver) {
  int nvjitlink_links = fake_nvjitlink::calls("nvJitLinkComplete");
  int driver_links = fake_cuda::calls("cuLinkComplete");
  Kernel k = fake_nvjitlink::saxpy_called_once();
  EXPECT_EQ(13000, runtime::NvJitLink::get().version());
  EXPECT_EQ(nvjitlink_links, fake_nvjitlink::calls("nvJitLinkComplete"));
  EXPECT_EQ(driver_links + 1, fake_cuda::calls("cuLinkComplete"));
  EXPECT_EQ("compiled by LLVM, linked to machine code by the driver", k.compile_times().detail);
  EXPECT_EQ("driver", runtime::ptx_linker_identity());
  std::string explain = k.explain();
  EXPECT_NE(std::string::npos,
            explain.find("  PTX to machine code: the driver's linker (cuLink*), because: "
                         "nvJitLink 13.0 is newer than the driver (12.4), which may not load its "
                         "machine code\n"))
      << explain;
}

TEST_F(NvJitLinkNewer, ForcedUsesNvJitLinkAnyway) {
  ScopedEnv forced("LOOM_PTX_LINKER", "nvjitlink");
  int nvjitlink_links = fake_nvjitlink::calls("nvJitLinkComplete");
  Kernel k = fake_nvjitlink::saxpy_called_once();
  EXPECT_EQ(nvjitlink_links + 1, fake_nvjitlink::calls("nvJitLinkComplete"));
  EXPECT_EQ("compiled by LLVM, linked to machine code by nvJitLink 13.0", k.compile_times().detail);
}

} // namespace
