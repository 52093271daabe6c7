// loom::HostVector: aligned host memory, huge pages advised for large blocks, and kernels and
// DeviceArray taking it as they take a std::vector.
#include "support/TestUtil.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <new>
#include <sstream>
#include <string>

using namespace loom;

namespace {

bool aligned_to(const void *p, size_t alignment) {
  return reinterpret_cast<uintptr_t>(p) % alignment == 0;
}

// The /proc/self/smaps entry of the mapping that holds `address`: its range and its VmFlags.
struct Mapping {
  uintptr_t begin = 0, end = 0;
  std::string flags;
};
Mapping mapping_of(const void *address) {
  std::ifstream smaps("/proc/self/smaps");
  uintptr_t at = reinterpret_cast<uintptr_t>(address);
  Mapping found, current;
  bool inside = false;
  for (std::string line; std::getline(smaps, line);) {
    unsigned long begin, end;
    if (std::sscanf(line.c_str(), "%lx-%lx ", &begin, &end) == 2 &&
        line.find(':') > line.find(' ')) {
      inside = at >= begin && at < end;
      current = {begin, end, ""};
    } else if (inside && line.rfind("VmFlags:", 0) == 0) {
      current.flags = line.substr(8) + " ";
      found = current;
    }
  }
  return found;
}

bool kernel_has_transparent_huge_pages() {
  return std::ifstream("/sys/kernel/mm/transparent_hugepage/enabled").good();
}

TEST(HostMemory, SmallBlocksAreCacheLineAligned) {
  for (size_t bytes : {size_t(1), size_t(7), size_t(64), size_t(4096), size_t(100000),
                       runtime::host_huge_page_threshold - 1}) {
    void *p = runtime::allocate_host(bytes);
    EXPECT_TRUE(aligned_to(p, runtime::host_alignment)) << bytes << " bytes at " << p;
    std::memset(p, 0xab, bytes);
    runtime::free_host(p, bytes);
  }
}

TEST(HostMemory, LargeBlocksAreMappingsOfTheirOwnWithHugePagesAdvised) {
  const size_t bytes = (size_t(64) << 20) + 12; // not a multiple of 2 MiB: the tail is rounded up
  auto *p = static_cast<unsigned char *>(runtime::allocate_host(bytes));
  EXPECT_TRUE(aligned_to(p, size_t(2) << 20)) << p;
  p[0] = 1;
  p[bytes - 1] = 2; // the last byte asked for is writable
  Mapping m = mapping_of(p);
  ASSERT_NE(m.begin, 0u) << "no mapping in /proc/self/smaps holds " << static_cast<void *>(p);
  EXPECT_EQ(m.begin, reinterpret_cast<uintptr_t>(p)); // the block starts its mapping
  EXPECT_EQ(m.end - m.begin, size_t(66) << 20);       // 64 MiB + 12 bytes, rounded to 2 MiB
  if (!kernel_has_transparent_huge_pages()) {
    runtime::free_host(p, bytes);
    GTEST_SKIP() << "this kernel has no transparent huge pages "
                    "(/sys/kernel/mm/transparent_hugepage): the advice cannot be checked";
  }
  EXPECT_NE(m.flags.find(" hg "), std::string::npos)
      << "MADV_HUGEPAGE's flag hg is not among the mapping's VmFlags:" << m.flags;
  runtime::free_host(p, bytes);
}

TEST(HostMemory, ImpossibleSizesThrowBadAlloc) {
  HostAllocator<float> allocator;
  EXPECT_THROW(allocator.allocate(SIZE_MAX / 2), std::bad_array_new_length);
  EXPECT_THROW(allocator.allocate(size_t(1) << 60), std::bad_alloc); // 4 EiB: no mapping that big
  EXPECT_THROW(runtime::allocate_host(SIZE_MAX - 100), std::bad_alloc); // the round-up overflows
}

TEST(HostMemory, VectorGrowsAcrossTheThresholdKeepingItsElements) {
  HostVector<int32_t> v;
  const int32_t n = 3 << 20; // 12 MiB of int32: the storage moves from the heap to a mapping
  for (int32_t k = 0; k < n; ++k)
    v.push_back(k * 7 - 3);
  EXPECT_TRUE(aligned_to(v.data(), size_t(2) << 20));
  for (int32_t k = 0; k < n; k += 4099)
    ASSERT_EQ(v[size_t(k)], k * 7 - 3) << "element " << k;
  EXPECT_EQ(v.back(), (n - 1) * 7 - 3);
}

// Kernel calls on HostVectors, on each target: copied in and out on the GPU like a std::vector
// (through the pinned staging buffers when large), used in place on the CPU.
class HostVectorCalls : public loomtest::TargetTest {};

TEST_P(HostVectorCalls, Saxpy) {
  Kernel saxpy = kernel("saxpy_host_vector", [](F32 a, Array<float> x, Array<float> y) {
    parallel_for(x.size(), [&](Index i) { y[i] = a * x[i] + y[i]; });
  });
  prepare(saxpy);
  const size_t n = (size_t(6) << 20) + 5; // 24 MiB per array: huge pages advised
  std::vector<float> xs = loomtest::random_vector<float>(n, -1, 1, 11),
                     ys = loomtest::random_vector<float>(n, -1, 1, 12);
  HostVector<float> x(xs.begin(), xs.end()), y(ys.begin(), ys.end());
  const HostVector<float> &const_x = x;
  saxpy(-0.75f, const_x, y);
  for (size_t k = 0; k < n; ++k) {
    double expected = -0.75 * double(xs[k]) + double(ys[k]);
    ASSERT_NEAR(y[k], expected, 1e-6 * (1 + std::fabs(expected))) << "element " << k;
  }
  if (target() == ir::Target::GPU) { // and DeviceArray takes one
    DeviceArray<float> dx(x, {int64_t(n)});
    HostVector<float> back(n, 0.0f);
    dx.copy_to_host(back.data());
    EXPECT_TRUE(std::equal(back.begin(), back.end(), x.begin()));
  }
}

// A 2-D view of a HostVector: each interior point the mean of its four neighbours.
TEST_P(HostVectorCalls, TwoDimensionalView) {
  Kernel stencil = kernel("stencil_host_vector", [](Array2<float> u, Array2<float> v) {
    parallel_for({u.dim(0) - 2, u.dim(1) - 2}, [&](Index i, Index j) {
      v(i + 1, j + 1) = 0.25f * (u(i, j + 1) + u(i + 2, j + 1) + u(i + 1, j) + u(i + 1, j + 2));
    });
  });
  prepare(stencil);
  const int64_t rows = 1500, cols = 1030;
  std::vector<float> us = loomtest::random_vector<float>(size_t(rows * cols), -1, 1, 13);
  HostVector<float> u(us.begin(), us.end()), v(size_t(rows * cols), -7.0f);
  stencil(view(u, {rows, cols}), view(v, {rows, cols}));
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j) {
      bool border = i == 0 || j == 0 || i == rows - 1 || j == cols - 1;
      double expected = border ? -7.0
                               : 0.25 * (double(us[(i - 1) * cols + j]) + us[(i + 1) * cols + j] +
                                         us[i * cols + j - 1] + us[i * cols + j + 1]);
      ASSERT_NEAR(v[size_t(i * cols + j)], expected, 1e-6) << "(" << i << ", " << j << ")";
    }
}

INSTANTIATE_TEST_SUITE_P(Targets, HostVectorCalls,
                         ::testing::Values(ir::Target::CPU, ir::Target::GPU),
                         loomtest::target_name);

TEST(HostMemory, AViewMustCoverItsVectorExactly) {
  Kernel scale = kernel("scale_host_vector", [](Array2<float> a) {
    parallel_for({a.dim(0), a.dim(1)}, [&](Index i, Index j) { a(i, j) = 2.0f * a(i, j); });
  });
  scale.on(ir::Target::CPU);
  HostVector<float> a(12, 1.0f);
  EXPECT_THROW(view(a, {5, 3}), ArgumentError); // 15 elements asked of 12
  EXPECT_THROW(view(a, {2, 3}), ArgumentError); // 6 of 12
  EXPECT_THROW(view(a, {-4, -3}), ArgumentError);
  scale(view(a, {4, 3}));
  for (float e : a)
    EXPECT_EQ(e, 2.0f);
}

} // namespace
