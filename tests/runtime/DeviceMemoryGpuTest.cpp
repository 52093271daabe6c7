// Device memory of a GPU call with host arrays, read from the real driver's free-memory figure
// (cuMemGetInfo): a call holds the arrays it needs for the call only, so free memory after it is
// what it was before; and it needs nothing besides them, so with the rest of the device taken by
// a ballast array, a call whose arrays just fit runs, and its results are right.
// CallAllocationTest checks the same against the fake driver's count on any machine; these skip,
// saying why, without a usable GPU or with too little free memory for their sizes.
#include "loom/loom.hpp"
#include "runtime/DeviceArray.h"
#include "runtime/Driver.h"
#include "runtime/GpuContext.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

using namespace loom;

namespace {

constexpr size_t MiB = size_t(1) << 20, GiB = size_t(1) << 30;

#define REQUIRE_GPU()                                                                              \
  do {                                                                                             \
    std::string reason;                                                                            \
    if (!runtime::GpuContext::usable(&reason))                                                     \
      GTEST_SKIP() << "no usable GPU: " << reason;                                                 \
  } while (0)

// Free device memory now, as the driver reports it.
size_t free_device_bytes() {
  const runtime::Driver &cu = runtime::GpuContext::activate();
  size_t free_bytes = 0, total_bytes = 0;
  cu.check(cu.cuMemGetInfo_v2(&free_bytes, &total_bytes), "cuMemGetInfo_v2");
  return free_bytes;
}

// z = a*x + y: x and y are only read (copied in), z is overwritten whole (copied out): the call
// needs three arrays on the device and nothing else (no reduction scratch, no bounds record).
Kernel make_axpy_into() {
  return kernel("axpy_into",
                [](F32 a, Array<float> x, Array<float> y, Array<float> z) {
                  parallel_for(z.size(), [&](Index i) { z[i] = a * x[i] + y[i]; });
                },
                {"a", "x", "y", "z"})
      .on(ir::Target::GPU);
}

// Values in [-1, 1) from a splitmix64 stream: fast enough for 2^28 elements, fixed for a seed.
std::vector<float> random_floats(size_t n, uint64_t seed) {
  std::vector<float> v(n);
  for (float &x : v) {
    uint64_t z = (seed += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    x = static_cast<float>(static_cast<double>(z >> 40) / double(uint64_t(1) << 23) - 1.0);
  }
  return v;
}

// Every z[i] against a*x[i] + y[i] in double: f32 arithmetic rounds at most twice (the product
// and the sum, or once when contracted to an FMA), each within 2^-24 of its magnitude, so the
// error is within 2^-23 (|a x| + |y|), plus the smallest normal float for underflow.
void expect_axpy(float a, const std::vector<float> &x, const std::vector<float> &y,
                 const std::vector<float> &z) {
  size_t bad = 0, first_bad = 0;
  for (size_t i = 0; i < z.size(); ++i) {
    double ax = double(a) * x[i], ref = ax + y[i];
    double tolerance = std::ldexp(std::abs(ax) + std::abs(double(y[i])), -23) + 1.2e-38;
    if (!(std::abs(double(z[i]) - ref) <= tolerance) && bad++ == 0)
      first_bad = i;
  }
  EXPECT_EQ(0u, bad) << "elements off the reference, the first at " << first_bad << ": "
                     << z[first_bad] << " for " << double(a) * x[first_bad] + y[first_bad];
}

// The kernel has run once (its module is loaded, the pinned staging buffers exist, the driver's
// lazy per-context state is made); then a call of the same kind leaves free memory as it found
// it, to the byte: every buffer the call allocated was freed, and freed device memory is the
// driver's again at once.
TEST(DeviceMemoryGpu, CallWithHostArraysRetainsNothing) {
  REQUIRE_GPU();
  const size_t n = 64 * MiB / sizeof(float);
  if (free_device_bytes() < 3 * n * sizeof(float) + GiB)
    GTEST_SKIP() << "needs 1.2 GiB of free device memory, " << free_device_bytes() << " bytes free";
  Kernel k = make_axpy_into();
  std::vector<float> x = random_floats(n, 1), y = random_floats(n, 2), z(n, NAN);
  k(0.5f, x, y, z); // warm-up
  std::fill(z.begin(), z.end(), NAN);
  const size_t before = free_device_bytes();
  k(1.75f, x, y, z);
  const size_t after = free_device_bytes();
  EXPECT_EQ(before, after) << "free device memory before and after a call with host arrays "
                              "(a difference is memory the call kept, or another process's)";
  expect_axpy(1.75f, x, y, z);
}

// The strong form: a ballast takes free memory down to the call's three 1 GiB arrays plus a slack
// smaller than one of them, so a hidden allocation of an array's size (a second copy, a staging
// buffer on the device) would fail the call with an out-of-memory error. The call must succeed
// and be right, and leave free memory as it found it.
TEST(DeviceMemoryGpu, CallFitsInExactlyItsArrays) {
  REQUIRE_GPU();
  constexpr size_t array_bytes = GiB, arrays = 3, slack = 256 * MiB, granularity = 2 * MiB;
  const size_t n = array_bytes / sizeof(float); // 2^28: the same 32-bit index code as the warm-up
  const size_t needed = arrays * array_bytes;
  Kernel k = make_axpy_into();
  {
    std::vector<float> x = random_floats(MiB, 3), y = random_floats(MiB, 4), z(MiB, NAN);
    k(2.0f, x, y, z); // warm-up (module, staging buffers), on arrays large enough to be staged
    expect_axpy(2.0f, x, y, z);
  }
  const size_t free_bytes = free_device_bytes();
  if (free_bytes < needed + slack + granularity)
    GTEST_SKIP() << "needs " << (needed + slack + granularity) / MiB << " MiB of free device "
                 << "memory, " << free_bytes / MiB << " MiB free";

  // The ballast, a whole number of the driver's 2 MiB pages so that it takes what it asks for.
  const size_t ballast_bytes = (free_bytes - needed - slack) / granularity * granularity;
  auto ballast = runtime::DeviceArray<uint8_t>::uninitialized({int64_t(ballast_bytes)});
  const size_t free_with_ballast = free_device_bytes();
  ASSERT_GE(free_with_ballast, needed) << "the ballast took more than it asked for";
  ASSERT_LT(free_with_ballast - needed, array_bytes)
      << "the ballast left more than an array's bytes beside the call's arrays";
  std::printf("[  NOTE    ] ballast %zu MiB; free %zu MiB = the call's arrays %zu MiB + %zu MiB\n",
              ballast_bytes / MiB, free_with_ballast / MiB, needed / MiB,
              (free_with_ballast - needed) / MiB);

  std::vector<float> x = random_floats(n, 5), y = random_floats(n, 6), z(n, NAN);
  ASSERT_NO_THROW(k(-1.25f, x, y, z)) << "a call whose arrays fit in free memory failed";
  EXPECT_EQ(free_with_ballast, free_device_bytes()) << "device memory kept after the call";
  expect_axpy(-1.25f, x, y, z);
}

} // namespace
