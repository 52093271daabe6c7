// GPU code in the caches: PTX and machine code (cubin, linked by the driver) on disk, loaded
// without LLVM or the driver's JIT by a later Kernel object; the in-memory cache on the GPU.
// Skipped, saying why, without a usable GPU.
#include "CacheTestUtil.h"

using namespace loom;
using namespace loomtest;

namespace {

class GpuCache : public CacheTest {
protected:
  void SetUp() override {
    std::string why;
    if (!runtime::GpuContext::usable(&why))
      GTEST_SKIP() << "no usable GPU: " << why;
    CacheTest::SetUp();
  }
  Kernel gpu(Kernel k) {
    k.on(ir::Target::GPU);
    return k;
  }
  // A new matmul Kernel object on the GPU with nothing in the in-memory cache, checked.
  CompileTimes compile_matmul() {
    clear_memory_cache();
    Kernel k = gpu(make_matmul());
    EXPECT_TRUE(matmul_is_correct(k));
    return k.compile_times();
  }
};

TEST_F(GpuCache, MachineCodeFromTheDiskSkipsLlvmAndTheDriverJit) {
  CompileTimes first = compile_matmul();
  EXPECT_EQ(CodeSource::Compiled, first.source);
  EXPECT_EQ("compiled by LLVM, linked to machine code by the driver", first.detail);
  EXPECT_GT(first.link_ms, 0);
  std::string ptx = only_entry("gpu-ptx"), cubin = only_entry("gpu-cubin");
  std::string why;
  EXPECT_TRUE(entry_is_valid(ptx, &why)) << why;
  EXPECT_TRUE(entry_is_valid(cubin, &why)) << why;
  EXPECT_EQ(2u, cache_stats().disk_writes);

  reset_cache_stats();
  CompileTimes second = compile_matmul();
  EXPECT_EQ(CodeSource::DiskCache, second.source);
  EXPECT_EQ("machine code (cubin) from the disk cache", second.detail);
  EXPECT_EQ(0, second.llvm_ir_ms + second.optimize_ms + second.emit_ms + second.link_ms);
  EXPECT_EQ(1u, cache_stats().disk_hits);
  EXPECT_EQ(0u, cache_stats().disk_writes);
}

TEST_F(GpuCache, PtxStillComesFromTheDiskWhenTheCubinIsDamaged) {
  ASSERT_EQ(CodeSource::Compiled, compile_matmul().source);
  std::string cubin = only_entry("gpu-cubin");
  std::string bytes = read_bytes(cubin);
  bytes[bytes.size() / 2] ^= 0x40;
  write_bytes(cubin, bytes);

  reset_cache_stats();
  CompileTimes t = compile_matmul();
  EXPECT_EQ(CodeSource::DiskCache, t.source);
  EXPECT_EQ("PTX from the disk cache, linked to machine code by the driver", t.detail);
  EXPECT_EQ(0, t.optimize_ms) << "LLVM does not run";
  CacheStats stats = cache_stats();
  EXPECT_EQ(1u, stats.disk_rejected);
  EXPECT_EQ(1u, stats.disk_hits);   // the PTX
  EXPECT_EQ(1u, stats.disk_writes); // the cubin, rewritten
  std::string why;
  EXPECT_TRUE(entry_is_valid(cubin, &why)) << why;
  EXPECT_EQ(CodeSource::DiskCache, compile_matmul().source);
}

TEST_F(GpuCache, CubinOfAnotherArchitectureIsRefusedAndReplaced) {
  // A whole, well-formed entry whose payload the driver refuses: the load fails, the entry is
  // counted as rejected, and the kernel is linked again.
  ASSERT_EQ(CodeSource::Compiled, compile_matmul().source);
  std::string cubin = only_entry("gpu-cubin");
  std::string bytes = read_bytes(cubin);
  uint64_t key_size = 0;
  for (int b = 0; b < 8; ++b)
    key_size |= uint64_t(static_cast<unsigned char>(bytes[16 + b])) << (8 * b);
  write_bytes(cubin, encode_cache_entry(bytes.substr(cache_entry_header_size, key_size),
                                        std::string(4096, '\0')));
  reset_cache_stats();
  CompileTimes t = compile_matmul();
  EXPECT_EQ(CodeSource::DiskCache, t.source) << t.detail; // from the cached PTX
  EXPECT_EQ(1u, cache_stats().disk_rejected);
  EXPECT_NE(std::string::npos, cache_stats().last_problem.find("refused when loaded"))
      << cache_stats().last_problem;
}

TEST_F(GpuCache, SecondKernelObjectSharesTheLoadedModule) {
  Kernel first = gpu(make_saxpy());
  EXPECT_TRUE(saxpy_is_correct(first));
  reset_cache_stats();
  Kernel second = gpu(make_saxpy());
  EXPECT_TRUE(saxpy_is_correct(second));
  EXPECT_EQ(CodeSource::MemoryCache, second.compile_times().source);
  EXPECT_EQ(1u, cache_stats().memory_hits);
  EXPECT_EQ(0u, cache_stats().disk_hits + cache_stats().disk_misses);
  EXPECT_EQ(first.ptx(), second.ptx());
}

TEST_F(GpuCache, PtxIsAvailableAfterADiskHit) {
  Kernel first = gpu(make_saxpy());
  first.compile();
  std::string ptx = first.ptx();
  clear_memory_cache();
  Kernel second = gpu(make_saxpy());
  second.compile();
  EXPECT_EQ(CodeSource::DiskCache, second.compile_times().source);
  EXPECT_EQ(ptx, second.ptx()) << "regenerated when the cubin came from the disk";
}

} // namespace
