// f16 and bf16 arrays: storage types read and written as f32 (ir::value_type). Results are
// compared with references computed in double and rounded with the host's conversions
// (support/Float16.h, itself checked against GCC's _Float16): a stored element may differ from the
// reference by one unit in the last place of its 16-bit type, where f32 arithmetic rounded
// before the 16-bit rounding; conversions of f32 values are exact.
#include "support/TestUtil.h"

#include <bit>
#include <cmath>
#include <limits>

using namespace loom;
using loomtest::random_vector;

namespace {

class Half : public loomtest::TargetTest {};

template <class H> std::vector<H> to_half(const std::vector<float> &v) {
  std::vector<H> out;
  for (float f : v)
    out.push_back(H(f));
  return out;
}

// The spacing of the 16-bit type's values around v: one unit in the last place.
template <class H> double spacing(double v) {
  constexpr int bits = std::is_same_v<H, f16> ? 10 : 7;             // stored significand bits
  constexpr int min_exponent = std::is_same_v<H, f16> ? -14 : -126; // of the normal numbers
  int e = v == 0 ? min_exponent : std::max(std::ilogb(v), min_exponent);
  return std::ldexp(1.0, e - bits);
}

// y = a x + y in f32, stored to 16 bits: within one unit of the exact result's 16-bit spacing.
template <class H> void check_saxpy(loom::Kernel &k) {
  const size_t n = 5000;
  std::vector<H> x = to_half<H>(random_vector<float>(n, -8, 8, 61));
  std::vector<H> y = to_half<H>(random_vector<float>(n, -8, 8, 62)), y0 = y;
  k(1.75f, x, y);
  for (size_t i = 0; i < n; ++i) {
    double want = 1.75 * double(static_cast<float>(x[i])) + double(static_cast<float>(y0[i]));
    double got = static_cast<float>(y[i]);
    ASSERT_LE(std::abs(got - want), spacing<H>(want)) << i << ": " << got << " for " << want;
  }
}

TEST_P(Half, SaxpyOnF16Arrays) {
  auto k = kernel("saxpy_f16",
                  [](F32 a, Array<f16> x, Array<f16> y) {
                    parallel_for(x.size(), [&](Index i) { y[i] = a * x[i] + y[i]; });
                  },
                  {"a", "x", "y"});
  prepare(k);
  check_saxpy<f16>(k);
}

TEST_P(Half, SaxpyOnBf16Arrays) {
  auto k = kernel("saxpy_bf16",
                  [](F32 a, Array<bf16> x, Array<bf16> y) {
                    parallel_for(x.size(), [&](Index i) { y[i] = a * x[i] + y[i]; });
                  },
                  {"a", "x", "y"});
  prepare(k);
  check_saxpy<bf16>(k);
}

// f32 -> f16 and bf16 stores round to nearest even exactly as the host does, specials included;
// loads give back every 16-bit value exactly.
TEST_P(Half, ConversionsAreExactAndRoundToNearestEven) {
  auto k = kernel("convert",
                  [](Array<float> x, Array<f16> h, Array<bf16> b, Array<float> back) {
                    parallel_for(x.size(), [&](Index i) {
                      h[i] = x[i];
                      b[i] = x[i];
                      back[i] = h[i] + b[i] * 0.0f;
                    });
                  },
                  {"x", "h", "b", "back"});
  prepare(k);
  const float inf = std::numeric_limits<float>::infinity();
  std::vector<float> x = {0.0f,     -0.0f,   1.0f / 3,  65504.0f,  65519.0f, 65520.0f,
                          -1e9f,    inf,     -inf,      0x1p-24f,  0x1p-25f, 0x1.8p-25f,
                          0x1p-15f, 3.0e38f, -1.0e-40f, 1234.567f, 0.1f,     std::nanf("")};
  for (float f : random_vector<float>(4000, -70000, 70000, 63))
    x.push_back(f);
  for (float f : random_vector<float>(4000, -1e-4, 1e-4, 64))
    x.push_back(f);
  const size_t n = x.size();
  std::vector<f16> h(n);
  std::vector<bf16> b(n);
  std::vector<float> back(n);
  k(x, h, b, back);
  for (size_t i = 0; i < n; ++i) {
    if (std::isnan(x[i])) {
      EXPECT_TRUE(std::isnan(static_cast<float>(h[i])));
      EXPECT_TRUE(std::isnan(static_cast<float>(b[i])));
      continue;
    }
    ASSERT_EQ(f16(x[i]).bits, h[i].bits) << std::hexfloat << x[i];
    ASSERT_EQ(bf16(x[i]).bits, b[i].bits) << std::hexfloat << x[i];
    if (!std::isinf(static_cast<float>(b[i]))) {
      ASSERT_EQ(std::bit_cast<uint32_t>(static_cast<float>(h[i]) + static_cast<float>(b[i]) * 0.0f),
                std::bit_cast<uint32_t>(back[i]))
          << i;
    }
  }
}

// `y[i] += 2 x[i]` on bf16 arrays: an update of each element by its own iteration, exact
// against the host's f32 sum rounded to bf16 (2 x is exact, so a contraction changes nothing).
TEST_P(Half, ElementwiseUpdateOfBf16Arrays) {
  auto k = kernel("accumulate_bf16",
                  [](Array<bf16> x, Array<bf16> y) {
                    parallel_for(x.size(), [&](Index i) { y[i] += x[i] * 2.0f; });
                  },
                  {"x", "y"});
  prepare(k);
  std::vector<bf16> x = to_half<bf16>(random_vector<float>(4099, -50, 50, 69));
  std::vector<bf16> y = to_half<bf16>(random_vector<float>(4099, -50, 50, 70)), y0 = y;
  k(x, y);
  for (size_t i = 0; i < x.size(); ++i)
    ASSERT_EQ(bf16(static_cast<float>(y0[i]) + static_cast<float>(x[i]) * 2.0f).bits, y[i].bits)
        << i;
}

// A sum over an f16 array into an f32 element, against a double sum.
TEST_P(Half, SumOfAnF16ArrayIntoF32) {
  auto k = kernel("sum_f16",
                  [](Array<f16> x, Array<float> total) {
                    parallel_for(x.size(), [&](Index i) { total[0] += x[i]; });
                  },
                  {"x", "total"});
  prepare(k);
  std::vector<f16> x = to_half<f16>(random_vector<float>(100000, 0, 1, 65));
  std::vector<float> total = {0.0f};
  k(x, total);
  double want = 0, magnitude = 0;
  for (f16 v : x)
    want += static_cast<float>(v), magnitude += std::abs(static_cast<float>(v));
  EXPECT_NEAR(total[0], want, 1e-5 * magnitude);
}

TEST_P(Half, DeviceArraysOfF16) {
  if (target() != ir::Target::GPU)
    GTEST_SKIP() << "device arrays are GPU memory";
  auto k = kernel(
      "scale_bf16",
      [](Array<bf16> x) { parallel_for(x.size(), [&](Index i) { x[i] = x[i] * 2.0f; }); }, {"x"});
  prepare(k);
  std::vector<bf16> host = to_half<bf16>(random_vector<float>(3001, -100, 100, 66));
  runtime::DeviceArray<bf16> d(host);
  k(d);
  std::vector<bf16> out(host.size());
  d.copy_to_host(out.data());
  for (size_t i = 0; i < host.size(); ++i)
    ASSERT_EQ(static_cast<float>(host[i]) * 2.0f, static_cast<float>(out[i])) << i;
}

TEST_P(Half, TextKernelWithF16AndBf16Arrays) {
  loom::Module m = loom::compile(R"(
@kernel
def mix(x: f16[N], w: bf16[N], y: f32[N]):
    for i in parallel(N):
        y[i] = x[i] * w[i] + 1.0
)");
  loom::Kernel &k = m["mix"];
  prepare(k);
  std::vector<f16> x = to_half<f16>(random_vector<float>(777, -4, 4, 67));
  std::vector<bf16> w = to_half<bf16>(random_vector<float>(777, -4, 4, 68));
  std::vector<float> y(777, NAN);
  k(x, w, y);
  for (size_t i = 0; i < y.size(); ++i) {
    // Both factors have at most 11 significant bits: their product is exact in f32.
    float want = static_cast<float>(x[i]) * static_cast<float>(w[i]) + 1.0f;
    ASSERT_EQ(want, y[i]) << i;
  }
}

// A parallel loop cannot reduce into a 16-bit element, and 16-bit values take no bitwise operator;
// scalars and locals of these types are fine (tests/text/half_test.cpp).
TEST(HalfErrors, ParallelReductionsAndBitwiseOperatorsAreRefused) {
  try {
    loom::compile("@kernel\ndef k(a: f16, y: f32[N]):\n    for i in parallel(N):\n"
                  "        y[i] = a & 1\n");
    FAIL() << "a bitwise and of an f16 was accepted";
  } catch (const loom::Error &e) {
    EXPECT_NE(std::string(e.what()).find("'&' needs integer or bool operands, got f16 and i32"),
              std::string::npos)
        << e.what();
  }
  loom::compile("@kernel\ndef k(a: f16, y: f32[N]):\n    for i in parallel(N):\n"
                "        t: bf16 = 1.0\n        y[i] = t * a\n");
  auto sum = kernel("sum_into_f16",
                    [](Array<float> x, Array<f16> total) {
                      parallel_for(x.size(), [&](Index i) { total[0] += x[i]; });
                    },
                    {"x", "total"});
  sum.on(ir::Target::CPU);
  std::vector<float> x(10, 1.0f);
  std::vector<f16> total(1);
  try {
    sum(x, total);
    FAIL() << "a parallel reduction into an f16 array was accepted";
  } catch (const loom::CompileError &e) {
    EXPECT_NE(std::string(e.what()).find("'total' is an array of f16, a storage type"),
              std::string::npos)
        << e.what();
  }
  // Passing f32 data for an f16 parameter is an argument error naming both types.
  auto scale = kernel(
      "scale_f16",
      [](Array<f16> x) { parallel_for(x.size(), [&](Index i) { x[i] = x[i] * 2.0f; }); }, {"x"});
  scale.on(ir::Target::CPU);
  std::vector<float> wrong(4, 1.0f);
  EXPECT_THROW(scale(wrong), loom::ArgumentError);
}

LOOM_INSTANTIATE_TARGETS(Half);

} // namespace
