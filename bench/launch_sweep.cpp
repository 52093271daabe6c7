// loom's automatic launch shape against a sweep of block shapes and grid caps, for each loom
// kernel of the benchmarks: the figure to beat is the best swept shape, measured in the same run.
// The stencil's and the softmax's outputs are checked under every shape.
#include "BenchSupport.h"
#include "Kernels.h"

#include "runtime/GpuContext.h"
#include "runtime/Launch.h"

#include <cmath>
#include <cstdio>
#include <cstring>
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

// Checks the output each launch shape produced. The automatic shape's is checked against the
// double-precision reference (`error`); every other shape's must equal it bit for bit, since a
// launch shape decides only which thread computes an element, not how. The output is refilled
// with NaN before each shape, so an element a shape leaves out cannot pass for computed.
class ShapeCheck {
public:
  ShapeCheck(std::string what, DeviceArray<float> &output,
             std::function<double(const float *)> error, double tolerance)
      : what_(std::move(what)), output_(output), error_(std::move(error)), tolerance_(tolerance),
        poison_(size_t(output.size()), NAN) {}

  void poison() { output_.copy_from_host(poison_.data()); }

  bool verify(const std::string &shape) {
    std::vector<float> got = output_.to_host();
    if (expected_.empty()) {
      expected_ = std::move(got);
      return bench::check((what_ + ", " + shape).c_str(), error_(expected_.data()), tolerance_);
    }
    bool same = std::memcmp(got.data(), expected_.data(), got.size() * sizeof(float)) == 0;
    return bench::check((what_ + ", " + shape + ": bit for bit as automatic").c_str(),
                        same ? 0.0 : 1.0, 0.0);
  }

private:
  std::string what_;
  DeviceArray<float> &output_;
  std::function<double(const float *)> error_;
  double tolerance_;
  std::vector<float> poison_, expected_;
};

// Times `call` under the automatic shape and every policy; prints each and the ratio. With a
// `check`, also checks each shape's output; returns whether all passed.
bool sweep(const char *name, loom::Kernel &k, const std::function<void()> &call,
           const std::vector<LaunchPolicy> &policies, int runs, ShapeCheck *check = nullptr) {
  bool ok = true;
  auto time_shape = [&](const std::string &shape) {
    if (check)
      check->poison();
    double ms = median_ms(call, runs);
    std::printf("%-28s %-26s %9.4f ms\n", name, shape.c_str(), ms);
    if (check)
      ok &= check->verify(shape);
    return ms;
  };
  k.launch_policy(LaunchPolicy());
  double automatic = time_shape("automatic");
  double best = automatic;
  std::string best_name = "automatic";
  for (const LaunchPolicy &p : policies) {
    k.launch_policy(p);
    double ms = time_shape(describe(p));
    if (ms < best)
      best = ms, best_name = describe(p);
  }
  k.launch_policy(LaunchPolicy());
  std::printf("%-28s best: %s; automatic / best speed %.3f\n", name, best_name.c_str(),
              best / automatic);
  bench::result((std::string("sweep_") + name + "_auto_ms").c_str(), automatic, "ms");
  bench::result((std::string("sweep_") + name + "_best_ms").c_str(), best, "ms");
  return ok;
}

std::vector<LaunchPolicy> policies_1d() {
  std::vector<LaunchPolicy> out;
  for (unsigned b : {128u, 256u, 512u, 1024u})
    for (int waves : {1, 4, 16, 0})
      out.push_back({{b, 1, 1}, waves});
  return out;
}

// One parallel iteration per row of 8192 fills less than a wave at any block size, so no cap
// binds; what matters is how many SMs the blocks reach, hence the small blocks too.
std::vector<LaunchPolicy> policies_rows() {
  std::vector<LaunchPolicy> out;
  for (unsigned b : {32u, 64u, 128u, 256u, 512u, 1024u})
    out.push_back({{b, 1, 1}, 0});
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
  bool ok = true;
  {
    const int64_t n = 8192;
    std::vector<float> u = bench::random_vector(size_t(n * n), seed + 5);
    DeviceArray<float> du(u, {n, n}), dv = DeviceArray<float>::uninitialized({n, n});
    ShapeCheck check(
        "stencil 8192^2 (loom)", dv,
        [&](const float *v) { return bench::stencil_error(u.data(), v, n, n); },
        bench::stencil_tolerance);
    loom::Kernel stencil = bench::make_stencil("stencil");
    ok &= sweep(
        "stencil8192", stencil, [&] { stencil(du, dv); }, policies_2d(), 10, &check);
  }
  {
    const int64_t n = 8192;
    std::vector<float> x = bench::softmax_input(size_t(n * n), seed + 6);
    DeviceArray<float> dx(x, {n, n}), dy = DeviceArray<float>::uninitialized({n, n});
    ShapeCheck check(
        "softmax 8192 x 8192 (loom)", dy,
        [&](const float *y) { return bench::softmax_error(x.data(), y, n, n); },
        bench::softmax_tolerance);
    loom::Kernel softmax = bench::make_softmax("softmax");
    ok &= sweep(
        "softmax8192", softmax, [&] { softmax(dx, dy); }, policies_rows(), 10, &check);
  }
  return ok ? 0 : 1;
}
