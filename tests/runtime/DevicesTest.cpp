// Several GPUs against loom's fake driver (tests/cache/FakeCudaDriver.cpp) with two devices, so it
// runs on any machine: which device each kernel call, array and stream goes to, that every driver
// object is used in its own device's context (the fake counts each use outside it), copies
// between devices, threads driving both devices at once (CI runs this under ThreadSanitizer too),
// LOOM_DEVICE and the local rank, and the errors for devices that do not exist or do not match.
// tests/e2e/devices_test.cpp checks results on real GPUs.
#include "cache/FakeDriver.h"

#include "loom/loom.hpp"
#include "runtime/Driver.h"
#include "runtime/GpuContext.h"

#include <gtest/gtest.h>

#include <spawn.h>
#include <sys/wait.h>

#include <algorithm>
#include <cstdlib>
#include <numeric>
#include <random>
#include <string>
#include <thread>
#include <vector>

extern char **environ;

using namespace loom;
using namespace loomtest;

namespace {

const bool fake_driver_loaded = [] {
  setenv("FAKE_CUDA_DEVICES", "2", 0);
  return fake_cuda::load_without_disk_cache();
}();

int mismatches() {
  return fake_cuda::function<int (*)()>("loom_fake_cuda_context_mismatches")();
}
int launches_on(int device) {
  return fake_cuda::function<int (*)(int)>("loom_fake_cuda_launches_on")(device);
}

Kernel make_axpb(const std::string &name = "axpb") {
  return kernel(name,
                [](F32 a, Array<float> x, Array<float> y, F32 b) {
                  parallel_for(x.size(), [&](Index i) { y[i] = a * x[i] + b; });
                },
                {"a", "x", "y", "b"});
}

std::vector<float> random_floats(size_t n, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(-4.0f, 4.0f);
  std::vector<float> v(n);
  for (float &x : v)
    x = dist(gen);
  return v;
}

#define REQUIRE_FAKE_DRIVER()                                                                      \
  ASSERT_TRUE(fake_driver_loaded) << runtime::Driver::get().unavailable_reason()

TEST(Devices, ListsEachDeviceWithItsPciAddress) {
  REQUIRE_FAKE_DRIVER();
  std::vector<Device> all = devices();
  ASSERT_EQ(2u, all.size());
  EXPECT_EQ(0, all[0].ordinal());
  EXPECT_EQ(1, all[1].ordinal());
  EXPECT_EQ("0000:10:00.0", all[0].pci_bus_id());
  EXPECT_EQ("0000:11:00.0", all[1].pci_bus_id());
  EXPECT_EQ("sm_90", all[1].sm());
  EXPECT_EQ(4, all[1].multiprocessors());
  EXPECT_EQ(size_t(1) << 30, all[1].memory());
  EXPECT_NE(std::string::npos, all[1].to_string().find("GPU 1 (loom fake GPU, sm_90, 4 SMs"))
      << all[1].to_string();
  EXPECT_TRUE(all[0] == Device(0));
  EXPECT_FALSE(all[0] == all[1]);
}

TEST(Devices, AnUnknownDeviceIsAnArgumentErrorSayingWhatExists) {
  REQUIRE_FAKE_DRIVER();
  for (int ordinal : {2, 64, -1}) {
    try {
      Device d(ordinal);
      FAIL() << "no error for device " << ordinal;
    } catch (const ArgumentError &e) {
      const std::string message = e.what();
      EXPECT_NE(std::string::npos, message.find("there is no GPU " + std::to_string(ordinal)))
          << message;
      EXPECT_NE(std::string::npos,
                message.find("this machine has 2 GPUs: 0: loom fake GPU (sm_90), 1: loom fake "
                             "GPU (sm_90)"))
          << message;
    }
  }
}

TEST(Devices, AKernelRunsOnTheDeviceItIsGivenWithArraysThere) {
  REQUIRE_FAKE_DRIVER();
  const int before_mismatches = mismatches();
  Device second(1);
  Kernel k = make_axpb().on(second);
  DeviceArray<float> x(second, random_floats(1000, 1)), y(second, {1000});
  EXPECT_EQ(1, x.device_ordinal());
  EXPECT_TRUE(y.device() == second);
  const int on_0 = launches_on(0), on_1 = launches_on(1);
  for (int i = 0; i < 3; ++i)
    k(2.0f, x, y, 1.0f);
  EXPECT_EQ(on_1 + 3, launches_on(1));
  EXPECT_EQ(on_0, launches_on(0)) << "a launch went to device 0";
  const std::string why = k.explain();
  EXPECT_NE(std::string::npos,
            why.find("device: GPU 1 of 2 (PCI 0000:11:00.0), because Kernel::on(loom::Device(1)) "
                     "chose it"))
      << why;
  EXPECT_EQ(before_mismatches, mismatches()) << "a driver object was used outside its context";
}

TEST(Devices, OneKernelObjectOnEitherDeviceKeepsCodeForEach) {
  REQUIRE_FAKE_DRIVER();
  const int before_mismatches = mismatches();
  Kernel k = make_axpb("axpb_on_either_device"); // a kernel no other test compiled
  DeviceArray<float> x0(Device(0), random_floats(256, 2)), y0(Device(0), {256});
  DeviceArray<float> x1(Device(1), random_floats(256, 3)), y1(Device(1), {256});
  const int loads = fake_cuda::calls("cuModuleLoadData") + fake_cuda::calls("cuModuleLoadDataEx");
  for (int round = 0; round < 3; ++round) {
    const int on_0 = launches_on(0), on_1 = launches_on(1);
    k.on(Device(0))(1.0f, x0, y0, 0.0f);
    k.on(Device(1))(1.0f, x1, y1, 0.0f);
    EXPECT_EQ(on_0 + 1, launches_on(0));
    EXPECT_EQ(on_1 + 1, launches_on(1));
    if (round == 0) {
      const CompileTimes t = k.compile_times();
      EXPECT_EQ(CodeSource::MemoryCache, t.source);
      EXPECT_EQ("machine code this process linked for another GPU of the same sm", t.detail);
    }
  }
  // One module per device, loaded on the first call there; the second device's code comes from
  // the first's compile (the same sm), not from LLVM again.
  EXPECT_EQ(loads + 2,
            fake_cuda::calls("cuModuleLoadData") + fake_cuda::calls("cuModuleLoadDataEx"));
  EXPECT_EQ(before_mismatches, mismatches());
}

TEST(Devices, AnArrayOfAnotherDeviceIsAnArgumentErrorNamingBoth) {
  REQUIRE_FAKE_DRIVER();
  Kernel k = make_axpb().on(Device(1));
  DeviceArray<float> x(Device(0), {64}), y(Device(1), {64});
  const int launches = fake_cuda::calls("cuLaunchKernel");
  try {
    k(2.0f, x, y, 1.0f);
    FAIL() << "no ArgumentError";
  } catch (const ArgumentError &e) {
    const std::string message = e.what();
    EXPECT_NE(std::string::npos,
              message.find("argument 2 ('x') of kernel 'axpb' is a DeviceArray on GPU 0, but the "
                           "kernel runs on GPU 1 (Kernel::on chose it); copy it over with "
                           "to(loom::Device(1))"))
        << message;
  }
  // A view of it is refused the same way, and so is a stream of the other device.
  EXPECT_THROW(k(2.0f, x.view(), y, 1.0f), ArgumentError);
  DeviceArray<float> x1 = x.to(Device(1));
  Stream on_0(Device(0));
  EXPECT_THROW(k.launch_async(on_0, 2.0f, x1, y, 1.0f), ArgumentError);
  EXPECT_EQ(launches, fake_cuda::calls("cuLaunchKernel")) << "a refused call launched";
  // The kernel is unharmed.
  Stream on_1(Device(1));
  k.launch_async(on_1, 2.0f, x1, y, 1.0f);
  on_1.synchronize();
  EXPECT_EQ(launches + 1, fake_cuda::calls("cuLaunchKernel"));
}

TEST(Devices, CopiesBetweenDevicesKeepEveryValue) {
  REQUIRE_FAKE_DRIVER();
  const int before_mismatches = mismatches();
  const std::vector<float> values = random_floats(3 * 1000, 4);
  DeviceArray<float> a(Device(0), values, {3, 1000});
  DeviceArray<float> b = a.to(Device(1));
  EXPECT_EQ(1, b.device_ordinal());
  EXPECT_EQ(a.shape(), b.shape());
  EXPECT_EQ(values, b.to_host());
  DeviceArray<float> c = b.to(Device(1)); // same device: a copy, not an alias
  EXPECT_NE(b.data(), c.data());
  EXPECT_EQ(values, c.to_host());
  a.copy_from(DeviceArray<float>(Device(1), std::vector<float>(3000, 7.5f), {3, 1000}));
  EXPECT_EQ(std::vector<float>(3000, 7.5f), a.to_host());
  EXPECT_THROW(a.copy_from(DeviceArray<float>(Device(1), {3000})), ArgumentError);
  EXPECT_GE(fake_cuda::calls("cuMemcpyPeer"), 2);
  EXPECT_EQ(before_mismatches, mismatches());
}

TEST(Devices, StreamsAndEventsBelongToTheirDevice) {
  REQUIRE_FAKE_DRIVER();
  const int before_mismatches = mismatches();
  {
    Stream s(Device(1));
    EXPECT_EQ(1, s.device());
    Event e(Device(1));
    e.record(&s);
    s.synchronize();
    EXPECT_TRUE(e.done());
    Event other(Device(0));
    EXPECT_THROW(other.record(&s), ArgumentError);
  } // destroyed in device 1's context, whatever the thread's device
  EXPECT_EQ(before_mismatches, mismatches());
}

// Two threads, each driving its own device with kernels of its own (one of them a kernel both
// threads make, whose compiled code the caches share) and arrays of its own.
TEST(Devices, ThreadsDriveDifferentDevicesAtOnce) {
  REQUIRE_FAKE_DRIVER();
  const int before_mismatches = mismatches();
  const int on_0 = launches_on(0), on_1 = launches_on(1);
  constexpr int calls = 40;
  auto drive = [&](int ordinal) {
    Device device(ordinal);
    Kernel own = make_axpb("axpb_thread_" + std::to_string(ordinal)).on(device);
    Kernel common = make_axpb("axpb_both_threads").on(device);
    DeviceArray<float> x(device, random_floats(512, 10 + ordinal)), y(device, {512});
    Stream stream(device);
    for (int i = 0; i < calls; ++i) {
      own(1.0f, x, y, 2.0f);
      common.launch_async(stream, 1.0f, x, y, 2.0f);
    }
    stream.synchronize();
  };
  std::thread first(drive, 0), second(drive, 1);
  first.join();
  second.join();
  EXPECT_EQ(on_0 + 2 * calls, launches_on(0));
  EXPECT_EQ(on_1 + 2 * calls, launches_on(1));
  EXPECT_EQ(before_mismatches, mismatches());
}

// all_gpus() over the two devices: each part copies in only the rows its iterations read (the
// stencil's halo rows too) and copies out only the rows it writes, on its own device.
TEST(Devices, AllGpusCopiesEachPartsRowsOnly) {
  REQUIRE_FAKE_DRIVER();
  const int before_mismatches = mismatches();
  const int64_t rows = 101, cols = 40;
  std::vector<double> u(rows * cols, 1.0), v(rows * cols, 0.0);
  Kernel k = kernel("split_stencil",
                    [](Array2<double> u, Array2<double> v) {
                      parallel_for({range(1, u.dim(0) - 1), u.dim(1)},
                                   [&](Index i, Index j) { v(i, j) = u(i - 1, j) + u(i + 1, j); });
                    },
                    {"u", "v"})
                 .on(all_gpus());
  const int on_0 = launches_on(0), on_1 = launches_on(1);
  fake_cuda::clear_copies();
  k(view(u, {rows, cols}), view(v, {rows, cols}));
  EXPECT_EQ(on_0 + 1, launches_on(0));
  EXPECT_EQ(on_1 + 1, launches_on(1));
  // 99 iterations in parts [0, 50) and [50, 99), reading rows i to i + 2 of u (iteration i is
  // row 1 + i) and writing row 1 + i of v.
  auto bytes_of = [&](const std::vector<double> &host, bool to_device) {
    std::vector<size_t> sizes;
    for (const LoomFakeCopy &c : fake_cuda::copies()) {
      const auto *at = static_cast<const double *>(c.host);
      if (c.to_device == to_device && at >= host.data() && at < host.data() + host.size())
        sizes.push_back(c.bytes / (cols * sizeof(double)));
    }
    std::sort(sizes.begin(), sizes.end());
    return sizes;
  };
  EXPECT_EQ((std::vector<size_t>{51, 52}), bytes_of(u, true)) << "rows of u copied in per part";
  EXPECT_TRUE(bytes_of(u, false).empty()) << "u is only read";
  EXPECT_EQ((std::vector<size_t>{49, 50}), bytes_of(v, false)) << "rows of v copied out per part";
  EXPECT_NE(std::string::npos, k.explain().find("'u': rows in per part: [0, 52), [50, 101)"))
      << k.explain();
  // Device arrays live on one device: refused.
  DeviceArray<double> du(Device(0), {rows, cols}), dv(Device(0), {rows, cols});
  EXPECT_THROW(k(du, dv), ArgumentError);
  EXPECT_EQ(before_mismatches, mismatches());
}

// LOOM_DEVICE is read once per process: these run in a child process of this test binary that
// has it set (ChildProcess below starts them); run directly, they skip.
bool in_child() {
  return std::getenv("LOOM_DEVICES_TEST_CHILD") != nullptr;
}
#define CHILD_ONLY()                                                                               \
  if (!in_child())                                                                                 \
  GTEST_SKIP() << "runs in a child process that Devices.LoomDeviceInAChildProcess starts"

TEST(DevicesChild, LoomDeviceOne) {
  CHILD_ONLY();
  REQUIRE_FAKE_DRIVER();
  EXPECT_EQ(1, Device::default_device().ordinal());
  DeviceArray<float> x(random_floats(100, 5)), y({100});
  EXPECT_EQ(1, x.device_ordinal());
  Kernel k = make_axpb();
  const int on_1 = launches_on(1);
  k(1.0f, x, y, 1.0f);
  EXPECT_EQ(on_1 + 1, launches_on(1));
  EXPECT_NE(std::string::npos, k.explain().find("because LOOM_DEVICE=1 chose it")) << k.explain();
  Stream s;
  EXPECT_EQ(1, s.device());
}

TEST(DevicesChild, LoomDeviceOutOfRange) {
  CHILD_ONLY();
  REQUIRE_FAKE_DRIVER();
  try {
    choose_target();
    FAIL() << "no TargetError";
  } catch (const TargetError &e) {
    EXPECT_NE(std::string::npos,
              std::string(e.what()).find("LOOM_DEVICE=7 names no device: this machine has 2 GPUs"))
        << e.what();
  }
  EXPECT_THROW(DeviceArray<float>({16}), TargetError);
  std::vector<float> x(4, 1.0f), y(4);
  EXPECT_THROW(make_axpb()(1.0f, x, y, 1.0f), TargetError);
  EXPECT_NO_THROW(Device(1)) << "a device named in the program needs no LOOM_DEVICE";
}

TEST(DevicesChild, LoomDeviceLocalRank) {
  CHILD_ONLY();
  REQUIRE_FAKE_DRIVER();
  // OMPI_COMM_WORLD_LOCAL_RANK=3 on a node of 2 GPUs: the second.
  EXPECT_EQ(1, Device::default_device().ordinal());
  EXPECT_EQ(1, device_for_local_rank().ordinal());
}

TEST(DevicesChild, LoomDeviceLocalRankWithoutALauncher) {
  CHILD_ONLY();
  REQUIRE_FAKE_DRIVER();
  try {
    DeviceArray<float> x({16});
    FAIL() << "no TargetError";
  } catch (const TargetError &e) {
    EXPECT_NE(std::string::npos, std::string(e.what()).find("LOOM_DEVICE=local-rank, but no MPI "
                                                            "launcher says this process's local "
                                                            "rank (OMPI_COMM_WORLD_LOCAL_RANK"))
        << e.what();
  }
  EXPECT_THROW(device_for_local_rank(), TargetError);
}

// Runs DevicesChild.`test` in a new process of this binary with `env` added; its exit status.
int run_child(const std::string &test, std::vector<std::string> env) {
  std::vector<std::string> strings;
  for (char **e = environ; *e; ++e) {
    std::string entry = *e;
    bool replaced = false;
    for (const std::string &added : env)
      replaced |= entry.substr(0, entry.find('=')) == added.substr(0, added.find('='));
    // The launcher's variables of this process, if any, would decide the local rank instead.
    replaced |= entry.rfind("OMPI_COMM_WORLD_LOCAL_RANK=", 0) == 0 ||
                entry.rfind("MPI_LOCALRANKID=", 0) == 0 || entry.rfind("SLURM_LOCALID=", 0) == 0 ||
                entry.rfind("MV2_COMM_WORLD_LOCAL_RANK=", 0) == 0 ||
                entry.rfind("PALS_LOCAL_RANKID=", 0) == 0;
    if (!replaced)
      strings.push_back(entry);
  }
  env.push_back("LOOM_DEVICES_TEST_CHILD=1");
  strings.insert(strings.end(), env.begin(), env.end());
  std::vector<char *> envp;
  for (std::string &s : strings)
    envp.push_back(s.data());
  envp.push_back(nullptr);
  std::string self = "/proc/self/exe", filter = "--gtest_filter=DevicesChild." + test;
  char *argv[] = {self.data(), filter.data(), nullptr};
  pid_t pid = 0;
  if (posix_spawn(&pid, self.c_str(), nullptr, nullptr, argv, envp.data()) != 0)
    return -1;
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

TEST(Devices, LoomDeviceInAChildProcess) {
  REQUIRE_FAKE_DRIVER();
  EXPECT_EQ(0, run_child("LoomDeviceOne", {"LOOM_DEVICE=1"}));
  EXPECT_EQ(0, run_child("LoomDeviceOutOfRange", {"LOOM_DEVICE=7"}));
  EXPECT_EQ(0, run_child("LoomDeviceLocalRank",
                         {"LOOM_DEVICE=local-rank", "OMPI_COMM_WORLD_LOCAL_RANK=3"}));
  EXPECT_EQ(0, run_child("LoomDeviceLocalRankWithoutALauncher", {"LOOM_DEVICE=local-rank"}));
}

} // namespace
