// One call over several GPUs (Kernel::on(DeviceSet), docs/devices.md) against the same kernel on
// one GPU, counting the host arrays' transfers in both: saxpy over 2^30 floats and 20 steps of a
// 5-point f32 stencil on an 8192 x 8192 grid (each step one call, host arrays in and out).
//
//   loom_multi_gpu_bench [--logical N] [--saxpy-log2 K] [--grid N] [--steps S]
//
// With two GPUs or more the split runs over all_gpus(); --logical N (or a machine with one GPU)
// splits over N logical devices on GPU 0 instead, which measures the split's own cost (the same
// GPU does all the work). Prints each time (median of 5) and the ratio one GPU / split (target
// on two H200s: 1.8x or more for both). Every split result is checked against the one-GPU call
// bit for bit. Then the same saxpy with device-resident data: one GPU's DeviceArrays against each
// device of the set holding its share as DeviceArrays, launched on a stream of each device at
// once (no host transfers); and the bandwidth of DeviceArray::copy_from between the first two
// devices of the set (peer to peer where the driver allows it) and within one device.
#include "BenchSupport.h"

#include <loom/loom.hpp>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

namespace {

double seconds_of(const std::function<void()> &f, int repeats = 5) {
  std::vector<double> samples;
  for (int r = 0; r < repeats; ++r) {
    auto start = std::chrono::steady_clock::now();
    f();
    samples.push_back(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  return bench::median(samples);
}

loom::Kernel saxpy() {
  return loom::kernel("multi_saxpy",
                      [](loom::F32 a, loom::Array<float> x, loom::Array<float> y) {
                        loom::parallel_for(x.size(),
                                           [&](loom::Index i) { y[i] = a * x[i] + y[i]; });
                      },
                      {"a", "x", "y"});
}

loom::Kernel stencil() {
  return loom::kernel("multi_stencil",
                      [](loom::F32 alpha, loom::Array2<float> u, loom::Array2<float> v) {
                        loom::parallel_for(
                            {loom::range(1, u.dim(0) - 1), loom::range(1, u.dim(1) - 1)},
                            [&](loom::Index i, loom::Index j) {
                              v(i, j) = u(i, j) + alpha * (((u(i - 1, j) + u(i + 1, j)) +
                                                            (u(i, j - 1) + u(i, j + 1))) -
                                                           4.0f * u(i, j));
                            });
                      },
                      {"alpha", "u", "v"});
}

} // namespace

int main(int argc, char **argv) {
  int logical = 0, saxpy_log2 = 30, steps = 20;
  int64_t grid = 8192;
  for (int a = 1; a < argc; ++a) {
    if (!std::strncmp(argv[a], "--logical=", 10))
      logical = std::atoi(argv[a] + 10);
    else if (!std::strncmp(argv[a], "--saxpy-log2=", 13))
      saxpy_log2 = std::atoi(argv[a] + 13);
    else if (!std::strncmp(argv[a], "--grid=", 7))
      grid = std::atoll(argv[a] + 7);
    else if (!std::strncmp(argv[a], "--steps=", 8))
      steps = std::atoi(argv[a] + 8);
    else {
      std::fprintf(stderr, "usage: loom_multi_gpu_bench [--logical=N] [--saxpy-log2=K] "
                           "[--grid=N] [--steps=S]\n");
      return 2;
    }
  }
  std::vector<loom::Device> gpus = loom::devices();
  if (gpus.empty()) {
    std::printf("multi_gpu_bench: skipped: no usable GPU\n");
    return 0;
  }
  if (gpus.size() < 2 && logical == 0)
    logical = 2;
  loom::DeviceSet split =
      logical > 0 ? loom::DeviceSet(std::vector<loom::Device>(logical, gpus[0])) : loom::all_gpus();
  std::printf("multi_gpu_bench: one GPU = %s; split = %s%s\n", gpus[0].to_string().c_str(),
              split.to_string().c_str(),
              logical > 0 ? " (logical devices: the split's own cost, not a speedup)" : "");
  bool ok = true;

  {
    const size_t n = size_t(1) << saxpy_log2;
    std::vector<float> x = bench::random_vector(n, 1), y0 = bench::random_vector(n, 2);
    std::vector<float> y_one = y0, y_split = y0;
    loom::Kernel one = saxpy().on(gpus[0]), parts = saxpy().on(split);
    one(2.0f, x, y_one);
    parts(2.0f, x, y_split);
    ok &= y_one == y_split;
    const double t_one = seconds_of([&] { one(2.0f, x, y_one); });
    const double t_split = seconds_of([&] { parts(2.0f, x, y_split); });
    std::printf("saxpy 2^%d f32, host arrays (x in, y in and out): one GPU %.2f ms, split %.2f ms, "
                "ratio %.2fx; results %s\n",
                saxpy_log2, t_one * 1e3, t_split * 1e3, t_one / t_split,
                y_one == y_split ? "equal" : "DIFFER");
  }
  {
    std::vector<float> u0 = bench::random_vector(size_t(grid * grid), 3);
    std::vector<float> u_one = u0, v_one = u0, u_split = u0, v_split = u0;
    loom::Kernel one = stencil().on(gpus[0]), parts = stencil().on(split);
    auto run = [&](loom::Kernel &k, std::vector<float> &u, std::vector<float> &v) {
      for (int s = 0; s < steps; ++s) {
        k(0.2f, loom::view(u, {grid, grid}), loom::view(v, {grid, grid}));
        std::swap(u, v);
      }
    };
    run(one, u_one, v_one); // compiles, and a first pass of the steps
    run(parts, u_split, v_split);
    ok &= u_one == u_split;
    const double t_one = seconds_of([&] { run(one, u_one, v_one); }, 3);
    const double t_split = seconds_of([&] { run(parts, u_split, v_split); }, 3);
    std::printf(
        "stencil %lld^2 f32, %d steps of one call (host arrays each step): one GPU %.1f ms, "
        "split %.1f ms, ratio %.2fx; results %s\n",
        static_cast<long long>(grid), steps, t_one * 1e3, t_split * 1e3, t_one / t_split,
        u_one == u_split ? "equal" : "DIFFER");
    std::printf("%s", parts.explain().c_str());
  }
  {
    // Device-resident saxpy: the set's devices each hold their share of x and y.
    const size_t n = size_t(1) << saxpy_log2;
    const std::vector<loom::Device> parts_on =
        split.on_cpu() ? std::vector<loom::Device>{gpus[0]} : split.gpus();
    const size_t parts = parts_on.size();
    std::vector<float> x = bench::random_vector(n, 4), y = bench::random_vector(n, 5);
    loom::DeviceArray<float> dx(gpus[0], x), dy(gpus[0], y);
    loom::Kernel one = saxpy().on(gpus[0]);
    one(2.0f, dx, dy);
    const double t_one = seconds_of([&] { one(2.0f, dx, dy); });
    std::vector<loom::DeviceArray<float>> px, py;
    std::vector<loom::Kernel> kernels;
    std::vector<loom::Stream> streams;
    for (size_t p = 0; p < parts; ++p) {
      const size_t begin = n * p / parts, end = n * (p + 1) / parts;
      std::vector<float> xs(x.begin() + begin, x.begin() + end),
          ys(y.begin() + begin, y.begin() + end);
      px.emplace_back(parts_on[p], xs);
      py.emplace_back(parts_on[p], ys);
      kernels.push_back(saxpy().on(parts_on[p]));
      streams.emplace_back(parts_on[p]);
    }
    auto run_parts = [&] {
      for (size_t p = 0; p < parts; ++p)
        kernels[p].launch_async(streams[p], 2.0f, px[p], py[p]);
      for (loom::Stream &s : streams)
        s.synchronize();
    };
    run_parts();
    const double t_parts = seconds_of(run_parts);
    std::printf("saxpy 2^%d f32, device-resident: one GPU %.3f ms, %zu device(s) at once %.3f ms, "
                "ratio %.2fx\n",
                saxpy_log2, t_one * 1e3, parts, t_parts * 1e3, t_one / t_parts);
  }
  {
    // Copies between devices: the first two of the set (peer to peer where possible), and one.
    const size_t bytes = size_t(1) << 30;
    const loom::Device from = gpus[0], to = gpus.size() > 1 ? gpus[1] : gpus[0];
    loom::DeviceArray<float> a =
        loom::DeviceArray<float>::uninitialized(from, {int64_t(bytes / 4)});
    loom::DeviceArray<float> b = loom::DeviceArray<float>::uninitialized(to, {int64_t(bytes / 4)});
    b.copy_from(a);
    const double t = seconds_of([&] { b.copy_from(a); });
    std::printf("copy_from 1 GiB, GPU %d to GPU %d%s: %.2f ms, %.1f GB/s\n", from.ordinal(),
                to.ordinal(),
                from == to            ? " (one device: cuMemcpyDtoD)"
                : from.can_access(to) ? " (peer to peer)"
                                      : " (through host memory)",
                t * 1e3, double(bytes) / t / 1e9);
  }
  return ok ? 0 : 1;
}
