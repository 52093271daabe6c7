// The GPU side of the compile caches against loom's fake driver (FakeCudaDriver.cpp), so that it
// runs where there is no GPU: which driver calls each path makes (link, cubin load, JIT), what it
// writes, and what it does with a cubin the driver refuses. Results are not checked: the fake
// driver's launches do nothing (GpuCacheTest.cpp checks them on a real GPU).
#include "CacheTestUtil.h"
#include "FakeDriver.h"

using namespace loom;
using namespace loomtest;

namespace {

// Points loom at the fake driver before anything loads a driver in this process.
const bool fake_driver_loaded = fake_cuda::load();

using fake_cuda::calls;

class FakeGpuCache : public CacheTest {
protected:
  void SetUp() override {
    ASSERT_TRUE(fake_driver_loaded) << runtime::Driver::get().unavailable_reason();
    CacheTest::SetUp();
    links = calls("cuLinkComplete");
    cubin_loads = calls("cuModuleLoadData");
    jit_loads = calls("cuModuleLoadDataEx");
  }
  // A new saxpy Kernel object on the (fake) GPU with nothing in the in-memory cache, called once.
  CompileTimes run_saxpy() {
    clear_memory_cache();
    Kernel k = make_saxpy().on(ir::Target::GPU);
    std::vector<float> x(100, 1.0f), y(100, 2.0f);
    k(2.0f, x, y);
    EXPECT_NE(std::string::npos, k.explain().find("code from: " + k.compile_times().detail))
        << k.explain();
    // The variant the call ran (small arrays: 32-bit indices) is the one a dump resolves to.
    loom::Variant v = k.variant();
    EXPECT_TRUE(v.index32);
    EXPECT_NE(std::string::npos, k.explain().find("variant: " + v.to_string())) << k.explain();
    return k.compile_times();
  }
  int new_links() const { return calls("cuLinkComplete") - links; }
  int new_cubin_loads() const { return calls("cuModuleLoadData") - cubin_loads; }
  int new_jit_loads() const { return calls("cuModuleLoadDataEx") - jit_loads; }

  int links = 0, cubin_loads = 0, jit_loads = 0;
};

TEST_F(FakeGpuCache, FirstCompileLinksACubinAndKeepsItAndThePtx) {
  CompileTimes t = run_saxpy();
  EXPECT_EQ(CodeSource::Compiled, t.source);
  EXPECT_EQ("compiled by LLVM, linked to machine code by the driver", t.detail);
  EXPECT_EQ(1, new_links());
  EXPECT_EQ(calls("cuLinkCreate_v2"), calls("cuLinkDestroy")) << "every link state destroyed";
  EXPECT_EQ(1, new_cubin_loads());
  EXPECT_EQ(0, new_jit_loads());
  std::string ptx = only_entry("gpu-ptx"), cubin = only_entry("gpu-cubin");
  std::string why;
  EXPECT_TRUE(entry_is_valid(ptx, &why)) << why;
  EXPECT_TRUE(entry_is_valid(cubin, &why)) << why;
  EXPECT_NE(std::string::npos, read_bytes(cubin).find("FAKECUBIN\n"));
  EXPECT_NE(std::string::npos, read_bytes(cubin).find("compute capability 9.0\ndriver: 12040\n"));
  EXPECT_NE(std::string::npos, read_bytes(ptx).find(".entry saxpy"));
}

TEST_F(FakeGpuCache, CubinFromTheDiskIsLoadedWithoutLlvmLinkOrJit) {
  run_saxpy();
  reset_cache_stats();
  links = calls("cuLinkComplete"), cubin_loads = calls("cuModuleLoadData");
  CompileTimes t = run_saxpy();
  EXPECT_EQ(CodeSource::DiskCache, t.source);
  EXPECT_EQ("machine code (cubin) from the disk cache", t.detail);
  EXPECT_EQ(0, t.llvm_ir_ms + t.optimize_ms + t.emit_ms + t.link_ms);
  EXPECT_EQ(0, new_links());
  EXPECT_EQ(1, new_cubin_loads());
  EXPECT_EQ(0, new_jit_loads());
  EXPECT_EQ(1u, cache_stats().disk_hits);
  EXPECT_EQ(0u, cache_stats().disk_writes);
}

TEST_F(FakeGpuCache, CubinTheDriverRefusesIsRejectedAndRelinkedFromCachedPtx) {
  run_saxpy();
  std::string cubin = only_entry("gpu-cubin");
  std::string bytes = read_bytes(cubin);
  uint64_t key_size = 0;
  for (int b = 0; b < 8; ++b)
    key_size |= uint64_t(static_cast<unsigned char>(bytes[16 + b])) << (8 * b);
  write_bytes(cubin, encode_cache_entry(bytes.substr(cache_entry_header_size, key_size),
                                        std::string("not a cubin", 12)));
  reset_cache_stats();
  links = calls("cuLinkComplete");
  CompileTimes t = run_saxpy();
  EXPECT_EQ(CodeSource::DiskCache, t.source);
  EXPECT_EQ("PTX from the disk cache, linked to machine code by the driver", t.detail);
  EXPECT_EQ(0, t.optimize_ms);
  EXPECT_EQ(1, new_links());
  CacheStats stats = cache_stats();
  EXPECT_EQ(1u, stats.disk_rejected);
  EXPECT_EQ(1u, stats.disk_hits);   // the PTX
  EXPECT_EQ(1u, stats.disk_writes); // the cubin again
  EXPECT_NE(std::string::npos, stats.last_problem.find("refused when loaded: cuModuleLoadData"))
      << stats.last_problem;
  std::string why;
  EXPECT_TRUE(entry_is_valid(cubin, &why)) << why;
  EXPECT_NE(std::string::npos, read_bytes(cubin).find("FAKECUBIN\n"));
}

TEST_F(FakeGpuCache, WithoutTheLinkerTheDriverJitLoadsThePtxAndOnlyPtxIsKept) {
  ScopedEnv no_link("FAKE_CUDA_NO_LINK", "1");
  CompileTimes t = run_saxpy();
  EXPECT_EQ(CodeSource::Compiled, t.source);
  EXPECT_EQ("compiled by LLVM, JIT-compiled by the driver when loaded", t.detail);
  EXPECT_EQ(1, new_jit_loads());
  EXPECT_EQ(0, new_cubin_loads());
  EXPECT_TRUE(files_starting_with(cache_dir(), "gpu-cubin-").empty());
  only_entry("gpu-ptx");

  reset_cache_stats();
  t = run_saxpy();
  EXPECT_EQ(CodeSource::DiskCache, t.source);
  EXPECT_EQ("PTX from the disk cache, JIT-compiled by the driver when loaded", t.detail);
  EXPECT_EQ(1u, cache_stats().disk_misses); // the cubin
  EXPECT_EQ(1u, cache_stats().disk_hits);   // the PTX
}

TEST_F(FakeGpuCache, SecondKernelObjectSharesTheModule) {
  Kernel first = make_saxpy().on(ir::Target::GPU);
  first.compile();
  int loads = calls("cuModuleLoadData") + calls("cuModuleLoadDataEx");
  reset_cache_stats();
  Kernel second = make_saxpy().on(ir::Target::GPU);
  second.compile();
  EXPECT_EQ(CodeSource::MemoryCache, second.compile_times().source);
  EXPECT_EQ(loads, calls("cuModuleLoadData") + calls("cuModuleLoadDataEx"));
  EXPECT_EQ(1u, cache_stats().memory_hits);
  EXPECT_EQ(first.ptx(), second.ptx());
}

TEST_F(FakeGpuCache, PtxIsRegeneratedWhenTheCubinCameFromTheDisk) {
  Kernel first = make_saxpy().on(ir::Target::GPU);
  first.compile();
  std::string ptx = first.ptx();
  clear_memory_cache();
  Kernel second = make_saxpy().on(ir::Target::GPU);
  second.compile();
  EXPECT_EQ(CodeSource::DiskCache, second.compile_times().source);
  EXPECT_EQ(ptx, second.ptx());
}

} // namespace
