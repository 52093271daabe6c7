// f16 and bf16 scalars in the text DSL: parameters, locals and expressions that compute in their
// type, each operation rounded (IEEE binary16 and bfloat16 arithmetic), and conversions that round
// once, run on each target against references made independently: GCC's _Float16 conversion from
// the exact double result for f16, and the nearest of the neighbouring bf16 values for bf16.
#include "support/Float16.h"
#include "support/HalfReference.h"
#include "support/TestUtil.h"

#include <bit>
#include <cmath>
#include <random>

using namespace loom;

namespace {

const char *source = R"(
@kernel
def arithmetic(a: f16[n], b: f16[n], out: f16[n, 6]):
    for i in parallel(n):
        x = f16(a[i])
        y: f16 = b[i]
        out[i, 0] = x + y
        out[i, 1] = x - y
        out[i, 2] = x * y
        out[i, 3] = x / y
        out[i, 4] = sqrt(abs(x))
        out[i, 5] = x * 3 + 1

@kernel
def brain(a: f32[n], b: f32[n], out: f32[n, 4]):
    for i in parallel(n):
        x = bf16(a[i])
        y = bf16(b[i])
        out[i, 0] = x + y
        out[i, 1] = x * y
        out[i, 2] = x / y
        out[i, 3] = f32(x) * y

@kernel
def accumulate(x: f32[n], out: f32[n], steps: i32, h: f16):
    for i in parallel(n):
        acc: f16 = 0
        for k in range(steps):
            acc += f16(x[i]) * h
        out[i] = acc

@kernel
def conversions(d: f64[n], w: i64[n], h16: f16[n], b16: bf16[n], twice: f16[n], fromint: bf16[n]):
    for k in parallel(n):
        h16[k] = f16(d[k])
        b16[k] = bf16(d[k])
        twice[k] = f16(f32(d[k]))
        fromint[k] = bf16(w[k])
)";

using loomtest::nearest_bf16;
using loomtest::nearest_f16;
using loomtest::random_vector;

// Bit for bit, every NaN equal to every NaN.
::testing::AssertionResult same(double got, double want) {
  if ((std::isnan(got) && std::isnan(want)) ||
      std::bit_cast<uint64_t>(got) == std::bit_cast<uint64_t>(want))
    return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << std::hexfloat << "got " << got << ", want " << want;
}

class TextHalf : public loomtest::TargetTest {
protected:
  static Module &module() {
    static Module m = compile(source, "half.loom");
    return m;
  }
  Kernel &get(const std::string &name) { return prepare(module()[name]); }
};

TEST_P(TextHalf, F16ArithmeticRoundsEachOperation) {
  const size_t n = 2001;
  std::vector<float> af = random_vector<float>(n, -300, 300, 21),
                     bf = random_vector<float>(n, -4, 4, 22);
  std::vector<f16> a(n), b(n), out(n * 6);
  for (size_t i = 0; i < n; ++i)
    a[i] = f16(af[i]), b[i] = f16(bf[i]);
  get("arithmetic")(a, b, view(out, {static_cast<int64_t>(n), 6}));
  for (size_t i = 0; i < n; ++i) {
    const double x = float(a[i]), y = float(b[i]);
    // Sums, differences and products of two f16 are exact in double; a quotient rounded to double
    // first rounds to the same f16 (double keeps more than twice f16's bits).
    const double want[6] = {nearest_f16(x + y),
                            nearest_f16(x - y),
                            nearest_f16(x * y),
                            nearest_f16(x / y),
                            nearest_f16(std::sqrt(std::abs(x))),
                            nearest_f16(nearest_f16(x * 3) + 1)};
    for (int c = 0; c < 6; ++c)
      ASSERT_TRUE(same(float(out[i * 6 + c]), want[c]))
          << "x " << x << ", y " << y << ", column " << c;
  }
}

TEST_P(TextHalf, Bf16ArithmeticRoundsEachOperation) {
  const size_t n = 2001;
  std::vector<float> a = random_vector<float>(n, -1e5f, 1e5f, 23),
                     b = random_vector<float>(n, -3, 3, 24);
  std::vector<float> out(n * 4, NAN);
  get("brain")(a, b, view(out, {static_cast<int64_t>(n), 4}));
  for (size_t i = 0; i < n; ++i) {
    const double x = nearest_bf16(a[i]), y = nearest_bf16(b[i]);
    const double want[4] = {nearest_bf16(x + y), nearest_bf16(x * y), nearest_bf16(x / y),
                            static_cast<float>(x * y)}; // bf16 with f32 is f32
    for (int c = 0; c < 4; ++c)
      ASSERT_TRUE(same(out[i * 4 + c], want[c])) << "x " << x << ", y " << y << ", column " << c;
  }
}

TEST_P(TextHalf, F16LocalRoundsEveryStepOfALoop) {
  const size_t n = 257;
  std::vector<float> x = random_vector<float>(n, -2, 2, 25), out(n, NAN);
  const f16 h(0.3f);
  const int32_t steps = 100;
  get("accumulate")(x, out, steps, h);
  size_t rounded = 0; // elements where rounding each step differs from one product
  for (size_t i = 0; i < n; ++i) {
    const double term = nearest_f16(nearest_f16(x[i]) * double(float(h)));
    double acc = 0;
    for (int k = 0; k < steps; ++k)
      acc = nearest_f16(acc + term);
    ASSERT_TRUE(same(out[i], acc)) << i;
    rounded += acc != nearest_f16(double(steps) * term);
  }
  EXPECT_GT(rounded, n / 2) << "the test needs steps that round";
}

TEST_P(TextHalf, ConversionsRoundOnce) {
  // Values just above an f16 (bf16) midpoint by less than f32 keeps: rounded once they go up,
  // through f32 they round to even.
  std::vector<double> d = {1.0 + 0x1p-11 + 0x1p-40,
                           -(1.0 + 0x1p-11 + 0x1p-40),
                           1.0 + 0x1p-8 + 0x1p-40,
                           65520.0,
                           1e-9,
                           0.1};
  std::mt19937_64 rng(26);
  std::uniform_real_distribution<double> u(-7e4, 7e4);
  while (d.size() < 1000)
    d.push_back(u(rng));
  const size_t n = d.size();
  std::vector<int64_t> w(n);
  for (size_t k = 0; k < n; ++k)
    w[k] = static_cast<int64_t>(rng() >> (k % 40)) * (k % 2 ? -1 : 1);
  std::vector<f16> h16(n), twice(n);
  std::vector<bf16> b16(n), fromint(n);
  get("conversions")(d, w, h16, b16, twice, fromint);
  for (size_t k = 0; k < n; ++k) {
    ASSERT_TRUE(same(float(h16[k]), nearest_f16(d[k]))) << std::hexfloat << d[k];
    ASSERT_TRUE(same(float(b16[k]), nearest_bf16(d[k]))) << std::hexfloat << d[k];
    ASSERT_TRUE(same(float(twice[k]), nearest_f16(static_cast<float>(d[k])))) << d[k];
    ASSERT_TRUE(same(float(fromint[k]), nearest_bf16(static_cast<double>(w[k])))) << w[k];
  }
  EXPECT_EQ(float(h16[0]), 1.0f + 0x1p-10f); // rounded once: up
  EXPECT_EQ(float(twice[0]), 1.0f);          // through f32: the midpoint, then even
}

TEST_P(TextHalf, ScalarArgumentsConvertToF16) {
  std::vector<float> x = {1, 2, 3}, out(3, NAN);
  get("accumulate")(x, out, int32_t(1), 0.1); // a double for the f16 parameter, rounded
  for (size_t i = 0; i < 3; ++i)
    EXPECT_TRUE(same(out[i], nearest_f16(x[i] * nearest_f16(0.1)))) << i;
}

LOOM_INSTANTIATE_TARGETS(TextHalf);

} // namespace
