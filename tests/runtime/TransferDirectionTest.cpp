// Which host arrays a GPU call copies, and which way: the access summary (ir/AccessSummary.h)
// decides, and these tests hold the call path to it, array by array, in bytes. Read only: to the
// device, never back. Overwritten in full before any read: back only (its old contents cannot
// matter). Read and written, or written only in part: both ways (the elements not written must
// come back as they were). Not touched, or a kernel of scalars: nothing. Against loom's fake
// driver (tests/cache/FakeCudaDriver.cpp), which records every copy, so it runs on any machine.
#include "cache/FakeDriver.h"

#include "loom/loom.hpp"
#include "runtime/Driver.h"
#include "runtime/PinnedStaging.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <ostream>
#include <string>
#include <vector>

using namespace loom;
using namespace loomtest;

namespace {

const bool fake_driver_loaded = fake_cuda::load_without_disk_cache();

// Bytes and copies of one array, each way.
struct Traffic {
  size_t to_device = 0, to_host = 0;
  int copies_to_device = 0, copies_to_host = 0;
  bool operator==(const Traffic &) const = default;
};
[[maybe_unused]] std::ostream &operator<<(std::ostream &os, const Traffic &t) {
  return os << t.to_device << " bytes to the device in " << t.copies_to_device << " copies, "
            << t.to_host << " bytes to the host in " << t.copies_to_host << " copies";
}

// A host array of the call, and what should be copied of it.
struct Expected {
  const char *name;
  const void *host;
  size_t bytes;
  Traffic traffic;
};

template <class T> size_t bytes_of(const std::vector<T> &v) {
  return v.size() * sizeof(T);
}
// One direct copy of `bytes` each way the flags say.
Traffic copied(size_t bytes, bool in, bool out) {
  return {in ? bytes : 0, out ? bytes : 0, in ? 1 : 0, out ? 1 : 0};
}

// The copies of one call (after the kernel has compiled: its first call may add copies of its
// own scratch memory).
template <class F> std::vector<LoomFakeCopy> copies_of(F &&call) {
  fake_cuda::clear_copies();
  call();
  return fake_cuda::copies();
}

bool inside(const LoomFakeCopy &c, const Expected &a) {
  auto *begin = static_cast<const char *>(a.host);
  auto *at = static_cast<const char *>(c.host);
  return at >= begin && at + c.bytes <= begin + a.bytes;
}

// Each array's copies, found by their host addresses (arrays under staging::min_bytes are copied
// straight from and to the user's memory), match the expected ones, and the call copied nothing
// else.
void expect_traffic(const std::vector<LoomFakeCopy> &copies, const std::vector<Expected> &arrays) {
  std::vector<bool> attributed(copies.size(), false);
  for (const Expected &a : arrays) {
    ASSERT_LT(a.bytes, runtime::staging::min_bytes) << a.name << ": too large for this check";
    Traffic t;
    for (size_t k = 0; k < copies.size(); ++k) {
      if (!inside(copies[k], a))
        continue;
      attributed[k] = true;
      (copies[k].to_device ? t.to_device : t.to_host) += copies[k].bytes;
      ++(copies[k].to_device ? t.copies_to_device : t.copies_to_host);
    }
    EXPECT_EQ(a.traffic, t) << "array " << a.name;
  }
  for (size_t k = 0; k < copies.size(); ++k)
    EXPECT_TRUE(attributed[k]) << "a copy of no array of the call: " << copies[k].bytes << " bytes "
                               << (copies[k].to_device ? "to the device" : "to the host");
}

class TransferDirection : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_TRUE(fake_driver_loaded) << runtime::Driver::get().unavailable_reason();
  }
};

TEST_F(TransferDirection, ReadOnlyInWrittenInFullOutUnusedNever) {
  Kernel k = kernel("scale_into",
                    [](F32 a, Array<float> x, Array<double> unused, Array<float> y) {
                      parallel_for(y.size(), [&](Index i) { y[i] = a * x[i]; });
                    },
                    {"a", "x", "unused", "y"})
                 .on(ir::Target::GPU);
  std::vector<float> x(1000, 1.5f), y(1000, -1.0f);
  std::vector<double> unused(300, 0.0);
  k(2.0f, x, unused, y); // compiles
  auto copies = copies_of([&] { k(2.0f, x, unused, y); });
  expect_traffic(copies, {{"x", x.data(), bytes_of(x), copied(bytes_of(x), true, false)},
                          {"unused", unused.data(), bytes_of(unused), {}},
                          {"y", y.data(), bytes_of(y), copied(bytes_of(y), false, true)}});
}

TEST_F(TransferDirection, ReadAndWrittenBothWays) {
  Kernel k = kernel("saxpy",
                    [](F32 a, Array<float> x, Array<float> y) {
                      parallel_for(x.size(), [&](Index i) { y[i] = a * x[i] + y[i]; });
                    },
                    {"a", "x", "y"})
                 .on(ir::Target::GPU);
  std::vector<float> x(777, 1.0f), y(777, 2.0f);
  k(2.0f, x, y);
  auto copies = copies_of([&] { k(2.0f, x, y); });
  expect_traffic(copies, {{"x", x.data(), bytes_of(x), copied(bytes_of(x), true, false)},
                          {"y", y.data(), bytes_of(y), copied(bytes_of(y), true, true)}});
}

// A store under a condition may leave elements as they were: y goes in, to keep them, and out.
TEST_F(TransferDirection, ConditionalWriteBothWays) {
  Kernel k =
      kernel("positive_part",
             [](Array<float> x, Array<float> y) {
               parallel_for(y.size(), [&](Index i) { if_(x[i] > 0.0f, [&] { y[i] = x[i]; }); });
             },
             {"x", "y"})
          .on(ir::Target::GPU);
  std::vector<float> x(512, 1.0f), y(512, 0.0f);
  k(x, y);
  auto copies = copies_of([&] { k(x, y); });
  expect_traffic(copies, {{"x", x.data(), bytes_of(x), copied(bytes_of(x), true, false)},
                          {"y", y.data(), bytes_of(y), copied(bytes_of(y), true, true)}});
}

// A loop over x's extent writes only the head of the longer y: y goes in and out whole.
TEST_F(TransferDirection, WriteOverASubRangeBothWays) {
  Kernel k = kernel("copy_head",
                    [](Array<float> x, Array<float> y) {
                      parallel_for(x.size(), [&](Index i) { y[i] = x[i]; });
                    },
                    {"x", "y"})
                 .on(ir::Target::GPU);
  std::vector<float> x(100, 1.0f), y(300, 0.0f);
  k(x, y);
  auto copies = copies_of([&] { k(x, y); });
  expect_traffic(copies, {{"x", x.data(), bytes_of(x), copied(bytes_of(x), true, false)},
                          {"y", y.data(), bytes_of(y), copied(bytes_of(y), true, true)}});
}

// The naive matmul: A and B in, C (every element stored once, at its own index) out only.
TEST_F(TransferDirection, MatmulResultOutOnly) {
  Kernel k = kernel("matmul",
                    [](Array2<float> A, Array2<float> B, Array2<float> C) {
                      parallel_for({C.dim(0), C.dim(1)}, [&](Index i, Index j) {
                        Var<float> acc("acc", 0.0f);
                        for_range(A.dim(1), [&](Index l) { acc += A(i, l) * B(l, j); });
                        C(i, j) = acc;
                      });
                    },
                    {"A", "B", "C"})
                 .on(ir::Target::GPU);
  const int64_t n = 24, kk = 40, m = 32;
  std::vector<float> A(n * kk, 1.0f), B(kk * m, 1.0f), C(n * m, 0.0f);
  k(view(A, {n, kk}), view(B, {kk, m}), view(C, {n, m}));
  auto copies = copies_of([&] { k(view(A, {n, kk}), view(B, {kk, m}), view(C, {n, m})); });
  expect_traffic(copies, {{"A", A.data(), bytes_of(A), copied(bytes_of(A), true, false)},
                          {"B", B.data(), bytes_of(B), copied(bytes_of(B), true, false)},
                          {"C", C.data(), bytes_of(C), copied(bytes_of(C), false, true)}});
}

// A shape symbol of the text DSL proves the loop covers y whole, though its extent is x's.
TEST_F(TransferDirection, ShapeSymbolProvesAWholeOverwrite) {
  Module m = compile(R"(
@kernel
def twice(x: f32[n], y: f32[n]):
    for i in parallel(n):
        y[i] = 2.0 * x[i]
)");
  Kernel &k = m["twice"].on(ir::Target::GPU);
  std::vector<float> x(640, 3.0f), y(640, 0.0f);
  k(x, y);
  auto copies = copies_of([&] { k(x, y); });
  expect_traffic(copies, {{"x", x.data(), bytes_of(x), copied(bytes_of(x), true, false)},
                          {"y", y.data(), bytes_of(y), copied(bytes_of(y), false, true)}});
}

// A reduction combines into the element's old value: total goes in and out.
TEST_F(TransferDirection, ReductionTargetBothWays) {
  Kernel k = kernel("sum",
                    [](Array<float> x, Array<float> total) {
                      parallel_for(x.size(), [&](Index i) { total[0] += x[i]; });
                    },
                    {"x", "total"})
                 .on(ir::Target::GPU);
  std::vector<float> x(4096, 1.0f), total(1, 0.0f);
  k(x, total); // compiles and clears its scratch memory (a copy of its own)
  auto copies = copies_of([&] { k(x, total); });
  expect_traffic(copies,
                 {{"x", x.data(), bytes_of(x), copied(bytes_of(x), true, false)},
                  {"total", total.data(), bytes_of(total), copied(bytes_of(total), true, true)}});
}

// Stored in full by the first loop, read by the second: the summary says t's old contents never
// matter, so t goes out only although the kernel reads it.
TEST_F(TransferDirection, OverwrittenBeforeItIsReadOutOnly) {
  Kernel k = kernel("two_steps",
                    [](Array<float> x, Array<float> t, Array<float> y) {
                      parallel_for(t.size(), [&](Index i) { t[i] = x[i] * 2.0f; });
                      parallel_for(y.size(), [&](Index i) { y[i] = t[i] + 1.0f; });
                    },
                    {"x", "t", "y"})
                 .on(ir::Target::GPU);
  std::vector<float> x(256, 1.0f), t(256, 0.0f), y(256, 0.0f);
  k(x, t, y);
  auto copies = copies_of([&] { k(x, t, y); });
  expect_traffic(copies, {{"x", x.data(), bytes_of(x), copied(bytes_of(x), true, false)},
                          {"t", t.data(), bytes_of(t), copied(bytes_of(t), false, true)},
                          {"y", y.data(), bytes_of(y), copied(bytes_of(y), false, true)}});
}

// Scalars only: no copy and no device memory.
TEST_F(TransferDirection, ScalarKernelCopiesNothing) {
  Kernel k = kernel("scalars",
                    [](F32 a, I64 n) {
                      parallel_for(n, [&](Index i) {
                        Var<float> v("v", a);
                        v = v * 2.0f + cast<float>(i);
                      });
                    },
                    {"a", "n"})
                 .on(ir::Target::GPU);
  k(1.0f, int64_t(1000));
  const size_t device_bytes = fake_cuda::function<size_t (*)()>("loom_fake_cuda_device_bytes")();
  fake_cuda::function<void (*)()>("loom_fake_cuda_reset_peak")();
  auto copies = copies_of([&] { k(1.0f, int64_t(1000)); });
  EXPECT_TRUE(copies.empty()) << copies.size() << " copies";
  EXPECT_EQ(device_bytes, fake_cuda::function<size_t (*)()>("loom_fake_cuda_peak_device_bytes")());
}

// On the CPU (LOOM_TARGET=cpu on a GPU machine) device arrays go through host copies by the same
// rule, seen from the other side: read only, to the host and never back; overwritten in full,
// back only; read and written, both ways; not touched, nothing. Found by their device arrays.
TEST_F(TransferDirection, DeviceArraysOnTheCpuSameRule) {
  Kernel k =
      kernel("scale_and_add",
             [](F32 a, Array<float> x, Array<double> unused, Array<float> y, Array<float> z) {
               parallel_for(y.size(), [&](Index i) {
                 y[i] = a * x[i];
                 z[i] = z[i] + x[i];
               });
             },
             {"a", "x", "unused", "y", "z"})
          .on(ir::Target::CPU);
  const int64_t n = 1000;
  auto x = runtime::DeviceArray<float>(std::vector<float>(n, 1.5f));
  auto unused = runtime::DeviceArray<double>::uninitialized({300});
  auto y = runtime::DeviceArray<float>::uninitialized({n});
  auto z = runtime::DeviceArray<float>(std::vector<float>(n, 2.0f));
  k(2.0f, x, unused, y, z); // compiles
  auto copies = copies_of([&] { k(2.0f, x, unused, y, z); });
  struct DeviceExpected {
    const char *name;
    runtime::CUdeviceptr device;
    Traffic traffic;
  };
  const size_t bytes = n * sizeof(float);
  std::vector<bool> attributed(copies.size(), false);
  for (const DeviceExpected &a : {DeviceExpected{"x", x.data(), copied(bytes, false, true)},
                                  DeviceExpected{"unused", unused.data(), {}},
                                  DeviceExpected{"y", y.data(), copied(bytes, true, false)},
                                  DeviceExpected{"z", z.data(), copied(bytes, true, true)}}) {
    Traffic t;
    for (size_t c = 0; c < copies.size(); ++c) {
      if (copies[c].allocation != a.device)
        continue;
      attributed[c] = true;
      (copies[c].to_device ? t.to_device : t.to_host) += copies[c].bytes;
      ++(copies[c].to_device ? t.copies_to_device : t.copies_to_host);
    }
    EXPECT_EQ(a.traffic, t) << "array " << a.name;
  }
  for (size_t c = 0; c < copies.size(); ++c)
    EXPECT_TRUE(attributed[c]) << "a copy of no array of the call: " << copies[c].bytes << " bytes";
  EXPECT_EQ(std::vector<float>(n, 3.0f), y.to_host());
  EXPECT_EQ(std::vector<float>(n, 5.0f), z.to_host());
}

// Arrays of staging::min_bytes or more go to the device through the pinned staging buffers in
// chunks, so their copies are found by the device allocation they fill: x (twice y's size) fills
// one of its own size, whole, and nothing goes into y's; y comes back whole.
TEST_F(TransferDirection, LargeArraysThroughStagingSameDirections) {
  Kernel k = kernel("pair_sums",
                    [](Array<float> x, Array<float> y) {
                      parallel_for(y.size(), [&](Index i) { y[i] = x[2 * i] + x[2 * i + 1]; });
                    },
                    {"x", "y"})
                 .on(ir::Target::GPU);
  const size_t n = (size_t(3) << 20) / sizeof(float) + 5; // y: 3 MiB and a bit, x: twice that
  std::vector<float> x(2 * n, 1.0f), y(n, 0.0f);
  ASSERT_GE(bytes_of(y), runtime::staging::min_bytes);
  k(x, y);
  auto copies = copies_of([&] { k(x, y); });
  size_t x_in = 0, other_in = 0, y_out = 0, other_out = 0;
  for (const LoomFakeCopy &c : copies) {
    if (c.to_device)
      (c.allocation != 0 && c.allocation_bytes == bytes_of(x) ? x_in : other_in) += c.bytes;
    else
      (c.host == y.data() && c.allocation_bytes == bytes_of(y) ? y_out : other_out) += c.bytes;
  }
  EXPECT_EQ(bytes_of(x), x_in);
  EXPECT_EQ(0u, other_in) << "bytes copied to the device into anything but x's memory";
  EXPECT_EQ(bytes_of(y), y_out);
  EXPECT_EQ(0u, other_out) << "bytes copied to the host from anything but y's memory";
}

} // namespace
