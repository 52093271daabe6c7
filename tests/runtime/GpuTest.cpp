// The runtime against a real GPU: device arrays, the driver's JIT, grid sizing and launches. Each
// test is skipped, saying why, when there is no usable GPU.
#include "runtime/DeviceArray.h"
#include "runtime/Driver.h"
#include "runtime/GpuContext.h"
#include "runtime/GpuModule.h"
#include "runtime/GridShape.h"
#include "runtime/Launch.h"
#include "runtime/PinnedStaging.h"
#include "support/Error.h"

#include <gtest/gtest.h>

#include <chrono>
#include <numeric>
#include <random>
#include <thread>

using namespace loom;
using namespace loom::runtime;

namespace {

#define REQUIRE_GPU()                                                                              \
  do {                                                                                             \
    std::string reason;                                                                            \
    if (!GpuContext::usable(&reason))                                                              \
      GTEST_SKIP() << "no usable GPU: " << reason;                                                 \
  } while (0)

// add_one(float *data, i64 n): data[i] += 1 over a grid-stride loop. Parameters follow
// support/Abi.h for one rank-1 array: its data pointer, then its extent. PTX ISA 6.4 for sm_75 is
// accepted by every driver loom supports and JIT-compiled for newer devices.
const char *const add_one_ptx = R"(
.version 6.4
.target sm_75
.address_size 64

.visible .entry add_one(
    .param .u64 data,
    .param .u64 n
)
{
    .reg .pred %p<2>;
    .reg .f32 %f<3>;
    .reg .b32 %r<5>;
    .reg .b64 %rd<9>;

    ld.param.u64 %rd1, [data];
    ld.param.u64 %rd2, [n];
    cvta.to.global.u64 %rd3, %rd1;
    mov.u32 %r1, %ctaid.x;
    mov.u32 %r2, %ntid.x;
    mov.u32 %r3, %tid.x;
    mov.u32 %r4, %nctaid.x;
    mul.wide.u32 %rd4, %r1, %r2;
    cvt.u64.u32 %rd5, %r3;
    add.s64 %rd4, %rd4, %rd5;
    mul.wide.u32 %rd6, %r4, %r2;
LOOP:
    setp.ge.s64 %p1, %rd4, %rd2;
    @%p1 bra DONE;
    shl.b64 %rd7, %rd4, 2;
    add.s64 %rd8, %rd3, %rd7;
    ld.global.f32 %f1, [%rd8];
    add.f32 %f2, %f1, 0f3F800000;
    st.global.f32 [%rd8], %f2;
    add.s64 %rd4, %rd4, %rd6;
    bra.uni LOOP;
DONE:
    ret;
}
)";

// Runs add_one over `array` with `shape` and waits for it.
void run_add_one(const GpuFunction &function, const GridShape &shape, DeviceArray<float> &array) {
  CUdeviceptr data = array.data();
  int64_t n = array.size();
  void *params[] = {&data, &n};
  launch(function, shape, params);
  synchronize(function.name);
}

std::vector<float> iota_floats(size_t n) {
  std::vector<float> values(n);
  std::iota(values.begin(), values.end(), 0.0f);
  return values;
}

bool contains(const std::string &text, const std::string &fragment) {
  return text.find(fragment) != std::string::npos;
}

} // namespace

TEST(runtime_gpu, DeviceInfoIsPlausible) {
  REQUIRE_GPU();
  const DeviceInfo &info = GpuContext::get().info();
  EXPECT_FALSE(info.name.empty());
  EXPECT_GE(info.cc_major, 5);
  EXPECT_GE(info.cc_minor, 0);
  EXPECT_GT(info.sm_count, 0);
  EXPECT_GE(info.driver_version, 11000);
  EXPECT_GT(info.total_memory, size_t{1} << 30);
  EXPECT_EQ(1024, info.max_threads_per_block);
  EXPECT_EQ(info.driver_version, [] {
    int version = 0;
    Driver::get().cuDriverGetVersion(&version);
    return version;
  }());
}

// Copies of 1 MiB or more go through the pinned staging buffers in 8 MiB chunks: sizes around the
// chunk size and an odd size of many chunks arrive intact, and a kernel sees what was copied.
TEST(runtime_gpu, LargeCopiesThroughTheStagingBuffersRoundTrip) {
  REQUIRE_GPU();
  std::mt19937 random(43);
  for (size_t n :
       {size_t(1) << 18, (size_t(2) << 20) - 1, (size_t(2) << 20) + 1, (size_t(25) << 20) + 7}) {
    std::vector<float> host(n);
    for (float &v : host)
      v = static_cast<float>(random() % 100000);
    DeviceArray<float> array(host);
    GpuModule module(add_one_ptx);
    GpuFunction add_one = module.function("add_one");
    run_add_one(add_one, choose_grid(add_one, {int64_t(n)}, GpuContext::get().info()), array);
    std::vector<float> back = array.to_host();
    ASSERT_EQ(n, back.size());
    for (size_t i = 0; i < n; ++i)
      ASSERT_EQ(host[i] + 1.0f, back[i]) << "element " << i << " of " << n;
  }
  EXPECT_TRUE(staging::available());
}

TEST(runtime_gpu, DeviceArrayRoundTripsRandomData) {
  REQUIRE_GPU();
  std::mt19937 random(42);
  std::uniform_real_distribution<float> uniform(-1e6f, 1e6f);
  std::vector<float> host(7 * 11 * 13);
  for (float &v : host)
    v = uniform(random);
  DeviceArray<float> array(host, {7, 11, 13});
  EXPECT_EQ(3, array.rank());
  EXPECT_EQ(11, array.dim(1));
  EXPECT_EQ(1001, array.size());
  EXPECT_EQ(1001 * sizeof(float), array.bytes());
  EXPECT_NE(0u, array.data());
  EXPECT_EQ(host, array.to_host());

  // Overwrite from the host and read back through a raw pointer.
  std::vector<float> other(host.rbegin(), host.rend());
  array.copy_from_host(other.data());
  std::vector<float> back(other.size());
  array.copy_to_host(back.data());
  EXPECT_EQ(other, back);

  std::vector<int64_t> big(1 << 20);
  std::iota(big.begin(), big.end(), int64_t{1} << 40);
  DeviceArray<int64_t> big_array(big);
  DeviceArray<int64_t> moved = std::move(big_array);
  EXPECT_EQ(big, moved.to_host());
}

TEST(runtime_gpu, OutOfMemoryNamesTheSizeAndTheFreeMemory) {
  REQUIRE_GPU();
  size_t one_pib = size_t{1} << 50;
  try {
    DeviceBuffer buffer(one_pib);
    FAIL() << "allocated 1 PiB";
  } catch (const OutOfMemoryError &e) {
    EXPECT_EQ(CUDA_ERROR_OUT_OF_MEMORY, e.code());
    EXPECT_EQ("cuMemAlloc_v2", e.call());
    EXPECT_TRUE(contains(e.what(), "cuMemAlloc_v2 failed: out of device memory: asked for 1.00 PiB "
                                   "(1125899906842624 bytes), "))
        << e.what();
    EXPECT_TRUE(contains(e.what(), " free of ")) << e.what();
  }
  // The failure leaves the context usable.
  DeviceArray<float> after(std::vector<float>{1, 2, 3});
  EXPECT_EQ((std::vector<float>{1, 2, 3}), after.to_host());
}

TEST(runtime_gpu, ModuleLaunchWithChosenGrid) {
  REQUIRE_GPU();
  GpuModule module(add_one_ptx);
  GpuFunction add_one = module.function("add_one");
  EXPECT_EQ("add_one", add_one.name);
  EXPECT_GT(add_one.num_regs, 0);
  EXPECT_GT(add_one.max_threads_per_block, 0);
  EXPECT_LE(add_one.max_threads_per_block, 1024);

  const DeviceInfo &info = GpuContext::get().info();
  GridShape shape = choose_grid(add_one, {1000}, info);
  EXPECT_GE(shape.block[0], 32u);
  EXPECT_EQ(1u, shape.block[1]);
  EXPECT_EQ((1000 + shape.block[0] - 1) / shape.block[0], shape.grid[0]);
  EXPECT_TRUE(contains(shape.reason, "cuOccupancyMaxPotentialBlockSize suggests")) << shape.reason;

  std::vector<float> host = iota_floats(1000);
  DeviceArray<float> array(host);
  run_add_one(add_one, shape, array);
  std::vector<float> result = array.to_host();
  for (size_t i = 0; i < host.size(); ++i)
    ASSERT_EQ(host[i] + 1.0f, result[i]) << "at " << i;
}

TEST(runtime_gpu, GridStrideLoopCoversMoreThanTheGrid) {
  REQUIRE_GPU();
  GpuModule module(add_one_ptx);
  GpuFunction add_one = module.function("add_one");
  // 3 blocks of 128 threads over 2^20 + 5 elements: each thread loops ~2731 times.
  GridShape shape;
  shape.grid[0] = 3;
  shape.block[0] = 128;
  size_t n = (size_t{1} << 20) + 5;
  std::vector<float> host = iota_floats(n);
  DeviceArray<float> array(host);
  run_add_one(add_one, shape, array);
  run_add_one(add_one, shape, array);
  std::vector<float> result = array.to_host();
  for (size_t i = 0; i < n; ++i)
    ASSERT_EQ(host[i] + 2.0f, result[i]) << "at " << i;
}

TEST(runtime_gpu, MissingEntryPointIsNamed) {
  REQUIRE_GPU();
  GpuModule module(add_one_ptx);
  try {
    module.function("add_two");
    FAIL() << "expected DriverError";
  } catch (const DriverError &e) {
    EXPECT_EQ(CUDA_ERROR_NOT_FOUND, e.code());
    EXPECT_TRUE(contains(e.what(), "cuModuleGetFunction(add_two) failed: CUDA_ERROR_NOT_FOUND"))
        << e.what();
  }
}

TEST(runtime_gpu, MalformedPtxReportsTheJitLog) {
  REQUIRE_GPU();
  const char *broken = ".version 6.4\n.target sm_75\n.address_size 64\n"
                       ".visible .entry broken()\n{\n    bogus.instruction %r1;\n    ret;\n}\n";
  try {
    GpuModule module(broken);
    FAIL() << "expected DriverError";
  } catch (const DriverError &e) {
    EXPECT_EQ("cuModuleLoadDataEx", e.call());
    EXPECT_TRUE(contains(e.what(), "cuModuleLoadDataEx failed: ")) << e.what();
    EXPECT_TRUE(contains(e.what(), "JIT error log:")) << e.what();
    EXPECT_TRUE(contains(e.what(), "line 6")) << e.what(); // ptxas points at the bad line
    EXPECT_TRUE(contains(e.what(), "bogus")) << e.what();
  }
}

TEST(runtime_gpu, LaunchErrorNamesTheKernel) {
  REQUIRE_GPU();
  GpuModule module(add_one_ptx);
  GpuFunction add_one = module.function("add_one");
  GridShape shape;
  shape.block[0] = 2048; // more threads than any block may have
  DeviceArray<float> array(iota_floats(16));
  CUdeviceptr data = array.data();
  int64_t n = array.size();
  void *params[] = {&data, &n};
  try {
    launch(add_one, shape, params);
    FAIL() << "expected DriverError";
  } catch (const DriverError &e) {
    EXPECT_TRUE(contains(e.what(), "cuLaunchKernel(add_one) failed: CUDA_ERROR_INVALID_VALUE"))
        << e.what();
    EXPECT_TRUE(contains(e.what(), "block (2048,1,1)")) << e.what();
  }
  // The context survives a refused launch.
  EXPECT_NO_THROW(synchronize());
}

TEST(runtime_gpu, WorksFromAnotherThread) {
  REQUIRE_GPU();
  std::vector<float> result;
  std::string failure;
  std::thread worker([&] {
    try { // the context must be made current on this new thread by the runtime itself
      GpuModule module(add_one_ptx);
      GpuFunction add_one = module.function("add_one");
      DeviceArray<float> array(iota_floats(4096));
      run_add_one(add_one, choose_grid(add_one, {4096}, GpuContext::get().info()), array);
      result = array.to_host();
    } catch (const std::exception &e) {
      failure = e.what();
    }
  });
  worker.join();
  ASSERT_EQ("", failure);
  ASSERT_EQ(4096u, result.size());
  EXPECT_EQ(1.0f, result[0]);
  EXPECT_EQ(4096.0f, result[4095]);
}

TEST(runtime_gpu, TimerMeasuresKernelTime) {
  REQUIRE_GPU();
  GpuModule module(add_one_ptx);
  GpuFunction add_one = module.function("add_one");
  DeviceArray<float> array(iota_floats(size_t{1} << 24));
  CUdeviceptr data = array.data();
  int64_t n = array.size();
  void *params[] = {&data, &n};
  GridShape shape = choose_grid(add_one, {n}, GpuContext::get().info());
  synchronize();
  auto host_start = std::chrono::steady_clock::now();
  GpuTimer timer;
  timer.start();
  for (int i = 0; i < 10; ++i)
    launch(add_one, shape, params);
  timer.stop();
  float ms = timer.elapsed_ms();
  synchronize();
  double host_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - host_start)
          .count();
  // 10 passes over 64 MiB read and written: above a microsecond, and no longer than the host
  // waited for them (a bound that holds however slow the machine or a sanitizer makes them).
  EXPECT_GT(ms, 0.001f);
  EXPECT_LE(ms, host_ms + 0.5);
  std::vector<float> result = array.to_host();
  EXPECT_EQ(10.0f, result[0]);
  EXPECT_EQ(1010.0f, result[1000]);
}

// A kernel that stores 2^40 bytes past its buffer: an illegal address, a sticky error.
const char *const wild_store_ptx = R"(
.version 6.4
.target sm_75
.address_size 64

.visible .entry wild_store(
    .param .u64 data
)
{
    .reg .b64 %rd<3>;
    ld.param.u64 %rd1, [data];
    add.s64 %rd2, %rd1, 1099511627776;
    st.global.u32 [%rd2], 7;
    ret;
}
)";

// In a child process (a death test re-executes this binary), as the context stays unusable: the
// fault is reported by the synchronization after the kernel, naming it, and every later GPU
// operation fails at once with ContextPoisonedError naming that first failure. The child exits
// 0 when all of that held, else prints what did not.
TEST(runtime_gpu, IllegalAddressPoisonsTheContext) {
  REQUIRE_GPU();
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  auto child = [] {
    auto check = [](bool ok, const std::string &what) {
      if (!ok) {
        std::fprintf(stderr, "CHECK FAILED: %s\n", what.c_str());
        std::exit(1);
      }
    };
    GpuModule module(wild_store_ptx);
    GpuFunction wild_store = module.function("wild_store");
    DeviceArray<float> array(iota_floats(256));
    CUdeviceptr data = array.data();
    void *params[] = {&data};
    launch(wild_store, GridShape{}, params);
    try {
      synchronize(wild_store.name);
      check(false, "the fault was not reported");
    } catch (const ContextPoisonedError &e) {
      check(false, std::string("first report was ContextPoisonedError: ") + e.what());
    } catch (const DriverError &e) {
      check(e.call() == "cuCtxSynchronize after wild_store", "call: " + e.call());
      check(e.code_name() == "CUDA_ERROR_ILLEGAL_ADDRESS", "code: " + e.code_name());
    }
    check(Driver::get().poisoned(), "the context is not marked poisoned");
    try {
      DeviceArray<float> more(iota_floats(16));
      check(false, "an allocation on a poisoned context succeeded");
    } catch (const ContextPoisonedError &e) {
      check(contains(e.what(), "unusable since cuCtxSynchronize after wild_store failed: "
                               "CUDA_ERROR_ILLEGAL_ADDRESS"),
            e.what());
    }
    try {
      synchronize();
      check(false, "a synchronization on a poisoned context succeeded");
    } catch (const ContextPoisonedError &) {
    }
    std::fprintf(stderr, "POISONED AS EXPECTED\n");
    std::exit(0);
  };
  EXPECT_EXIT(child(), ::testing::ExitedWithCode(0), "POISONED AS EXPECTED");
}
