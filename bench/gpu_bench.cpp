// loom on the GPU: saxpy bandwidth, naive-matmul throughput, the 5-point stencil and the row
// softmax over 8192^2, how long a kernel takes from its first call to its result, and (from
// gpu_compile_bench.cpp) PTX generation and linking times. The CUDA C peers are in reference.cu
// (cuBLAS's SGEMM, the peer of a future scheduled matmul, in cublas_reference.cu); run_gpu.sh runs
// them all and tables the `RESULT` lines.
//
//   loom_gpu_bench                    everything
//   loom_gpu_bench --first-call-only  only the start-up figures (run_gpu.sh runs this with
//                                     CUDA_CACHE_DISABLE=1, so the driver's own JIT cache cannot
//                                     hide the PTX compilation)
//   loom_gpu_bench --only=ptx         DSL -> PTX time, total and per stage, tracing included
//                                     (needs no GPU)
//   loom_gpu_bench --only=linkers     PTX to machine code: the driver's linker, nvJitLink and the
//                                     driver's JIT (run_gpu.sh: with CUDA_CACHE_DISABLE=1 too)
//   LOOM_PROFILE=tf32,4096,128x256_wg2_d32 loom_gpu_bench --only=matmul_profile
//                                     one product alone, for a profiler (ncu -k regex:matmul -c 1)
#include "BenchSupport.h"
#include "GpuCompileBench.h"
#include "Kernels.h"

#include "runtime/Driver.h"
#include "runtime/GpuContext.h"
#include "runtime/GpuModule.h"
#include "runtime/Launch.h"

#include <complex>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <filesystem>
#include <functional>
#include <optional>
#include <random>
#include <string>

namespace {

using bench::result;
using loom::DeviceArray;

constexpr int warmup_calls = 3;
constexpr int timed_calls = 30;

std::string name_of(const char *format, long long n) {
  char buffer[128];
  std::snprintf(buffer, sizeof buffer, format, n);
  return buffer;
}

struct CallTimes {
  std::vector<double> gpu_ms;  // CUDA events around the call
  std::vector<double> host_ms; // the host clock around the call: launch overhead and final sync
};

// Times each call on its own. The events bracket the whole loom call, so the GPU time also holds
// loom's host work between the start event and the launch (argument checks, grid choice: a few
// microseconds, under 1% at these sizes); that is what a user of loom gets.
template <class F> CallTimes time_calls(F &&call, int warmup, int runs) {
  for (int r = 0; r < warmup; ++r)
    call();
  loom::runtime::GpuTimer timer;
  CallTimes t;
  for (int r = 0; r < runs; ++r) {
    timer.start();
    auto start = bench::Clock::now();
    call();
    t.host_ms.push_back(bench::ms_since(start));
    timer.stop();
    t.gpu_ms.push_back(timer.elapsed_ms());
  }
  return t;
}

void print_times(const std::string &what, const CallTimes &t) {
  std::printf("  %s: GPU median %.4f ms (min %.4f, max %.4f over %zu calls); host wall median "
              "%.4f ms\n",
              what.c_str(), bench::median(t.gpu_ms), bench::min_of(t.gpu_ms),
              bench::max_of(t.gpu_ms), t.gpu_ms.size(), bench::median(t.host_ms));
}

// Uploads fresh A and B and a NaN-poisoned C, runs `matmul` once and checks it on sampled rows;
// when `runs` > 0, then times that many calls. Returns whether the check passed.
bool matmul_bench(loom::Kernel &matmul, int64_t n, uint64_t seed, int runs) {
  std::vector<float> A = bench::random_vector(size_t(n * n), seed);
  std::vector<float> B = bench::random_vector(size_t(n * n), seed ^ 0x5bd1e995);
  DeviceArray<float> dA(A, {n, n}), dB(B, {n, n});
  DeviceArray<float> dC(std::vector<float>(size_t(n * n), NAN), {n, n});
  matmul(dA, dB, dC);
  std::vector<float> C = dC.to_host();
  std::string what = name_of("matmul %lld^2 (loom)", n);
  bool ok = bench::check(
      what.c_str(),
      bench::matmul_error(A.data(), B.data(), C.data(), n, bench::matmul_check_rows, seed),
      bench::matmul_tolerance);
  if (runs <= 0)
    return ok;
  CallTimes t = time_calls([&] { matmul(dA, dB, dC); }, 2, runs);
  print_times(what, t);
  double ms = bench::median(t.gpu_ms);
  result(name_of("loom_matmul%lld_ms", n).c_str(), ms, "ms");
  result(name_of("loom_matmul%lld_tflops", n).c_str(), 2.0 * n * n * n / (ms * 1e9), "TFLOP/s");
  return ok;
}

// The naive matmul with A passed as the transposed view of a stored A^T (a strided view: the
// kernel reads A(i, k) at k * n + i), against the same kernel on the dense A in the same run.
// A^T's walk down a column of A^T per thread k-step is what a transposed operand costs.
bool transposed_matmul_bench(uint64_t seed) {
  const int64_t n = 4096;
  loom::Kernel matmul = bench::make_matmul("matmul_views");
  std::vector<float> A = bench::random_vector(size_t(n * n), seed);
  std::vector<float> B = bench::random_vector(size_t(n * n), seed ^ 0x5bd1e995);
  std::vector<float> At(size_t(n * n));
  for (int64_t i = 0; i < n; ++i)
    for (int64_t k = 0; k < n; ++k)
      At[k * n + i] = A[i * n + k];
  DeviceArray<float> dA(A, {n, n}), dAt(At, {n, n}), dB(B, {n, n});
  DeviceArray<float> dC(std::vector<float>(size_t(n * n), NAN), {n, n});
  matmul(dAt.transposed(), dB, dC);
  std::vector<float> C = dC.to_host();
  bool ok = bench::check(
      "matmul 4096^2, A a transposed view (loom)",
      bench::matmul_error(A.data(), B.data(), C.data(), n, bench::matmul_check_rows, seed),
      bench::matmul_tolerance);
  CallTimes views = time_calls([&] { matmul(dAt.transposed(), dB, dC); }, 2, 10);
  std::string explained = matmul.explain();
  CallTimes dense = time_calls([&] { matmul(dA, dB, dC); }, 2, 10);
  print_times("matmul 4096^2, A a transposed view", views);
  print_times("matmul 4096^2, A dense (the same kernel)", dense);
  const double flop = 2.0 * n * n * n;
  result("loom_matmul4096_transposed_view_tflops", flop / (bench::median(views.gpu_ms) * 1e9),
         "TFLOP/s");
  result("loom_matmul4096_dense_tflops", flop / (bench::median(dense.gpu_ms) * 1e9), "TFLOP/s");
  std::printf("%s", explained.c_str());
  return ok;
}

// The start-up figures, in the order a program meets them: its first kernel call (the context is
// already open: main timed that), then a new kernel once others are loaded.
bool first_calls(uint64_t seed, double context_ms) {
  const int64_t n = int64_t(1) << 20;
  const float a = 1.5f;
  std::vector<float> x = bench::random_vector(n, seed), y0 = bench::random_vector(n, seed + 1);
  DeviceArray<float> dx(x), dy(y0);

  // Trace, lower, LLVM to PTX, driver JIT and module load, launch, synchronize.
  std::optional<loom::Kernel> first;
  double first_ms = bench::wall_ms([&] {
    first.emplace(bench::make_saxpy("saxpy_first"));
    (*first)(a, dx, dy);
  });
  bool ok = bench::check("saxpy 2^20 first call (loom)",
                         bench::saxpy_error(a, x.data(), y0.data(), dy.to_host().data(), n),
                         bench::saxpy_tolerance);
  std::printf("  first kernel call of the process (context already open): %.2f ms\n", first_ms);
  result("loom_first_call_ms", first_ms, "ms");
  result("loom_first_call_with_context_ms", context_ms + first_ms, "ms");

  // A second module, so the kernel below is not among the first ones the driver JIT-compiles.
  loom::Kernel matmul = bench::make_matmul("matmul_small");
  ok &= matmul_bench(matmul, 256, seed + 2, 0);

  DeviceArray<float> dy_new(y0);
  std::optional<loom::Kernel> fresh;
  double new_ms = bench::wall_ms([&] {
    fresh.emplace(bench::make_saxpy("saxpy_new"));
    (*fresh)(a, dx, dy_new);
  });
  ok &= bench::check("saxpy 2^20 new kernel (loom)",
                     bench::saxpy_error(a, x.data(), y0.data(), dy_new.to_host().data(), n),
                     bench::saxpy_tolerance);
  std::vector<double> warm;
  for (int r = 0; r < 20; ++r)
    warm.push_back(bench::wall_ms([&] { (*fresh)(a, dx, dy_new); }));
  std::printf("  new kernel, first call: %.2f ms; its warm calls: median %.4f ms\n", new_ms,
              bench::median(warm));
  result("loom_new_kernel_first_call_ms", new_ms, "ms");
  result("loom_saxpy_2e20_warm_call_ms", bench::median(warm), "ms");

  // The same, tiered (Kernel::tiered): the first call runs quick code while the optimized code
  // compiles on another thread; then the time until the optimized code is in use.
  DeviceArray<float> dy_tiered(y0);
  std::optional<loom::Kernel> tiered;
  auto start = std::chrono::steady_clock::now();
  double tiered_ms = bench::wall_ms([&] {
    tiered.emplace(bench::make_saxpy("saxpy_new_tiered"));
    tiered->tiered();
    (*tiered)(a, dx, dy_tiered);
  });
  ok &= bench::check("saxpy 2^20 new tiered kernel, quick code (loom)",
                     bench::saxpy_error(a, x.data(), y0.data(), dy_tiered.to_host().data(), n),
                     bench::saxpy_tolerance);
  const std::string quick_detail = tiered->compile_times().detail;
  tiered->await_optimized();
  double optimized_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  dy_tiered = DeviceArray<float>(y0);
  (*tiered)(a, dx, dy_tiered);
  ok &= bench::check("saxpy 2^20 new tiered kernel, optimized code (loom)",
                     bench::saxpy_error(a, x.data(), y0.data(), dy_tiered.to_host().data(), n),
                     bench::saxpy_tolerance);
  std::printf("  new tiered kernel, first call: %.2f ms (%s); optimized code in use %.2f ms after "
              "the start (%s)\n",
              tiered_ms, quick_detail.c_str(), optimized_ms,
              tiered->compile_times().detail.c_str());
  result("loom_new_tiered_kernel_first_call_ms", tiered_ms, "ms");
  result("loom_new_tiered_kernel_optimized_after_ms", optimized_ms, "ms");
  return ok;
}

// 2^28 floats: 3 GiB of traffic per call, far past the 50 MB L2, so each call goes to HBM.
bool saxpy_bench(uint64_t seed) {
  const size_t n = size_t(1) << 28;
  const float a = 0.5f + float(seed % 1024) / 512.0f;
  std::vector<float> x = bench::random_vector(n, seed), y0 = bench::random_vector(n, seed + 1);
  DeviceArray<float> dx(x), dy(y0);
  loom::Kernel saxpy = bench::make_saxpy("saxpy");
  saxpy(a, dx, dy);
  bool ok = bench::check("saxpy 2^28 (loom)",
                         bench::saxpy_error(a, x.data(), y0.data(), dy.to_host().data(), n),
                         bench::saxpy_tolerance);
  // Each timed call adds a*x again: y grows linearly, no overflow, no denormals.
  CallTimes t = time_calls([&] { saxpy(a, dx, dy); }, warmup_calls, timed_calls);
  print_times("saxpy 2^28", t);
  double ms = bench::median(t.gpu_ms);
  result("loom_saxpy_ms", ms, "ms");
  result("loom_saxpy_gbps", 12.0 * double(n) / (ms * 1e6), "GB/s");
  result("loom_saxpy_host_ms", bench::median(t.host_ms), "ms");
  std::printf("%s", saxpy.explain().c_str());

  // One checked assertion per element: what it costs against the plain saxpy just timed (a call
  // of a kernel with assertions also waits for its launch, to read the record).
  loom::Kernel checked = bench::make_saxpy_checked("saxpy_checked");
  dy.copy_from_host(y0.data());
  checked(a, dx, dy);
  ok &= bench::check("saxpy 2^28 with an assertion per element (loom)",
                     bench::saxpy_error(a, x.data(), y0.data(), dy.to_host().data(), n),
                     bench::saxpy_tolerance);
  CallTimes c = time_calls([&] { checked(a, dx, dy); }, warmup_calls, timed_calls);
  print_times("saxpy 2^28 with an assertion per element", c);
  result("loom_saxpy_checked_ms", bench::median(c.gpu_ms), "ms");
  result("gpu_assert_cost_ratio", bench::median(c.gpu_ms) / ms, "x");
  std::printf("  the assertions cost %.1f%% of the plain saxpy's %.3f ms\n",
              100.0 * (bench::median(c.gpu_ms) / ms - 1.0), ms);

  loom::Kernel runs = bench::make_saxpy_runs_of_4("saxpy_runs_of_4");
  dy.copy_from_host(y0.data());
  runs(a, dx, dy);
  ok &= bench::check("saxpy 2^28, runs of 4 by hand (loom)",
                     bench::saxpy_error(a, x.data(), y0.data(), dy.to_host().data(), n),
                     bench::saxpy_tolerance);
  CallTimes r = time_calls([&] { runs(a, dx, dy); }, warmup_calls, timed_calls);
  print_times("saxpy 2^28, runs of 4 by hand", r);
  result("loom_saxpy_runs4_gbps", 12.0 * double(n) / (bench::median(r.gpu_ms) * 1e6), "GB/s");

  // The same on f16 arrays (6 bytes per element). The timed calls add a*x 33 times: y stays far
  // inside f16's range (inputs below 1 in magnitude, a below 2.5).
  std::vector<loom::f16> x16(n), y16(n);
  for (size_t i = 0; i < n; ++i)
    x16[i] = loom::f16(x[i]), y16[i] = loom::f16(y0[i]);
  DeviceArray<loom::f16> hx(x16), hy(y16);
  loom::Kernel half = bench::make_saxpy_f16("saxpy_f16");
  half(a, hx, hy);
  std::vector<loom::f16> out = hy.to_host();
  std::vector<float> xf(n), y0f(n), yf(n);
  for (size_t i = 0; i < n; ++i)
    xf[i] = float(x16[i]), y0f[i] = float(y16[i]), yf[i] = float(out[i]);
  ok &= bench::check("saxpy 2^28 f16 (loom)",
                     bench::saxpy_error(a, xf.data(), y0f.data(), yf.data(), n),
                     bench::saxpy_f16_tolerance);
  CallTimes h = time_calls([&] { half(a, hx, hy); }, warmup_calls, timed_calls);
  print_times("saxpy 2^28 f16", h);
  result("loom_saxpy_f16_ms", bench::median(h.gpu_ms), "ms");
  result("loom_saxpy_f16_gbps", 6.0 * double(n) / (bench::median(h.gpu_ms) * 1e6), "GB/s");
  std::printf("%s", half.explain().c_str());
  return ok;
}

// 2^30 floats (4 GiB read per call) summed into one element; CUB's DeviceReduce::Sum is the peer.
bool sum_bench(uint64_t seed) {
  const size_t n = size_t(1) << 30;
  std::vector<float> x = bench::random_vector(n, seed);
  DeviceArray<float> dx(x), total(std::vector<float>{0.0f});
  loom::Kernel sum = bench::make_sum("sum");
  sum(dx, total);
  bool ok = bench::check("sum 2^30 (loom)", bench::sum_error(x.data(), n, total.to_host()[0]),
                         bench::sum_tolerance);
  CallTimes t = time_calls([&] { sum(dx, total); }, warmup_calls, timed_calls);
  print_times("sum 2^30", t);
  double ms = bench::median(t.gpu_ms);
  result("loom_sum_ms", ms, "ms");
  result("loom_sum_gbps", 4.0 * double(n) / (ms * 1e6), "GB/s");
  std::printf("%s", sum.explain().c_str());
  return ok;
}

// The 5-point stencil over an 8192^2 grid (256 MiB per array), one parallel iteration per
// interior point; the CUDA C peer takes the best of three 2-D block shapes.
bool stencil_bench(uint64_t seed) {
  const int64_t n = 8192;
  std::vector<float> u = bench::random_vector(size_t(n * n), seed);
  DeviceArray<float> du(u, {n, n});
  // NaN everywhere: an interior point left out fails, and the border must stay NaN.
  DeviceArray<float> dv(std::vector<float>(size_t(n * n), NAN), {n, n});
  loom::Kernel stencil = bench::make_stencil("stencil");
  stencil(du, dv);
  bool ok = bench::check("stencil 8192^2 (loom)",
                         bench::stencil_error(u.data(), dv.to_host().data(), n, n),
                         bench::stencil_tolerance);
  CallTimes t = time_calls([&] { stencil(du, dv); }, warmup_calls, timed_calls);
  print_times("stencil 8192^2", t);
  double ms = bench::median(t.gpu_ms);
  result("loom_stencil8192_ms", ms, "ms");
  result("loom_stencil8192_gbps", bench::stencil_bytes(n, n) / (ms * 1e6), "GB/s");
  std::printf("%s", stencil.explain().c_str());
  return ok;
}

// 1,000 steps of the stencil on a 512^2 grid, where launches cost more than the work: loom's one
// call of a kernel whose task loop runs the steps, against 1,000 calls of the one-step kernel (the
// CUDA C reference times the same steps as raw launches and as a CUDA graph). Host wall time of
// the whole, the last step finished.
bool stepped_stencil_bench(uint64_t seed) {
  const int64_t n = bench::stepped_stencil_grid;
  const int steps = bench::stepped_stencil_steps;
  std::vector<float> u = bench::random_vector(size_t(n * n), seed), v = u;
  std::vector<float> ru = u, rv = v;
  bench::stepped_stencil_reference(ru, rv, n, steps);
  loom::Kernel stepped = bench::make_stepped_stencil("stepped_stencil");
  loom::Kernel one = bench::make_stencil("stencil_step");
  bool ok = true;
  std::vector<double> call_ms, calls_ms;
  for (int run = 0; run < 1 + timed_calls; ++run) {
    DeviceArray<float> du(u, {n, n}), dv(v, {n, n});
    double ms = bench::wall_ms([&] { stepped(int64_t{steps / 2}, du, dv); });
    if (run == 0) // the first call compiles
      ok &= bench::check("stepped stencil 1000 x 512^2, one call (loom)",
                         bench::grid_difference(du.to_host().data(), ru.data(), ru.size()),
                         bench::stepped_stencil_tolerance);
    else
      call_ms.push_back(ms);
    DeviceArray<float> eu(u, {n, n}), ev(v, {n, n});
    ms = bench::wall_ms([&] {
      for (int s = 0; s < steps / 2; ++s) {
        one(eu, ev);
        one(ev, eu);
      }
    });
    if (run == 0)
      ok &= bench::check("stepped stencil 1000 x 512^2, 1000 calls (loom)",
                         bench::grid_difference(eu.to_host().data(), ru.data(), ru.size()),
                         bench::stepped_stencil_tolerance);
    else
      calls_ms.push_back(ms);
  }
  std::printf("  stepped stencil 1000 x 512^2: one call median %.3f ms, 1000 calls median %.3f "
              "ms (host wall time)\n",
              bench::median(call_ms), bench::median(calls_ms));
  result("loom_stepped_stencil_one_call_ms", bench::median(call_ms), "ms");
  result("loom_stepped_stencil_calls_ms", bench::median(calls_ms), "ms");
  std::printf("%s", stepped.explain().c_str());
  return ok;
}

// An 8-bit RGB image of 4096^2 pixels to f32 grey with a gamma curve: u8 elements in, powf per
// pixel (bench/Kernels.h, make_grey); the CUDA C peer takes the best of three block shapes.
bool grey_bench(uint64_t seed) {
  const int64_t n = 4096;
  const size_t pixels = size_t(n * n);
  std::vector<uint8_t> rgb = bench::random_image(pixels, seed);
  DeviceArray<uint8_t> drgb(rgb, {n, n, 3});
  DeviceArray<float> dgrey(std::vector<float>(pixels, NAN), {n, n});
  loom::Kernel grey = bench::make_grey("grey");
  const float gamma = 2.2f;
  grey(drgb, gamma, dgrey);
  bool ok = bench::check("grey 4096^2 u8 (loom)",
                         bench::grey_error(rgb.data(), gamma, dgrey.to_host().data(), pixels),
                         bench::grey_tolerance);
  CallTimes t = time_calls([&] { grey(drgb, gamma, dgrey); }, warmup_calls, timed_calls);
  print_times("grey 4096^2 u8", t);
  double ms = bench::median(t.gpu_ms);
  result("loom_grey4096_ms", ms, "ms");
  result("loom_grey4096_gbps", bench::grey_bytes(pixels) / (ms * 1e6), "GB/s");
  std::printf("%s", grey.explain().c_str());
  return ok;
}

// An elementwise product of 2^26 c64 (512 MiB per array), the text DSL's kernel; CuPy's
// `cp.multiply(a, b, out=c)` is the peer (bench/cupy_complex.py, run by run_gpu.sh). Bytes moved:
// two arrays read and one written.
bool complex_product_bench(uint64_t seed) {
  const int64_t n = int64_t(1) << 26;
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> d(-1, 1);
  std::vector<std::complex<float>> a(n), b(n);
  for (int64_t k = 0; k < n; ++k)
    a[k] = {d(rng), d(rng)}, b[k] = {d(rng), d(rng)};
  DeviceArray<std::complex<float>> da(a), db(b);
  DeviceArray<std::complex<float>> dc(std::vector<std::complex<float>>(n, {NAN, NAN}));
  loom::Module m = loom::compile(R"(
@kernel
def complex_product(a: c64[n], b: c64[n], c: c64[n]):
    for i in parallel(n):
        c[i] = a[i] * b[i]
)",
                                 "complex_product.loom");
  loom::Kernel &product = m["complex_product"];
  product(da, db, dc);
  std::vector<std::complex<float>> c = dc.to_host();
  double worst = 0;
  for (int64_t k = 0; k < n; k += 997) {
    std::complex<double> want = std::complex<double>(a[k]) * std::complex<double>(b[k]);
    worst = std::max(worst, std::abs(std::complex<double>(c[k]) - want) / (std::abs(want) + 1));
  }
  bool ok = bench::check("complex product 2^26 c64 (loom)", worst, 1e-6);
  CallTimes t = time_calls([&] { product(da, db, dc); }, warmup_calls, timed_calls);
  print_times("complex product 2^26 c64", t);
  double ms = bench::median(t.gpu_ms);
  result("loom_complex_product_ms", ms, "ms");
  result("loom_complex_product_gbps", 3.0 * 8 * double(n) / (ms * 1e6), "GB/s");
  std::printf("%s", product.explain().c_str());
  return ok;
}

// Row softmax of 8192 x 8192 (256 MiB per array). loom's kernel is one parallel iteration per row
// (8192 threads, each walking its row three times); the CUDA C peer gives each row a block.
bool softmax_bench(uint64_t seed) {
  const int64_t n = 8192;
  std::vector<float> x = bench::softmax_input(size_t(n * n), seed);
  DeviceArray<float> dx(x, {n, n});
  DeviceArray<float> dy(std::vector<float>(size_t(n * n), NAN), {n, n});
  loom::Kernel softmax = bench::make_softmax("softmax");
  softmax(dx, dy);
  bool ok = bench::check("softmax 8192 x 8192 (loom)",
                         bench::softmax_error(x.data(), dy.to_host().data(), n, n),
                         bench::softmax_tolerance);
  CallTimes t = time_calls([&] { softmax(dx, dy); }, warmup_calls, timed_calls);
  print_times("softmax 8192 x 8192", t);
  double ms = bench::median(t.gpu_ms);
  result("loom_softmax8192_ms", ms, "ms");
  result("loom_softmax8192_gbps", bench::softmax_bytes(n, n) / (ms * 1e6), "GB/s");
  std::printf("%s", softmax.explain().c_str());
  return ok;
}

// PolyBench's doitgen, 140 x 150 x 160 doubles, with a local array as each iteration's scratch
// row (in each thread's local memory): against reference.cu's CUDA C with a local array.
bool doitgen_bench(uint64_t seed) {
  std::vector<double> A, C4;
  bench::doitgen_inputs(seed, A, C4);
  const int64_t R = bench::doitgen_r, Q = bench::doitgen_q, P = bench::doitgen_p;
  loom::Kernel doitgen = bench::make_doitgen();
  DeviceArray<double> dA(A, {R, Q, P}), dC4(C4, {P, P});
  doitgen(dA, dC4);
  bool ok = bench::check("doitgen 140 x 150 x 160, local scratch (loom)",
                         bench::doitgen_error(A, C4, dA.to_host()), 0.0);
  CallTimes t = time_calls([&] { doitgen(dA, dC4); }, warmup_calls, timed_calls);
  print_times("doitgen 140 x 150 x 160, local scratch", t);
  double ms = bench::median(t.gpu_ms);
  result("loom_doitgen_ms", ms, "ms");
  result("loom_doitgen_gflops", bench::doitgen_flops() / (ms * 1e6), "GFLOP/s");
  std::printf("%s", doitgen.explain().c_str());
  return ok;
}

// A block-per-row softmax of 8192 x 8192 with 256, 512 and 1024 threads a row, as the CUDA C peer
// is swept; the best is loom's figure. `per_row(threads)` sets the kernel up for a width; results
// are `<prefix>_b<threads>_ms` and `<prefix>_ms`.
bool softmax_rows_sweep(loom::Kernel &softmax, const std::function<void(int)> &per_row,
                        const std::string &label, const std::string &prefix, uint64_t seed) {
  const int64_t n = 8192;
  std::vector<float> x = bench::softmax_input(size_t(n * n), seed);
  DeviceArray<float> dx(x, {n, n});
  DeviceArray<float> dy(std::vector<float>(size_t(n * n), NAN), {n, n});
  bool ok = true;
  double best = 1e30;
  for (int threads : {256, 512, 1024}) {
    per_row(threads);
    softmax(dx, dy);
    std::string what =
        "softmax 8192 x 8192 (" + label + ", " + std::to_string(threads) + " threads a row)";
    ok &= bench::check(what.c_str(), bench::softmax_error(x.data(), dy.to_host().data(), n, n),
                       bench::softmax_tolerance);
    CallTimes t = time_calls([&] { softmax(dx, dy); }, warmup_calls, timed_calls);
    print_times(what, t);
    double ms = bench::median(t.gpu_ms);
    result((prefix + "_b" + std::to_string(threads) + "_ms").c_str(), ms, "ms");
    best = std::min(best, ms);
  }
  result((prefix + "_ms").c_str(), best, "ms");
  std::printf("%s", softmax.explain().c_str());
  return ok;
}

// The same softmax kernel as softmax_bench, under the block_per_iteration schedule.
bool softmax_scheduled_bench(uint64_t seed) {
  loom::Kernel softmax = bench::make_softmax("softmax_scheduled");
  return softmax_rows_sweep(
      softmax, [&](int threads) { softmax.block_per_iteration(threads); },
      "loom, block_per_iteration", "loom_softmax_sched8192", seed);
}

// The softmax computed as the CUDA C peer computes it (bench::make_softmax_recompute), under the
// block_per_iteration schedule.
bool softmax_recompute_bench(uint64_t seed) {
  loom::Kernel softmax = bench::make_softmax_recompute("softmax_recompute");
  return softmax_rows_sweep(
      softmax, [&](int threads) { softmax.block_per_iteration(threads); },
      "loom, block_per_iteration, exp twice", "loom_softmax_sched_recompute8192", seed);
}

// The SIMT-level softmax (bench::make_softmax_simt), block per row as the CUDA C peer.
bool softmax_simt_bench(uint64_t seed) {
  loom::Kernel softmax = bench::make_softmax_simt("softmax_simt");
  return softmax_rows_sweep(
      softmax, [&](int threads) { softmax.shape(8192u, unsigned(threads)); }, "loom SIMT",
      "loom_softmax_simt8192", seed);
}

// The tiles the matmul sections sweep, by label (LOOM_BENCH_TILES and LOOM_PROFILE name them).
struct TileChoice {
  const char *label;
  loom::ir::TileSchedule tile;
};
// f32 on the FMA units (scheduled_matmul).
const TileChoice f32_tiles[] = {
    {"128x128_8x8_d8_b2", {128, 128, 8, 8, 8, 2}},
    {"128x128_8x8_d8", {128, 128, 8, 8, 8, 0}},
    {"128x128_8x8_d16_b2", {128, 128, 8, 8, 16, 2}},
    {"128x64_8x4_d8_b2", {128, 64, 8, 4, 8, 2}},
    {"64x64_4x4_d8", {64, 64, 4, 4, 8, 0}},
    {"256x128_16x8_d8_b1", {256, 128, 16, 8, 8, 1}},
};
// f16 and bf16 on the tensor cores (tensor_cores).
const TileChoice half_tiles[] = {
    // mma.sync's best tile of earlier runs (bench/RESULTS.md)
    {"128x128_w8_d32_b2", {128, 128, 8, 8, 32, 2}},
    // Depth 64 in whole warpgroups: wgmma on sm_90 (ir/TileWgmma.cpp), mma.sync elsewhere.
    {"128x256_wg2_d64", {128, 256, 8, 16, 64, 1}},
    {"256x128_wg2_d64", {256, 128, 16, 8, 64, 1}},
    {"128x128_wg2_d64_b2", {128, 128, 8, 8, 64, 2}},
};
// f32 arrays read as TF32. On sm_90, wgmma (depth 32: 128-byte rows of k, a producer warpgroup
// rounding and transposing); mma.sync elsewhere and for the others (depth 16).
const TileChoice tf32_tiles[] = {
    {"128x256_wg2_d32", {128, 256, 8, 16, 32, 1}},  {"256x128_wg2_d32", {256, 128, 16, 8, 32, 1}},
    {"128x128_w8_d16_b2", {128, 128, 8, 8, 16, 2}}, {"128x64_w4_d16_b3", {128, 64, 8, 8, 16, 3}},
    {"64x128_w4_d16_b3", {64, 128, 8, 8, 16, 3}},
};

// A 4096^2 matmul (SIMT level with its launch shape given, or scheduled): checked on sampled
// rows, timed; results `<prefix>_ms` and `<prefix>_tflops` (also in *tflops, 0 when wrong).
bool simt_matmul_bench(loom::Kernel &matmul, const std::string &what, const std::string &prefix,
                       uint64_t seed, double *tflops = nullptr) {
  const int64_t n = 4096;
  std::vector<float> A = bench::random_vector(size_t(n * n), seed);
  std::vector<float> B = bench::random_vector(size_t(n * n), seed ^ 0x5bd1e995);
  DeviceArray<float> dA(A, {n, n}), dB(B, {n, n});
  DeviceArray<float> dC(std::vector<float>(size_t(n * n), NAN), {n, n});
  matmul(dA, dB, dC);
  std::vector<float> C = dC.to_host();
  bool ok = bench::check(
      what.c_str(),
      bench::matmul_error(A.data(), B.data(), C.data(), n, bench::matmul_check_rows, seed),
      bench::matmul_tolerance);
  CallTimes t = time_calls([&] { matmul(dA, dB, dC); }, 2, 20);
  print_times(what, t);
  double ms = bench::median(t.gpu_ms);
  result((prefix + "_ms").c_str(), ms, "ms");
  result((prefix + "_tflops").c_str(), 2.0 * n * n * n / (ms * 1e9), "TFLOP/s");
  if (tflops)
    *tflops = ok ? 2.0 * n * n * n / (ms * 1e9) : 0;
  std::printf("%s", matmul.explain().c_str());
  return ok;
}

// The programming guide's tiled matmul (16 x 16 shared-memory tiles), against the same CUDA C
// kernel and cuBLAS.
bool tiled_matmul_bench(uint64_t seed) {
  loom::Kernel tiled = bench::make_tiled_matmul("tiled_matmul");
  tiled.shape({4096 / 16, 4096 / 16}, {16, 16});
  return simt_matmul_bench(tiled, "tiled matmul 4096^2 (loom SIMT)", "loom_tiled_matmul4096", seed);
}

// The register-tiled SGEMM (bench::make_sgemm_simt), against cuBLAS.
bool sgemm_simt_bench(uint64_t seed) {
  loom::Kernel sgemm = bench::make_sgemm_simt("sgemm_simt");
  sgemm.shape({4096 / 128, 4096 / 128}, 256);
  return simt_matmul_bench(sgemm, "register-tiled SGEMM 4096^2 (loom SIMT)", "loom_sgemm_simt4096",
                           seed);
}

// The naive matmul kernel (bench::make_matmul) under the tile schedule, a sweep of schedules
// against cuBLAS; `loom_scheduled_matmul4096_tflops` is the best of them.
bool scheduled_matmul_bench(uint64_t seed) {
  bool ok = true;
  double best = 0;
  std::string best_label;
  for (const TileChoice &c : f32_tiles) {
    loom::Kernel matmul = bench::make_matmul("matmul_tiled");
    matmul.tile(c.tile);
    const std::string prefix = std::string("loom_tile_") + c.label + "_4096";
    double tflops = 0;
    ok &= simt_matmul_bench(matmul, std::string("scheduled matmul 4096^2, tile ") + c.label, prefix,
                            seed, &tflops);
    if (tflops > best)
      best = tflops, best_label = c.label;
  }
  std::printf("best schedule: %s\n", best_label.c_str());
  result("loom_scheduled_matmul4096_tflops", best, "TFLOP/s");
  return ok;
}

// Autotuning (Kernel::autotune) against the best hand-picked tile schedule of the same sweep as
// scheduled_matmul_bench (for f64, those whose staged tiles fit 48 KiB of shared memory), at
// 1024, 4096 and 8192, f32 and f64, on device arrays: `autotune_<type><n>_ratio` is the
// hand-picked best's time over the autotuned kernel's (target >= 0.95). Also the first call of
// a new object whose tuning and code are cached against the same with the chosen tile given
// (`autotune_start_overhead_ms`, target <= 1).
template <class T> bool autotune_bench(int64_t n, uint64_t seed) {
  const char *type = sizeof(T) == 4 ? "f32" : "f64";
  std::vector<float> a = bench::random_vector(size_t(n * n), seed),
                     b = bench::random_vector(size_t(n * n), seed ^ 0x5bd1e995);
  std::vector<T> A(a.begin(), a.end()), B(b.begin(), b.end());
  DeviceArray<T> dA(A, {n, n}), dB(B, {n, n}), dC(std::vector<T>(size_t(n * n), T(0)), {n, n});
  const int runs = n >= 8192 ? 5 : 20;
  const loom::ir::TileSchedule hand[] = {{128, 128, 8, 8, 8, 2},  {128, 128, 8, 8, 8, 0},
                                         {128, 128, 8, 8, 16, 2}, {128, 64, 8, 4, 8, 2},
                                         {64, 64, 4, 4, 8, 0},    {256, 128, 16, 8, 8, 1}};
  double best_ms = 0;
  loom::ir::TileSchedule best_tile;
  for (const loom::ir::TileSchedule &tile : hand) {
    loom::Kernel k = bench::make_matmul<T>(std::string("autotune_hand_") + type);
    k.tile(tile);
    try {
      const double ms = bench::median(time_calls([&] { k(dA, dB, dC); }, 1, runs).gpu_ms);
      if (best_ms == 0 || ms < best_ms)
        best_ms = ms, best_tile = tile;
    } catch (const loom::CompileError &) { // f64 tiles past 48 KiB of shared memory
    }
  }
  loom::Kernel tuned = bench::make_matmul<T>(std::string("autotune_") + type);
  tuned.autotune();
  const bench::Clock::time_point start = bench::Clock::now();
  tuned(dA, dB, dC);
  const double first_ms = bench::ms_since(start);
  std::vector<T> C = dC.to_host();
  // The check: the tile schedule's results are the default mapping's, a sum of products in order.
  std::vector<float> Cf(C.begin(), C.end());
  bool ok =
      bench::check((std::string("autotuned matmul ") + type + " " + std::to_string(n)).c_str(),
                   bench::matmul_error(a.data(), b.data(), Cf.data(), n, 16, seed),
                   sizeof(T) == 4 ? bench::matmul_tolerance : 1e-6);
  const double ms = bench::median(time_calls([&] { tuned(dA, dB, dC); }, 1, runs).gpu_ms);
  std::printf("  autotuned matmul %s %lld^2: %.3f ms (%.1f TFLOP/s; first call with the trials "
              "%.0f ms), best hand-picked {%d, %d, %d, %d, %d, %d} %.3f ms: ratio %.3f\n",
              type, (long long)n, ms, 2.0 * n * n * n / (ms * 1e9), first_ms, best_tile.rows,
              best_tile.cols, best_tile.thread_rows, best_tile.thread_cols, best_tile.depth,
              best_tile.min_blocks, best_ms, best_ms / ms);
  std::printf("%s", tuned.explain().c_str());
  const std::string key = std::string("autotune_") + type + std::to_string(n);
  result((key + "_ms").c_str(), ms, "ms");
  result((key + "_hand_ms").c_str(), best_ms, "ms");
  result((key + "_ratio").c_str(), best_ms / ms, "x");
  result((key + "_first_call_ms").c_str(), first_ms, "ms");
  if (n == 1024) {
    // New objects: one autotuned (its tuning from the disk cache), one with the chosen tile.
    loom::Kernel again = bench::make_matmul<T>(std::string("autotune_") + type);
    again.autotune();
    loom::Kernel fixed = bench::make_matmul<T>(std::string("autotune_") + type);
    fixed.tile(tuned.ir().schedule.tile);
    auto first_call = [&](loom::Kernel &k) {
      const bench::Clock::time_point t0 = bench::Clock::now();
      k(dA, dB, dC);
      return bench::ms_since(t0);
    };
    const double fixed_ms = first_call(fixed), again_ms = first_call(again);
    std::printf("  first call of a new object, tuning and code cached: autotuned %.3f ms, the "
                "tile given %.3f ms: %.3f ms more\n",
                again_ms, fixed_ms, again_ms - fixed_ms);
    result((std::string("autotune_start_overhead_") + type + "_ms").c_str(), again_ms - fixed_ms,
           "ms");
  }
  return ok;
}

// C = A*B (+ bias, ReLU) over f16 or bf16 inputs with f32 accumulation: the natural matmul under
// the tile schedule, which runs it on the tensor cores (ir/TileMma.cpp). Its peer is cuBLAS's
// cublasGemmEx of the same types in cublas_reference.cu (cublas_gemm_<type><n>_tflops).
template <class H> loom::Kernel make_half_matmul(const std::string &name, bool epilogue) {
  return loom::kernel(name,
                      [epilogue](loom::Array2<H> A, loom::Array2<H> B, loom::Array<float> bias,
                                 loom::Array2<float> C) {
                        loom::parallel_for({C.dim(0), C.dim(1)}, [&](loom::Index i, loom::Index j) {
                          loom::Var<float> acc("acc", 0.0f);
                          loom::for_range(A.dim(1),
                                          [&](loom::Index k) { acc += A(i, k) * B(k, j); });
                          if (epilogue)
                            C(i, j) = loom::max(acc + bias(j), 0.0f);
                          else
                            C(i, j) = acc;
                        });
                      },
                      {"A", "B", "bias", "C"});
}

// f32 rounded to TF32 (10 significand bits, ties away from zero), as the tensor cores read it
// under allow_tf32(): what the TF32 check compares against.
float tf32_of(float x) {
  if (x == 0 || !std::isfinite(x))
    return x;
  const double unit = std::ldexp(1.0, std::ilogb(x) - 10);
  return float(std::round(double(x) / unit) * unit);
}

// One m x n x kk product (H = float: TF32, with allow_tf32()). The check: 16 rows against a
// double reference of the rounded inputs, within 1e-5 of the row's sum of |products| (f32 sums
// of exact products), with the bias and ReLU when `epilogue`.
template <class H>
bool half_matmul_bench(const char *type, int64_t m, int64_t n, int64_t kk,
                       const loom::ir::TileSchedule &tile, const std::string &label, bool epilogue,
                       uint64_t seed, double *tflops = nullptr) {
  std::vector<float> Af = bench::random_vector(size_t(m * kk), seed);
  std::vector<float> Bf = bench::random_vector(size_t(kk * n), seed ^ 0x5bd1e995);
  std::vector<float> bias = bench::random_vector(size_t(n), seed + 7);
  std::vector<H> A(Af.size()), B(Bf.size());
  auto round = [](float x) {
    if constexpr (std::is_same_v<H, float>)
      return tf32_of(x);
    else
      return float(H(x));
  };
  for (size_t e = 0; e < Af.size(); ++e)
    A[e] = H(Af[e]), Af[e] = round(Af[e]); // the check uses the rounded inputs
  for (size_t e = 0; e < Bf.size(); ++e)
    B[e] = H(Bf[e]), Bf[e] = round(Bf[e]);
  loom::Kernel matmul = make_half_matmul<H>(std::string("matmul_") + type, epilogue);
  matmul.tile(tile);
  if constexpr (std::is_same_v<H, float>)
    matmul.allow_tf32();
  DeviceArray<H> dA(A, {m, kk}), dB(B, {kk, n});
  DeviceArray<float> dbias(epilogue ? bias : std::vector<float>(size_t(n), 0.0f));
  DeviceArray<float> dC(std::vector<float>(size_t(m * n), NAN), {m, n});
  matmul(dA, dB, dbias, dC);
  std::vector<float> C = dC.to_host();
  const std::string shape =
      m == n && n == kk ? std::to_string(n) + "^2"
                        : std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(kk);
  std::string what = std::string(type) + " matmul " + shape + ", f32 accumulation" +
                     (epilogue ? " + bias + ReLU" : "") + ", tile " + label;
  int bad = 0;
  for (int64_t i = int64_t(seed % 97) % m, r = 0; r < 16; ++r, i = (i + m / 16 + 1) % m)
    for (int64_t j = 0; j < n; ++j) {
      double ref = 0, mag = 0;
      for (int64_t k = 0; k < kk; ++k)
        ref += double(Af[i * kk + k]) * Bf[k * n + j],
            mag += std::fabs(double(Af[i * kk + k]) * Bf[k * n + j]);
      if (epilogue)
        ref = std::max(ref + bias[size_t(j)], 0.0);
      if (!(std::fabs(C[i * n + j] - ref) <= 1e-5 * (mag + 1)))
        ++bad;
    }
  const bool ok = bench::check(what.c_str(), double(bad), 0.5);
  CallTimes t = time_calls([&] { matmul(dA, dB, dbias, dC); }, 2, 20);
  print_times(what, t);
  double ms = bench::median(t.gpu_ms);
  const std::string prefix =
      std::string("loom_") + type + "_matmul" + (epilogue ? "_relu" : "") +
      (m == n && n == kk ? std::to_string(n)
                         : std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(kk)) +
      "_" + label;
  const double rate = 2.0 * double(m) * double(n) * double(kk) / (ms * 1e9);
  result((prefix + "_ms").c_str(), ms, "ms");
  result((prefix + "_tflops").c_str(), rate, "TFLOP/s");
  if (tflops)
    *tflops = ok ? rate : 0;
  std::printf("%s", matmul.explain().c_str());
  return ok;
}

// f16 and bf16 matmuls of 4096^2 and 8192^2 on the tensor cores, a few tiles each, the fused
// bias + ReLU epilogue's cost at the best tile, shapes that are not multiples of the tile (their
// efficiency against the square figure), and f32 matmuls read as TF32.
bool tensor_core_bench(uint64_t seed) {
  using Choice = TileChoice;
  const auto &choices = half_tiles;
  // LOOM_BENCH_TILES=label,label,...: only those tiles (of either list), for a shorter run.
  const char *only = std::getenv("LOOM_BENCH_TILES");
  auto chosen = [&](const Choice &c) {
    return !only || ("," + std::string(only) + ",").find("," + std::string(c.label) + ",") !=
                        std::string::npos;
  };
  bool ok = true;
  const Choice *best4096 = &choices[0];
  double square4096 = 0;
  for (int64_t n : {int64_t(4096), int64_t(8192)}) {
    double best[2] = {0, 0};
    const Choice *best_choice = &choices[0];
    for (const Choice &c : choices) {
      if (!chosen(c))
        continue;
      double f = 0, b = 0;
      ok &= half_matmul_bench<loom::f16>("f16", n, n, n, c.tile, c.label, false, seed + n, &f);
      ok &=
          half_matmul_bench<loom::bf16>("bf16", n, n, n, c.tile, c.label, false, seed + n + 1, &b);
      if (f > best[0])
        best[0] = f, best_choice = &c;
      best[1] = std::max(best[1], b);
    }
    result(("loom_f16_matmul" + std::to_string(n) + "_tflops").c_str(), best[0], "TFLOP/s");
    result(("loom_bf16_matmul" + std::to_string(n) + "_tflops").c_str(), best[1], "TFLOP/s");
    double relu = 0;
    ok &= half_matmul_bench<loom::f16>("f16", n, n, n, best_choice->tile, best_choice->label, true,
                                       seed + n + 2, &relu);
    result(("loom_f16_matmul_relu" + std::to_string(n) + "_tflops").c_str(), relu, "TFLOP/s");
    if (relu > 0)
      result(("loom_f16_epilogue_cost" + std::to_string(n)).c_str(), best[0] / relu, "x");
    if (n == 4096)
      best4096 = best_choice, square4096 = best[0];
  }
  // Shapes that are not multiples of the tile, at the best 4096 tile: their TFLOP/s over the
  // square 4096 figure's (the issue's target: at least 0.8).
  for (auto [m, n, kk] :
       {std::array<int64_t, 3>{4095, 4095, 4095}, {4097, 4097, 4097}, {1000, 3000, 700}}) {
    double f = 0;
    ok &= half_matmul_bench<loom::f16>("f16", m, n, kk, best4096->tile, best4096->label, false,
                                       seed + m + 3, &f);
    if (square4096 > 0)
      result(("loom_f16_efficiency_" + std::to_string(m) + "x" + std::to_string(n) + "x" +
              std::to_string(kk))
                 .c_str(),
             f / square4096, "x of 4096^2");
  }
  // TF32: f32 arrays staged as f32 (tf32_tiles).
  for (int64_t n : {int64_t(4096), int64_t(8192)}) {
    double best = 0;
    for (const Choice &c : tf32_tiles) {
      if (!chosen(c))
        continue;
      double f = 0;
      ok &= half_matmul_bench<float>("tf32", n, n, n, c.tile, c.label, false, seed + n + 5, &f);
      best = std::max(best, f);
    }
    if (best > 0)
      result(("loom_tf32_matmul" + std::to_string(n) + "_tflops").c_str(), best, "TFLOP/s");
  }
  return ok;
}

// --only=matmul_profile: one product's calls alone, for a profiler (bench/RESULTS.md's ncu
// counters: ncu -k regex:matmul -c 1 takes its first, checked call). LOOM_PROFILE=type,n,label
// or type,n,label,relu: type f16, bf16, tf32 or f32 (the FMA units), n the square size, label a
// tile of that type's list above; relu adds the fused bias + ReLU (tensor-core types).
bool matmul_profile(uint64_t seed) {
  const char *spec = std::getenv("LOOM_PROFILE");
  std::vector<std::string> part;
  for (std::string rest = spec ? spec : ""; !rest.empty();) {
    const size_t comma = rest.find(',');
    part.push_back(rest.substr(0, comma));
    rest = comma == std::string::npos ? "" : rest.substr(comma + 1);
  }
  if (part.size() < 3 || part.size() > 4 || (part.size() == 4 && part[3] != "relu")) {
    std::printf("matmul_profile: LOOM_PROFILE must be type,n,label[,relu], not '%s'\n",
                spec ? spec : "");
    return false;
  }
  const std::string &type = part[0], &label = part[2];
  const int64_t n = std::atoll(part[1].c_str());
  const bool relu = part.size() == 4;
  auto find = [&](const auto &list) -> const TileChoice * {
    for (const TileChoice &c : list)
      if (label == c.label)
        return &c;
    return nullptr;
  };
  const TileChoice *c = type == "f32"    ? find(f32_tiles)
                        : type == "tf32" ? find(tf32_tiles)
                                         : find(half_tiles);
  if (!c || n <= 0 || (type != "f16" && type != "bf16" && type != "tf32" && type != "f32") ||
      (type == "f32" && (relu || n != 4096))) {
    std::printf(
        "matmul_profile: no tile '%s' for type '%s' at n = %lld (f32: 4096 only, no relu)\n",
        label.c_str(), type.c_str(), (long long)n);
    return false;
  }
  if (type == "f32") {
    loom::Kernel matmul = bench::make_matmul("matmul_tiled");
    matmul.tile(c->tile);
    return simt_matmul_bench(matmul, "scheduled matmul 4096^2, tile " + label,
                             "loom_profile_f32_" + label, seed);
  }
  if (type == "tf32")
    return half_matmul_bench<float>("tf32", n, n, n, c->tile, label, relu, seed);
  if (type == "bf16")
    return half_matmul_bench<loom::bf16>("bf16", n, n, n, c->tile, label, relu, seed);
  return half_matmul_bench<loom::f16>("f16", n, n, n, c->tile, label, relu, seed);
}

// The cost of a call itself: a cached kernel with four arguments (two device arrays of 1024
// floats, two scalars) called synchronously, against cuLaunchKernel + cuCtxSynchronize of the
// very same machine code with the same grid and parameters, straight through the driver. Calls
// alternate in batches of 1000; the medians of 15 batches per side are compared.
bool launch_overhead_bench(uint64_t seed) {
  const int64_t n = 1024;
  std::vector<float> x = bench::random_vector(n, seed), y0 = bench::random_vector(n, seed + 1);
  DeviceArray<float> dx(x), dy(y0);
  loom::Kernel axpb =
      loom::kernel("axpb",
                   [](loom::F32 a, loom::Array<float> x, loom::Array<float> y, loom::F32 b) {
                     loom::parallel_for(x.size(), [&](loom::Index i) { y[i] = a * x[i] + b; });
                   },
                   {"a", "x", "y", "b"});
  const float a = 0.5f, b = 0.25f;
  axpb(a, dx, dy, b);
  std::vector<float> y = dy.to_host();
  double error = 0;
  for (int64_t i = 0; i < n; ++i)
    error = std::max(error, std::fabs(y[i] - (double(a) * x[i] + b)) / (1 + std::fabs(y[i])));
  bool ok = bench::check("axpb 1024 (loom)", error, 1e-6);

  // The raw side: loom's PTX loaded into a module of its own, the grid loom chose, the
  // parameters flattened as support/Abi.h says (a, x, n, y, n, b).
  const loom::runtime::Driver &cu = loom::runtime::Driver::get();
  loom::runtime::GpuModule module(axpb.ptx());
  loom::runtime::GpuFunction fn = module.function("axpb");
  loom::runtime::GridShape shape =
      loom::runtime::choose_grid(fn, {n}, loom::runtime::GpuContext::get().info());
  loom::runtime::CUdeviceptr px = dx.data(), py = dy.data();
  int64_t ext = n;
  float pa = a, pb = b;
  void *params[] = {&pa, &px, &ext, &py, &ext, &pb};
  auto raw = [&] {
    cu.check(cu.cuLaunchKernel(fn.handle, shape.grid[0], shape.grid[1], shape.grid[2],
                               shape.block[0], shape.block[1], shape.block[2], 0, nullptr, params,
                               nullptr),
             "cuLaunchKernel");
    cu.check(cu.cuCtxSynchronize(), "cuCtxSynchronize");
  };
  auto call = [&] { axpb(a, dx, dy, b); };
  constexpr int batch = 1000, batches = 15;
  for (int i = 0; i < batch; ++i)
    raw(), call();
  std::vector<double> raw_us, loom_us;
  for (int r = 0; r < batches; ++r) {
    raw_us.push_back(1000.0 * bench::wall_ms([&] {
                       for (int i = 0; i < batch; ++i)
                         raw();
                     }) /
                     batch);
    loom_us.push_back(1000.0 * bench::wall_ms([&] {
                        for (int i = 0; i < batch; ++i)
                          call();
                      }) /
                      batch);
  }
  double r = bench::median(raw_us), l = bench::median(loom_us);
  std::printf("  4-argument call, synchronous: loom %.2f us (min %.2f), raw cuLaunchKernel + "
              "cuCtxSynchronize %.2f us (min %.2f): %.3fx  [%s]\n",
              l, bench::min_of(loom_us), r, bench::min_of(raw_us), l / r,
              shape.to_string().c_str());
  result("loom_call_4args_us", l, "us");
  result("raw_launch_sync_us", r, "us");
  return ok;
}

// Host <-> device copies of a pageable 1 GiB buffer: loom's (through its pinned staging buffers)
// against one plain cuMemcpyHtoD / cuMemcpyDtoH of the same buffers (the driver's own staging).
bool transfer_bench(uint64_t seed) {
  const size_t n = size_t(1) << 28;
  std::vector<float> host = bench::random_vector(n, seed), back(n);
  DeviceArray<float> device = DeviceArray<float>::uninitialized({int64_t(n)});
  const loom::runtime::Driver &cu = loom::runtime::Driver::get();
  const size_t bytes = n * sizeof(float);
  std::vector<double> loom_in, raw_in, loom_out, raw_out;
  for (int r = 0; r < 7; ++r) {
    loom_in.push_back(bench::wall_ms([&] { device.copy_from_host(host.data()); }));
    raw_in.push_back(bench::wall_ms([&] {
      cu.check(cu.cuMemcpyHtoD_v2(device.data(), host.data(), bytes), "cuMemcpyHtoD_v2");
    }));
    loom_out.push_back(bench::wall_ms([&] { device.copy_to_host(back.data()); }));
    raw_out.push_back(bench::wall_ms([&] {
      cu.check(cu.cuMemcpyDtoH_v2(back.data(), device.data(), bytes), "cuMemcpyDtoH_v2");
    }));
  }
  device.copy_to_host(back.data());
  bool ok = bench::check("1 GiB round trip through the staging buffers", host == back ? 0 : 1, 0);
  auto gbps = [&](const std::vector<double> &ms) { return bytes / (bench::median(ms) * 1e6); };
  std::printf("  1 GiB pageable: to the device loom %.1f GB/s, plain cuMemcpyHtoD %.1f GB/s; "
              "to the host loom %.1f GB/s, plain cuMemcpyDtoH %.1f GB/s\n",
              gbps(loom_in), gbps(raw_in), gbps(loom_out), gbps(raw_out));
  result("loom_h2d_gbps", gbps(loom_in), "GB/s");
  result("raw_h2d_gbps", gbps(raw_in), "GB/s");
  result("loom_d2h_gbps", gbps(loom_out), "GB/s");
  result("raw_d2h_gbps", gbps(raw_out), "GB/s");
  return ok;
}

} // namespace

int main(int argc, char **argv) {
  // --first-call-only: the start-up figures alone. --only=saxpy,sum,...: those sections (after
  // the first calls), e.g. to compare LOOM_LLVM_ARGS settings quickly.
  bool first_call_only = argc > 1 && std::strcmp(argv[1], "--first-call-only") == 0;
  std::string only = argc > 1 && std::strncmp(argv[1], "--only=", 7) == 0
                         ? "," + std::string(argv[1] + 7)
                         : std::string();
  auto wanted = [&](const char *name) {
    return only.empty() || (only + ",").find("," + std::string(name) + ",") != std::string::npos;
  };
  // The first-call figures are of loom compiling, not of its disk cache (cache_bench measures
  // that); a LOOM_CACHE the caller set wins.
  setenv("LOOM_CACHE", "off", 0);

  // Before anything else touches the driver: dlopen, cuInit and the primary context.
  std::string reason;
  bool usable = false;
  double context_ms = bench::wall_ms([&] { usable = loom::runtime::GpuContext::usable(&reason); });
  auto ptx_section = [] {
    return bench::section("PTX generation", [] {
      bench::ptx_times();
      return true;
    });
  };
  if (!usable) {
    std::printf("no usable GPU: %s\n", reason.c_str());
    // Generating PTX needs no GPU: --only=ptx measures it on any machine.
    return !only.empty() && wanted("ptx") && !ptx_section() ? 1 : 0;
  }
  const loom::runtime::DeviceInfo &d = loom::runtime::GpuContext::get().info();
  uint64_t seed = bench::fresh_seed();
  const char *cache = std::getenv("CUDA_CACHE_DISABLE");
  std::printf("loom_gpu_bench on %s (sm_%d%d, %d SMs, driver %d), seed %llu, "
              "CUDA_CACHE_DISABLE=%s\n",
              d.name.c_str(), d.cc_major, d.cc_minor, d.sm_count, d.driver_version,
              (unsigned long long)seed, cache ? cache : "(unset)");
  std::printf("  cuInit + primary context: %.2f ms\n", context_ms);
  result("loom_context_ms", context_ms, "ms");

  bool ok = true;
  ok &= bench::section("first calls", [&] { return first_calls(seed, context_ms); });
  if (!first_call_only) {
    if (wanted("launch"))
      ok &= bench::section("launch overhead", [&] { return launch_overhead_bench(seed + 50); });
    if (wanted("transfers"))
      ok &= bench::section("host transfers", [&] { return transfer_bench(seed + 60); });
    if (wanted("saxpy"))
      ok &= bench::section("saxpy", [&] { return saxpy_bench(seed + 10); });
    if (wanted("sum"))
      ok &= bench::section("sum", [&] { return sum_bench(seed + 40); });
    if (wanted("matmul"))
      ok &= bench::section("matmul", [&] {
        loom::Kernel matmul = bench::make_matmul("matmul");
        bool passed = matmul_bench(matmul, 1024, seed + 20, 20);
        passed &= matmul_bench(matmul, 4096, seed + 30, 20);
        std::printf("%s", matmul.explain().c_str());
        return passed;
      });
    if (wanted("views"))
      ok &= bench::section("views", [&] { return transposed_matmul_bench(seed + 35); });
    if (wanted("stencil"))
      ok &= bench::section("stencil", [&] { return stencil_bench(seed + 70); });
    if (wanted("stepped"))
      ok &= bench::section("stepped", [&] { return stepped_stencil_bench(seed + 77); });
    if (wanted("grey"))
      ok &= bench::section("grey", [&] { return grey_bench(seed + 75); });
    if (wanted("complex"))
      ok &= bench::section("complex", [&] { return complex_product_bench(seed + 78); });
    if (wanted("softmax"))
      ok &= bench::section("softmax", [&] { return softmax_bench(seed + 80); });
    if (wanted("local_array"))
      ok &= bench::section("local_array", [&] { return doitgen_bench(seed + 81); });
    if (wanted("softmax_scheduled"))
      ok &= bench::section("softmax_scheduled", [&] { return softmax_scheduled_bench(seed + 83); });
    if (wanted("softmax_recompute"))
      ok &= bench::section("softmax_recompute", [&] { return softmax_recompute_bench(seed + 84); });
    if (wanted("softmax_simt"))
      ok &= bench::section("softmax_simt", [&] { return softmax_simt_bench(seed + 85); });
    if (wanted("tiled_matmul"))
      ok &= bench::section("tiled_matmul", [&] { return tiled_matmul_bench(seed + 90); });
    if (wanted("sgemm_simt"))
      ok &= bench::section("sgemm_simt", [&] { return sgemm_simt_bench(seed + 95); });
    if (wanted("tensor_cores"))
      ok &= bench::section("tensor_cores", [&] { return tensor_core_bench(seed + 131); });
    // Only when asked (not in the default run): one product, for a profiler.
    if (!only.empty() && wanted("matmul_profile"))
      ok &= bench::section("matmul_profile", [&] { return matmul_profile(seed + 7); });
    if (wanted("scheduled_matmul"))
      ok &= bench::section("scheduled_matmul", [&] { return scheduled_matmul_bench(seed + 97); });
    if (wanted("autotune"))
      ok &= bench::section("autotune", [&] {
        // The tunings go to a disk cache of their own, made fresh: every class is tuned by
        // trials here, and a new object finds its tuning there (the start-overhead figure).
        char dir[] = "/tmp/loom_autotune_bench_XXXXXX";
        const std::string old_mode = getenv("LOOM_CACHE") ? getenv("LOOM_CACHE") : "";
        const std::string old_dir = getenv("LOOM_CACHE_DIR") ? getenv("LOOM_CACHE_DIR") : "";
        if (mkdtemp(dir)) {
          setenv("LOOM_CACHE_DIR", dir, 1);
          setenv("LOOM_CACHE", "on", 1);
        }
        bool passed = true;
        for (int64_t n : {1024, 4096, 8192}) {
          passed &= autotune_bench<float>(n, seed + 201);
          passed &= autotune_bench<double>(n, seed + 202);
        }
        setenv("LOOM_CACHE", old_mode.empty() ? "off" : old_mode.c_str(), 1);
        if (old_dir.empty())
          unsetenv("LOOM_CACHE_DIR");
        else
          setenv("LOOM_CACHE_DIR", old_dir.c_str(), 1);
        std::filesystem::remove_all(dir);
        return passed;
      });
    if (wanted("ptx"))
      ok &= ptx_section();
    if (wanted("linkers"))
      ok &= bench::section("PTX to machine code", [&] { return bench::linker_times(); });
  }
  std::printf("loom_gpu_bench: %s\n", ok ? "all checks passed" : "SOME PART FAILED");
  return ok ? 0 : 1;
}
