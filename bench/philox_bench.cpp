// Uniform f32 random numbers written to an array: loom's Philox (loom::Philox, Random123's
// Philox4x32-10) against cuRAND's (curand_reference.cu: CURAND_RNG_PSEUDO_PHILOX4_32_10 with
// curandGenerateUniform, the peer run_gpu.sh builds with nvcc and tables beside this). On the
// GPU 2^28 floats into a DeviceArray; without one the same kernel on the CPU, 2^24 floats by
// default (--log2n=K sets 2^K, a multiple of 4).
//
// Each parallel iteration i makes generator (seed, i) and takes one Philox block, four floats,
// written at i, i + n/4, i + n/2 and i + 3n/4 (each store coalesced across a warp), as cuRAND
// gets four numbers from each block. The one-float-per-stream variant (each iteration its own
// generator, one float of its block) is timed too, to show what four per block buys.
//
// Every value is checked: in [0, 1), and 4096 sampled elements against a plain C++ Philox on the
// host, bit for bit.
#include "BenchSupport.h"

#include <loom/loom.hpp>

#include "runtime/GpuContext.h"
#include "runtime/Launch.h"

#include <array>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

using bench::result;

// Four floats per generator: y[i + k n/4] = draw k of stream i.
loom::Kernel make_four_per_block() {
  return loom::kernel("philox_uniform",
                      [](loom::U64 seed, loom::Array<float> y) {
                        loom::Index quarter = y.size() / 4;
                        loom::parallel_for(quarter, [&](loom::Index i) {
                          loom::Philox g(seed, i);
                          y[i] = g.uniform_f32();
                          y[i + quarter] = g.uniform_f32();
                          y[i + 2 * quarter] = g.uniform_f32();
                          y[i + 3 * quarter] = g.uniform_f32();
                        });
                      },
                      {"seed", "y"});
}

// One float per generator: y[i] = draw 0 of stream i.
loom::Kernel make_one_per_stream() {
  return loom::kernel("philox_uniform_one",
                      [](loom::U64 seed, loom::Array<float> y) {
                        loom::parallel_for(y.size(), [&](loom::Index i) {
                          loom::Philox g(seed, i);
                          y[i] = g.uniform_f32();
                        });
                      },
                      {"seed", "y"});
}

// Random123's philox4x32_R(10, ctr, key), written out plainly, for the check.
std::array<uint32_t, 4> philox_block(std::array<uint32_t, 4> x, std::array<uint32_t, 2> key) {
  for (int round = 0; round < 10; ++round) {
    if (round > 0)
      key[0] += 0x9E3779B9u, key[1] += 0xBB67AE85u;
    const uint64_t p0 = uint64_t(0xD2511F53u) * x[0], p1 = uint64_t(0xCD9E8D57u) * x[2];
    x = {uint32_t(p1 >> 32) ^ x[1] ^ key[0], uint32_t(p1), uint32_t(p0 >> 32) ^ x[3] ^ key[1],
         uint32_t(p0)};
  }
  return x;
}

// Draw `k` (< 4) of stream `stream` as loom's uniform_f32: (word >> 8) * 2^-24.
float expected(uint64_t seed, uint64_t stream, int k) {
  const std::array<uint32_t, 4> w = philox_block({0, 0, uint32_t(stream), uint32_t(stream >> 32)},
                                                 {uint32_t(seed), uint32_t(seed >> 32)});
  return float(w[k] >> 8) * 0x1p-24f;
}

// Every element in [0, 1), the mean near 1/2, and sampled elements bit for bit.
bool check(const char *what, const std::vector<float> &y, uint64_t seed, bool four_per_block) {
  const size_t n = y.size(), quarter = n / 4;
  double sum = 0;
  size_t outside = 0;
  for (float v : y) {
    outside += !(v >= 0.0f && v < 1.0f);
    sum += v;
  }
  size_t wrong = 0;
  const size_t samples = 4096, step = std::max<size_t>(1, n / samples);
  for (size_t e = seed % step; e < n; e += step) {
    const float want =
        four_per_block ? expected(seed, e % quarter, int(e / quarter)) : expected(seed, e, 0);
    wrong += std::memcmp(&want, &y[e], sizeof(float)) != 0;
  }
  const double mean = sum / double(n);
  const bool ok = outside == 0 && wrong == 0 && std::abs(mean - 0.5) < 5 / std::sqrt(12.0 * n);
  std::printf("CHECK %s %s (outside [0, 1): %zu, sampled elements wrong: %zu, mean %.6f)\n",
              ok ? "PASS" : "FAIL", what, outside, wrong, mean);
  return ok;
}

template <class F> std::vector<double> gpu_times(F &&call, int warmup, int runs) {
  for (int r = 0; r < warmup; ++r)
    call();
  loom::runtime::GpuTimer timer;
  std::vector<double> ms;
  for (int r = 0; r < runs; ++r) {
    timer.start();
    call();
    timer.stop();
    ms.push_back(timer.elapsed_ms());
  }
  return ms;
}

template <class F> std::vector<double> cpu_times(F &&call, int warmup, int runs) {
  for (int r = 0; r < warmup; ++r)
    call();
  std::vector<double> ms;
  for (int r = 0; r < runs; ++r)
    ms.push_back(bench::wall_ms(call));
  return ms;
}

void report(const char *what, const char *name, const std::vector<double> &ms, size_t n) {
  const double median = bench::median(ms);
  std::printf("  %s: median %.4f ms (min %.4f, max %.4f over %zu calls), %.2f G numbers/s\n", what,
              median, bench::min_of(ms), bench::max_of(ms), ms.size(), double(n) / (median * 1e6));
  result((std::string(name) + "_ms").c_str(), median, "ms");
  result((std::string(name) + "_gnumbers").c_str(), double(n) / (median * 1e6), "G/s");
}

} // namespace

int main(int argc, char **argv) {
  int log2n = -1;
  for (int a = 1; a < argc; ++a) {
    if (std::strncmp(argv[a], "--log2n=", 8) == 0) {
      log2n = std::atoi(argv[a] + 8);
    } else {
      std::fprintf(stderr, "usage: %s [--log2n=K]\n", argv[0]);
      return 2;
    }
  }
  std::string reason;
  const bool gpu = loom::runtime::GpuContext::usable(&reason) &&
                   loom::choose_target().target == loom::Target::GPU;
  if (log2n < 0)
    log2n = gpu ? 28 : 24;
  if (log2n < 2 || log2n > 31) {
    std::fprintf(stderr, "--log2n must be in [2, 31]\n");
    return 2;
  }
  const size_t n = size_t(1) << log2n;
  const uint64_t seed = bench::fresh_seed();
  std::printf(
      "loom Philox uniform_f32, n = 2^%d, seed %llu, on %s\n", log2n, (unsigned long long)seed,
      gpu ? "the GPU" : ("the CPU (" + (reason.empty() ? "LOOM_TARGET" : reason) + ")").c_str());
  loom::Kernel four = make_four_per_block(), one = make_one_per_stream();
  bool ok = true;
  const int warmup = 3, runs = gpu ? 30 : 5;
  if (gpu) {
    loom::DeviceArray<float> y({static_cast<int64_t>(n)});
    four(seed, y);
    ok &= check("loom Philox, four per block", y.to_host(), seed, true);
    report("four per block", "loom_philox_uniform", gpu_times([&] { four(seed, y); }, warmup, runs),
           n);
    one(seed, y);
    ok &= check("loom Philox, one per stream", y.to_host(), seed, false);
    report("one per stream", "loom_philox_uniform_one",
           gpu_times([&] { one(seed, y); }, warmup, runs), n);
  } else {
    std::vector<float> y(n);
    four(seed, y);
    ok &= check("loom Philox, four per block", y, seed, true);
    report("four per block", "loom_cpu_philox_uniform",
           cpu_times([&] { four(seed, y); }, warmup, runs), n);
    one(seed, y);
    ok &= check("loom Philox, one per stream", y, seed, false);
    report("one per stream", "loom_cpu_philox_uniform_one",
           cpu_times([&] { one(seed, y); }, warmup, runs), n);
  }
  std::printf("%s", four.explain().c_str());
  return ok ? 0 : 1;
}
