// What every benchmark program shares: fresh random inputs, medians, the double-precision checks
// and the `RESULT name value unit` lines run_gpu.sh collects. Plain C++17 with no loom header, so
// the CUDA C peers (reference.cu, built by nvcc) use the very same checks and output format.
#pragma once

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <random>
#include <vector>

namespace bench {

// A new seed each run: a kernel must compute the same function on any input, not just on one.
inline uint64_t fresh_seed() {
  std::random_device device;
  return (uint64_t(device()) << 32) ^ device();
}

// Uniform in [-1, 1) from splitmix64: std::mt19937 would take seconds for the 2^28-element inputs.
inline void fill_random(float *data, size_t n, uint64_t seed) {
  uint64_t state = seed;
  for (size_t i = 0; i < n; ++i) {
    uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    data[i] = float(int64_t(z >> 40) - (int64_t(1) << 23)) * (1.0f / float(1 << 23));
  }
}
inline std::vector<float> random_vector(size_t n, uint64_t seed) {
  std::vector<float> v(n);
  fill_random(v.data(), n, seed);
  return v;
}

inline double median(std::vector<double> samples) {
  if (samples.empty())
    return NAN;
  std::sort(samples.begin(), samples.end());
  size_t m = samples.size() / 2;
  return samples.size() % 2 ? samples[m] : 0.5 * (samples[m - 1] + samples[m]);
}
inline double min_of(const std::vector<double> &s) {
  return s.empty() ? NAN : *std::min_element(s.begin(), s.end());
}
inline double max_of(const std::vector<double> &s) {
  return s.empty() ? NAN : *std::max_element(s.begin(), s.end());
}

using Clock = std::chrono::steady_clock;
inline double ms_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}
template <class F> double wall_ms(F &&f) {
  auto start = Clock::now();
  f();
  return ms_since(start);
}

// One figure for run_gpu.sh's table; also printed immediately so a crash later loses nothing.
inline void result(const char *name, double value, const char *unit) {
  std::printf("RESULT %s %.6g %s\n", name, value, unit);
  std::fflush(stdout);
}

// Prints the verdict; `error <= tolerance` is written so that a NaN error fails.
inline bool check(const char *what, double error, double tolerance) {
  bool ok = error <= tolerance;
  std::printf("CHECK %s %s (max relative error %.3g, tolerance %.1g)\n", ok ? "PASS" : "FAIL", what,
              error, tolerance);
  std::fflush(stdout);
  return ok;
}

// A float sum's error against the double-precision sum of x, relative to the bound of any
// summation order, n * u * sum|x| (u = 2^-24): at most 1 when the sum is right.
inline double sum_error(const float *x, size_t n, double got) {
  double exact = 0, magnitude = 0;
  for (size_t i = 0; i < n; ++i)
    exact += x[i], magnitude += std::fabs(double(x[i]));
  return std::fabs(got - exact) / (double(n) * 0x1p-24 * magnitude + 1e-30);
}
constexpr double sum_tolerance = 1.0;

// Worst |y - (a*x + y0)| / max(1, |ref|) over all elements, against a double reference.
inline double saxpy_error(float a, const float *x, const float *y0, const float *y, size_t n) {
  double worst = 0;
  for (size_t i = 0; i < n; ++i) {
    double ref = double(a) * x[i] + y0[i];
    double e = std::fabs(y[i] - ref) / std::max(1.0, std::fabs(ref));
    if (!(e <= worst))
      worst = e; // also catches NaN, which then sticks
    if (std::isnan(worst))
      return worst;
  }
  return worst;
}
constexpr double saxpy_tolerance = 1e-6;
// The f16 saxpy: the same check on values widened to float, against f16's precision (11
// significant bits: one unit in the last place is at most 2^-10 of the value).
constexpr double saxpy_f16_tolerance = 0x1p-10;

// C = A*B (n x n, row-major) on `rows` rows spread over the matrix (all columns), in double. The
// error of each element is relative to the sum of |products|, which bounds float32 rounding
// whatever the cancellation. Any NaN in C (an element never written over the poison) fails.
inline double matmul_error(const float *A, const float *B, const float *C, int64_t m, int64_t n,
                           int64_t kk, int rows, uint64_t seed) {
  for (int64_t e = 0; e < m * n; ++e)
    if (std::isnan(C[e]))
      return NAN;
  std::vector<double> ref(static_cast<size_t>(n)), mag(static_cast<size_t>(n));
  double worst = 0;
  int64_t step = std::max<int64_t>(1, m / rows), offset = int64_t(seed % uint64_t(step));
  for (int64_t i = offset; i < m; i += step) {
    std::fill(ref.begin(), ref.end(), 0.0);
    std::fill(mag.begin(), mag.end(), 0.0);
    // k outside j: walks B by rows, so the sample costs seconds, not minutes, at 4096.
    for (int64_t k = 0; k < kk; ++k) {
      double a = A[i * kk + k];
      const float *b = B + k * n;
      for (int64_t j = 0; j < n; ++j) {
        double p = a * b[j];
        ref[size_t(j)] += p;
        mag[size_t(j)] += std::fabs(p);
      }
    }
    for (int64_t j = 0; j < n; ++j)
      worst = std::max(worst,
                       std::fabs(C[i * n + j] - ref[size_t(j)]) / std::max(mag[size_t(j)], 1e-30));
  }
  return worst;
}
// The same for n x n matrices.
inline double matmul_error(const float *A, const float *B, const float *C, int64_t n, int rows,
                           uint64_t seed) {
  return matmul_error(A, B, C, n, n, n, rows, seed);
}
constexpr double matmul_tolerance = 1e-5;
constexpr int matmul_check_rows = 64;

// The 5-point stencil of an n x m row-major grid u: the worst |v - ref| / (1 + |ref|) over the
// interior against a double-precision reference. The caller poisons v with NaN first, so an
// interior point never written fails (NaN), and the border, which the kernel leaves alone, must
// still be NaN (else the error is infinite).
inline double stencil_error(const float *u, const float *v, int64_t n, int64_t m) {
  for (int64_t j = 0; j < m; ++j)
    if (!std::isnan(v[j]) || !std::isnan(v[(n - 1) * m + j]))
      return INFINITY;
  double worst = 0;
  for (int64_t i = 1; i < n - 1; ++i) {
    if (!std::isnan(v[i * m]) || !std::isnan(v[i * m + m - 1]))
      return INFINITY;
    for (int64_t k = i * m + 1; k < i * m + m - 1; ++k) {
      double ref = 0.2 * (double(u[k]) + u[k - m] + u[k + m] + u[k - 1] + u[k + 1]);
      double e = std::fabs(v[k] - ref) / (1 + std::fabs(ref));
      if (!(e <= worst))
        worst = e;
      if (std::isnan(worst))
        return worst;
    }
  }
  return worst;
}
// Four float additions of partial sums below 5 and a product by 0.2f (itself 1.5e-8 off 0.2):
// under 3e-7 whatever the order of the additions; 1e-6, as on the CPU.
constexpr double stencil_tolerance = 1e-6;
// The traffic a stencil call cannot avoid: each interior point read once and written once (the
// neighbours' reads hit the caches).
inline double stencil_bytes(int64_t n, int64_t m) {
  return 8.0 * double(n - 2) * double(m - 2);
}

// The time-stepped stencil: `steps` Jacobi steps (the stencil above, in its order of additions)
// on an n x n grid, u -> v, v -> u, ..., the border of both kept; an even number of steps leaves
// the result in u. A small grid, so that the cost of a launch dominates.
constexpr int64_t stepped_stencil_grid = 512;
constexpr int stepped_stencil_steps = 1000;
constexpr double stepped_stencil_tolerance = 1e-5;
inline void stepped_stencil_reference(std::vector<float> &u, std::vector<float> &v, int64_t n,
                                      int steps) {
  for (int s = 0; s < steps; ++s) {
    const std::vector<float> &a = s % 2 == 0 ? u : v;
    std::vector<float> &b = s % 2 == 0 ? v : u;
    for (int64_t i = 1; i < n - 1; ++i)
      for (int64_t k = i * n + 1; k < i * n + n - 1; ++k)
        b[k] = 0.2f * (a[k] + a[k - n] + a[k + n] + a[k - 1] + a[k + 1]);
  }
}
// The largest relative difference between two grids (NaN anywhere: infinite).
inline double grid_difference(const float *got, const float *ref, size_t count) {
  double worst = 0;
  for (size_t k = 0; k < count; ++k) {
    double e = std::fabs(double(got[k]) - ref[k]) / (1 + std::fabs(double(ref[k])));
    if (!(e <= worst))
      worst = std::isnan(e) ? INFINITY : e;
  }
  return worst;
}

// Softmax inputs: uniform in [-8, 8), as on the CPU, so a row's exponentials span seven orders
// of magnitude.
// A random 8-bit RGB image of n pixels (3 bytes each).
inline std::vector<uint8_t> random_image(size_t pixels, uint64_t seed) {
  std::vector<uint8_t> rgb(pixels * 3);
  uint64_t s = seed * 6364136223846793005ull + 1442695040888963407ull;
  for (uint8_t &c : rgb) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    c = static_cast<uint8_t>(s >> 56);
  }
  return rgb;
}
// The grey image's largest relative error (to max(|ref|, 1e-3)) against the luma and gamma
// computed in double.
inline double grey_error(const uint8_t *rgb, float gamma, const float *grey, size_t pixels) {
  double worst = 0;
  for (size_t p = 0; p < pixels; ++p) {
    double luma = 0.2126 * rgb[3 * p] + 0.7152 * rgb[3 * p + 1] + 0.0722 * rgb[3 * p + 2];
    double ref = std::pow(luma / 255.0, double(gamma));
    worst = std::max(worst, std::fabs(grey[p] - ref) / std::max(std::fabs(ref), 1e-3));
  }
  return worst;
}
constexpr double grey_tolerance = 1e-5; // f32 luma and a 6-ulp powf, with the gamma's amplification
inline double grey_bytes(size_t pixels) {
  return pixels * (3.0 + 4.0); // three bytes read and one float written per pixel
}

inline std::vector<float> softmax_input(size_t n, uint64_t seed) {
  std::vector<float> x = random_vector(n, seed);
  for (float &e : x)
    e *= 8.0f;
  return x;
}

// Softmax of each row of an n x m row-major matrix: the worst |y - ref| / ref (ref > 0) against a
// double-precision reference. Any NaN in y (an element never written over the poison) fails.
inline double softmax_error(const float *x, const float *y, int64_t n, int64_t m) {
  std::vector<double> e(size_t(m), 0.0);
  double worst = 0;
  for (int64_t i = 0; i < n; ++i) {
    const float *row = x + i * m, *out = y + i * m;
    double top = row[0], total = 0;
    for (int64_t j = 0; j < m; ++j)
      top = std::max(top, double(row[j]));
    for (int64_t j = 0; j < m; ++j)
      total += e[j] = std::exp(double(row[j]) - top);
    for (int64_t j = 0; j < m; ++j) {
      double ref = e[j] / total, error = std::fabs(out[j] - ref) / ref;
      if (!(error <= worst))
        worst = error;
      if (std::isnan(worst))
        return worst;
    }
  }
  return worst;
}
// Per element: the row sum's error, expf's (libdevice's: 2 ulps) and the rounding of x - max
// (at most 16 * 2^-24 here). A float sum of 8192 positive terms is within 8192 * 2^-24 = 4.9e-4
// in the worst order; summed in order, the smallest terms lost against the large partial sum
// make it about 1e-5 low (1.1e-5 at worst over 8192 rows of these inputs). 1e-4, as on the CPU,
// leaves that a ninefold margin and still fails a row whose sum misses its largest term (2e-3).
constexpr double softmax_tolerance = 1e-4;
// The traffic a softmax call cannot avoid: x read once, y written once.
inline double softmax_bytes(int64_t n, int64_t m) {
  return 8.0 * double(n) * double(m);
}

// Runs one part of a benchmark; a failure is reported and the other parts still run.
// PolyBench's doitgen at its LARGE size (A[r, q, :] = A[r, q, :] * C4 through a scratch row per
// (r, q)), on the GPU: A random in [-1, 1], C4 a random signed permutation, so that every call
// maps each row onto itself permuted and negated in places, exactly in any order of additions:
// repeated calls neither grow nor shrink the values, and one call's result is known exactly.
constexpr int64_t doitgen_r = 140, doitgen_q = 150, doitgen_p = 160;
inline void doitgen_inputs(uint64_t seed, std::vector<double> &A, std::vector<double> &C4) {
  const int64_t R = doitgen_r, Q = doitgen_q, P = doitgen_p;
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  A.resize(size_t(R * Q * P));
  for (double &a : A)
    a = uniform(rng);
  std::vector<int64_t> order(static_cast<size_t>(P), 0);
  for (int64_t p = 0; p < P; ++p)
    order[size_t(p)] = p;
  std::shuffle(order.begin(), order.end(), rng);
  C4.assign(size_t(P * P), 0.0);
  for (int64_t s = 0; s < P; ++s)
    C4[size_t(s * P + order[size_t(s)])] = rng() % 2 ? 1.0 : -1.0;
}
// The largest difference between `got` and one call's result on A: exact, so 0 when right.
inline double doitgen_error(const std::vector<double> &A, const std::vector<double> &C4,
                            const std::vector<double> &got) {
  const int64_t P = doitgen_p;
  double worst = 0;
  for (int64_t row = 0; row < doitgen_r * doitgen_q; ++row)
    for (int64_t p = 0; p < P; ++p) {
      double want = 0;
      for (int64_t s = 0; s < P; ++s)
        want += A[size_t(row * P + s)] * C4[size_t(s * P + p)];
      worst = std::max(worst, std::fabs(want - got[size_t(row * P + p)]));
    }
  return worst;
}
inline double doitgen_flops() {
  return 2.0 * double(doitgen_r * doitgen_q) * double(doitgen_p * doitgen_p);
}

template <class F> bool section(const char *name, F &&part) {
  std::printf("== %s\n", name);
  std::fflush(stdout);
  try {
    return part();
  } catch (const std::exception &e) {
    std::printf("FAILED %s: %s\n", name, e.what());
    return false;
  }
}

} // namespace bench
