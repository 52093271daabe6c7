// Eight threads compiling and calling kernels at once, on the CPU target. Each thread, round after
// round: builds and compiles kernels of its own (their lowered IR differs from every other
// thread's by a constant or an operator), kernels that every thread builds identically in the
// same round (the in-memory cache answers them at once, or makes them wait for the compile in
// flight), and calls two Kernel objects that all threads share. Every result is checked against
// a reference computed independently (in double for floats, exactly for integers).
//
// First with the disk cache off, then on in a fresh directory: written concurrently, read
// concurrently by a second pass, and written and read concurrently while threads keep clearing
// the memory cache (so that several threads compile the same kernel and rename the same entry).
// scripts/test-tsan.sh runs this test under ThreadSanitizer.
//
// The seed of the random inputs is printed; LOOM_THREADS_SEED=s repeats a run, and
// LOOM_THREADS_ROUNDS=r changes the number of rounds per thread (default 6).
#include "cache/CacheTestUtil.h"

#include <atomic>
#include <barrier>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <latch>
#include <mutex>
#include <random>
#include <thread>

using namespace loom;
using loomtest::ScopedEnv;
using loomtest::TempDir;

namespace {

constexpr int kThreads = 8;
constexpr uint32_t kDefaultSeed = 20261130;
constexpr double kUnitRoundoff = 0x1p-24; // f32

// Float results: |loom - reference| <= kFloatTolerance * (the sum of the magnitudes of the terms
// that were rounded). Each element is rounded at most five times, each time by at most 2^-24 of a
// value no larger than that sum (3e-7 of it in all), so 1e-6 leaves a margin of three; a wrong
// constant or operator is off by far more (the constants differ by at least 1/64).
constexpr double kFloatTolerance = 1e-6;

uint32_t seed_from_environment() {
  if (const char *text = std::getenv("LOOM_THREADS_SEED"))
    return static_cast<uint32_t>(std::strtoul(text, nullptr, 10));
  return kDefaultSeed;
}

int rounds_from_environment() {
  if (const char *text = std::getenv("LOOM_THREADS_ROUNDS"))
    return std::max(1, std::atoi(text));
  return 6;
}

// A generator for one (phase, thread, round, use): runs reproduce whatever the threads' order.
std::mt19937 rng_for(uint32_t seed, int thread, int round, int use) {
  std::seed_seq seq{seed, uint32_t(thread), uint32_t(round), uint32_t(use)};
  return std::mt19937(seq);
}

template <class T> std::vector<T> uniform(std::mt19937 &rng, size_t n, double lo, double hi) {
  std::vector<T> v(n);
  if constexpr (std::is_floating_point_v<T>) {
    std::uniform_real_distribution<double> d(lo, hi);
    for (T &x : v)
      x = static_cast<T>(d(rng));
  } else {
    std::uniform_int_distribution<T> d(static_cast<T>(lo), static_cast<T>(hi));
    for (T &x : v)
      x = d(rng);
  }
  return v;
}

// ---- The kernels. A kernel's name and constants are part of its cache key. ----

// Thread `t`'s own float kernel in round `r`: one of four expressions, with a constant no other
// (t, r) has.
float affine_constant(int t, int r) {
  return 1.0f + 0.25f * float(t) + float(r) / 64.0f;
}
int affine_op(int t, int r) {
  return (t + r) % 4;
}

Kernel affine(int t, int r) {
  const int op = affine_op(t, r);
  const float c = affine_constant(t, r);
  return kernel("affine_t" + std::to_string(t) + "_r" + std::to_string(r),
                [op, c](F32 a, Array<float> x, Array<float> y) {
                  parallel_for(x.size(), [&](Index i) {
                    switch (op) {
                    case 0:
                      y[i] = a * x[i] + y[i] * c;
                      break;
                    case 1:
                      y[i] = a * x[i] - y[i] + c;
                      break;
                    case 2:
                      y[i] = max(a * x[i], y[i]) * c;
                      break;
                    default:
                      y[i] = min(a * x[i] + c, y[i] * c);
                      break;
                    }
                  });
                });
}

// The reference of affine(t, r) for one element, and the magnitude its tolerance scales with.
void affine_reference(int op, double c, double a, double x, double y, double *ref, double *mag) {
  double ax = a * x;
  switch (op) {
  case 0:
    *ref = ax + y * c, *mag = std::fabs(ax) + std::fabs(y * c);
    break;
  case 1:
    *ref = ax - y + c, *mag = std::fabs(ax) + std::fabs(y) + std::fabs(c);
    break;
  case 2:
    *ref = std::max(ax, y) * c, *mag = (std::fabs(ax) + std::fabs(y)) * std::fabs(c);
    break;
  default:
    *ref = std::min(ax + c, y * c), *mag = std::fabs(ax) + std::fabs(c) + std::fabs(y * c);
    break;
  }
}

// Thread `t`'s own integer kernel in round `r` (integers wrap: checked exactly).
int64_t mix_key(int t, int r) {
  return 0x5bd1e995LL * (t + 1) + 7919LL * r;
}
int64_t mix_multiplier(int t, int r) {
  return 2 * (t * 31 + r) + 3;
}

Kernel mix(int t, int r) {
  const int64_t key = mix_key(t, r), multiplier = mix_multiplier(t, r);
  return kernel("mix_t" + std::to_string(t) + "_r" + std::to_string(r),
                [key, multiplier](Array<int64_t> a, Array<int64_t> b) {
                  parallel_for(a.size(),
                               [&](Index i) { b[i] = (a[i] ^ key) * multiplier + i % 7; });
                });
}

// Kernels every thread builds identically in a round: three versions each (round % 3).
float matmul_scale(int version) {
  return 1.0f + 0.25f * float(version);
}

Kernel scaled_matmul(int version) {
  const float scale = matmul_scale(version);
  return kernel("scaled_matmul_v" + std::to_string(version),
                [scale](Array2<float> A, Array2<float> B, Array2<float> C) {
                  parallel_for({C.dim(0), C.dim(1)}, [&](Index i, Index j) {
                    Var<float> acc("acc", 0.0f);
                    for_range(A.dim(1), [&](Index k) { acc += A(i, k) * B(k, j); });
                    C(i, j) = acc * scale;
                  });
                });
}

float sum_weight(int version) {
  return 0.5f + float(version);
}

Kernel weighted_sum(int version) {
  const float weight = sum_weight(version);
  return kernel("weighted_sum_v" + std::to_string(version),
                [weight](Array<float> x, Array<float> total) {
                  parallel_for(x.size(), [&](Index i) { total[0] += x[i] * weight; });
                });
}

// From the text DSL: its front end runs on every thread too.
double blend_constant(int version) {
  return 0.125 * (version + 1);
}

Kernel blend(int version) {
  char source[512];
  std::snprintf(source, sizeof source,
                "@kernel\n"
                "def blend_v%d(a: f32, x: f32[n], y: f32[n], z: f32[n]):\n"
                "    for i in parallel(n):\n"
                "        z[i] = a * x[i] + (1.0 - a) * y[i] + %.3f\n",
                version, blend_constant(version));
  Module m = loom::compile(source, "blend.loom");
  return m["blend_v" + std::to_string(version)];
}

// The two Kernel objects all threads call.
Kernel shared_axpy() {
  return kernel("shared_axpy", [](F32 a, Array<float> x, Array<float> y) {
    parallel_for(x.size(), [&](Index i) { y[i] = a * x[i] + y[i]; });
  });
}

Kernel shared_sum() {
  return kernel("shared_sum", [](Array<float> x, Array<float> total) {
    parallel_for(x.size(), [&](Index i) { total[0] += x[i]; });
  });
}

// ---- One run of the eight threads. ----

struct Workload {
  uint32_t seed = kDefaultSeed;
  int rounds = 6;
  // Each thread clears the in-memory cache before each kernel it builds identically with the
  // others: several threads then compile (or read from the disk) the same kernel at once.
  bool clear_before_identical = false;
};

struct Outcome {
  std::mutex mutex;
  std::vector<std::string> failures; // the first few, with what and where
  int failure_count = 0;
  std::atomic<int64_t> elements_checked{0};
  std::atomic<int> kernels_built{0};
  std::atomic<int> source[4] = {}; // CodeSource of each kernel object built by a thread

  void fail(const std::string &what) {
    std::lock_guard<std::mutex> lock(mutex);
    if (failures.size() < 20)
      failures.push_back(what);
    ++failure_count;
  }
  int from(CodeSource s) const { return source[static_cast<int>(s)].load(); }
};

class Worker {
public:
  Worker(int t, const Workload &w, Kernel &axpy, Kernel &sum, Outcome &out)
      : t_(t), w_(w), axpy_(axpy), sum_(sum), out_(out) {}

  void round(int r) {
    run_affine(r);
    run_mix(r);
    const int version = r % 3;
    run_matmul(r, version);
    run_weighted_sum(r, version);
    run_blend(r, version);
    run_shared_sum(r);
    run_shared_axpy(r);
  }

private:
  std::string where(const char *what, int r) const {
    return std::string(what) + " (thread " + std::to_string(t_) + ", round " + std::to_string(r) +
           ", seed " + std::to_string(w_.seed) + ")";
  }

  // Compiles now, so that the source is known before the call; counts where the code came from.
  void built(Kernel &k) {
    k.on(ir::Target::CPU);
    k.compile();
    ++out_.kernels_built;
    ++out_.source[static_cast<int>(k.compile_times().source)];
  }

  void before_identical() {
    if (w_.clear_before_identical)
      clear_memory_cache();
  }

  // Records the first element (if any) whose |got - ref| exceeds its tolerance.
  template <class Got, class Ref>
  void expect_near(const std::string &what, const std::vector<Got> &got, const Ref &ref_and_tol) {
    for (size_t i = 0; i < got.size(); ++i) {
      auto [ref, tol] = ref_and_tol(i);
      double g = static_cast<double>(got[i]);
      if (!(std::fabs(g - ref) <= tol)) { // also catches NaN
        char line[200];
        std::snprintf(line, sizeof line, ": element %zu is %.9g, reference %.9g, tolerance %.3g", i,
                      g, ref, tol);
        out_.fail(what + line);
        return;
      }
    }
    out_.elements_checked += static_cast<int64_t>(got.size());
  }

  void run_affine(int r) {
    Kernel k = affine(t_, r);
    built(k);
    std::mt19937 rng = rng_for(w_.seed, t_, r, 0);
    size_t n = 9000 + 113 * t_ + r; // more than 2 x 4096: two OpenMP threads share the loop
    auto x = uniform<float>(rng, n, -2, 2), y = uniform<float>(rng, n, -2, 2);
    float a = uniform<float>(rng, 1, 0.5, 1.5)[0];
    std::vector<float> y0 = y;
    k(a, x, y);
    const int op = affine_op(t_, r);
    const double c = affine_constant(t_, r);
    expect_near(where("affine", r), y, [&](size_t i) {
      double ref, mag;
      affine_reference(op, c, a, x[i], y0[i], &ref, &mag);
      return std::pair(ref, kFloatTolerance * mag + 1e-30);
    });
  }

  void run_mix(int r) {
    Kernel k = mix(t_, r);
    built(k);
    std::mt19937 rng = rng_for(w_.seed, t_, r, 1);
    size_t n = 8500 + 71 * t_;
    auto a = uniform<int64_t>(rng, n, -1e15, 1e15);
    std::vector<int64_t> b(n, 0);
    k(a, b);
    const uint64_t key = uint64_t(mix_key(t_, r)), multiplier = uint64_t(mix_multiplier(t_, r));
    for (size_t i = 0; i < n; ++i) {
      int64_t ref = int64_t((uint64_t(a[i]) ^ key) * multiplier + uint64_t(i % 7));
      if (b[i] != ref) {
        out_.fail(where("mix", r) + ": element " + std::to_string(i) + " is " +
                  std::to_string(b[i]) + ", expected " + std::to_string(ref));
        return;
      }
    }
    out_.elements_checked += static_cast<int64_t>(n);
  }

  void run_matmul(int r, int version) {
    before_identical();
    Kernel k = scaled_matmul(version);
    built(k);
    std::mt19937 rng = rng_for(w_.seed, t_, r, 2);
    const int64_t n = 13 + t_, kk = 17 + r, m = 11 + (t_ + r) % 5;
    auto A = uniform<float>(rng, n * kk, -1, 1), B = uniform<float>(rng, kk * m, -1, 1);
    std::vector<float> C(n * m, NAN);
    k(view(A, {n, kk}), view(B, {kk, m}), view(C, {n, m}));
    const double scale = matmul_scale(version);
    expect_near(where("scaled_matmul", r), C, [&](size_t e) {
      int64_t i = int64_t(e) / m, j = int64_t(e) % m;
      double ref = 0, mag = 0;
      for (int64_t l = 0; l < kk; ++l) {
        double p = double(A[i * kk + l]) * B[l * m + j];
        ref += p, mag += std::fabs(p);
      }
      // kk products and sums, then the scale: (2 kk + 1) roundings of at most u * mag * scale.
      return std::pair(ref * scale, (2 * kk + 1) * kUnitRoundoff * mag * scale * 1.01 + 1e-30);
    });
  }

  void run_weighted_sum(int r, int version) {
    before_identical();
    Kernel k = weighted_sum(version);
    built(k);
    std::mt19937 rng = rng_for(w_.seed, t_, r, 3);
    size_t n = 8200 + 57 * t_ + 3 * r;
    auto x = uniform<float>(rng, n, -1, 1);
    std::vector<float> total = {uniform<float>(rng, 1, -4, 4)[0]};
    const double start = total[0], weight = sum_weight(version);
    k(x, total);
    double ref = start, mag = std::fabs(start);
    for (float v : x)
      ref += double(v) * weight, mag += std::fabs(double(v) * weight);
    // A sum in any order of n + 1 terms, each product rounded once: (n + 1) u sum|terms|.
    std::vector<float> got = total;
    expect_near(where("weighted_sum", r), got, [&](size_t) {
      return std::pair(ref, 1.01 * double(n + 1) * kUnitRoundoff * mag + 1e-30);
    });
  }

  void run_blend(int r, int version) {
    before_identical();
    Kernel k = blend(version);
    built(k);
    std::mt19937 rng = rng_for(w_.seed, t_, r, 4);
    size_t n = 8300 + 29 * t_ + r;
    auto x = uniform<float>(rng, n, -3, 3), y = uniform<float>(rng, n, -3, 3);
    std::vector<float> z(n, NAN);
    float a = uniform<float>(rng, 1, 0.1, 0.9)[0];
    k(a, x, y, z);
    const double c = blend_constant(version);
    expect_near(where("blend", r), z, [&](size_t i) {
      double one_minus_a = 1.0 - double(a);
      double ref = a * double(x[i]) + one_minus_a * y[i] + c;
      double mag = std::fabs(a * double(x[i])) + std::fabs(y[i]) + std::fabs(c);
      return std::pair(ref, kFloatTolerance * mag + 1e-30);
    });
  }

  void run_shared_axpy(int r) {
    std::mt19937 rng = rng_for(w_.seed, t_, r, 5);
    size_t n = 8192 + 97 * t_ + r;
    auto x = uniform<float>(rng, n, -1, 1), y = uniform<float>(rng, n, -1, 1);
    float a = uniform<float>(rng, 1, -2, 2)[0];
    std::vector<float> y0 = y;
    axpy_(a, x, y);
    // What a program may ask of a shared object while others call it.
    if (t_ % 2 == 0 && axpy_.explain().find("target: CPU") == std::string::npos)
      out_.fail(where("shared_axpy", r) + ": explain() does not name the CPU:\n" + axpy_.explain());
    if (t_ % 2 == 1 && sum_.compile_times().source == CodeSource::NotCompiled)
      out_.fail(where("shared_sum", r) + ": compile_times() says not compiled after a call");
    (void)cache_stats();
    expect_near(where("shared_axpy", r), y, [&](size_t i) {
      double ax = double(a) * x[i];
      return std::pair(ax + y0[i], kFloatTolerance * (std::fabs(ax) + std::fabs(y0[i])) + 1e-30);
    });
  }

  void run_shared_sum(int r) {
    std::mt19937 rng = rng_for(w_.seed, t_, r, 6);
    size_t n = 9100 + 41 * t_ + r;
    auto x = uniform<float>(rng, n, -1, 1);
    std::vector<float> total = {uniform<float>(rng, 1, -4, 4)[0]};
    double ref = total[0], mag = std::fabs(ref);
    for (float v : x)
      ref += v, mag += std::fabs(v);
    sum_(x, total);
    expect_near(where("shared_sum", r), total, [&](size_t) {
      return std::pair(ref, 1.01 * double(n) * kUnitRoundoff * mag + 1e-30);
    });
  }

  int t_;
  const Workload &w_;
  Kernel &axpy_, &sum_;
  Outcome &out_;
};

// Starts the eight threads together (a latch), and each round together (a barrier), so that
// they compile the same kernels at the same moment. A worker never stops early: an exception is
// recorded and the next round goes on, so the barrier is always reached by all.
void run_workload(const Workload &w, Outcome &out) {
  Kernel axpy = shared_axpy(), sum = shared_sum();
  axpy.on(ir::Target::CPU), sum.on(ir::Target::CPU); // compiled by the first concurrent call
  std::latch start(kThreads);
  std::barrier round_start(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      Worker worker(t, w, axpy, sum, out);
      start.arrive_and_wait();
      for (int r = 0; r < w.rounds; ++r) {
        round_start.arrive_and_wait();
        try {
          worker.round(r);
        } catch (const std::exception &e) {
          out.fail("thread " + std::to_string(t) + ", round " + std::to_string(r) +
                   ": exception: " + e.what());
        }
      }
    });
  for (std::thread &thread : threads)
    thread.join();
  for (Kernel *k : {&axpy, &sum})
    ++out.source[static_cast<int>(k->compile_times().source)];
  EXPECT_EQ(0, out.failure_count) << "first failures:\n"
                                  << [&] {
                                       std::string all;
                                       for (const std::string &f : out.failures)
                                         all += "  " + f + "\n";
                                       return all;
                                     }();
  // Per thread and round, five kernel objects: affine, mix, scaled_matmul, weighted_sum, blend.
  EXPECT_EQ(kThreads * w.rounds * 5, out.kernels_built.load());
}

// The kernel objects one workload builds, and the distinct kernels among them.
int objects_built(const Workload &w) {
  return kThreads * w.rounds * 5 + 2;
}
int distinct_kernels(const Workload &w) {
  return kThreads * w.rounds * 2 + 3 * std::min(w.rounds, 3) + 2;
}

// lower case, so that `ctest -R threads` selects these tests.
class threads : public ::testing::Test {
protected:
  void SetUp() override {
    seed_ = seed_from_environment();
    rounds_ = rounds_from_environment();
    std::printf("[  SEED    ] LOOM_THREADS_SEED=%" PRIu32 " LOOM_THREADS_ROUNDS=%d\n", seed_,
                rounds_);
    RecordProperty("seed", std::to_string(seed_));
    // Two OpenMP threads per call on any machine: every call with more than 2 x 4096 elements
    // (or an inner loop) opens a parallel region, and 8 callers x 2 threads do not oversubscribe
    // a large machine many times over.
    set_cpu_threads(2);
    clear_memory_cache();
    reset_cache_stats();
  }
  void TearDown() override {
    set_cpu_threads(0);
    clear_memory_cache();
  }

  Workload workload(uint32_t seed_offset) const {
    Workload w;
    w.seed = seed_ + seed_offset;
    w.rounds = rounds_;
    return w;
  }
  std::string cache_dir() const { return dir_.path() + "/cache"; }

  // Every file of the cache directory is an intact entry: no reader or writer saw or left a
  // partial one, and no temporary file is left.
  void expect_entries_intact(size_t expected) {
    std::vector<std::string> names = loomtest::files_in(cache_dir());
    EXPECT_EQ(expected, names.size());
    for (const std::string &name : names) {
      std::string why;
      EXPECT_TRUE(loomtest::entry_is_valid(cache_dir() + "/" + name, &why)) << name << ": " << why;
    }
  }

  uint32_t seed_ = kDefaultSeed;
  int rounds_ = 6;
  TempDir dir_;
  ScopedEnv cache_dir_env_{"LOOM_CACHE_DIR", dir_.path() + "/cache"};
  ScopedEnv cache_mode_env_{"LOOM_CACHE", std::string("off")};
};

TEST_F(threads, EightThreadsCompileAndCallWithTheDiskCacheOff) {
  Workload w = workload(0);
  Outcome out;
  run_workload(w, out);
  // Each distinct kernel was compiled exactly once, whoever asked first; every other object
  // got the code from memory, possibly after waiting for the compile in flight.
  EXPECT_EQ(distinct_kernels(w), out.from(CodeSource::Compiled));
  EXPECT_EQ(objects_built(w) - distinct_kernels(w), out.from(CodeSource::MemoryCache));
  CacheStats stats = cache_stats();
  EXPECT_EQ(uint64_t(distinct_kernels(w)), stats.memory_misses);
  EXPECT_EQ(uint64_t(objects_built(w) - distinct_kernels(w)), stats.memory_hits);
  EXPECT_EQ(0u, stats.disk_hits + stats.disk_misses + stats.disk_writes + stats.disk_rejected)
      << "LOOM_CACHE=off: the disk is untouched";
  EXPECT_TRUE(loomtest::files_in(cache_dir()).empty());
  std::printf("[  CHECKED ] %" PRId64 " elements\n", out.elements_checked.load());
}

TEST_F(threads, EightThreadsWriteThenReadTheDiskCache) {
  ScopedEnv on("LOOM_CACHE", std::string("on"));
  // Into an empty directory: every distinct kernel is compiled once and written once, while
  // other threads write other entries.
  Workload cold = workload(0);
  {
    Outcome out;
    run_workload(cold, out);
    EXPECT_EQ(distinct_kernels(cold), out.from(CodeSource::Compiled));
    CacheStats stats = cache_stats();
    EXPECT_EQ(stats.memory_misses, stats.disk_writes);
    EXPECT_EQ(stats.memory_misses, stats.disk_misses);
    EXPECT_EQ(0u, stats.disk_hits + stats.disk_rejected + stats.disk_write_failures)
        << stats.last_problem;
    expect_entries_intact(size_t(distinct_kernels(cold)));
  }
  // The same kernels again with the memory cache empty: all code comes from the disk, read by
  // eight threads at once (other inputs, the same kernels).
  clear_memory_cache();
  reset_cache_stats();
  Workload warm = workload(1);
  Outcome out;
  run_workload(warm, out);
  EXPECT_EQ(0, out.from(CodeSource::Compiled));
  EXPECT_EQ(distinct_kernels(warm), out.from(CodeSource::DiskCache));
  CacheStats stats = cache_stats();
  EXPECT_EQ(uint64_t(distinct_kernels(warm)), stats.disk_hits);
  EXPECT_EQ(0u, stats.disk_misses + stats.disk_writes + stats.disk_rejected) << stats.last_problem;
  std::printf("[  CHECKED ] %" PRId64 " elements\n", out.elements_checked.load());
}

TEST_F(threads, EightThreadsClearTheMemoryCacheWhileOthersCompile) {
  ScopedEnv on("LOOM_CACHE", std::string("on"));
  // Each thread clears the memory cache before each kernel that all threads build: the same
  // kernel is compiled by several threads at once and its entry renamed into place by several,
  // while others read it. No reader may see a partial entry, and no code may be wrong.
  Workload w = workload(2);
  w.clear_before_identical = true;
  Outcome out;
  run_workload(w, out);
  CacheStats stats = cache_stats();
  EXPECT_EQ(0u, stats.disk_rejected + stats.disk_write_failures) << stats.last_problem;
  EXPECT_GE(stats.disk_writes, uint64_t(distinct_kernels(w)));
  expect_entries_intact(size_t(distinct_kernels(w)));
  std::printf("[  CHECKED ] %" PRId64 " elements; %" PRIu64 " compiles, %" PRIu64
              " disk hits, %" PRIu64 " disk writes for %d distinct kernels\n",
              out.elements_checked.load(), stats.memory_misses - stats.disk_hits, stats.disk_hits,
              stats.disk_writes, distinct_kernels(w));
}

} // namespace
