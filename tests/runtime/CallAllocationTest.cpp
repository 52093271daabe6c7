// What a kernel call allocates. On the host heap: nothing, once a kernel has run with arguments of
// some ranks and extents (its working storage is reused, launch shapes are remembered). On the
// device: exactly the arrays the kernel needs, for the call only. The GPU path against loom's
// fake driver (tests/cache/FakeCudaDriver.cpp), which counts device memory, so it runs on any
// machine; the host heap also on the CPU path.
#include "cache/FakeDriver.h"

#include "loom/loom.hpp"
#include "runtime/Driver.h"
#include "runtime/PinnedStaging.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <new>
#include <random>

// Counting needs the program's own operator new; AddressSanitizer and ThreadSanitizer bring
// theirs, and mixing the two frees memory with the wrong allocator, so there the counting tests
// skip (the sanitizer builds check memory, the plain build checks allocations).
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define LOOM_COUNTS_ALLOCATIONS 0
#else
#define LOOM_COUNTS_ALLOCATIONS 1
#endif

namespace {
std::atomic<bool> counting{false};
std::atomic<long> allocations{0};
} // namespace

#if LOOM_COUNTS_ALLOCATIONS
// Every operator new of the process (the array and nothrow forms call this one). GCC cannot see
// that these new and delete belong together (both malloc-based) and warns.
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
void *operator new(std::size_t bytes) {
  if (counting.load(std::memory_order_relaxed))
    allocations.fetch_add(1, std::memory_order_relaxed);
  if (void *p = std::malloc(bytes ? bytes : 1))
    return p;
  throw std::bad_alloc();
}
void operator delete(void *p) noexcept {
  std::free(p);
}
void operator delete(void *p, std::size_t) noexcept {
  std::free(p);
}
#endif

#define REQUIRE_ALLOCATION_COUNTS()                                                                \
  do {                                                                                             \
    if (!LOOM_COUNTS_ALLOCATIONS)                                                                  \
      GTEST_SKIP() << "operator new is the sanitizer's in this build: allocations not counted";    \
  } while (0)

using namespace loom;
using namespace loomtest;

namespace {

const bool fake_driver_loaded = fake_cuda::load_without_disk_cache();

// Four arguments, device arrays and scalars: y = a * x + b.
Kernel make_axpb() {
  return kernel("axpb",
                [](F32 a, Array<float> x, Array<float> y, F32 b) {
                  parallel_for(x.size(), [&](Index i) { y[i] = a * x[i] + b; });
                },
                {"a", "x", "y", "b"});
}

// Operator new calls made by `calls` calls of f().
template <class F> long allocations_in(int calls, F &&f) {
  allocations = 0;
  counting = true;
  for (int i = 0; i < calls; ++i)
    f();
  counting = false;
  return allocations.load();
}

TEST(CallAllocation, CachedGpuCallWithDeviceArraysAndScalarsAllocatesNothing) {
  REQUIRE_ALLOCATION_COUNTS();
  ASSERT_TRUE(fake_driver_loaded) << runtime::Driver::get().unavailable_reason();
  Kernel k = make_axpb().on(ir::Target::GPU);
  auto x = runtime::DeviceArray<float>::uninitialized({1 << 20});
  auto y = runtime::DeviceArray<float>::uninitialized({1 << 20});
  k(2.0f, x, y, 1.0f); // compiles, chooses the launch shape
  EXPECT_EQ(0, allocations_in(1000, [&] { k(2.0f, x, y, 1.0f); }));
  // Another extent: a new launch shape (allocating), then none again.
  auto z = runtime::DeviceArray<float>::uninitialized({1000});
  auto w = runtime::DeviceArray<float>::uninitialized({1000});
  k(3.0f, z, w, 0.5f);
  EXPECT_EQ(0, allocations_in(1000, [&] { k(3.0f, z, w, 0.5f); }));
}

TEST(CallAllocation, BoundsCheckedGpuCallAllocatesNothing) {
  REQUIRE_ALLOCATION_COUNTS();
  ASSERT_TRUE(fake_driver_loaded) << runtime::Driver::get().unavailable_reason();
  Kernel k = make_axpb().on(ir::Target::GPU);
  k.bounds_check();
  auto x = runtime::DeviceArray<float>::uninitialized({4096});
  auto y = runtime::DeviceArray<float>::uninitialized({4096});
  k(2.0f, x, y, 1.0f);
  EXPECT_EQ(0, allocations_in(1000, [&] { k(2.0f, x, y, 1.0f); }));
}

// A SIMT kernel with a dynamic shared array: the checks of its launch's size, and the opt-in of
// one past 48 KiB, allocate nothing once made.
TEST(CallAllocation, DynamicSharedGpuCallAllocatesNothing) {
  REQUIRE_ALLOCATION_COUNTS();
  ASSERT_TRUE(fake_driver_loaded) << runtime::Driver::get().unavailable_reason();
  Kernel k = simt_kernel("dynamic_copy",
                         [](Array<float> x) {
                           auto tile = dynamic_shared_array<float>();
                           I32 t = thread_idx().x;
                           tile[t] = x[Index(t)];
                           barrier();
                           x[Index(t)] = tile[tile.size() - 1 - Index(t)];
                         },
                         {"x"})
                 .on(ir::Target::GPU);
  auto x = runtime::DeviceArray<float>::uninitialized({256});
  for (size_t bytes : {size_t(1024), size_t(96 * 1024)}) {
    k.shape(1, 256, bytes)(x);
    EXPECT_EQ(0, allocations_in(1000, [&] { k(x); })) << bytes << " bytes";
  }
}

size_t device_bytes() {
  return fake_cuda::function<size_t (*)()>("loom_fake_cuda_device_bytes")();
}
size_t peak_device_bytes() {
  return fake_cuda::function<size_t (*)()>("loom_fake_cuda_peak_device_bytes")();
}
void reset_peak() {
  fake_cuda::function<void (*)()>("loom_fake_cuda_reset_peak")();
}

// Host arrays get device copies for the call only: the arrays the kernel reads or writes, each
// once, nothing else, and nothing left afterwards.
TEST(CallAllocation, DeviceMemoryOfACallIsTheArraysItNeeds) {
  ASSERT_TRUE(fake_driver_loaded) << runtime::Driver::get().unavailable_reason();
  Kernel k = kernel("scale_into",
                    [](F32 a, Array<float> x, Array<double> unused, Array<float> y) {
                      parallel_for(x.size(), [&](Index i) { y[i] = a * x[i]; });
                    },
                    {"a", "x", "unused", "y"})
                 .on(ir::Target::GPU);
  const size_t n = 100000;
  std::vector<float> x(n, 1.5f), y(n, 0.0f);
  std::vector<double> unused(3 * n, 0.0);
  k(2.0f, x, unused, y); // compiles (modules hold no device memory in the fake driver)
  const size_t before = device_bytes();
  reset_peak();
  k(2.0f, x, unused, y);
  EXPECT_EQ(2 * n * sizeof(float), peak_device_bytes() - before)
      << "a call should hold x and y on the device and nothing else ('unused' is never touched)";
  EXPECT_EQ(before, device_bytes()) << "device memory left behind by a call";

  // Device arrays are the caller's: a call with them allocates no device memory at all.
  auto dx = runtime::DeviceArray<float>::uninitialized({int64_t(n)});
  auto dy = runtime::DeviceArray<float>::uninitialized({int64_t(n)});
  auto du = runtime::DeviceArray<double>::uninitialized({1});
  k(2.0f, dx, du, dy);
  const size_t with_arrays = device_bytes();
  reset_peak();
  k(2.0f, dx, du, dy);
  EXPECT_EQ(with_arrays, peak_device_bytes());
}

// Copies to the device of 1 MiB or more go through the two pinned staging buffers in 8 MiB
// chunks (the last one partial); smaller ones, and every copy to the host, go straight to the
// driver. The bytes arrive intact either way.
TEST(CallAllocation, LargeCopiesToTheDeviceGoThroughThePinnedStagingBuffers) {
  ASSERT_TRUE(fake_driver_loaded) << runtime::Driver::get().unavailable_reason();
  std::mt19937 rng(23);
  for (size_t bytes : {size_t(512) << 10, (size_t(20) << 20) + 123, size_t(8) << 20}) {
    std::vector<unsigned char> data(bytes), back(bytes, 0);
    for (unsigned char &b : data)
      b = static_cast<unsigned char>(rng());
    const int h2d = fake_cuda::calls("cuMemcpyHtoDAsync_v2"),
              d2h = fake_cuda::calls("cuMemcpyDtoHAsync_v2");
    const int direct = fake_cuda::calls("cuMemcpyHtoD_v2") + fake_cuda::calls("cuMemcpyDtoH_v2");
    runtime::DeviceBuffer buffer(bytes);
    buffer.copy_from_host(data.data(), bytes);
    buffer.copy_to_host(back.data(), bytes);
    ASSERT_TRUE(data == back) << bytes << " bytes did not survive the round trip";
    const int chunks =
        bytes < runtime::staging::min_bytes
            ? 0
            : int((bytes + runtime::staging::chunk_bytes - 1) / runtime::staging::chunk_bytes);
    EXPECT_EQ(chunks, fake_cuda::calls("cuMemcpyHtoDAsync_v2") - h2d) << bytes << " bytes";
    EXPECT_EQ(0, fake_cuda::calls("cuMemcpyDtoHAsync_v2") - d2h) << bytes << " bytes";
    EXPECT_EQ(chunks ? 1 : 2,
              fake_cuda::calls("cuMemcpyHtoD_v2") + fake_cuda::calls("cuMemcpyDtoH_v2") - direct)
        << bytes << " bytes";
  }
  EXPECT_TRUE(runtime::staging::available());
}

TEST(CallAllocation, CachedCpuCallWithHostArraysAllocatesNothing) {
  REQUIRE_ALLOCATION_COUNTS();
  Kernel k = make_axpb().on(ir::Target::CPU);
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> dist(-2.0f, 2.0f);
  std::vector<float> x(1 << 18), y(1 << 18);
  for (float &v : x)
    v = dist(rng);
  k(2.0f, x, y, 1.0f);
  k(2.0f, x, y, 1.0f);
  EXPECT_EQ(0, allocations_in(200, [&] { k(2.0f, x, y, 1.0f); }));
  for (size_t i = 0; i < x.size(); i += 997)
    ASSERT_FLOAT_EQ(static_cast<float>(2.0 * x[i] + 1.0), y[i]) << "at " << i;
}

} // namespace
