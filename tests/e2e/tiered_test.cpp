// Tiered compiles (Kernel::tiered): a GPU kernel whose code is in neither cache first runs quick
// code (codegen::GpuTarget::quick) while its optimized code compiles on another thread, then
// switches to it. Both tiers must compute the kernel's results: checked against references
// computed in double, integers exactly, before and after the switch.
#include "codegen/Codegen.h"
#include "ir/Lower.h"
#include "support/TestUtil.h"

#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <thread>

using namespace loom;

namespace {

bool skip_without_gpu(std::string *why) {
  return !runtime::GpuContext::usable(why);
}

bool runs_quick_code(const Kernel &k) {
  return k.compile_times().detail.find("quick code") != std::string::npos;
}

bool runs_optimized_code(const Kernel &k) {
  return k.compile_times().detail.find("optimized code, made in the background") !=
         std::string::npos;
}

// The disk cache off for this binary: a tiered kernel whose code is cached gets no quick code.
// Set once, before any compile, as background compiles read the environment.
class CacheOff : public ::testing::Environment {
public:
  void SetUp() override { setenv("LOOM_CACHE", "off", 1); }
};
const auto *const cache_off = ::testing::AddGlobalTestEnvironment(new CacheOff);

Kernel make_matmul(const std::string &name) {
  return kernel(name, [](Array2<float> A, Array2<float> B, Array2<float> C) {
    parallel_for({C.dim(0), C.dim(1)}, [&](Index i, Index j) {
      Var<float> acc = 0.0f;
      for_range(A.dim(1), [&](Index l) { acc += A(i, l) * B(l, j); });
      C(i, j) = acc;
    });
  });
}

// The quick PTX needs no GPU: it is valid PTX (ptxas assembles it where ptxas is installed) and
// skips O3's work: the matmul's k loop is not unrolled (one fma per iteration instead of 16).
TEST(Tiered, QuickPtxIsPlainerAndAssembles) {
  Kernel k = make_matmul("matmul_quick_ptx");
  ir::LoweredKernel lowered =
      ir::lower(k.ir(), ir::Target::GPU, nullptr, {.covering_launch = true});
  codegen::GpuTarget target;
  target.index32 = true;
  std::string optimized = codegen::emit_ptx(lowered, target);
  target.quick = true;
  std::string quick = codegen::emit_ptx(lowered, target);
  auto count = [](const std::string &text, const std::string &what) {
    size_t n = 0;
    for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1))
      ++n;
    return n;
  };
  EXPECT_NE(quick.find(".entry matmul_quick_ptx"), std::string::npos) << quick;
  EXPECT_EQ(count(quick, "fma.rn.f32"), 1u) << quick;
  EXPECT_GE(count(optimized, "fma.rn.f32"), 16u) << optimized;

  std::string ptxas = loomtest::ptxas_path();
  if (ptxas.empty()) {
    std::printf("[  NOTE    ] ptxas not found: the quick PTX was not assembled\n");
    return;
  }
  char path[] = "/tmp/loom_quick_XXXXXX";
  int fd = mkstemp(path);
  ASSERT_GE(fd, 0);
  close(fd);
  std::ofstream(path) << quick;
  std::string cmd = ptxas + " -arch=sm_90 " + path + " -o /dev/null";
  EXPECT_EQ(std::system(cmd.c_str()), 0) << quick;
  std::remove(path);
}

// The CPU has no tiers: a tiered kernel on the CPU compiles once, optimized.
TEST(Tiered, CpuCompilesOnceOptimized) {
  auto k = kernel("saxpy_tiered_cpu", [](F32 a, Array<float> x, Array<float> y) {
    parallel_for(x.size(), [&](Index i) { y[i] = a * x[i] + y[i]; });
  });
  k.on(ir::Target::CPU).tiered();
  std::vector<float> x = loomtest::random_vector<float>(1000, -1, 1, 3), y(1000, 0.25f);
  k(2.0f, x, y);
  for (size_t i = 0; i < x.size(); ++i)
    ASSERT_FLOAT_EQ(y[i], std::fma(2.0f, x[i], 0.25f)) << i;
  EXPECT_FALSE(runs_quick_code(k)) << k.compile_times().detail;
  k.await_optimized(); // nothing compiles in the background: returns at once
  EXPECT_EQ(k.explain().find("tier:"), std::string::npos) << k.explain();
}

// saxpy: the first call's quick code, then the optimized code once await_optimized() returns,
// each checked against a * x + y computed in double (both round once per element: fma).
TEST(TieredGpu, FirstCallRunsQuickCodeThenTheOptimized) {
  std::string why;
  if (skip_without_gpu(&why))
    GTEST_SKIP() << "no usable GPU: " << why;
  auto k = kernel("saxpy_tiered", [](F32 a, Array<float> x, Array<float> y) {
    parallel_for(x.size(), [&](Index i) { y[i] = a * x[i] + y[i]; });
  });
  k.on(ir::Target::GPU).tiered();
  const size_t n = (1 << 20) + 7;
  std::vector<float> x = loomtest::random_vector<float>(n, -1, 1, 11);
  const std::vector<float> y0 = loomtest::random_vector<float>(n, -1, 1, 12);
  auto check = [&](const char *tier) {
    std::vector<float> y = y0;
    k(1.5f, x, y);
    for (size_t i = 0; i < n; ++i)
      ASSERT_EQ(y[i], float(1.5 * double(x[i]) + double(y0[i]))) << tier << " code, element " << i;
  };
  check("quick");
  EXPECT_TRUE(runs_quick_code(k)) << k.compile_times().detail;
  EXPECT_NE(k.explain().find("tier: quick code"), std::string::npos) << k.explain();
  k.await_optimized();
  EXPECT_TRUE(runs_optimized_code(k)) << k.compile_times().detail;
  check("optimized");
  EXPECT_NE(k.explain().find("tier: optimized code"), std::string::npos) << k.explain();
}

// Without await_optimized(), calls switch by themselves once the background compile is done.
TEST(TieredGpu, CallsSwitchToTheOptimizedCodeByThemselves) {
  std::string why;
  if (skip_without_gpu(&why))
    GTEST_SKIP() << "no usable GPU: " << why;
  const int64_t n = 96, kk = 80, m = 112;
  auto A = loomtest::random_vector<float>(n * kk, -1, 1, 21);
  auto B = loomtest::random_vector<float>(kk * m, -1, 1, 22);
  Kernel k = make_matmul("matmul_tiered").on(ir::Target::GPU).tiered();
  bool quick_seen = false;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  do {
    std::vector<float> C(n * m, NAN);
    k(view(A, {n, kk}), view(B, {kk, m}), view(C, {n, m}));
    loomtest::expect_matmul(A, B, C, n, kk, m);
    quick_seen = quick_seen || runs_quick_code(k);
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  } while (!runs_optimized_code(k) && std::chrono::steady_clock::now() < deadline);
  EXPECT_TRUE(quick_seen);
  EXPECT_TRUE(runs_optimized_code(k)) << k.compile_times().detail;
}

// Libdevice math, a reduction across blocks and a SIMT kernel with shared memory, barriers and
// atomics, each in both tiers.
TEST(TieredGpu, MathReductionsAndSimtKernels) {
  std::string why;
  if (skip_without_gpu(&why))
    GTEST_SKIP() << "no usable GPU: " << why;
  const int64_t rows = 300, cols = 257;
  auto x = loomtest::random_vector<float>(rows * cols, -4, 4, 31);
  auto softmax = kernel("softmax_tiered", [](Array2<float> x, Array2<float> y) {
    parallel_for(x.dim(0), [&](Index i) {
      Var<float> top = x(i, 0);
      for_range(x.dim(1), [&](Index j) { top = select(x(i, j) > top, x(i, j), top); });
      Var<float> total = 0.0f;
      for_range(x.dim(1), [&](Index j) { total += exp(x(i, j) - top); });
      for_range(x.dim(1), [&](Index j) { y(i, j) = exp(x(i, j) - top) / total; });
    });
  });
  auto sum = kernel("sum_tiered", [](Array<float> x, Array<double> total) {
    parallel_for(x.size(), [&](Index i) { total[0] += F64(x[i]); });
  });
  auto block_count = simt_kernel("block_count_tiered",
                                 [](Array<int32_t> x, Array<int32_t> counts) {
                                   auto seen = shared_array<int32_t>(16);
                                   I32 t = thread_idx().x;
                                   if_(t < 16, [&] { seen[t] = 0; });
                                   barrier();
                                   Index i = grid<1>();
                                   if_(i < x.size(), [&] { atomic_add(seen[x[i] % 16], 1); });
                                   barrier();
                                   if_(t < 16, [&] { atomic_add(counts[t], seen[t]); });
                                 },
                                 {"x", "counts"});
  softmax.on(ir::Target::GPU).tiered();
  sum.on(ir::Target::GPU).tiered();
  block_count.on(ir::Target::GPU).tiered();
  const size_t n = 200000;
  auto values = loomtest::random_vector<int32_t>(n, 0, 1 << 20, 32);
  block_count.shape(unsigned((n + 127) / 128), 128);

  for (const char *tier : {"quick", "optimized"}) {
    SCOPED_TRACE(std::string(tier) + " code");
    std::vector<float> y(rows * cols, NAN);
    softmax(view(x, {rows, cols}), view(y, {rows, cols}));
    for (int64_t i = 0; i < rows; ++i) {
      double top = x[i * cols], total = 0;
      for (int64_t j = 0; j < cols; ++j)
        top = std::max(top, double(x[i * cols + j]));
      for (int64_t j = 0; j < cols; ++j)
        total += std::exp(double(x[i * cols + j]) - top);
      for (int64_t j = 0; j < cols; ++j)
        // f32 exponentials (a few ulp) and a sum of 257 of them in f32.
        ASSERT_NEAR(y[i * cols + j], std::exp(double(x[i * cols + j]) - top) / total,
                    2e-5 * std::exp(double(x[i * cols + j]) - top) / total + 1e-12)
            << i << "," << j;
    }
    std::vector<double> total{0.5};
    sum(x, total);
    double ref = 0.5, mag = 0.5;
    for (float v : x)
      ref += v, mag += std::abs(v);
    EXPECT_NEAR(total[0], ref, 1e-11 * mag); // 77,100 doubles summed in any order
    std::vector<int32_t> counts(16, 0), want(16, 0);
    block_count(values, counts);
    for (int32_t v : values)
      ++want[v % 16];
    EXPECT_EQ(counts, want);
    if (std::string(tier) == "quick") {
      EXPECT_TRUE(runs_quick_code(softmax)) << softmax.compile_times().detail;
      EXPECT_TRUE(runs_quick_code(sum)) << sum.compile_times().detail;
      EXPECT_TRUE(runs_quick_code(block_count)) << block_count.compile_times().detail;
      softmax.await_optimized();
      sum.await_optimized();
      block_count.await_optimized();
    } else {
      EXPECT_TRUE(runs_optimized_code(softmax)) << softmax.compile_times().detail;
      EXPECT_TRUE(runs_optimized_code(sum)) << sum.compile_times().detail;
      EXPECT_TRUE(runs_optimized_code(block_count)) << block_count.compile_times().detail;
    }
  }
}

// Code already compiled (here: by another Kernel object of the same kernel, in the memory cache)
// is used as it is: no quick code, nothing in the background.
TEST(TieredGpu, CodeInTheMemoryCacheIsUsedAsItIs) {
  std::string why;
  if (skip_without_gpu(&why))
    GTEST_SKIP() << "no usable GPU: " << why;
  const int64_t n = 33, kk = 17, m = 65;
  auto A = loomtest::random_vector<float>(n * kk, -1, 1, 41);
  auto B = loomtest::random_vector<float>(kk * m, -1, 1, 42);
  std::vector<float> C(n * m, NAN);
  Kernel first = make_matmul("matmul_tiered_cached").on(ir::Target::GPU);
  first(view(A, {n, kk}), view(B, {kk, m}), view(C, {n, m}));
  Kernel second = make_matmul("matmul_tiered_cached").on(ir::Target::GPU).tiered();
  std::fill(C.begin(), C.end(), NAN);
  second(view(A, {n, kk}), view(B, {kk, m}), view(C, {n, m}));
  loomtest::expect_matmul(A, B, C, n, kk, m);
  EXPECT_EQ(second.compile_times().source, CodeSource::MemoryCache)
      << second.compile_times().detail;
  EXPECT_FALSE(runs_quick_code(second));
}

} // namespace
