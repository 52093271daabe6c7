// loom on the CPU (ORC JIT, OpenMP threads) against the same loops compiled by the host compiler
// with -O3 -march=native -fopenmp (cpu_reference.cpp): saxpy 2^26, sum 2^27, naive matmul 512^2
// and 1024^2, the matmul under the tile schedule at 1024^2, the 5-point stencil over 4096^2 and row
// softmax of 4096 x 4096, doitgen 140 x 150 x 160 with a local scratch row per iteration, plus
// how long loom takes to compile a small kernel for the CPU.
// bench/numba_bench.py times Numba on the same. Speed ratios are g++ time / loom time, so > 1 means
// loom is faster.
#include "BenchSupport.h"
#include "Kernels.h"
#include "cpu_reference.h"

#include "codegen/Codegen.h"
#include "ir/Passes.h"
#include "runtime/CpuLaunch.h"

#include <cstdlib>
#include <exception>
#include <functional>
#include <optional>
#include <string>

namespace {

using bench::result;
using loom::ir::Target;

constexpr double budget_ms_per_figure = 5000; // keeps the whole run under a minute on 2 cores

std::string name_of(const char *format, long long n) {
  char buffer[128];
  std::snprintf(buffer, sizeof buffer, format, n);
  return buffer;
}

loom::Kernel on_cpu(loom::Kernel kernel) {
  kernel.on(Target::CPU);
  return kernel;
}

// The benchmark's arrays, loom's and g++'s alike: loom::HostVector, whose large blocks get
// huge pages as numpy's arrays do for Numba (runtime/HostMemory.h). section "allocation" times
// loom on std::vector's memory against it.
using Floats = loom::HostVector<float>;
Floats random_floats(size_t n, uint64_t seed) {
  Floats v(n);
  bench::fill_random(v.data(), n, seed);
  return v;
}

struct PairTimes {
  std::vector<double> loom_ms, gpp_ms;
};

// Alternates the two, so drift in clock speed or in the machine's load hits both alike. One
// untimed call each first (page faults, the OpenMP thread pool); then as many pairs as fit the
// budget, at least 5 and at most 15.
template <class L, class G> PairTimes time_pair(L &&loom_call, G &&gpp_call) {
  double first = bench::wall_ms(loom_call) + bench::wall_ms(gpp_call);
  int runs = int(budget_ms_per_figure / std::max(first, 1e-3));
  runs = std::min(15, std::max(5, runs));
  PairTimes t;
  for (int r = 0; r < runs; ++r) {
    t.loom_ms.push_back(bench::wall_ms(loom_call));
    t.gpp_ms.push_back(bench::wall_ms(gpp_call));
  }
  return t;
}

// `work` is bytes (rate "gbps", GB/s) or flops (rate "gflops", GFLOP/s) per call.
void report_pair(const std::string &what, const std::string &key, const PairTimes &t, double work,
                 const std::string &rate, const char *rate_unit) {
  double loom_ms = bench::median(t.loom_ms), gpp_ms = bench::median(t.gpp_ms);
  std::printf("  %s: loom median %.3f ms (min %.3f, max %.3f), g++ median %.3f ms (min %.3f, max "
              "%.3f) over %zu runs each: loom/g++ speed %.2fx\n",
              what.c_str(), loom_ms, bench::min_of(t.loom_ms), bench::max_of(t.loom_ms), gpp_ms,
              bench::min_of(t.gpp_ms), bench::max_of(t.gpp_ms), t.loom_ms.size(), gpp_ms / loom_ms);
  result(("loom_cpu_" + key + "_ms").c_str(), loom_ms, "ms");
  result(("gpp_" + key + "_ms").c_str(), gpp_ms, "ms");
  result(("loom_cpu_" + key + "_" + rate).c_str(), work / (loom_ms * 1e6), rate_unit);
  result(("gpp_" + key + "_" + rate).c_str(), work / (gpp_ms * 1e6), rate_unit);
  result(("cpu_" + key + "_speed_ratio").c_str(), gpp_ms / loom_ms, "x");
}

bool saxpy_bench(uint64_t seed) {
  const int64_t n = int64_t(1) << 26;
  const float a = 0.5f + float(seed % 1024) / 512.0f;
  Floats x = random_floats(n, seed), y0 = random_floats(n, seed + 1);
  Floats y_loom = y0, y_gpp = y0;
  loom::Kernel saxpy = on_cpu(bench::make_saxpy("saxpy"));
  saxpy(a, x, y_loom);
  bench::saxpy_gpp(a, x.data(), y_gpp.data(), n);
  bool ok = bench::check("saxpy 2^26 (loom, CPU)",
                         bench::saxpy_error(a, x.data(), y0.data(), y_loom.data(), n),
                         bench::saxpy_tolerance);
  ok &=
      bench::check("saxpy 2^26 (g++)", bench::saxpy_error(a, x.data(), y0.data(), y_gpp.data(), n),
                   bench::saxpy_tolerance);
  // Each call adds a*x again: y grows linearly, no overflow, no denormals.
  PairTimes t = time_pair([&] { saxpy(a, x, y_loom); },
                          [&] { bench::saxpy_gpp(a, x.data(), y_gpp.data(), n); });
  report_pair("saxpy 2^26", "saxpy", t, 12.0 * double(n), "gbps", "GB/s");
  return ok;
}

// What one checked assertion per element costs: saxpy with `check(|x[i]| <= 3e38)` against the
// plain saxpy, both loom's, in the same run.
bool assert_bench(uint64_t seed) {
  const int64_t n = int64_t(1) << 26;
  const float a = 0.5f + float(seed % 1024) / 512.0f;
  Floats x = random_floats(n, seed), y0 = random_floats(n, seed + 1);
  Floats y_plain = y0, y_checked = y0;
  loom::Kernel plain = on_cpu(bench::make_saxpy("saxpy_plain"));
  loom::Kernel checked = on_cpu(bench::make_saxpy_checked("saxpy_checked"));
  checked(a, x, y_checked);
  bool ok = bench::check("saxpy 2^26 with an assertion per element (loom, CPU)",
                         bench::saxpy_error(a, x.data(), y0.data(), y_checked.data(), n),
                         bench::saxpy_tolerance);
  PairTimes t = time_pair([&] { checked(a, x, y_checked); }, [&] { plain(a, x, y_plain); });
  const double checked_ms = bench::median(t.loom_ms), plain_ms = bench::median(t.gpp_ms);
  std::printf("  saxpy 2^26 with an assertion per element: %.3f ms, without: %.3f ms: the "
              "assertions cost %.1f%%\n",
              checked_ms, plain_ms, 100.0 * (checked_ms / plain_ms - 1.0));
  result("loom_cpu_saxpy_checked_ms", checked_ms, "ms");
  result("loom_cpu_saxpy_unchecked_ms", plain_ms, "ms");
  result("cpu_assert_cost_ratio", checked_ms / plain_ms, "x");
  return ok;
}

// 2^27 floats summed into one element: loom's per-chunk partials against OpenMP's reduction.
bool sum_bench(uint64_t seed) {
  const int64_t n = int64_t(1) << 27;
  Floats x = random_floats(size_t(n), seed);
  std::vector<float> total = {0.0f};
  loom::Kernel sum = on_cpu(bench::make_sum("sum"));
  sum(x, total);
  float gpp = bench::sum_gpp(x.data(), n);
  bool ok = bench::check("sum 2^27 (loom, CPU)", bench::sum_error(x.data(), size_t(n), total[0]),
                         bench::sum_tolerance);
  ok &= bench::check("sum 2^27 (g++)", bench::sum_error(x.data(), size_t(n), gpp),
                     bench::sum_tolerance);
  PairTimes t = time_pair([&] { sum(x, total); }, [&] { gpp = bench::sum_gpp(x.data(), n); });
  report_pair("sum 2^27 (g++ in order)", "sum", t, 4.0 * double(n), "gbps", "GB/s");

  // loom accumulates each chunk in lanes (ir/CpuLanes.cpp); the same order written in C++ gives
  // the same bits when both run with the same threads.
  static_assert(loom::ir::cpu_reduction_lanes == 16, "bench::sum_lanes_gpp runs 16 lanes");
  float lanes = bench::sum_lanes_gpp(x.data(), n);
  total[0] = 0.0f;
  sum(x, total);
  if (bench::gpp_threads() == loom::cpu_threads() && lanes != total[0]) {
    std::printf("FAILED: sum 2^27: loom %.9g, the same lanes in C++ %.9g (not the same bits)\n",
                double(total[0]), double(lanes));
    ok = false;
  }
  PairTimes l =
      time_pair([&] { sum(x, total); }, [&] { lanes = bench::sum_lanes_gpp(x.data(), n); });
  report_pair("sum 2^27 (g++ in loom's lanes)", "sum_lanes", l, 4.0 * double(n), "gbps", "GB/s");

  // With fastmath the adds may be reassociated: loom's loop vectorizes. g++'s strict loop is the
  // same peer (with -ffast-math it would vectorize too).
  loom::Module m = loom::compile(R"(
@kernel(fastmath=True)
def sum_fast(x: f32[n], total: f32[1]):
    for i in parallel(n):
        total[0] += x[i]
)");
  loom::Kernel &fast = m["sum_fast"];
  fast.on(Target::CPU);
  total[0] = 0.0f;
  fast(x, total);
  ok &= bench::check("sum 2^27 (loom fastmath, CPU)",
                     bench::sum_error(x.data(), size_t(n), total[0]), bench::sum_tolerance);
  PairTimes f = time_pair([&] { fast(x, total); }, [&] { gpp = bench::sum_gpp(x.data(), n); });
  report_pair("sum 2^27, loom fastmath", "sum_fast", f, 4.0 * double(n), "gbps", "GB/s");
  return ok;
}

bool matmul_bench(int64_t n, uint64_t seed) {
  Floats A = random_floats(size_t(n * n), seed);
  Floats B = random_floats(size_t(n * n), seed ^ 0x5bd1e995);
  Floats C_loom(size_t(n * n), NAN), C_gpp(size_t(n * n), NAN);
  // The default mapping as written, against the same loop order in C++ (natural_matmul_bench
  // times the schedule loom chooses for it).
  loom::Kernel matmul = on_cpu(bench::make_matmul("matmul"));
  matmul.schedule(loom::none);
  auto loom_call = [&] {
    matmul(loom::view(A, {n, n}), loom::view(B, {n, n}), loom::view(C_loom, {n, n}));
  };
  auto gpp_call = [&] { bench::matmul_gpp(A.data(), B.data(), C_gpp.data(), n); };
  loom_call();
  gpp_call();
  bool ok = bench::check(
      name_of("matmul %lld^2 (loom, CPU)", n).c_str(),
      bench::matmul_error(A.data(), B.data(), C_loom.data(), n, bench::matmul_check_rows, seed),
      bench::matmul_tolerance);
  ok &= bench::check(
      name_of("matmul %lld^2 (g++)", n).c_str(),
      bench::matmul_error(A.data(), B.data(), C_gpp.data(), n, bench::matmul_check_rows, seed),
      bench::matmul_tolerance);
  PairTimes t = time_pair(loom_call, gpp_call);
  report_pair(name_of("matmul %lld^2", n), name_of("matmul%lld", n), t, 2.0 * n * n * n, "gflops",
              "GFLOP/s");
  // g++ contracts the k loop's a * b + c into fma by default, loom only with fastmath: the same
  // arithmetic on both sides, g++ without contraction.
  auto strict_call = [&] { bench::matmul_strict_gpp(A.data(), B.data(), C_gpp.data(), n); };
  PairTimes s = time_pair(loom_call, strict_call);
  report_pair(name_of("matmul %lld^2 (g++ without fma)", n), name_of("matmul_strict%lld", n), s,
              2.0 * n * n * n, "gflops", "GFLOP/s");
  return ok;
}

// The natural matmul (i, j parallel, the k sum into a local) as loom runs it unasked: register
// blocks of its own choosing (ir/AutoSchedule.cpp), against C++ with its loops in the order a C
// programmer picks for speed (i, k, j: rows of C updated along j, vectorized, with fma). Each
// element is checked on sampled rows against a long double reference, relative to the sum of
// |products|.
template <class T> bool natural_matmul_bench(int64_t n, uint64_t seed) {
  const char *type = sizeof(T) == 4 ? "f32" : "f64";
  loom::HostVector<T> A(size_t(n * n)), B(size_t(n * n)), C_loom(size_t(n * n), T(NAN)),
      C_gpp(size_t(n * n), T(NAN));
  Floats a = random_floats(size_t(n * n), seed), b = random_floats(size_t(n * n), seed + 1);
  std::copy(a.begin(), a.end(), A.begin());
  std::copy(b.begin(), b.end(), B.begin());
  loom::Kernel matmul = on_cpu(bench::make_matmul<T>(std::string("natural_matmul_") + type));
  auto loom_call = [&] {
    matmul(loom::view(A, {n, n}), loom::view(B, {n, n}), loom::view(C_loom, {n, n}));
  };
  auto gpp_call = [&] { bench::matmul_ikj_gpp(A.data(), B.data(), C_gpp.data(), n); };
  loom_call();
  gpp_call();
  auto error = [&](const loom::HostVector<T> &C) {
    double worst = 0;
    for (int64_t i = int64_t(seed % 7); i < n; i += std::max<int64_t>(1, n / 16))
      for (int64_t j = 0; j < n; ++j) {
        long double ref = 0, mag = 0;
        for (int64_t k = 0; k < n; ++k) {
          long double p = (long double)A[i * n + k] * B[k * n + j];
          ref += p, mag += std::fabs(p);
        }
        const double e = double(std::fabs(C[i * n + j] - ref) / std::max(mag, 1e-30L));
        worst = std::isnan(double(C[i * n + j])) ? INFINITY : std::max(worst, e);
      }
    return worst;
  };
  // float: n products each rounded (2^-24) and summed (n 2^-24); double: 2^-53.
  const double tolerance = sizeof(T) == 4 ? 1e-4 : 1e-12;
  bool ok = bench::check(name_of("natural matmul %lld^2 (loom, CPU)", n).c_str(), error(C_loom),
                         tolerance);
  ok &= bench::check(name_of("natural matmul %lld^2 (g++ i, k, j)", n).c_str(), error(C_gpp),
                     tolerance);
  PairTimes t = time_pair(loom_call, gpp_call);
  report_pair(name_of("natural matmul %lld^2 ", n) + type + " (g++ i, k, j order, fma)",
              name_of("natural_matmul_", n) + type, t, 2.0 * n * n * n, "gflops", "GFLOP/s");
  return ok;
}

// The naive matmul kernel under the tile schedule, against the same blocking in C++: loom
// against g++ without contraction (both round every product), and loom's fastmath against g++'s
// default (both contract a * b + c into fma).
bool scheduled_matmul_bench(int64_t n, uint64_t seed) {
  Floats A = random_floats(size_t(n * n), seed);
  Floats B = random_floats(size_t(n * n), seed ^ 0x5bd1e995);
  Floats C_loom(size_t(n * n), NAN), C_gpp(size_t(n * n), NAN);
  // A block of 16 vector registers: 8 x 32 floats on AVX-512, 4 x 32 on AVX2 (where 8 x 32 takes
  // 32 registers of the 16 there are: 0.70x g++'s same blocking, against 1.14x with 4 x 32, on
  // an AMD EPYC; bench/RESULTS.md).
  const int block_rows = __builtin_cpu_supports("avx512f") ? 8 : 4;
  const loom::ir::TileSchedule schedule{64, 128, block_rows, 32};
  std::printf("  tile schedule {64, 128, %d, 32} (%s)\n", block_rows,
              block_rows == 8 ? "AVX-512" : "no AVX-512");
  loom::Kernel matmul = on_cpu(bench::make_matmul("matmul_tiled"));
  matmul.tile(schedule);
  loom::Kernel fast = on_cpu(bench::make_matmul("matmul_tiled_fast"));
  fast.tile(schedule).fast_math();
  auto loom_call = [&](loom::Kernel &k) {
    k(loom::view(A, {n, n}), loom::view(B, {n, n}), loom::view(C_loom, {n, n}));
  };
  auto gpp_call = [&] { bench::matmul_tiled_gpp(A.data(), B.data(), C_gpp.data(), n, block_rows); };
  auto strict_call = [&] {
    bench::matmul_tiled_strict_gpp(A.data(), B.data(), C_gpp.data(), n, block_rows);
  };
  bool ok = true;
  for (loom::Kernel *k : {&matmul, &fast}) {
    loom_call(*k);
    ok &= bench::check(
        name_of("scheduled matmul %lld^2 (loom, CPU)", n).c_str(),
        bench::matmul_error(A.data(), B.data(), C_loom.data(), n, bench::matmul_check_rows, seed),
        bench::matmul_tolerance);
  }
  for (const std::function<void()> &call :
       {std::function<void()>(gpp_call), std::function<void()>(strict_call)}) {
    call();
    ok &= bench::check(
        name_of("scheduled matmul %lld^2 (g++)", n).c_str(),
        bench::matmul_error(A.data(), B.data(), C_gpp.data(), n, bench::matmul_check_rows, seed),
        bench::matmul_tolerance);
  }
  PairTimes t = time_pair([&] { loom_call(matmul); }, strict_call);
  report_pair(name_of("scheduled matmul %lld^2 (g++ without fma)", n),
              name_of("matmul_tiled%lld", n), t, 2.0 * n * n * n, "gflops", "GFLOP/s");
  PairTimes f = time_pair([&] { loom_call(fast); }, gpp_call);
  report_pair(name_of("scheduled matmul %lld^2, loom fastmath (g++ default, fma)", n),
              name_of("matmul_tiled_fast%lld", n), f, 2.0 * n * n * n, "gflops", "GFLOP/s");
  return ok;
}

// The largest error of `got` against a double-precision reference, relative to 1 + |reference|.
double max_error(const std::vector<double> &reference, const Floats &got) {
  double worst = 0;
  for (size_t k = 0; k < reference.size(); ++k)
    worst = std::max(worst, std::fabs(got[k] - reference[k]) / (1 + std::fabs(reference[k])));
  return worst;
}

// The 5-point stencil over a 4096^2 grid: 5 loads and a store per point, a memory-bound sweep.
bool stencil_bench(uint64_t seed) {
  const int64_t n = 4096;
  Floats u = random_floats(size_t(n * n), seed);
  Floats v_loom(size_t(n * n), 0.0f), v_gpp(size_t(n * n), 0.0f);
  loom::Kernel stencil = on_cpu(bench::make_stencil("stencil"));
  auto loom_call = [&] { stencil(loom::view(u, {n, n}), loom::view(v_loom, {n, n})); };
  auto gpp_call = [&] { bench::stencil_gpp(u.data(), v_gpp.data(), n, n); };
  loom_call();
  gpp_call();
  std::vector<double> reference(size_t(n * n), 0.0);
  for (int64_t i = 1; i < n - 1; ++i)
    for (int64_t j = 1; j < n - 1; ++j)
      reference[i * n + j] = 0.2 * (double(u[i * n + j]) + u[(i - 1) * n + j] + u[(i + 1) * n + j] +
                                    u[i * n + j - 1] + u[i * n + j + 1]);
  // Four float additions and a product: a few units of roundoff of values below 5.
  bool ok = bench::check("stencil 4096^2 (loom, CPU)", max_error(reference, v_loom), 1e-6);
  ok &= bench::check("stencil 4096^2 (g++)", max_error(reference, v_gpp), 1e-6);
  PairTimes t = time_pair(loom_call, gpp_call);
  report_pair("stencil 4096^2", "stencil4096", t, 8.0 * double(n - 2) * double(n - 2), "gbps",
              "GB/s");
  return ok;
}

// A local array (loom::local_array) as each iteration's scratch: PolyBench's doitgen at its
// LARGE size, 140 x 150 x 160 doubles, against the same loops in C++ whose scratch row is private
// to each OpenMP thread. The same order of operations on both sides (no contraction): the same
// bits.
bool local_array_bench(uint64_t seed) {
  const int64_t R = 140, Q = 150, P = 160;
  loom::HostVector<double> A0(size_t(R * Q * P)), C4(size_t(P * P));
  for (size_t k = 0; k < A0.size(); ++k)
    A0[k] = double(int64_t((k * 2654435761u + seed) % 2001) - 1000) / 1000.0;
  for (size_t k = 0; k < C4.size(); ++k)
    C4[k] = double(int64_t((k * 40503u + seed) % 2001) - 1000) / 16000.0;
  loom::Kernel doitgen = bench::make_doitgen();
  doitgen.on(Target::CPU);
  loom::HostVector<double> A_loom = A0, A_gpp = A0;
  doitgen(loom::view(A_loom, {R, Q, P}), loom::view(C4, {P, P}));
  bench::doitgen_strict_gpp(A_gpp.data(), C4.data(), R, Q, P);
  bool ok = true;
  for (size_t k = 0; k < A0.size() && ok; ++k)
    if (A_loom[k] != A_gpp[k]) {
      std::printf("FAILED: doitgen: element %zu: loom %.17g, g++ %.17g (not the same bits)\n", k,
                  A_loom[k], A_gpp[k]);
      ok = false;
    }
  std::printf("  doitgen 140 x 150 x 160 (loom, CPU) and (g++): the same bits: %s\n",
              ok ? "yes" : "NO");
  // Each call multiplies the rows by C4 again; its entries are below 1/16 in magnitude, so the
  // values shrink towards 0 without overflow (denormals are reached only after hundreds of calls:
  // restore A before each pair).
  PairTimes t = time_pair(
      [&] {
        std::copy(A0.begin(), A0.end(), A_loom.begin());
        doitgen(loom::view(A_loom, {R, Q, P}), loom::view(C4, {P, P}));
      },
      [&] {
        std::copy(A0.begin(), A0.end(), A_gpp.begin());
        bench::doitgen_strict_gpp(A_gpp.data(), C4.data(), R, Q, P);
      });
  report_pair("doitgen 140 x 150 x 160, local scratch", "doitgen", t, 2.0 * R * Q * P * P, "gflops",
              "GFLOP/s");
  return ok;
}

// PolyBench's syrk (LARGE: n = 1200, m = 1000, f64), a rank-k update of a triangle, in the two
// natural forms (bench::make_syrk) against PolyBench's OpenMP loop without fma. The i, k, j form
// computes PolyBench's operations in its order: the same bits; the sums form adds each element's
// products first, then scales: within a few ulps of the sum of |terms|.
bool syrk_bench(uint64_t seed) {
  const int64_t n = 1200, m = 1000;
  const double alpha = 1.5, beta = 1.2;
  loom::HostVector<double> A(size_t(n * m)), C0(size_t(n * n));
  Floats a = random_floats(A.size(), seed), c = random_floats(C0.size(), seed + 1);
  std::copy(a.begin(), a.end(), A.begin());
  std::copy(c.begin(), c.end(), C0.begin());
  loom::HostVector<double> C_loom = C0, C_gpp = C0;
  bench::syrk_strict_gpp(C_gpp.data(), A.data(), n, m, alpha, beta);
  bool ok = true;
  for (const char *form : {"updates", "sums"}) {
    loom::Kernel syrk = on_cpu(bench::make_syrk(form));
    std::copy(C0.begin(), C0.end(), C_loom.begin());
    syrk(loom::view(C_loom, {n, n}), loom::view(A, {n, m}), alpha, beta);
    double worst = 0;
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < n; ++j) {
        const double got = C_loom[i * n + j], want = C_gpp[i * n + j];
        const double scale = j <= i ? std::fabs(beta) + std::fabs(alpha) * double(m) : 1.0;
        worst = std::isnan(got) ? INFINITY : std::max(worst, std::fabs(got - want) / scale);
      }
    const bool exact = std::string(form) == "updates";
    const double tolerance = exact ? 0.0 : 1e-14;
    std::printf("  syrk (%s) against PolyBench's loop: largest difference %.3g (relative to the "
                "sum of |terms|), tolerance %.3g: %s\n",
                form, worst, tolerance, worst <= tolerance ? "PASS" : "FAIL");
    ok &= worst <= tolerance;
    loom::HostVector<double> C_peer = C0;
    PairTimes t = time_pair(
        [&] {
          std::copy(C0.begin(), C0.end(), C_loom.begin());
          syrk(loom::view(C_loom, {n, n}), loom::view(A, {n, m}), alpha, beta);
        },
        [&] {
          std::copy(C0.begin(), C0.end(), C_peer.begin());
          bench::syrk_strict_gpp(C_peer.data(), A.data(), n, m, alpha, beta);
        });
    report_pair(std::string("syrk 1200 x 1000 f64, ") + form + " form", std::string("syrk_") + form,
                t, double(n) * double(n + 1) * double(m), "gflops", "GFLOP/s");
  }
  return ok;
}

// What the arrays' memory is worth: loom's stencil and saxpy on std::vector's memory (4 KiB
// pages, for a large block glibc's own mapping) against the same kernels on loom::HostVector's
// (2 MiB aligned, huge pages advised), alternating in one process. Same code, same inputs.
bool allocation_bench(uint64_t seed) {
  const int64_t n = 4096;
  loom::Kernel stencil = on_cpu(bench::make_stencil("stencil"));
  loom::Kernel saxpy = on_cpu(bench::make_saxpy("saxpy"));
  std::vector<float> u_std = bench::random_vector(size_t(n * n), seed);
  std::vector<float> v_std(size_t(n * n), 0.0f), y_std = bench::random_vector(size_t(n * n), seed);
  Floats u_host(u_std.begin(), u_std.end()), v_host(size_t(n * n), 0.0f),
      y_host(y_std.begin(), y_std.end());
  auto report = [&](const char *what, const std::string &key, const PairTimes &t, double bytes) {
    double std_ms = bench::median(t.loom_ms), host_ms = bench::median(t.gpp_ms);
    std::printf("  %s: std::vector median %.3f ms (min %.3f), HostVector median %.3f ms (min %.3f) "
                "over %zu runs each: HostVector/std::vector speed %.2fx\n",
                what, std_ms, bench::min_of(t.loom_ms), host_ms, bench::min_of(t.gpp_ms),
                t.loom_ms.size(), std_ms / host_ms);
    result(("loom_cpu_" + key + "_std_vector_ms").c_str(), std_ms, "ms");
    result(("loom_cpu_" + key + "_host_vector_ms").c_str(), host_ms, "ms");
    result(("loom_cpu_" + key + "_host_vector_gbps").c_str(), bytes / (host_ms * 1e6), "GB/s");
    result(("cpu_" + key + "_host_vector_speed_ratio").c_str(), std_ms / host_ms, "x");
  };
  PairTimes st = time_pair(
      [&] {
        stencil(loom::view(u_std, {n, n}), loom::view(v_std, {n, n}));
      },
      [&] {
        stencil(loom::view(u_host, {n, n}), loom::view(v_host, {n, n}));
      });
  report("stencil 4096^2", "stencil4096", st, 8.0 * double(n - 2) * double(n - 2));
  PairTimes sx =
      time_pair([&] { saxpy(0.5f, u_std, y_std); }, [&] { saxpy(0.5f, u_host, y_host); });
  report("saxpy 2^24", "saxpy2p24", sx, 12.0 * double(n * n));
  // Both runs computed the same function of the same inputs: the outputs agree bit for bit.
  bool same = std::equal(v_std.begin(), v_std.end(), v_host.begin()) &&
              std::equal(y_std.begin(), y_std.end(), y_host.begin());
  return bench::check("stencil and saxpy on both memories (bitwise equal)", same ? 0.0 : 1.0, 0.0);
}

// Softmax of each row of a 4096 x 4096 matrix: three passes per row, one exp per element.
bool softmax_bench(uint64_t seed) {
  const int64_t n = 4096;
  Floats x = random_floats(size_t(n * n), seed);
  for (float &e : x)
    e *= 8.0f; // exponents in [-16, 16]: the maximum's subtraction matters
  Floats y_loom(size_t(n * n), 0.0f), y_gpp(size_t(n * n), 0.0f);
  loom::Kernel softmax = on_cpu(bench::make_softmax("softmax"));
  auto loom_call = [&] { softmax(loom::view(x, {n, n}), loom::view(y_loom, {n, n})); };
  auto gpp_call = [&] { bench::softmax_gpp(x.data(), y_gpp.data(), n, n); };
  loom_call();
  gpp_call();
  std::vector<double> reference(size_t(n * n));
  for (int64_t i = 0; i < n; ++i) {
    double top = x[i * n], total = 0;
    for (int64_t j = 0; j < n; ++j)
      top = std::max(top, double(x[i * n + j]));
    for (int64_t j = 0; j < n; ++j)
      total += std::exp(double(x[i * n + j]) - top);
    for (int64_t j = 0; j < n; ++j)
      reference[i * n + j] = std::exp(double(x[i * n + j]) - top) / total;
  }
  // Relative to each element: a float sum of 4096 terms in order and one exp of a few ulps.
  auto error = [&](const Floats &y) {
    double worst = 0;
    for (size_t k = 0; k < y.size(); ++k)
      worst = std::max(worst, std::fabs(y[k] - reference[k]) / reference[k]);
    return worst;
  };
  bool ok = bench::check("softmax 4096 x 4096 (loom, CPU)", error(y_loom), 1e-4);
  ok &= bench::check("softmax 4096 x 4096 (g++)", error(y_gpp), 1e-4);
  PairTimes t = time_pair(loom_call, gpp_call);
  report_pair("softmax 4096 x 4096", "softmax4096", t, 8.0 * double(n) * double(n), "gbps", "GB/s");
  return ok;
}

// Compile time of a fresh kernel: its first call on a tiny input (trace, lower, LLVM O3, ORC JIT,
// run) minus the median of its warm calls on the same input.
template <class Make, class Call>
void compile_time(const char *what, const char *key, Make &&make, Call &&call) {
  std::optional<loom::Kernel> kernel;
  double first = bench::wall_ms([&] {
    kernel.emplace(on_cpu(make()));
    call(*kernel);
  });
  std::vector<double> warm;
  for (int r = 0; r < 20; ++r)
    warm.push_back(bench::wall_ms([&] { call(*kernel); }));
  double compile = first - bench::median(warm);
  std::printf("  %s: first call %.2f ms, warm call %.4f ms: compile %.2f ms\n", what, first,
              bench::median(warm), compile);
  result(key, compile, "ms");
}

// `--only=NAME` runs only the section of that name (and the first call): one kernel under perf.
bool wanted(const char *section, const std::string &only) {
  return only.empty() || only == section;
}

} // namespace

int main(int argc, char **argv) {
  std::string only;
  for (int a = 1; a < argc; ++a) {
    std::string arg = argv[a];
    if (arg.rfind("--only=", 0) != 0) {
      std::fprintf(stderr, "usage: loom_cpu_bench "
                           "[--only=saxpy|sum|matmul|natural_matmul|scheduled_matmul|stencil|syrk|"
                           "softmax|"
                           "allocation|local_array|asserts|compile time]\n");
      return 2;
    }
    only = arg.substr(7);
  }
  // The compile-time figures are of loom compiling, not of its disk cache (cache_bench measures
  // that); a LOOM_CACHE the caller set wins.
  setenv("LOOM_CACHE", "off", 0);
  uint64_t seed = bench::fresh_seed();
  std::printf("loom_cpu_bench on %s: loom %d threads, g++ reference %d threads, seed %llu\n",
              loom::codegen::host_cpu_name().c_str(), loom::runtime::cpu_thread_count(),
              bench::gpp_threads(), (unsigned long long)seed);
  result("loom_cpu_threads", loom::runtime::cpu_thread_count(), "threads");

  bool ok = true;
  std::vector<float> tiny_x = bench::random_vector(16, seed), tiny_y(16, 0.0f);
  ok &= bench::section("first call", [&] {
    // The process's first kernel: also pays for setting up LLVM's native target and the ORC JIT.
    double ms = bench::wall_ms([&] {
      loom::Kernel k = on_cpu(bench::make_saxpy("saxpy_first"));
      k(2.0f, tiny_x, tiny_y);
    });
    std::printf("  first kernel call of the process (saxpy, 16 elements): %.2f ms\n", ms);
    result("loom_cpu_first_call_ms", ms, "ms");
    return true;
  });
  if (wanted("saxpy", only))
    ok &= bench::section("saxpy", [&] { return saxpy_bench(seed + 10); });
  if (wanted("asserts", only))
    ok &= bench::section("asserts", [&] { return assert_bench(seed + 12); });
  if (wanted("sum", only))
    ok &= bench::section("sum", [&] { return sum_bench(seed + 15); });
  if (wanted("matmul", only))
    ok &= bench::section("matmul", [&] {
      bool passed = matmul_bench(512, seed + 20);
      passed &= matmul_bench(1024, seed + 30);
      return passed;
    });
  if (wanted("natural_matmul", only))
    ok &= bench::section("natural_matmul", [&] {
      bool passed = true;
      for (int64_t n : {512, 1024, 2048}) {
        passed &= natural_matmul_bench<float>(n, seed + 90 + n);
        passed &= natural_matmul_bench<double>(n, seed + 91 + n);
      }
      return passed;
    });
  if (wanted("scheduled_matmul", only))
    ok &=
        bench::section("scheduled_matmul", [&] { return scheduled_matmul_bench(1024, seed + 35); });
  if (wanted("stencil", only))
    ok &= bench::section("stencil", [&] { return stencil_bench(seed + 50); });
  if (wanted("softmax", only))
    ok &= bench::section("softmax", [&] { return softmax_bench(seed + 60); });
  if (wanted("allocation", only))
    ok &= bench::section("allocation", [&] { return allocation_bench(seed + 70); });
  if (wanted("local_array", only))
    ok &= bench::section("local_array", [&] { return local_array_bench(seed + 80); });
  if (wanted("syrk", only))
    ok &= bench::section("syrk", [&] { return syrk_bench(seed + 90); });
  if (wanted("compile time", only))
    ok &= bench::section("compile time", [&] {
      std::vector<float> A = bench::random_vector(64, seed + 40),
                         B = bench::random_vector(64, seed + 41);
      std::vector<float> C(64);
      compile_time(
          "saxpy, 16 elements", "loom_cpu_compile_saxpy_ms",
          [] { return bench::make_saxpy("saxpy_new"); },
          [&](loom::Kernel &k) { k(2.0f, tiny_x, tiny_y); });
      auto matmul_8 = [&](loom::Kernel &k) {
        k(loom::view(A, {8, 8}), loom::view(B, {8, 8}), loom::view(C, {8, 8}));
      };
      compile_time(
          "matmul, 8 x 8, default mapping as written", "loom_cpu_compile_matmul_ms",
          [] { return bench::make_matmul("matmul_new").schedule(loom::none); }, matmul_8);
      compile_time(
          "matmul, 8 x 8, the schedule loom chooses", "loom_cpu_compile_matmul_auto_ms",
          [] { return bench::make_matmul("matmul_auto"); }, matmul_8);
      compile_time(
          "matmul, 8 x 8, tile {64, 128, 8, 32}", "loom_cpu_compile_matmul_tiled_ms",
          [] {
            return bench::make_matmul("matmul_tile").tile({64, 128, 8, 32});
          },
          matmul_8);
      compile_time(
          "matmul, 8 x 8, tile {64, 128, 8, 32}, bounds_check",
          "loom_cpu_compile_matmul_tiled_checked_ms",
          [] {
            return bench::make_matmul("matmul_tile_bc").tile({64, 128, 8, 32}).bounds_check();
          },
          matmul_8);
      return true;
    });
  std::printf("loom_cpu_bench: %s\n", ok ? "all checks passed" : "SOME PART FAILED");
  return ok ? 0 : 1;
}
