// The accuracy of complex arithmetic and of the complex functions, in c64 and c128, on each
// target: random arguments over each operation's domain, with parts of every magnitude (so that
// division and abs meet components near the overflow and underflow thresholds), against a
// reference computed in std::complex<long double> (glibc's long double functions: 11 bits beyond
// f64). The error is measured in the complex plane, in ulps of the result's larger part:
// |got - ref| / ulp(max(|re ref|, |im ref|)). A part can be far off relative to itself when it is
// small beside the other (sin z near a zero of sin x); this measure, the one complex libraries
// state, does not count that. Every result must be within the bound docs/semantics.md states for
// the operation and target (kBounds below) plus half an ulp for the reference's own rounding.
// `pow(z, w)` is exp(w log z): its error grows with |w log z| (the condition number of exp), so its
// bound is in ulps per unit of max(1, |w log z|).
#include "support/TestUtil.h"

#include <cmath>
#include <complex>
#include <cstdio>
#include <limits>
#include <random>
#include <string>

using namespace loom;

namespace {

enum class Op { Mul, Div, Abs, Exp, Log, Sqrt, Sin, Cos, Tanh, Pow, Count };
constexpr int kOps = static_cast<int>(Op::Count);
const char *const kNames[kOps] = {"z * w", "z / w", "abs", "exp",  "log",
                                  "sqrt",  "sin",   "cos", "tanh", "pow"};

// The stated bounds (docs/semantics.md, "Complex numbers"), in ulps of the larger part:
// {CPU c64, CPU c128, GPU c64, GPU c128}.
const double kBounds[kOps][4] = {
    /* z * w */ {2, 2, 2, 2},
    /* z / w */ {3, 3, 3, 3},
    /* abs   */ {1, 1, 3, 2},
    /* exp   */ {3, 3, 4, 3},
    /* log   */ {3, 3, 3, 3},
    /* sqrt  */ {3, 3, 4, 3},
    /* sin   */ {4, 4, 4, 4},
    /* cos   */ {4, 4, 4, 4},
    /* tanh  */ {6, 6, 8, 6},
    /* pow   */ {4, 4, 6, 5}, // per unit of max(1, |w log z|)
};

template <class F> constexpr bool is_c64 = std::is_same_v<F, float>;

template <class F> Kernel complex_ops_kernel() {
  using C = std::complex<F>;
  return kernel(is_c64<F> ? "complex_accuracy_c64" : "complex_accuracy_c128",
                [](Array<C> z, Array<C> w, Array<C> mul, Array<C> div, Array<F> mag, Array<C> ex,
                   Array<C> lg, Array<C> sq, Array<C> sn, Array<C> cs, Array<C> th, Array<C> pw) {
                  parallel_for(z.size(), [&](Index i) {
                    mul[i] = z[i] * w[i];
                    div[i] = z[i] / w[i];
                    mag[i] = abs(z[i]);
                    ex[i] = exp(z[i]);
                    lg[i] = log(z[i]);
                    sq[i] = sqrt(z[i]);
                    sn[i] = sin(z[i]);
                    cs[i] = cos(z[i]);
                    th[i] = tanh(z[i]);
                    pw[i] = pow(z[i], w[i]);
                  });
                });
}

using LC = std::complex<long double>;

// The spacing of F's values at magnitude a (the smallest normal's below it).
template <class F> long double ulp_at(long double a) {
  int exponent = a == 0 ? 0 : std::ilogb(a);
  exponent = std::max(exponent, std::numeric_limits<F>::min_exponent - 1);
  return std::ldexp(1.0L, exponent - (std::numeric_limits<F>::digits - 1));
}

// A random real: uniform in [-r, r] half the time, else of a random magnitude 2^[lo, hi] and sign.
template <class F> F draw(std::mt19937_64 &rng, double r, double lo, double hi) {
  std::uniform_real_distribution<double> unit(0, 1);
  if (unit(rng) < 0.5)
    return static_cast<F>(r * (2 * unit(rng) - 1));
  const double m = std::exp2(lo + (hi - lo) * unit(rng));
  return static_cast<F>(unit(rng) < 0.5 ? -m : m);
}

// One case: the arguments of every operation (each operation reads the lanes it wants).
template <class F> struct Cases { std::vector<std::complex<F>> z, w; };

// The arguments of each operation, `per_op` cases each, laid out one operation after another;
// each kernel lane computes every operation, and only its own operation's result is checked.
template <class F> Cases<F> make_cases(int per_op) {
  using C = std::complex<F>;
  const bool f = is_c64<F>;
  const double emax = f ? 126 : 1022, emin = f ? -126 : -1022;
  const double exp_hi = f ? 88 : 709, exp_lo = f ? -87 : -708;
  std::mt19937_64 rng(f ? 64 : 128);
  Cases<F> c;
  for (int op = 0; op < kOps; ++op)
    for (int k = 0; k < per_op; ++k) {
      C z, w(1, 0);
      switch (static_cast<Op>(op)) {
      case Op::Mul:
        z = {draw<F>(rng, 10, emin / 2, emax / 2), draw<F>(rng, 10, emin / 2, emax / 2)};
        w = {draw<F>(rng, 10, emin / 2, emax / 2), draw<F>(rng, 10, emin / 2, emax / 2)};
        break;
      case Op::Div: // every magnitude, near both thresholds
        z = {draw<F>(rng, 10, emin + 24, emax), draw<F>(rng, 10, emin + 24, emax)};
        w = {draw<F>(rng, 10, emin + 24, emax), draw<F>(rng, 10, emin + 24, emax)};
        break;
      case Op::Abs:
      case Op::Log:
      case Op::Sqrt:
        z = {draw<F>(rng, 10, emin, emax), draw<F>(rng, 10, emin, emax)};
        break;
      case Op::Exp:
        z = {std::uniform_real_distribution<F>(F(exp_lo), F(exp_hi))(rng),
             draw<F>(rng, 1000, -30, 20)};
        break;
      case Op::Sin:
      case Op::Cos:
        z = {draw<F>(rng, 1000, -30, 20),
             std::uniform_real_distribution<F>(F(-exp_hi + 1), F(exp_hi - 1))(rng)};
        break;
      case Op::Tanh:
        z = {draw<F>(rng, 30, -30, f ? 40 : 300), draw<F>(rng, 1000, -30, 20)};
        break;
      case Op::Pow: {
        // |z| in [1e-2, 1e2], w within 4 of 0
        std::uniform_real_distribution<double> lr(std::log(1e-2), std::log(1e2)), arg(-M_PI, M_PI),
            part(-4, 4);
        z = std::polar(static_cast<F>(std::exp(lr(rng))), static_cast<F>(arg(rng)));
        w = {static_cast<F>(part(rng)), static_cast<F>(part(rng))};
        break;
      }
      default:
        break;
      }
      c.z.push_back(z);
      c.w.push_back(w);
    }
  return c;
}

LC reference(Op op, LC z, LC w) {
  switch (op) {
  case Op::Mul:
    return z * w;
  case Op::Div: {
    // Exact enough in long double: its exponent range holds every product of two f64 parts.
    const long double d = w.real() * w.real() + w.imag() * w.imag();
    return {(z.real() * w.real() + z.imag() * w.imag()) / d,
            (z.imag() * w.real() - z.real() * w.imag()) / d};
  }
  case Op::Abs:
    return std::abs(z);
  case Op::Exp:
    return std::exp(z);
  case Op::Log:
    return std::log(z);
  case Op::Sqrt:
    return std::sqrt(z);
  case Op::Sin:
    return std::sin(z);
  case Op::Cos:
    return std::cos(z);
  case Op::Tanh:
    return std::tanh(z);
  case Op::Pow:
    return std::exp(w * std::log(z));
  default:
    return 0;
  }
}

class ComplexAccuracy : public loomtest::TargetTest {
protected:
  template <class F> void check() {
    using C = std::complex<F>;
    const bool gpu = target() == ir::Target::GPU;
    const int per_op = 3000;
    Kernel k = complex_ops_kernel<F>();
    prepare(k);
    Cases<F> c = make_cases<F>(per_op);
    const size_t n = c.z.size();
    std::vector<C> mul(n), div(n), ex(n), lg(n), sq(n), sn(n), cs(n), th(n), pw(n);
    std::vector<F> mag(n);
    k(c.z, c.w, mul, div, mag, ex, lg, sq, sn, cs, th, pw);
    const std::vector<C> *results[kOps] = {&mul, &div, nullptr, &ex, &lg, &sq, &sn, &cs, &th, &pw};
    const int column = (gpu ? 2 : 0) + (is_c64<F> ? 0 : 1);
    const long double largest = std::numeric_limits<F>::max();
    for (int op = 0; op < kOps; ++op) {
      const double bound = kBounds[op][column];
      long double worst = 0;
      C worst_z, worst_w;
      int failures = 0, measured = 0;
      std::string first;
      for (int q = 0; q < per_op; ++q) {
        const size_t i = static_cast<size_t>(op) * per_op + q;
        const LC z(c.z[i]), w(c.w[i]);
        const LC ref = reference(static_cast<Op>(op), z, w);
        const C got = op == static_cast<int>(Op::Abs) ? C(mag[i], 0) : (*results[op])[i];
        const long double big = std::max(std::fabs(ref.real()), std::fabs(ref.imag()));
        if (!std::isfinite(big) || big > largest)
          continue; // the exact result overflows F
        ++measured;
        long double scale = 1;
        if (op == static_cast<int>(Op::Pow))
          scale = std::max(1.0L, std::abs(w * std::log(z)));
        const long double off =
            std::abs(LC(got) - ref) / ulp_at<F>(big) / scale; // NaN if got is not finite
        if (off > worst || std::isnan(off))
          worst = std::isnan(off) ? std::numeric_limits<long double>::infinity() : off,
          worst_z = c.z[i], worst_w = c.w[i];
        if (!(off <= bound + 0.5) && failures++ == 0) {
          char text[256];
          std::snprintf(text, sizeof text,
                        "%s of (%.17g, %.17g), (%.17g, %.17g) gave (%.17g, %.17g), expected "
                        "(%.17Lg, %.17Lg): %.2Lf ulps",
                        kNames[op], double(z.real()), double(z.imag()), double(w.real()),
                        double(w.imag()), double(got.real()), double(got.imag()), ref.real(),
                        ref.imag(), off);
          first = text;
        }
      }
      EXPECT_GE(measured, per_op * 9 / 10) << kNames[op] << ": too few finite results";
      if (failures > 0)
        ADD_FAILURE() << failures << " result(s) of " << kNames[op] << " in "
                      << (is_c64<F> ? "c64" : "c128") << " beyond " << bound
                      << " ulps; the first: " << first;
      std::printf("  %-6s %s %s: max %.2Lf ulps (at (%.9g, %.9g), (%.9g, %.9g)), bound %.0f\n",
                  kNames[op], is_c64<F> ? "c64 " : "c128", gpu ? "gpu" : "cpu", worst,
                  double(worst_z.real()), double(worst_z.imag()), double(worst_w.real()),
                  double(worst_w.imag()), bound);
    }
  }
};

TEST_P(ComplexAccuracy, C64) {
  check<float>();
}
TEST_P(ComplexAccuracy, C128) {
  check<double>();
}

// log near the unit circle takes log1p(|z|^2 - 1) / 2: its special values stay C99's (Annex G).
TEST_P(ComplexAccuracy, LogSpecialValues) {
  using C = std::complex<double>;
  const double inf = std::numeric_limits<double>::infinity(), nan = std::nan("");
  Kernel k = kernel("complex_log_special", [](Array<C> z, Array<C> out) {
    parallel_for(z.size(), [&](Index i) { out[i] = log(z[i]); });
  });
  prepare(k);
  const std::vector<C> z = {{1, 0},     {-1, 0},    {0, 0},      {0.5, nan}, {nan, 0.5},
                            {inf, nan}, {nan, inf}, {1, 1e-300}, {2, 0},     {0.5, 0}};
  std::vector<C> out(z.size());
  k(z, out);
  EXPECT_EQ(out[0], C(0, 0));
  EXPECT_EQ(out[1].real(), 0);
  EXPECT_DOUBLE_EQ(out[1].imag(), M_PI);
  EXPECT_EQ(out[2].real(), -inf);
  EXPECT_EQ(out[2].imag(), 0);
  for (int i : {3, 4})
    EXPECT_TRUE(std::isnan(out[i].real()) && std::isnan(out[i].imag())) << z[i] << ": " << out[i];
  for (int i : {5, 6})
    EXPECT_TRUE(out[i].real() == inf && std::isnan(out[i].imag())) << z[i] << ": " << out[i];
  EXPECT_EQ(out[7].real(), 0); // log1p(1e-600 rounded away) / 2
  EXPECT_DOUBLE_EQ(out[7].imag(), 1e-300);
  EXPECT_DOUBLE_EQ(out[8].real(), std::log(2.0));
  EXPECT_DOUBLE_EQ(out[9].real(), std::log(0.5));
}

LOOM_INSTANTIATE_TARGETS(ComplexAccuracy);

} // namespace
