// loom's automatic launch shape against a sweep of block shapes and grid caps, for each loom
// kernel of the benchmarks: the figure to beat is the best swept shape, measured in the same run.
#include "BenchSupport.h"
#include "Kernels.h"

#include "runtime/GpuContext.h"
#include "runtime/Launch.h"

#include <cstdio>
#include <functional>
#include <string>
#include <vector>

using loom::DeviceArray;
using loom::runtime::LaunchPolicy;

namespace {

double median_ms(const std::function<void()> &call, int runs) {
  call(); // warm-up (and compilation on the first policy)
  loom::runtime::GpuTimer timer;
  std::vector<double> ms;
  for (int r = 0; r < runs; ++r) {
    timer.start();
    call();
    timer.stop();
    ms.push_back(timer.elapsed_ms());
  }
  return bench::median(ms);
}

std::string describe(const LaunchPolicy &p) {
  char text[64];
  if (p.block[0] == 0)
    std::snprintf(text, sizeof text, "auto block, %d waves", p.max_waves);
  else
    std::snprintf(text, sizeof text, "%ux%u, %s", p.block[0], p.block[1],
                  p.max_waves ? (std::to_string(p.max_waves) + " waves").c_str() : "no cap");
  return text;
}

// Times `call` under the automatic shape and every policy; prints each and the ratio.
void sweep(const char *name, loom::Kernel &k, const std::function<void()> &call,
           const std::vector<LaunchPolicy> &policies, int runs) {
  k.launch_policy(LaunchPolicy());
  double automatic = median_ms(call, runs);
  std::printf("%-28s %-26s %9.4f ms\n", name, "automatic", automatic);
  double best = automatic;
  std::string best_name = "automatic";
  for (const LaunchPolicy &p : policies) {
    k.launch_policy(p);
    double ms = median_ms(call, runs);
    std::printf("%-28s %-26s %9.4f ms\n", name, describe(p).c_str(), ms);
    if (ms < best)
      best = ms, best_name = describe(p);
  }
  k.launch_policy(LaunchPolicy());
  std::printf("%-28s best: %s; automatic / best speed %.3f\n", name, best_name.c_str(),
              best / automatic);
  bench::result((std::string("sweep_") + name + "_auto_ms").c_str(), automatic, "ms");
  bench::result((std::string("sweep_") + name + "_best_ms").c_str(), best, "ms");
}

std::vector<LaunchPolicy> policies_1d() {
  std::vector<LaunchPolicy> out;
  for (unsigned b : {128u, 256u, 512u, 1024u})
    for (int waves : {1, 4, 16, 0})
      out.push_back({{b, 1, 1}, waves});
  return out;
}

std::vector<LaunchPolicy> policies_2d() {
  std::vector<LaunchPolicy> out;
  for (auto [x, y] :
       {std::pair{32u, 4u}, {32u, 8u}, {32u, 16u}, {32u, 32u}, {64u, 4u}, {16u, 16u}, {128u, 2u}})
    for (int waves : {4, 16, 0})
      out.push_back({{x, y, 1}, waves});
  return out;
}

} // namespace

int main() {
  std::string reason;
  if (!loom::runtime::GpuContext::usable(&reason)) {
    std::printf("no usable GPU: %s\n", reason.c_str());
    return 0;
  }
  uint64_t seed = bench::fresh_seed();
  {
    const size_t n = size_t(1) << 28;
    DeviceArray<float> x(bench::random_vector(n, seed)), y(bench::random_vector(n, seed + 1));
    loom::Kernel saxpy = bench::make_saxpy("saxpy");
    sweep(
        "saxpy_2e28", saxpy, [&] { saxpy(0.5f, x, y); }, policies_1d(), 10);
  }
  {
    const size_t n = size_t(1) << 30;
    DeviceArray<float> x(bench::random_vector(n, seed + 4)), total(std::vector<float>{0.0f});
    loom::Kernel sum = bench::make_sum("sum");
    sweep(
        "sum_2e30", sum, [&] { sum(x, total); }, policies_1d(), 10);
  }
  for (int64_t n : {int64_t(1024), int64_t(4096)}) {
    DeviceArray<float> A(bench::random_vector(size_t(n * n), seed + 2), {n, n});
    DeviceArray<float> B(bench::random_vector(size_t(n * n), seed + 3), {n, n});
    DeviceArray<float> C = DeviceArray<float>::uninitialized({n, n});
    loom::Kernel matmul = bench::make_matmul("matmul");
    std::string name = "matmul" + std::to_string(n);
    sweep(
        name.c_str(), matmul, [&] { matmul(A, B, C); }, policies_2d(), n > 2048 ? 5 : 10);
  }
  return 0;
}
