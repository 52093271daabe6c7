// Several GPUs on real hardware (skipped, saying why, without a GPU; the parts that need two skip
// on a machine with one): every device runs a kernel on its own arrays with results checked
// against a double-precision reference, arrays travel between devices intact, threads drive
// different devices at once, and mismatched devices are refused. tests/runtime/DevicesTest.cpp
// checks the same against a fake driver of two devices on any machine.
#include "support/TestUtil.h"

#include <cmath>
#include <string>
#include <thread>

using namespace loom;
using loomtest::random_vector;

namespace {

#define REQUIRE_GPUS(n)                                                                            \
  do {                                                                                             \
    std::string why;                                                                               \
    if (!runtime::GpuContext::usable(&why))                                                        \
      GTEST_SKIP() << "no usable GPU: " << why;                                                    \
    if (devices().size() < (n))                                                                    \
      GTEST_SKIP() << "needs " << (n) << " GPUs; this machine has " << devices().size();           \
  } while (0)

Kernel make_saxpy() {
  return kernel("saxpy",
                [](F32 a, Array<float> x, Array<float> y) {
                  parallel_for(x.size(), [&](Index i) { y[i] = a * x[i] + y[i]; });
                },
                {"a", "x", "y"});
}

// y = a x + y on `device`, checked element by element against double precision (one rounding
// of a fused or unfused a x + y: 2 ulp of the result).
void check_saxpy_on(const Device &device, unsigned seed) {
  const size_t n = (size_t(1) << 20) + 17;
  auto x = random_vector<float>(n, -2.0f, 2.0f, seed),
       y = random_vector<float>(n, -2.0f, 2.0f, seed + 1);
  DeviceArray<float> dx(device, x), dy(device, y);
  Kernel k = make_saxpy().on(device);
  k(1.5f, dx, dy);
  std::vector<float> out = dy.to_host();
  for (size_t i = 0; i < n; ++i) {
    const double want = 1.5 * double(x[i]) + double(y[i]);
    ASSERT_NEAR(want, out[i], 2.5e-7 * std::fabs(want) + 1e-7)
        << "element " << i << " on " << device.to_string();
  }
  EXPECT_NE(std::string::npos, k.explain().find("device: GPU " + std::to_string(device.ordinal())))
      << k.explain();
}

TEST(GpuDevices, EveryDeviceRunsItsOwnArrays) {
  REQUIRE_GPUS(1u);
  unsigned seed = 10;
  for (const Device &device : devices()) {
    EXPECT_FALSE(device.name().empty());
    EXPECT_EQ(12u, device.pci_bus_id().size()) << device.pci_bus_id(); // "0000:19:00.0"
    EXPECT_GT(device.memory(), size_t(1) << 30);
    check_saxpy_on(device, seed += 2);
  }
}

TEST(GpuDevices, ArraysTravelBetweenDevicesIntact) {
  REQUIRE_GPUS(1u);
  auto values = random_vector<float>(5000 * 3, -1.0f, 1.0f, 7);
  std::vector<Device> all = devices();
  DeviceArray<float> a(all.front(), values, {5000, 3});
  for (const Device &to : all) {
    DeviceArray<float> b = a.to(to);
    EXPECT_TRUE(b.device() == to);
    EXPECT_EQ(values, b.to_host()) << "copied to " << to.to_string();
    DeviceArray<float> back(all.front(), {5000, 3});
    back.copy_from(b);
    EXPECT_EQ(values, back.to_host()) << "copied back from " << to.to_string();
  }
}

TEST(GpuDevices, ThreadsDriveTwoDevicesAtOnce) {
  REQUIRE_GPUS(2u);
  std::thread first([] { check_saxpy_on(Device(0), 100); });
  std::thread second([] { check_saxpy_on(Device(1), 200); });
  first.join();
  second.join();
}

TEST(GpuDevices, AnArrayOfAnotherDeviceIsRefusedAndTheContextsStayUsable) {
  REQUIRE_GPUS(2u);
  DeviceArray<float> x(Device(0), random_vector<float>(64, -1.0f, 1.0f, 3)), y(Device(1), {64});
  EXPECT_THROW(make_saxpy().on(Device(1))(2.0f, x, y), ArgumentError);
  check_saxpy_on(Device(0), 300);
  check_saxpy_on(Device(1), 400);
}

TEST(GpuDevices, AnUnknownDeviceIsAnArgumentError) {
  REQUIRE_GPUS(1u);
  const int count = static_cast<int>(devices().size());
  try {
    Device d(count);
    FAIL() << "no error for device " << count;
  } catch (const ArgumentError &e) {
    EXPECT_NE(std::string::npos, std::string(e.what()).find("this machine has")) << e.what();
  }
}

} // namespace
