// PTX to machine code with nvJitLink, against the fake nvJitLink (FakeNvJitLink.cpp) and the fake
// driver, on any machine: LOOM_PTX_LINKER=auto picks nvJitLink when it is not newer than the
// driver and a kernel's first call links through it; a kernel nvJitLink fails on is linked by the
// driver instead, and LOOM_PTX_LINKER=nvjitlink makes that failure a LinkerError with the log.
// The rules of the choice are checked on their own (choose_ptx_linker). The newer-nvJitLink, the
// driver-only and the missing-library cases need their own processes (NvJitLinkNewerTest.cpp,
// NvJitLinkDriverOnlyTest.cpp, NvJitLinkMissingTest.cpp): nvJitLink loads once per process.
#include "FakeNvJitLink.h"

#include "runtime/GpuLinker.h"
#include "runtime/NvJitLink.h"

using namespace loom;
using namespace loomtest;

namespace {

const bool fake_driver_loaded = fake_nvjitlink::load("auto");

using fake_nvjitlink::calls;

bool contains(const std::string &text, const std::string &part) {
  return text.find(part) != std::string::npos;
}

class NvJitLinkTest : public CacheTest {
protected:
  void SetUp() override {
    ASSERT_TRUE(fake_driver_loaded) << runtime::Driver::get().unavailable_reason();
    ASSERT_TRUE(runtime::NvJitLink::get().available())
        << runtime::NvJitLink::get().unavailable_reason();
    CacheTest::SetUp();
    nvjitlink_links = calls("nvJitLinkComplete");
    driver_links = fake_cuda::calls("cuLinkComplete");
  }
  int new_nvjitlink_links() const { return calls("nvJitLinkComplete") - nvjitlink_links; }
  int new_driver_links() const { return fake_cuda::calls("cuLinkComplete") - driver_links; }

  int nvjitlink_links = 0, driver_links = 0;
};

TEST(PtxLinkerChoice, AutoTakesNvJitLinkOnlyWhenItIsNotNewerThanTheDriver) {
  using runtime::choose_ptx_linker;
  using Mode = runtime::PtxLinkerMode;
  EXPECT_TRUE(choose_ptx_linker(Mode::Auto, true, "", 12080, 12080).nvjitlink);
  EXPECT_TRUE(choose_ptx_linker(Mode::Auto, true, "", 12080, 13000).nvjitlink);
  runtime::PtxLinkerChoice newer = choose_ptx_linker(Mode::Auto, true, "", 13000, 12080);
  EXPECT_FALSE(newer.nvjitlink);
  EXPECT_EQ("nvJitLink 13.0 is newer than the driver (12.8), which may not load its machine code",
            newer.why_driver);
  // Forced, its version does not matter; the driver's mode never looks at nvJitLink.
  EXPECT_TRUE(choose_ptx_linker(Mode::NvJitLink, true, "", 13000, 12080).nvjitlink);
  runtime::PtxLinkerChoice driver = choose_ptx_linker(Mode::Driver, true, "", 12080, 13000);
  EXPECT_FALSE(driver.nvjitlink);
  EXPECT_EQ("LOOM_PTX_LINKER=driver", driver.why_driver);
  runtime::PtxLinkerChoice missing = choose_ptx_linker(Mode::Auto, false, "not found", 0, 13000);
  EXPECT_FALSE(missing.nvjitlink);
  EXPECT_EQ("not found", missing.why_driver);
  try {
    choose_ptx_linker(Mode::NvJitLink, false, "not found", 0, 13000);
    ADD_FAILURE() << "no LinkerError";
  } catch (const LinkerError &e) {
    EXPECT_EQ("LOOM_PTX_LINKER=nvjitlink, but nvJitLink cannot be used: not found",
              std::string(e.what()));
  }
}

TEST(PtxLinkerChoice, ModeComesFromTheEnvironment) {
  {
    ScopedEnv unset("LOOM_PTX_LINKER", std::nullopt);
    EXPECT_EQ(runtime::PtxLinkerMode::Driver, runtime::ptx_linker_mode());
    EXPECT_EQ("the default (LOOM_PTX_LINKER=auto uses nvJitLink where it can)",
              runtime::choose_ptx_linker(runtime::ptx_linker_mode()).why_driver);
  }
  {
    ScopedEnv driver("LOOM_PTX_LINKER", "driver");
    EXPECT_EQ(runtime::PtxLinkerMode::Driver, runtime::ptx_linker_mode());
  }
  {
    ScopedEnv forced("LOOM_PTX_LINKER", "nvjitlink");
    EXPECT_EQ(runtime::PtxLinkerMode::NvJitLink, runtime::ptx_linker_mode());
  }
  ScopedEnv bad("LOOM_PTX_LINKER", "ptxas");
  try {
    runtime::ptx_linker_mode();
    ADD_FAILURE() << "no LinkerError";
  } catch (const LinkerError &e) {
    EXPECT_TRUE(contains(e.what(), "LOOM_PTX_LINKER=ptxas is not valid")) << e.what();
  }
}

TEST_F(NvJitLinkTest, AutoLinksAKernelWithNvJitLinkWhenItIsNotNewerThanTheDriver) {
  const runtime::NvJitLink &lib = runtime::NvJitLink::get();
  EXPECT_EQ(12030, lib.version());
  EXPECT_EQ(fake_nvjitlink::path(), lib.library());
  EXPECT_EQ(0u, lib.identity().find("nvJitLink 12.3 ")) << lib.identity();

  Kernel k = fake_nvjitlink::saxpy_called_once();
  EXPECT_EQ(1, new_nvjitlink_links());
  EXPECT_EQ(0, new_driver_links());
  EXPECT_EQ(calls("nvJitLinkCreate"), calls("nvJitLinkDestroy")) << "every handle destroyed";
  EXPECT_EQ("-arch=sm_90 -O3", fake_nvjitlink::last_options()); // the fake device is 9.0
  EXPECT_EQ("compiled by LLVM, linked to machine code by nvJitLink 12.3", k.compile_times().detail);
  std::string explain = k.explain();
  EXPECT_TRUE(contains(explain, "  PTX to machine code: nvJitLink 12.3 (" + fake_nvjitlink::path() +
                                    ", in process)"))
      << explain;

  // The cubin the disk cache keeps is nvJitLink's, under a key that names it.
  std::string cubin = read_bytes(only_entry("gpu-cubin"));
  EXPECT_TRUE(contains(cubin, "// linked by the fake nvJitLink with -arch=sm_90 -O3\n"));
  EXPECT_TRUE(contains(cubin, "\nlinker: " + lib.identity() + "\n"));
  EXPECT_EQ(lib.identity(), runtime::ptx_linker_identity());
  {
    ScopedEnv driver("LOOM_PTX_LINKER", "driver");
    EXPECT_EQ("driver", runtime::ptx_linker_identity());
  }

  // A second process would load that cubin: no link at all.
  clear_memory_cache();
  Kernel again = fake_nvjitlink::saxpy_called_once();
  EXPECT_EQ(CodeSource::DiskCache, again.compile_times().source);
  EXPECT_EQ(1, new_nvjitlink_links());
}

TEST_F(NvJitLinkTest, AutoFallsBackToTheDriverForAKernelNvJitLinkFailsOn) {
  ScopedEnv fail("FAKE_NVJITLINK_FAIL", "1");
  Kernel k = fake_nvjitlink::saxpy_called_once();
  EXPECT_EQ(1, new_nvjitlink_links());
  EXPECT_EQ(1, new_driver_links());
  EXPECT_EQ(calls("nvJitLinkCreate"), calls("nvJitLinkDestroy")) << "every handle destroyed";
  EXPECT_EQ("compiled by LLVM, linked to machine code by the driver (nvJitLink failed: "
            "NVJITLINK_ERROR_PTX_COMPILE)",
            k.compile_times().detail);
  // The failure is not lost: explain() names it, with nvJitLink's log.
  std::string explain = k.explain();
  EXPECT_TRUE(contains(explain, "the driver's linker for kernels nvJitLink failed on, the first: "
                                "nvJitLinkComplete(saxpy) failed: NVJITLINK_ERROR_PTX_COMPILE"))
      << explain;
  EXPECT_TRUE(contains(explain, "the fake nvJitLink was told to fail")) << explain;
  EXPECT_FALSE(contains(read_bytes(only_entry("gpu-cubin")), "fake nvJitLink"))
      << "the driver's cubin";
}

TEST_F(NvJitLinkTest, ForcedNvJitLinkFailureIsALinkerErrorWithTheLog) {
  ScopedEnv forced("LOOM_PTX_LINKER", "nvjitlink");
  ScopedEnv fail("FAKE_NVJITLINK_FAIL", "1");
  try {
    fake_nvjitlink::saxpy_called_once();
    ADD_FAILURE() << "no LinkerError";
  } catch (const LinkerError &e) {
    EXPECT_EQ("nvJitLinkComplete(saxpy)", e.call());
    EXPECT_EQ(int(runtime::NVJITLINK_ERROR_PTX_COMPILE), e.code());
    EXPECT_EQ("NVJITLINK_ERROR_PTX_COMPILE", e.code_name());
    EXPECT_EQ("ptxas fatal   : the fake nvJitLink was told to fail", e.log());
    std::string message = e.what();
    EXPECT_EQ(0u, message.find("nvJitLinkComplete(saxpy) failed: NVJITLINK_ERROR_PTX_COMPILE "
                               "(nvJitLink 12.3, " +
                               fake_nvjitlink::path() + ")\nnvJitLink error log:\nptxas fatal"))
        << message;
  }
  EXPECT_EQ(1, new_nvjitlink_links());
  EXPECT_EQ(0, new_driver_links()) << "forced: no fallback";
  EXPECT_EQ(calls("nvJitLinkCreate"), calls("nvJitLinkDestroy")) << "every handle destroyed";
}

TEST_F(NvJitLinkTest, LinkPtxFollowsTheModeItIsGiven) {
  std::string ptx = make_saxpy().ptx("sm_90");
  std::string linked_by;
  std::string cubin = runtime::link_ptx(ptx, "saxpy", runtime::PtxLinkerMode::Driver, &linked_by);
  EXPECT_EQ("the driver", linked_by);
  EXPECT_EQ(1, new_driver_links());
  EXPECT_FALSE(contains(cubin, "fake nvJitLink"));
  cubin = runtime::link_ptx(ptx, "saxpy", runtime::PtxLinkerMode::NvJitLink, &linked_by);
  EXPECT_EQ("nvJitLink 12.3", linked_by);
  EXPECT_EQ(1, new_nvjitlink_links());
  EXPECT_EQ(0u, cubin.find("FAKECUBIN\n// linked by the fake nvJitLink"));
  EXPECT_EQ(cubin, runtime::link_with_nvjitlink(ptx, "saxpy", 9, 0));
}

} // namespace
