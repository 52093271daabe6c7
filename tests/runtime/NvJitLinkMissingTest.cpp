// LOOM_NVJITLINK names a library that does not exist: nvJitLink says why it cannot be used, auto
// links with the driver and explain() gives that reason, and LOOM_PTX_LINKER=nvjitlink fails with
// a LinkerError giving it. Its own process: nvJitLink loads once.
#include "FakeNvJitLink.h"

#include "runtime/GpuLinker.h"
#include "runtime/NvJitLink.h"

using namespace loom;
using namespace loomtest;

namespace {

constexpr const char *missing_library = "/nonexistent/libnvJitLink.so.12";

bool load_with_a_missing_nvjitlink() {
  bool driver = fake_nvjitlink::load("auto");
  setenv("LOOM_NVJITLINK", missing_library, 1);
  return driver;
}
const bool fake_driver_loaded = load_with_a_missing_nvjitlink();

const std::string reason =
    std::string(missing_library) + " (from LOOM_NVJITLINK) could not be loaded (";

TEST(NvJitLinkMissing, SaysWhyAndAutoLinksWithTheDriver) {
  ASSERT_TRUE(fake_driver_loaded) << runtime::Driver::get().unavailable_reason();
  const runtime::NvJitLink &lib = runtime::NvJitLink::get();
  EXPECT_FALSE(lib.available());
  EXPECT_EQ(0u, lib.unavailable_reason().find(reason)) << lib.unavailable_reason();
  EXPECT_EQ(nullptr, lib.nvJitLinkCreate) << "no half-resolved entry points";

  ScopedEnv no_disk_cache("LOOM_CACHE", "off"); // so that the call links
  clear_memory_cache();
  int driver_links = fake_cuda::calls("cuLinkComplete");
  Kernel k = fake_nvjitlink::saxpy_called_once();
  EXPECT_EQ(driver_links + 1, fake_cuda::calls("cuLinkComplete"));
  std::string explain = k.explain();
  EXPECT_NE(
      std::string::npos,
      explain.find("  PTX to machine code: the driver's linker (cuLink*), because: " + reason))
      << explain;
}

TEST(NvJitLinkMissing, ForcedIsALinkerErrorSayingWhy) {
  ASSERT_TRUE(fake_driver_loaded) << runtime::Driver::get().unavailable_reason();
  ScopedEnv forced("LOOM_PTX_LINKER", "nvjitlink");
  ScopedEnv no_disk_cache("LOOM_CACHE", "off");
  clear_memory_cache();
  try {
    fake_nvjitlink::saxpy_called_once();
    ADD_FAILURE() << "no LinkerError";
  } catch (const LinkerError &e) {
    EXPECT_EQ(0u, std::string(e.what()).find(
                      "LOOM_PTX_LINKER=nvjitlink, but nvJitLink cannot be used: " + reason))
        << e.what();
  }
}

} // namespace
