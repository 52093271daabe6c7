// Counter-based random numbers in the embedded DSL (loom::Philox, frontend/Philox.h): Random123's
// known answers through the DSL, every draw against the plain C++ reference of
// support/PhiloxReference.h, the same bits from the IR interpreter, the CPU and the GPU (whose
// instances skip without one), statistical sanity, and the generator's use in parallel loops,
// SIMT kernels and serial code.
//
// Exactness: raw words, uniforms and randint are integer code and exact conversions, so they are
// checked bit for bit everywhere. Normals call log, sqrt and cos: the CPU and the interpreter
// both call the host's C library, so they agree bit for bit; the GPU's libdevice differs from it
// by a few ulps, so GPU normals are checked within 1e-5 (f32) and 1e-13 (f64) of the value,
// relative (docs/semantics.md, "Random numbers"). The reference's normals are likewise compared
// within those bounds (it is compiled by the host compiler, which may not call the same
// functions).
#include "support/PhiloxReference.h"
#include "support/TestUtil.h"

#include "ir/Interpreter.h"

#include <cstring>
#include <memory>

using namespace loom;
using loomtest::PhiloxStream;

namespace {

template <class T> ir::Buffer buffer_of(const std::vector<T> &v, std::vector<int64_t> shape) {
  ir::Buffer b(dtype_of<T>(), std::move(shape));
  std::memcpy(b.data(), v.data(), v.size() * sizeof(T));
  return b;
}
template <class T> std::vector<T> vector_of(const ir::Buffer &b) {
  std::vector<T> v(b.size());
  std::memcpy(v.data(), b.bytes.data(), v.size() * sizeof(T));
  return v;
}
ir::InterpreterArg scalar_u64(uint64_t v) {
  return ir::InterpreterArg::of_scalar(ir::int_value(ir::ScalarType::U64, int64_t(v)));
}

template <class T> bool same_bits(T a, T b) {
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}

// Normals from two libraries: within `relative` of the first.
template <class T> bool close(T a, T b, double relative) {
  return std::abs(double(a) - double(b)) <= relative * std::abs(double(a));
}

// ---- known answers ------------------------------------------------------------------------------

// The first four draws of (seed, stream, block): straight-line draws (the word position folds to
// constants) and draws in a loop (it stays a variable).
Kernel known_answer_kernel() {
  return kernel(
      "philox_kat",
      [](U64 seed, U64 stream, U64 block, Array<uint32_t> straight, Array<uint32_t> looped) {
        Philox g(seed, stream, block);
        straight[0] = g.next_u32();
        straight[1] = g.next_u32();
        straight[2] = g.next_u32();
        straight[3] = g.next_u32();
        Philox h(seed, stream, block);
        for_range(looped.size(), [&](Index k) { looped[k] = h.next_u32(); });
      },
      {"seed", "stream", "block", "straight", "looped"});
}

class PhiloxKat : public loomtest::TargetTest {};

TEST_P(PhiloxKat, Random123KnownAnswers) {
  Kernel k = known_answer_kernel();
  prepare(k);
  for (const loomtest::PhiloxKnownAnswer &kat : loomtest::kKnownAnswers) {
    // The reference itself first.
    ASSERT_EQ(loomtest::philox4x32_10(kat.counter, kat.key), kat.output);
    std::vector<uint32_t> straight(4), looped(8);
    k(loomtest::kat_seed(kat), loomtest::kat_stream(kat), loomtest::kat_block(kat), straight,
      looped);
    PhiloxStream ref(loomtest::kat_seed(kat), loomtest::kat_stream(kat), loomtest::kat_block(kat));
    for (int w = 0; w < 8; ++w) {
      const uint32_t want = ref.next_u32();
      if (w < 4) {
        EXPECT_EQ(want, kat.output[w]);
        EXPECT_EQ(straight[w], kat.output[w]) << "word " << w;
      }
      EXPECT_EQ(looped[w], want) << "word " << w; // words 4..7: the next block (the counter's
                                                  // low word wraps for the second vector)
    }
  }
}

TEST(PhiloxInterpreter, Random123KnownAnswers) {
  Kernel k = known_answer_kernel();
  for (const loomtest::PhiloxKnownAnswer &kat : loomtest::kKnownAnswers) {
    std::vector<ir::InterpreterArg> args = {
        scalar_u64(loomtest::kat_seed(kat)), scalar_u64(loomtest::kat_stream(kat)),
        scalar_u64(loomtest::kat_block(kat)),
        ir::InterpreterArg::of_array(ir::Buffer(ir::ScalarType::U32, {4})),
        ir::InterpreterArg::of_array(ir::Buffer(ir::ScalarType::U32, {8}))};
    ir::interpret(k.ir(), args);
    std::vector<uint32_t> straight = vector_of<uint32_t>(args[3].array);
    std::vector<uint32_t> looped = vector_of<uint32_t>(args[4].array);
    PhiloxStream ref(loomtest::kat_seed(kat), loomtest::kat_stream(kat), loomtest::kat_block(kat));
    for (int w = 0; w < 8; ++w) {
      const uint32_t want = ref.next_u32();
      if (w < 4)
        EXPECT_EQ(straight[w], kat.output[w]) << "word " << w;
      EXPECT_EQ(looped[w], want) << "word " << w;
    }
  }
}

// ---- every draw, against the reference, on every backend ----------------------------------------

// Per iteration i of a parallel loop, stream i: m rounds of every kind of draw, the word position
// cycling through every offset (the draws take 1, 1, 2, 2, 4 and at least 1 word each).
Kernel all_draws_kernel() {
  return kernel("philox_draws",
                [](U64 seed, U64 block, I32 lo32, I32 hi32, I64 lo64, I64 hi64, U32 lo_u, U32 hi_u,
                   Array2<uint32_t> w, Array2<float> uf, Array2<double> ud, Array2<float> nf,
                   Array2<double> nd, Array2<int32_t> r32, Array2<int64_t> r64, Array2<int64_t> rs,
                   Array2<uint32_t> ru) {
                  parallel_for(w.dim(0), [&](Index i) {
                    Philox g(seed, i, block);
                    for_range(w.dim(1), [&](Index k) {
                      w(i, k) = g.next_u32();
                      uf(i, k) = g.uniform_f32();
                      ud(i, k) = g.uniform();
                      nf(i, k) = g.normal_f32();
                      nd(i, k) = g.normal();
                      r32(i, k) = g.randint(lo32, hi32);
                      r64(i, k) = g.randint(lo64, hi64);
                      rs(i, k) = g.randint(0, i); // i64; empty for i == 0 (gives 0)
                      ru(i, k) = g.randint(lo_u, hi_u);
                    });
                  });
                },
                {"seed", "block", "lo32", "hi32", "lo64", "hi64", "lo_u", "hi_u", "w", "uf", "ud",
                 "nf", "nd", "r32", "r64", "rs", "ru"});
}

struct Draws {
  std::vector<uint32_t> w, ru;
  std::vector<float> uf, nf;
  std::vector<double> ud, nd;
  std::vector<int32_t> r32;
  std::vector<int64_t> r64, rs;
};

// The ranges: a 32-bit one and a 64-bit one where a quarter of the attempts are rejected, so
// that the retry loops run; an unsigned one of 2^32 - 1 values.
struct Ranges {
  uint64_t seed, block;
  int32_t lo32 = -2147483643, hi32 = 1073741830; // 0xC0000001 values

  int64_t lo64 = -0x6000000000000000ll, hi64 = 0x6000000000000001ll;
  uint32_t lo_u = 1, hi_u = 0xFFFFFFFFu;
};

constexpr int64_t kStreams = 37, kRounds = 24;

Draws reference_draws(const Ranges &p) {
  Draws d;
  for (int64_t i = 0; i < kStreams; ++i) {
    PhiloxStream g(p.seed, uint64_t(i), p.block);
    for (int64_t k = 0; k < kRounds; ++k) {
      d.w.push_back(g.next_u32());
      d.uf.push_back(g.uniform_f32());
      d.ud.push_back(g.uniform());
      d.nf.push_back(g.normal_f32());
      d.nd.push_back(g.normal());
      d.r32.push_back(g.randint(p.lo32, p.hi32));
      d.r64.push_back(g.randint(p.lo64, p.hi64));
      d.rs.push_back(g.randint<int64_t>(0, i));
      d.ru.push_back(g.randint(p.lo_u, p.hi_u));
    }
  }
  return d;
}

Draws sized_draws() {
  Draws d;
  const size_t n = size_t(kStreams * kRounds);
  d.w.resize(n), d.ru.resize(n), d.uf.resize(n), d.nf.resize(n), d.ud.resize(n), d.nd.resize(n);
  d.r32.resize(n), d.r64.resize(n), d.rs.resize(n);
  return d;
}

Draws run_compiled(Kernel &k, const Ranges &p) {
  Draws d = sized_draws();
  auto v = [](auto &x) { return view(x, {kStreams, kRounds}); };
  k(p.seed, p.block, p.lo32, p.hi32, p.lo64, p.hi64, p.lo_u, p.hi_u, v(d.w), v(d.uf), v(d.ud),
    v(d.nf), v(d.nd), v(d.r32), v(d.r64), v(d.rs), v(d.ru));
  return d;
}

Draws run_interpreter(Kernel &k, const Ranges &p) {
  Draws d = sized_draws();
  auto arr = [](const auto &x) {
    return ir::InterpreterArg::of_array(buffer_of(x, {kStreams, kRounds}));
  };
  using ir::ScalarType;
  std::vector<ir::InterpreterArg> args = {
      scalar_u64(p.seed),
      scalar_u64(p.block),
      ir::InterpreterArg::of_scalar(ir::int_value(ScalarType::I32, p.lo32)),
      ir::InterpreterArg::of_scalar(ir::int_value(ScalarType::I32, p.hi32)),
      ir::InterpreterArg::of_scalar(ir::int_value(ScalarType::I64, p.lo64)),
      ir::InterpreterArg::of_scalar(ir::int_value(ScalarType::I64, p.hi64)),
      ir::InterpreterArg::of_scalar(ir::int_value(ScalarType::U32, p.lo_u)),
      ir::InterpreterArg::of_scalar(ir::int_value(ScalarType::U32, p.hi_u)),
      arr(d.w),
      arr(d.uf),
      arr(d.ud),
      arr(d.nf),
      arr(d.nd),
      arr(d.r32),
      arr(d.r64),
      arr(d.rs),
      arr(d.ru)};
  ir::interpret(k.ir(), args);
  d.w = vector_of<uint32_t>(args[8].array);
  d.uf = vector_of<float>(args[9].array);
  d.ud = vector_of<double>(args[10].array);
  d.nf = vector_of<float>(args[11].array);
  d.nd = vector_of<double>(args[12].array);
  d.r32 = vector_of<int32_t>(args[13].array);
  d.r64 = vector_of<int64_t>(args[14].array);
  d.rs = vector_of<int64_t>(args[15].array);
  d.ru = vector_of<uint32_t>(args[16].array);
  return d;
}

// Everything but the normals bit for bit; the normals bit for bit too when `exact_normals`, else
// within the stated relative bounds.
void expect_same(const Draws &want, const Draws &got, bool exact_normals, const char *what) {
  for (size_t e = 0; e < want.w.size(); ++e) {
    ASSERT_EQ(got.w[e], want.w[e]) << what << ", element " << e;
    ASSERT_TRUE(same_bits(got.uf[e], want.uf[e])) << what << ", element " << e;
    ASSERT_TRUE(same_bits(got.ud[e], want.ud[e])) << what << ", element " << e;
    ASSERT_EQ(got.r32[e], want.r32[e]) << what << ", element " << e;
    ASSERT_EQ(got.r64[e], want.r64[e]) << what << ", element " << e;
    ASSERT_EQ(got.rs[e], want.rs[e]) << what << ", element " << e;
    ASSERT_EQ(got.ru[e], want.ru[e]) << what << ", element " << e;
    if (exact_normals) {
      ASSERT_TRUE(same_bits(got.nf[e], want.nf[e]))
          << what << ", element " << e << ": " << got.nf[e] << " vs " << want.nf[e];
      ASSERT_TRUE(same_bits(got.nd[e], want.nd[e]))
          << what << ", element " << e << ": " << got.nd[e] << " vs " << want.nd[e];
    } else {
      ASSERT_TRUE(close(want.nf[e], got.nf[e], 1e-5))
          << what << ", element " << e << ": " << got.nf[e] << " vs " << want.nf[e];
      ASSERT_TRUE(close(want.nd[e], got.nd[e], 1e-13))
          << what << ", element " << e << ": " << got.nd[e] << " vs " << want.nd[e];
    }
  }
}

Ranges ranges(uint64_t seed, uint64_t block) {
  Ranges p;
  p.seed = seed, p.block = block;
  return p;
}

// Seeds and first blocks, one where the counter's low word wraps during the run.
const std::pair<uint64_t, uint64_t> kSeedsAndBlocks[] = {
    {0, 0}, {0x0123456789abcdefull, 0}, {42, 0xFFFFFFFCull}, {0xFFFFFFFFFFFFFFFFull, 7}};

class PhiloxDraws : public loomtest::TargetTest {};

TEST_P(PhiloxDraws, EveryDrawMatchesTheReferenceAndTheInterpreter) {
  Kernel k = all_draws_kernel();
  prepare(k);
  for (auto [seed, block] : kSeedsAndBlocks) {
    const Ranges p = ranges(seed, block);
    const Draws ref = reference_draws(p);
    const Draws interpreted = run_interpreter(k, p);
    const Draws compiled = run_compiled(k, p);
    expect_same(ref, interpreted, /*exact_normals=*/false, "interpreter vs reference");
    expect_same(interpreted, compiled, /*exact_normals=*/target() == ir::Target::CPU,
                "compiled vs interpreter");
  }
}

// The retry loops of randint ran: some words were rejected (the stream of a randint-heavy
// program differs from one drawing a word per randint).
TEST(PhiloxRandint, RangesAndRejection) {
  const Ranges p = ranges(5, 0);
  const Draws d = reference_draws(p);
  for (size_t e = 0; e < d.r32.size(); ++e) {
    EXPECT_GE(d.r32[e], p.lo32);
    EXPECT_LT(d.r32[e], p.hi32);
    EXPECT_GE(d.r64[e], p.lo64);
    EXPECT_LT(d.r64[e], p.hi64);
    EXPECT_GE(d.ru[e], p.lo_u);
    EXPECT_LT(d.ru[e], p.hi_u);
    const int64_t i = int64_t(e) / kRounds; // randint(0, i): 0 for the empty range of i == 0
    EXPECT_TRUE(i == 0 ? d.rs[e] == 0 : d.rs[e] >= 0 && d.rs[e] < i) << d.rs[e] << ", " << i;
  }
  // With a quarter of the attempts rejected, a stream of one randint per word would differ.
  PhiloxStream a(9, 0), b(9, 0);
  int differ = 0;
  for (int k = 0; k < 64; ++k) {
    const int32_t x = a.randint(p.lo32, p.hi32);
    const uint32_t r = uint32_t(p.hi32) - uint32_t(p.lo32);
    const int32_t y = int32_t(uint32_t(p.lo32) + uint32_t((uint64_t(b.next_u32()) * r) >> 32));
    differ += x != y;
  }
  EXPECT_GT(differ, 0);
}

// ---- in SIMT kernels and serial code ------------------------------------------------------------

class PhiloxSimt : public loomtest::TargetTest {};

// Every thread its own stream: grid<1>(), six uniforms each.
TEST_P(PhiloxSimt, PerThreadStreams) {
  auto k = simt_kernel("philox_simt",
                       [](U64 seed, Array2<float> out) {
                         Index i = grid<1>();
                         if_(i < out.dim(0), [&] {
                           Philox g(seed, i);
                           for_range(out.dim(1), [&](Index c) { out(i, c) = g.uniform_f32(); });
                         });
                       },
                       {"seed", "out"});
  prepare(k);
  const int64_t n = 300, m = 6;
  std::vector<float> out(n * m, -1);
  k.shape(3u, 128u)(uint64_t(77), view(out, {n, m}));
  for (int64_t i = 0; i < n; ++i) {
    PhiloxStream ref(77, uint64_t(i));
    for (int64_t c = 0; c < m; ++c)
      ASSERT_TRUE(same_bits(out[i * m + c], ref.uniform_f32())) << i << "," << c;
  }
}

// A serial kernel: one generator at the top level, its draws in a while loop whose condition
// the body recomputes, then an elif_ whose condition draws (in the else branch, as Python's elif).
TEST_P(PhiloxSimt, SerialCodeWhileAndElif) {
  auto k = kernel("philox_serial",
                  [](U64 seed, Array<uint32_t> words, Array<int64_t> count, Array<int32_t> arm) {
                    Philox g(seed, 3);
                    Var<int64_t> n("n", 0);
                    Var<uint32_t> x("x", g.next_u32());
                    while_(x > 0x20000000u, [&] {
                      words[n] = x;
                      n += 1;
                      x = g.next_u32();
                    });
                    count[0] = n;
                    if_(g.next_u32() < 0x80000000u, [&] {
                      arm[0] = 1;
                    }).elif_(g.next_u32() < 0x80000000u, [&] {
                        arm[0] = 2;
                      }).else_([&] { arm[0] = 3; });
                    arm[1] = cast<int32_t>(g.next_u32() >> 28);
                  },
                  {"seed", "words", "count", "arm"});
  prepare(k);
  for (uint64_t seed = 0; seed < 12; ++seed) {
    std::vector<uint32_t> words(1000, 0);
    std::vector<int64_t> count(1, -1);
    std::vector<int32_t> arm(2, -1);
    k(seed, words, count, arm);
    PhiloxStream ref(seed, 3);
    int64_t n = 0;
    for (uint32_t x = ref.next_u32(); x > 0x20000000u; x = ref.next_u32())
      ASSERT_EQ(words[n++], x);
    ASSERT_EQ(count[0], n);
    int32_t want = ref.next_u32() < 0x80000000u ? 1 : ref.next_u32() < 0x80000000u ? 2 : 3;
    EXPECT_EQ(arm[0], want) << "seed " << seed;
    EXPECT_EQ(arm[1], int32_t(ref.next_u32() >> 28)) << "seed " << seed;
  }
}

LOOM_INSTANTIATE_TARGETS(PhiloxKat);
LOOM_INSTANTIATE_TARGETS(PhiloxDraws);
LOOM_INSTANTIATE_TARGETS(PhiloxSimt);

// ---- statistics (CPU) ---------------------------------------------------------------------------

// 2^20 draws: 1024 streams of 1024.
constexpr int64_t kStatStreams = 1024, kStatDraws = 1024, kStatCount = kStatStreams * kStatDraws;
// The chi-square statistic of 256 equally likely bins (255 degrees of freedom) exceeds 330.5 with
// probability 0.001: the significance level of these tests.
constexpr double kChiSquare255At0001 = 330.5;

class PhiloxStatistics : public ::testing::Test {
protected:
  void SetUp() override { setenv("LOOM_TARGET", "cpu", 1); }
  void TearDown() override { unsetenv("LOOM_TARGET"); }
};

double chi_square(const std::vector<int64_t> &bins, double n) {
  const double expected = n / double(bins.size());
  double chi = 0;
  for (int64_t b : bins)
    chi += (double(b) - expected) * (double(b) - expected) / expected;
  return chi;
}

template <class T> void expect_uniform(const std::vector<T> &u, const char *what) {
  double sum = 0, squares = 0;
  std::vector<int64_t> bins(256);
  for (T x : u) {
    ASSERT_GE(x, T(0)) << what;
    ASSERT_LT(x, T(1)) << what;
    sum += double(x);
    bins[size_t(double(x) * 256)]++;
  }
  const double n = double(u.size()), mean = sum / n;
  for (T x : u)
    squares += (double(x) - mean) * (double(x) - mean);
  const double variance = squares / (n - 1);
  // Five standard deviations: 1/sqrt(12 n) for the mean, sqrt((1/80 - 1/144) / n) for the variance.
  EXPECT_NEAR(mean, 0.5, 5 / std::sqrt(12 * n)) << what;
  EXPECT_NEAR(variance, 1.0 / 12, 5 * std::sqrt((1.0 / 80 - 1.0 / 144) / n)) << what;
  EXPECT_LT(chi_square(bins, n), kChiSquare255At0001) << what;
}

template <class T> void expect_normal(const std::vector<T> &z, const char *what) {
  double sum = 0, squares = 0;
  std::vector<int64_t> bins(256); // equally likely under N(0, 1): by the normal CDF
  for (T x : z) {
    ASSERT_TRUE(std::isfinite(x)) << what;
    sum += double(x);
    const double cdf = 0.5 * std::erfc(-double(x) / std::sqrt(2.0));
    bins[std::min<size_t>(255, size_t(cdf * 256))]++;
  }
  const double n = double(z.size()), mean = sum / n;
  for (T x : z)
    squares += (double(x) - mean) * (double(x) - mean);
  const double variance = squares / (n - 1);
  // Five standard deviations: 1/sqrt(n) for the mean, sqrt(2 / n) for the variance.
  EXPECT_NEAR(mean, 0, 5 / std::sqrt(n)) << what;
  EXPECT_NEAR(variance, 1, 5 * std::sqrt(2 / n)) << what;
  EXPECT_LT(chi_square(bins, n), kChiSquare255At0001) << what;
}

TEST_F(PhiloxStatistics, UniformsAndNormals) {
  auto k = kernel("philox_stats", [](U64 seed, Array2<float> uf, Array2<double> ud,
                                     Array2<float> nf, Array2<double> nd) {
    parallel_for(uf.dim(0), [&](Index i) {
      Philox g(seed, i);
      for_range(uf.dim(1), [&](Index k) {
        uf(i, k) = g.uniform_f32();
        ud(i, k) = g.uniform();
        nf(i, k) = g.normal_f32();
        nd(i, k) = g.normal();
      });
    });
  });
  std::vector<float> uf(kStatCount), nf(kStatCount);
  std::vector<double> ud(kStatCount), nd(kStatCount);
  auto v = [](auto &x) { return view(x, {kStatStreams, kStatDraws}); };
  k(uint64_t(20240611), v(uf), v(ud), v(nf), v(nd));
  expect_uniform(uf, "uniform_f32");
  expect_uniform(ud, "uniform");
  expect_normal(nf, "normal_f32");
  expect_normal(nd, "normal");
  // Neighbouring streams are uncorrelated: |correlation| of stream i's and i + 1's k-th draws
  // within five standard deviations (1/sqrt(n)) of 0.
  double product = 0;
  int64_t pairs = 0;
  for (int64_t i = 0; i + 1 < kStatStreams; ++i)
    for (int64_t c = 0; c < kStatDraws; ++c, ++pairs)
      product += (ud[i * kStatDraws + c] - 0.5) * (ud[(i + 1) * kStatDraws + c] - 0.5);
  EXPECT_NEAR(product / double(pairs) * 12, 0, 5 / std::sqrt(double(pairs)));
}

TEST_F(PhiloxStatistics, RandintIsUniform) {
  auto k = kernel("philox_randint_stats", [](U64 seed, Array2<int32_t> r) {
    parallel_for(r.dim(0), [&](Index i) {
      Philox g(seed, i);
      for_range(r.dim(1), [&](Index k) { r(i, k) = g.randint(-100, 156); });
    });
  });
  std::vector<int32_t> r(kStatCount);
  k(uint64_t(7), view(r, {kStatStreams, kStatDraws}));
  std::vector<int64_t> bins(256);
  for (int32_t x : r) {
    ASSERT_GE(x, -100);
    ASSERT_LT(x, 156);
    bins[size_t(x + 100)]++;
  }
  EXPECT_LT(chi_square(bins, double(kStatCount)), kChiSquare255At0001);
}

// ---- where a generator may be used --------------------------------------------------------------

template <class F> std::string dsl_error_of(F &&f) {
  try {
    f();
  } catch (const DslError &e) {
    return e.what();
  }
  return "no DslError";
}

TEST(PhiloxScope, MadeOutsideAParallelLoop) {
  std::string m = dsl_error_of([] {
    kernel("outside", [](U64 seed, Array<float> y) {
      Philox g(seed, 0);
      parallel_for(y.size(), [&](Index i) { y[i] = g.uniform_f32(); });
    });
  });
  EXPECT_NE(m.find("loom::Philox::uniform_f32(): the generator was made outside this "
                   "parallel_for, so every iteration would draw the same numbers; make one in "
                   "the loop's body, a stream per iteration: loom::Philox g(seed, i)"),
            std::string::npos)
      << m;
}

TEST(PhiloxScope, MadeBeforeAParallelLoopDrawnAfter) {
  std::string m = dsl_error_of([] {
    kernel("before", [](U64 seed, Array<float> y, Array<float> z) {
      Philox g(seed, 0);
      z[0] = g.uniform_f32();
      parallel_for(y.size(), [&](Index i) { y[i] = 1.0f; });
      z[1] = g.uniform_f32();
    });
  });
  EXPECT_NE(m.find("loom::Philox::uniform_f32(): the generator was made before a parallel_for "
                   "and is drawn from after it"),
            std::string::npos)
      << m;
}

TEST(PhiloxScope, UsedAfterItsBlock) {
  std::string m = dsl_error_of([] {
    kernel("after_block", [](U64 seed, Array<uint32_t> y) {
      std::unique_ptr<Philox> g;
      for_range(2, [&](Index k) { g = std::make_unique<Philox>(seed, k); });
      y[0] = g->next_u32();
    });
  });
  EXPECT_NE(m.find("loom::Philox::next_u32(): the generator is used outside the block that made "
                   "it"),
            std::string::npos)
      << m;
}

TEST(PhiloxScope, UsedInAnotherKernel) {
  std::unique_ptr<Philox> g;
  kernel("maker", [&](U64 seed, Array<uint32_t> y) {
    g = std::make_unique<Philox>(seed, 0);
    y[0] = g->next_u32();
  });
  std::string m =
      dsl_error_of([&] { kernel("user", [&](Array<uint32_t> y) { y[0] = g->next_u32(); }); });
  EXPECT_NE(m.find("the generator is used outside the block that made it (another kernel"),
            std::string::npos)
      << m;
  m = dsl_error_of([&] { g->normal(); }); // no kernel being traced at all
  EXPECT_NE(m.find("outside a kernel body"), std::string::npos) << m;
}

TEST(PhiloxScope, DrawInAWhileCondition) {
  std::string m = dsl_error_of([] {
    kernel("while_draw", [](U64 seed, Array<int32_t> y) {
      Philox g(seed, 0);
      while_([&] { return g.uniform() < 0.5; }, [&] { y[0] += 1; });
    });
  });
  EXPECT_NE(m.find("the condition of while_ makes statements (a draw from a loom::Philox"),
            std::string::npos)
      << m;
}

} // namespace
