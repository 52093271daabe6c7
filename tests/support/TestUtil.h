// Shared helpers of loom's tests: random inputs, the target fixture and the ptxas check.
#pragma once

#include <loom/loom.hpp>

#include "ir/Lower.h"
#include "runtime/GpuContext.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <initializer_list>
#include <random>
#include <string>
#include <type_traits>
#include <unistd.h>
#include <vector>

namespace loomtest {

// Random values of T in [lo, hi], from a fixed seed so failures reproduce.
template <class T> std::vector<T> random_vector(size_t n, double lo, double hi, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::vector<T> v(n);
  if constexpr (std::is_floating_point_v<T>) {
    std::uniform_real_distribution<double> d(lo, hi);
    for (auto &x : v)
      x = static_cast<T>(d(rng));
  } else if constexpr (std::is_same_v<T, bool>) {
    for (auto &x : v)
      x = rng() & 1;
  } else {
    std::uniform_int_distribution<int64_t> d(static_cast<int64_t>(lo), static_cast<int64_t>(hi));
    for (auto &x : v)
      x = static_cast<T>(d(rng));
  }
  return v;
}

// Checks C = A B (row-major, A is n x kk, B is kk x m) against a product computed in double; each
// element may be off by 1e-6 of the sum of the magnitudes of its products (f32 accumulation).
inline void expect_matmul(const std::vector<float> &A, const std::vector<float> &B,
                          const std::vector<float> &C, int64_t n, int64_t kk, int64_t m) {
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < m; ++j) {
      double ref = 0, mag = 0;
      for (int64_t l = 0; l < kk; ++l) {
        ref += double(A[i * kk + l]) * B[l * m + j];
        mag += std::abs(double(A[i * kk + l]) * B[l * m + j]);
      }
      ASSERT_LE(std::abs(C[i * m + j] - ref), 1e-6 * mag + 1e-7) << i << "," << j;
    }
}

// Steps of the Collatz iteration from `n` down to 1.
inline int32_t collatz_steps(int64_t n) {
  int32_t count = 0;
  for (; n != 1; ++count)
    n = n % 2 == 0 ? n / 2 : 3 * n + 1;
  return count;
}

inline std::string ptxas_path() {
  for (const char *p : {"/usr/local/cuda/bin/ptxas", "/usr/bin/ptxas"})
    if (access(p, X_OK) == 0)
      return p;
  if (std::system("command -v ptxas >/dev/null 2>&1") == 0)
    return "ptxas";
  return "";
}

// Assembles the kernel's PTX with ptxas for sm_80 and sm_90, or the architectures given (skips
// the check, saying so, when ptxas is missing); PTX that targets an architecture-specific variant
// (sm_90a: wgmma) for that variant. Returns ptxas's output on failure.
inline void expect_ptx_assembles(const loom::Kernel &k,
                                 std::initializer_list<const char *> archs = {"sm_80", "sm_90"}) {
  std::string ptxas = ptxas_path();
  if (ptxas.empty()) {
    std::printf("[  NOTE    ] ptxas not found: PTX of %s not assembled\n", k.name().c_str());
    return;
  }
  for (const char *sm : archs) {
    std::string ptx = k.ptx(sm);
    std::string arch = sm;
    if (ptx.find(std::string(".target ") + sm + "a") != std::string::npos)
      arch += "a";
    char path[] = "/tmp/loom_ptx_XXXXXX";
    int fd = mkstemp(path);
    ASSERT_GE(fd, 0);
    close(fd);
    std::ofstream(path) << ptx;
    std::string log = std::string(path) + ".log";
    std::string cmd = ptxas + " -arch=" + arch + " " + path + " -o /dev/null >" + log + " 2>&1";
    int rc = std::system(cmd.c_str());
    std::ifstream in(log);
    std::string out((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::remove(path);
    std::remove(log.c_str());
    EXPECT_EQ(rc, 0) << "ptxas -arch=" << arch << " rejected the PTX of " << k.name() << ":\n"
                     << out << "\n"
                     << ptx;
  }
}

// Tests parameterized over the target. GPU instances skip, saying why, without a usable GPU.
class TargetTest : public ::testing::TestWithParam<loom::ir::Target> {
protected:
  void SetUp() override {
    if (GetParam() == loom::ir::Target::GPU) {
      std::string why;
      if (!loom::runtime::GpuContext::usable(&why))
        GTEST_SKIP() << "no usable GPU: " << why;
    }
  }
  loom::ir::Target target() const { return GetParam(); }
  // Runs the kernel on this test's target; on the CPU instance its PTX is also assembled.
  loom::Kernel &prepare(loom::Kernel &k) {
    k.on(target());
    if (target() == loom::ir::Target::CPU)
      expect_ptx_assembles(k);
    return k;
  }
};

inline std::string target_name(const ::testing::TestParamInfo<loom::ir::Target> &info) {
  return info.param == loom::ir::Target::GPU ? "gpu" : "cpu";
}

// A kernel lowered for `target` as a call would lower it, with bounds checks when asked: what the
// tests of a lowering pass read or interpret.
inline loom::ir::LoweredKernel lowered(const loom::Kernel &k, loom::ir::Target target,
                                       bool bounds_check = false) {
  loom::ir::Kernel kernel = k.ir();
  kernel.bounds_check = bounds_check;
  return loom::ir::lower(kernel, target);
}

#define LOOM_INSTANTIATE_TARGETS(Suite)                                                            \
  INSTANTIATE_TEST_SUITE_P(, Suite,                                                                \
                           ::testing::Values(loom::ir::Target::CPU, loom::ir::Target::GPU),        \
                           loomtest::target_name)

} // namespace loomtest
