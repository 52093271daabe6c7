// The in-memory cache: a new Kernel object identical to one this process compiled reuses its
// code, from any thread, without compiling or touching the disk.
#include "CacheTestUtil.h"

#include <atomic>
#include <thread>

using namespace loom;
using namespace loomtest;

namespace {

class MemoryCache : public CacheTest {};

TEST_F(MemoryCache, SecondKernelObjectReusesTheFirstsCode) {
  Kernel first = cpu(make_saxpy());
  EXPECT_TRUE(saxpy_is_correct(first));
  EXPECT_EQ(CodeSource::Compiled, first.compile_times().source);
  reset_cache_stats();

  Kernel second = cpu(make_saxpy());
  EXPECT_TRUE(saxpy_is_correct(second));
  CompileTimes t = second.compile_times();
  EXPECT_EQ(CodeSource::MemoryCache, t.source);
  EXPECT_EQ(0, t.llvm_ir_ms + t.optimize_ms + t.emit_ms + t.load_ms) << "nothing compiled";
  CacheStats stats = cache_stats();
  EXPECT_EQ(1u, stats.memory_hits);
  EXPECT_EQ(0u, stats.memory_misses);
  EXPECT_EQ(0u, stats.disk_hits + stats.disk_misses + stats.disk_writes) << "disk untouched";
  EXPECT_NE(std::string::npos, second.explain().find("code this process compiled"))
      << second.explain();
}

TEST_F(MemoryCache, CodeOutlivesTheKernelObjectThatCompiledIt) {
  {
    Kernel first = cpu(make_matmul());
    EXPECT_TRUE(matmul_is_correct(first));
  }
  Kernel second = cpu(make_matmul());
  EXPECT_TRUE(matmul_is_correct(second));
  EXPECT_EQ(CodeSource::MemoryCache, second.compile_times().source);
}

TEST_F(MemoryCache, ClearingSendsTheNextKernelToTheDisk) {
  Kernel first = cpu(make_saxpy());
  first.compile();
  clear_memory_cache();
  Kernel second = cpu(make_saxpy());
  second.compile();
  EXPECT_EQ(CodeSource::DiskCache, second.compile_times().source);
  // The first object keeps its code after the clear.
  EXPECT_TRUE(saxpy_is_correct(first));
  EXPECT_TRUE(saxpy_is_correct(second));
}

TEST_F(MemoryCache, DifferentKernelsDoNotShare) {
  // The same structure with another constant, or another parameter type, is another kernel.
  auto scale = [](double factor) {
    return kernel("scale", [factor](Array<double> x) {
      parallel_for(x.size(), [&](Index i) { x[i] = x[i] * factor; });
    });
  };
  Kernel a = cpu(scale(0.1)), b = cpu(scale(0.1 + 1e-15)), c = cpu(scale(0.1));
  std::vector<double> xa(4, 1.0), xb(4, 1.0), xc(4, 1.0);
  a(xa), b(xb), c(xc);
  EXPECT_EQ(0.1, xa[0]);
  EXPECT_EQ(0.1 + 1e-15, xb[0]);
  EXPECT_EQ(0.1, xc[0]);
  EXPECT_EQ(CodeSource::Compiled, a.compile_times().source);
  EXPECT_EQ(CodeSource::Compiled, b.compile_times().source);
  EXPECT_EQ(CodeSource::MemoryCache, c.compile_times().source);
}

TEST_F(MemoryCache, ThreadsCompilingTheSameKernelCompileItOnce) {
  constexpr int threads = 8;
  std::atomic<int> ready{0}, correct{0};
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t)
    pool.emplace_back([&] {
      Kernel k = cpu(make_matmul());
      ++ready;
      while (ready < threads) // start together, to race for the compile
        std::this_thread::yield();
      if (matmul_is_correct(k))
        ++correct;
    });
  for (std::thread &t : pool)
    t.join();
  EXPECT_EQ(threads, correct.load());
  CacheStats stats = cache_stats();
  EXPECT_EQ(1u, stats.memory_misses);
  EXPECT_EQ(uint64_t(threads - 1), stats.memory_hits);
  EXPECT_EQ(1u, stats.disk_writes);
}

TEST_F(MemoryCache, AFailedCompileIsNotCached) {
  // An unknown LOOM_CACHE value fails the compile; the next one, with a valid value, succeeds.
  {
    ScopedEnv bad("LOOM_CACHE", "bogus");
    Kernel k = cpu(make_saxpy());
    EXPECT_THROW(k.compile(), CacheError);
  }
  Kernel k = cpu(make_saxpy());
  EXPECT_TRUE(saxpy_is_correct(k));
  EXPECT_EQ(CodeSource::Compiled, k.compile_times().source);
}

} // namespace
