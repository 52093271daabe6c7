// Complex numbers in the text DSL: c64 and c128 arrays and scalars, imaginary literals, c64(re,
// im), .real and .imag, the functions of complex numbers and a complex reduction, run on each
// target against std::complex<double> computed from the same inputs.
#include "support/TestUtil.h"

#include <complex>
#include <random>

using namespace loom;

namespace {

const char *source = R"(
@kernel
def arithmetic(a: c64[n], b: c64[n], s: c64, out: c64[n, 4]):
    for i in parallel(n):
        out[i, 0] = a[i] * b[i] + s
        out[i, 1] = a[i] / b[i] - 2j
        out[i, 2] = conj(a[i]) * (1.5 - 0.5j) + c64(a[i].imag, real(b[i]))
        out[i, 3] = -a[i] + 2 * b[i]

@kernel
def functions(z: c128[n], out: c128[n, 7], mag: f64[n]):
    for i in parallel(n):
        out[i, 0] = exp(z[i])
        out[i, 1] = cmath.log(z[i])
        out[i, 2] = sqrt(z[i])
        out[i, 3] = pow(z[i], 0.5 + 1j)
        out[i, 4] = sin(z[i]) + cos(z[i])
        out[i, 5] = tanh(z[i])
        out[i, 6] = z[i] * 1j if z[i] == z[i] else 0j
        mag[i] = abs(z[i])

@kernel
def total(z: c128[n], out: c128[1]):
    for i in parallel(n):
        out[0] += z[i]

@kernel
def power_series(z: c64[n], out: c64[n], steps: i32):
    for i in parallel(n):
        term: c64 = 1
        acc = c64(0, 0)
        for k in range(steps):
            acc += term
            term *= z[i] / f32(k + 1)
        out[i] = acc

@kernel
def narrow(z: c128[n], out: c64[n], re: f32[n]):
    for i in parallel(n):
        out[i] = c64(z[i])
        re[i] = f32(z[i]) + f32(z[i].imag)
)";

using C = std::complex<double>;

std::vector<C> random_complex(size_t n, unsigned seed, double lo = -2, double hi = 2) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> d(lo, hi);
  std::vector<C> v(n);
  for (C &c : v)
    c = {d(rng), d(rng)};
  return v;
}

template <class F> std::vector<std::complex<F>> as(const std::vector<C> &v) {
  return std::vector<std::complex<F>>(v.begin(), v.end());
}

// |got - want| within rel * (|want| + 1).
::testing::AssertionResult near(C got, C want, double rel) {
  double err = std::abs(got - want), bound = rel * (std::abs(want) + 1);
  if (err <= bound)
    return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << "got " << got << ", want " << want << " (error " << err << " > " << bound << ")";
}

class TextComplex : public loomtest::TargetTest {
protected:
  static Module &module() {
    static Module m = compile(source, "complex.loom");
    return m;
  }
  Kernel &get(const std::string &name) { return prepare(module()[name]); }
};

TEST_P(TextComplex, ArithmeticLiteralsAndParts) {
  const size_t n = 1001;
  // Inputs rounded to c64 first: the reference sees the numbers the kernel sees.
  std::vector<C> a = random_complex(n, 11), b = random_complex(n, 12);
  auto af = as<float>(a), bf = as<float>(b);
  a.assign(af.begin(), af.end()), b.assign(bf.begin(), bf.end());
  const std::complex<float> s(0.25f, -1.75f);
  std::vector<std::complex<float>> out(n * 4, {NAN, NAN});
  get("arithmetic")(af, bf, s, view(out, {static_cast<int64_t>(n), 4}));
  for (size_t i = 0; i < n; ++i) {
    C want[4] = {a[i] * b[i] + C(s), a[i] / b[i] - C(0, 2),
                 std::conj(a[i]) * C(1.5, -0.5) + C(a[i].imag(), b[i].real()), -a[i] + 2.0 * b[i]};
    for (int c = 0; c < 4; ++c)
      ASSERT_TRUE(near(out[i * 4 + c], want[c], 2e-6)) << "element " << i << ", column " << c;
  }
}

TEST_P(TextComplex, FunctionsAgainstStdComplex) {
  const size_t n = 777;
  std::vector<C> z = random_complex(n, 13);
  std::vector<C> out(n * 7, {NAN, NAN});
  std::vector<double> mag(n, NAN);
  get("functions")(z, view(out, {static_cast<int64_t>(n), 7}), mag);
  for (size_t i = 0; i < n; ++i) {
    C want[7] = {std::exp(z[i]),
                 std::log(z[i]),
                 std::sqrt(z[i]),
                 std::pow(z[i], C(0.5, 1)),
                 std::sin(z[i]) + std::cos(z[i]),
                 std::tanh(z[i]),
                 z[i] * C(0, 1)};
    for (int c = 0; c < 7; ++c)
      ASSERT_TRUE(near(out[i * 7 + c], want[c], 1e-12)) << "element " << i << ", column " << c;
    ASSERT_NEAR(mag[i], std::abs(z[i]), 1e-15 * std::abs(z[i])) << i;
  }
}

// A complex += over a parallel loop: two real reductions, so the sum is within the f64 rounding
// of any order.
TEST_P(TextComplex, ReductionIntoOneElement) {
  const size_t n = 100000;
  std::vector<C> z = random_complex(n, 14, -1, 1);
  C want = 0;
  double scale = 0;
  for (const C &c : z)
    want += c, scale += std::abs(c.real()) + std::abs(c.imag());
  std::vector<C> out = {C(0.5, -0.5)};
  get("total")(z, out);
  EXPECT_NEAR(out[0].real(), want.real() + 0.5, 1e-14 * scale);
  EXPECT_NEAR(out[0].imag(), want.imag() - 0.5, 1e-14 * scale);
}

// A sequential loop of complex locals with += and *=: the series of exp(z).
TEST_P(TextComplex, LocalsUpdatedInALoop) {
  const size_t n = 513;
  std::vector<C> z = random_complex(n, 15, -1, 1);
  auto zf = as<float>(z);
  std::vector<std::complex<float>> out(n);
  get("power_series")(zf, out, int32_t(24));
  for (size_t i = 0; i < n; ++i)
    ASSERT_TRUE(near(out[i], std::exp(C(zf[i])), 1e-5)) << i;
}

TEST_P(TextComplex, ConversionsKeepOrDropParts) {
  const size_t n = 300;
  std::vector<C> z = random_complex(n, 16, -1e3, 1e3);
  std::vector<std::complex<float>> out(n);
  std::vector<float> re(n);
  get("narrow")(z, out, re);
  for (size_t i = 0; i < n; ++i) {
    ASSERT_EQ(out[i], std::complex<float>(z[i])) << i; // each part rounded to f32
    ASSERT_EQ(re[i], float(z[i].real()) + float(z[i].imag())) << i;
  }
}

TEST_P(TextComplex, WrongArgumentTypesAreArgumentErrors) {
  std::vector<float> real_array(8);
  std::vector<std::complex<float>> c(8);
  std::vector<std::complex<double>> wide(8);
  Kernel &k = get("power_series");
  EXPECT_THROW(k(real_array, c, int32_t(3)), ArgumentError);
  EXPECT_THROW(k(wide, c, int32_t(3)), ArgumentError);
  EXPECT_THROW(k(c, c, std::complex<float>(3, 0)), ArgumentError);
  try {
    k(real_array, c, int32_t(3));
  } catch (const ArgumentError &e) {
    EXPECT_NE(std::string(e.what()).find("c64"), std::string::npos) << e.what();
  }
}

LOOM_INSTANTIATE_TARGETS(TextComplex);

} // namespace
