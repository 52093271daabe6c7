// What DeviceArray and DeviceBuffer check before touching the GPU: these run on any machine.
#include "runtime/DeviceArray.h"
#include "runtime/HostMemory.h"

#include <gtest/gtest.h>

using namespace loom;
using namespace loom::runtime;

namespace {

// Runs `make`, expecting an ArgumentError whose message contains `fragment`.
template <class F> void expect_argument_error(F make, const std::string &fragment) {
  try {
    make();
    FAIL() << "expected ArgumentError containing: " << fragment;
  } catch (const ArgumentError &e) {
    EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
  }
}

} // namespace

TEST(runtime_device_array, RankMustBeOneToEight) {
  expect_argument_error([] { DeviceArray<float>::uninitialized({}); },
                        "rank must be 1 to 8, got 0");
  expect_argument_error(
      [] {
        DeviceArray<float>::uninitialized({1, 1, 1, 1, 1, 1, 1, 1, 1});
      },
      "got 9");
  expect_argument_error(
      [] {
        DeviceArray<float> a({1, 2, 3, 4, 1, 1, 1, 1, 2});
      },
      "rank must be 1 to 8, got 9 (shape [1, 2, 3, 4, 1, 1, 1, 1, 2])");
}

TEST(runtime_device_array, NegativeExtentIsNamed) {
  expect_argument_error(
      [] {
        DeviceArray<float> a({3, -2});
      },
      "extent 1 of shape [3, -2] is negative");
}

TEST(runtime_device_array, HostSizeMustMatchShape) {
  std::vector<float> host(5, 1.0f);
  expect_argument_error(
      [&] {
        DeviceArray<float> a(host, {2, 3});
      },
      "the host vector has 5 elements but shape [2, 3] holds 6");
  HostVector<float> aligned(7, 1.0f); // any allocator's vector is checked alike
  expect_argument_error(
      [&] {
        DeviceArray<float> a(aligned, {2, 3});
      },
      "the host vector has 7 elements but shape [2, 3] holds 6");
}

TEST(runtime_device_array, ByteCountOverflowIsRejected) {
  int64_t big = int64_t{1} << 40;
  expect_argument_error([&] { DeviceArray<double> a({big, big}); }, "more bytes than");
}

TEST(runtime_device_array, EmptyArrayNeedsNoGpu) {
  // Zero elements allocate nothing, so this works with or without a GPU.
  DeviceArray<float> a({0, 5});
  EXPECT_EQ(2, a.rank());
  EXPECT_EQ(0, a.dim(0));
  EXPECT_EQ(5, a.dim(1));
  EXPECT_EQ(0, a.size());
  EXPECT_EQ(0u, a.bytes());
  EXPECT_EQ(0u, a.data());
  EXPECT_TRUE(a.to_host().empty());
  DeviceArray<float> b(std::vector<float>{});
  EXPECT_EQ(1, b.rank());
  EXPECT_EQ(0, b.size());
  DeviceArray<float> c(HostVector<float>{});
  EXPECT_EQ(0, c.size());
  DeviceArray<float> moved = std::move(a);
  EXPECT_EQ(5, moved.dim(1));
}

TEST(runtime_device_array, DimOutOfRange) {
  DeviceArray<int> a({0, 4});
  expect_argument_error([&] { a.dim(2); }, "dim(2) of an array of rank 2");
  expect_argument_error([&] { a.dim(-1); }, "dim(-1)");
}

TEST(runtime_device_array, LoomNamespaceAlias) {
  loom::DeviceArray<double> a({0});
  EXPECT_EQ(1, a.rank());
}

TEST(runtime_device_array, BufferCopyLargerThanBufferIsRejected) {
  DeviceBuffer empty;
  float value = 1.0f;
  expect_argument_error([&] { empty.copy_from_host(&value, sizeof(value)); },
                        "4 bytes asked for, but the device buffer holds 0");
  expect_argument_error([&] { empty.copy_to_host(&value, sizeof(value)); },
                        "4 bytes asked for, but the device buffer holds 0");
  DeviceBuffer zero(0);
  EXPECT_EQ(0u, zero.bytes());
  EXPECT_EQ(0u, zero.ptr());
}

TEST(runtime_device_array, FormatBytes) {
  EXPECT_EQ("0 bytes", format_bytes(0));
  EXPECT_EQ("1 byte", format_bytes(1));
  EXPECT_EQ("1023 bytes", format_bytes(1023));
  EXPECT_EQ("1.00 KiB", format_bytes(1024));
  EXPECT_EQ("1.50 KiB", format_bytes(1536));
  EXPECT_EQ("8.00 GiB", format_bytes(uint64_t{8} << 30));
  EXPECT_EQ("139.80 GiB", format_bytes(uint64_t(139.8 * (1 << 30))));
  EXPECT_EQ("1.00 PiB", format_bytes(uint64_t{1} << 50));
}

TEST(runtime_device_array, ShapeToString) {
  EXPECT_EQ("[]", shape_to_string({}));
  EXPECT_EQ("[7]", shape_to_string({7}));
  EXPECT_EQ("[2, 3, 4]", shape_to_string({2, 3, 4}));
}
