// The accuracy of every function of the math library, in f32 and f64, on each target: random
// inputs over the function's domain and its edge inputs (±0, ±inf, NaN, denormals, the largest
// finite values, huge arguments of sin and cos, arguments outside the domain) against a reference
// computed in long double. A finite result must be within the function's documented ulps on that
// target (ir/MathFunctions.h, the table docs/semantics.md prints) plus half an ulp for the
// reference's own rounding; NaN, infinities and the sign of a zero must be the reference's. On
// the CPU the interpreter's value (ir::math_op) must equal the compiled code's, bit for bit.
#include "support/TestUtil.h"

#include "ir/MathFunctions.h"
#include "ir/Semantics.h"

#include <cfloat>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <random>
#include <sstream>

using namespace loom;
using ir::MathFn;

namespace {

template <class T> constexpr bool is_f32 = std::is_same_v<T, float>;

// The function in loom's C++ DSL.
template <class T> Value<T> apply(MathFn fn, Value<T> x, Value<T> y) {
  // clang-format off
  switch (fn) {
  case MathFn::Sqrt: return sqrt(x);
  case MathFn::Exp: return exp(x);
  case MathFn::Log: return log(x);
  case MathFn::Sin: return sin(x);
  case MathFn::Cos: return cos(x);
  case MathFn::Tanh: return tanh(x);
  case MathFn::Pow: return pow(x, y);
  case MathFn::Acos: return acos(x);
  case MathFn::Acosh: return acosh(x);
  case MathFn::Asin: return asin(x);
  case MathFn::Asinh: return asinh(x);
  case MathFn::Atan: return atan(x);
  case MathFn::Atan2: return atan2(x, y);
  case MathFn::Atanh: return atanh(x);
  case MathFn::Cbrt: return cbrt(x);
  case MathFn::Ceil: return ceil(x);
  case MathFn::Copysign: return copysign(x, y);
  case MathFn::Cosh: return cosh(x);
  case MathFn::Erf: return erf(x);
  case MathFn::Erfc: return erfc(x);
  case MathFn::Exp2: return exp2(x);
  case MathFn::Expm1: return expm1(x);
  case MathFn::Gamma: return gamma(x);
  case MathFn::Hypot: return hypot(x, y);
  case MathFn::Lgamma: return lgamma(x);
  case MathFn::Log10: return log10(x);
  case MathFn::Log1p: return log1p(x);
  case MathFn::Log2: return log2(x);
  case MathFn::Remainder: return remainder(x, y);
  case MathFn::Round: return round(x);
  case MathFn::Rsqrt: return rsqrt(x);
  case MathFn::Sinh: return sinh(x);
  case MathFn::Tan: return tan(x);
  case MathFn::Trunc: return trunc(x);
  case MathFn::Floor: return floor(x);
  case MathFn::Abs: return abs(x);
  case MathFn::Sign: return sign(x);
  default: return x;
  }
  // clang-format on
}

long double round_half_even(long double x) {
  long double r = std::round(x);
  if (std::fabs(x - std::trunc(x)) == 0.5L)
    r = 2 * std::round(x / 2);
  return r;
}

// The reference, in long double (glibc's long double functions: 11 bits beyond f64).
long double reference(MathFn fn, long double x, long double y) {
  int sign;
  // clang-format off
  switch (fn) {
  case MathFn::Sqrt: return std::sqrt(x);
  case MathFn::Exp: return std::exp(x);
  case MathFn::Log: return std::log(x);
  case MathFn::Sin: return std::sin(x);
  case MathFn::Cos: return std::cos(x);
  case MathFn::Tanh: return std::tanh(x);
  case MathFn::Pow: return std::pow(x, y);
  case MathFn::Acos: return std::acos(x);
  case MathFn::Acosh: return std::acosh(x);
  case MathFn::Asin: return std::asin(x);
  case MathFn::Asinh: return std::asinh(x);
  case MathFn::Atan: return std::atan(x);
  case MathFn::Atan2: return std::atan2(x, y);
  case MathFn::Atanh: return std::atanh(x);
  case MathFn::Cbrt: return std::cbrt(x);
  case MathFn::Ceil: return std::ceil(x);
  case MathFn::Copysign: return std::copysign(x, y);
  case MathFn::Cosh: return std::cosh(x);
  case MathFn::Erf: return std::erf(x);
  case MathFn::Erfc: return std::erfc(x);
  case MathFn::Exp2: return std::exp2(x);
  case MathFn::Expm1: return std::expm1(x);
  case MathFn::Gamma: return std::tgamma(x);
  case MathFn::Hypot: return std::hypot(x, y);
  case MathFn::Lgamma: return lgammal_r(x, &sign);
  case MathFn::Log10: return std::log10(x);
  case MathFn::Log1p: return std::log1p(x);
  case MathFn::Log2: return std::log2(x);
  case MathFn::Remainder: return std::remainder(x, y);
  case MathFn::Round: return round_half_even(x);
  case MathFn::Rsqrt: return 1 / std::sqrt(x);
  case MathFn::Sinh: return std::sinh(x);
  case MathFn::Tan: return std::tan(x);
  case MathFn::Trunc: return std::trunc(x);
  case MathFn::Floor: return std::floor(x);
  case MathFn::Abs: return std::fabs(x);
  case MathFn::Sign: return x > 0 ? 1 : x < 0 ? -1 : x;
  default: return 0;
  }
  // clang-format on
}

// Where random arguments are drawn: uniformly in [lo, hi], and with random magnitudes
// 2^[-emin, emax] (signed when lo < 0) within [lo, hi].
struct Domain {
  double lo, hi;
  double lo2 = -10, hi2 = 10; // the second argument's
};

Domain domain(MathFn fn, bool f32) {
  const double big = f32 ? 1e30 : 1e300;
  // clang-format off
  switch (fn) {
  case MathFn::Sqrt: case MathFn::Rsqrt: case MathFn::Cbrt: return {-1, big};
  case MathFn::Log: case MathFn::Log2: case MathFn::Log10: return {0, big};
  case MathFn::Log1p: return {-1, big};
  case MathFn::Exp: return {f32 ? -100.0 : -740.0, f32 ? 88.0 : 709.0};
  case MathFn::Exp2: return {f32 ? -150.0 : -1075.0, f32 ? 127.0 : 1023.0};
  case MathFn::Expm1: return {-50, f32 ? 88.0 : 709.0};
  case MathFn::Sinh: case MathFn::Cosh: return {f32 ? -89.0 : -710.0, f32 ? 89.0 : 710.0};
  case MathFn::Sin: case MathFn::Cos: case MathFn::Tan: return {-1e5, 1e5};
  case MathFn::Tanh: case MathFn::Atan: case MathFn::Asinh: case MathFn::Erf:
    return {-big, big};
  case MathFn::Erfc: return {-10, f32 ? 10.0 : 27.0};
  case MathFn::Acos: case MathFn::Asin: case MathFn::Atanh: return {-1, 1};
  case MathFn::Acosh: return {1, big};
  case MathFn::Gamma: return {f32 ? -30.0 : -170.0, f32 ? 35.0 : 171.0};
  case MathFn::Lgamma: return {0, f32 ? 1e36 : 1e300};
  case MathFn::Pow: return {0, 100, -30, 30};
  case MathFn::Atan2: case MathFn::Hypot: case MathFn::Copysign: return {-big, big, -big, big};
  case MathFn::Remainder: return {-1e6, 1e6, -100, 100};
  default: return {-1e6, 1e6};
  }
  // clang-format on
}

template <class T> std::vector<T> edge_values() {
  using L = std::numeric_limits<T>;
  std::vector<T> v = {T(0),
                      -T(0),
                      L::infinity(),
                      -L::infinity(),
                      L::quiet_NaN(),
                      L::denorm_min(),
                      -L::denorm_min(),
                      L::min(),
                      -L::min(),
                      L::max(),
                      -L::max(),
                      T(1),
                      T(-1),
                      T(0.5),
                      T(-0.5),
                      T(2),
                      T(-2),
                      T(2.5),
                      T(-2.5),
                      T(3),
                      T(-3),
                      T(1e-30),
                      T(1e22),
                      T(-1e22),
                      T(is_f32<T> ? 1e30 : 1e300),
                      T(100),
                      T(-100),
                      T(1.5),
                      T(-1.5),
                      T(0.999),
                      T(1.001),
                      T(-0.999),
                      T(1e-7),
                      T(10),
                      T(0.25)};
  return v;
}

// Random arguments over the domain, then the edge values (and, for two arguments, the edge
// values paired with one another and with random values).
template <class T> void arguments(MathFn fn, std::vector<T> &x, std::vector<T> &y) {
  const bool binary = ir::fn_arity(fn) == 2;
  Domain d = domain(fn, is_f32<T>);
  std::mt19937_64 rng(static_cast<unsigned>(fn) * 131 + sizeof(T));
  auto draw = [&rng](double lo, double hi) -> T {
    std::uniform_real_distribution<double> unit(0, 1);
    if (unit(rng) < 0.5)
      return static_cast<T>(lo + (hi - lo) * unit(rng));
    // a random magnitude within the range, with the sign allowed there
    double top = std::log2(std::max(std::fabs(lo), std::fabs(hi)));
    double bottom = is_f32<T> ? -140 : -1070;
    double m = std::exp2(bottom + (top - bottom) * unit(rng));
    double v = (lo < 0 && (hi <= 0 || unit(rng) < 0.5)) ? -m : m;
    return static_cast<T>(std::min(std::max(v, lo), hi));
  };
  for (int k = 0; k < 4000; ++k) {
    x.push_back(draw(d.lo, d.hi));
    y.push_back(binary ? draw(d.lo2, d.hi2) : T(0));
  }
  const std::vector<T> edges = edge_values<T>();
  for (T e : edges) {
    x.push_back(e);
    y.push_back(binary ? T(1.5) : T(0));
    if (binary)
      for (T f : edges) {
        x.push_back(e);
        y.push_back(f);
      }
  }
  if (fn == MathFn::Sin || fn == MathFn::Cos || fn == MathFn::Tan)
    for (T huge : {T(1e22), T(-1e22), T(is_f32<T> ? 3e38 : 1e308), T(6.2831853e5), T(1e15)}) {
      x.push_back(huge);
      y.push_back(0);
    }
  if (fn == MathFn::Round || fn == MathFn::Trunc || fn == MathFn::Ceil || fn == MathFn::Floor)
    for (T tie : {T(0.5), T(1.5), T(2.5), T(-0.5), T(-1.5), T(-2.5), T(4503599627370497.0)}) {
      x.push_back(tie);
      y.push_back(0);
    }
}

// The spacing of T's values at magnitude a (the smallest normal's below it).
template <class T> long double ulp_at(long double a) {
  int exponent = a == 0 ? 0 : std::ilogb(a);
  exponent = std::max(exponent, std::numeric_limits<T>::min_exponent - 1);
  return std::ldexp(1.0L, exponent - (std::numeric_limits<T>::digits - 1));
}

// The documented bound for fn on the target, and where it applies.
double documented_ulps(MathFn fn, bool f32, bool gpu) {
  const ir::MathFnInfo &info = ir::math_info(fn);
  if (gpu)
    return f32 ? info.gpu_ulps_f32 : info.gpu_ulps_f64;
  return f32 ? info.cpu_ulps_f32 : info.cpu_ulps_f64;
}

// lgamma's bound holds outside CUDA's stated interval of negative arguments, where its error is
// instead absolute (in ulps of 1): the function crosses zero between each pair of poles there.
bool absolute_error_region(MathFn fn, double x) {
  return fn == MathFn::Lgamma && x < 0;
}

class MathAccuracy : public loomtest::TargetTest {
protected:
  template <class T> void check(MathFn fn) {
    const bool gpu = target() == ir::Target::GPU;
    const bool binary = ir::fn_arity(fn) == 2;
    auto k = kernel(std::string("accuracy_") + ir::fn_name(fn),
                    [fn](Array<T> x, Array<T> y, Array<T> out) {
                      parallel_for(out.size(), [&](Index i) { out[i] = apply<T>(fn, x[i], y[i]); });
                    });
    prepare(k);
    std::vector<T> x, y;
    arguments<T>(fn, x, y);
    std::vector<T> out(x.size(), T(1234));
    k(x, y, out);
    const double bound = documented_ulps(fn, is_f32<T>, gpu) + 0.5;
    long double worst = 0;
    T worst_x = 0, worst_y = 0;
    int failures = 0;
    std::string first_failure;
    for (size_t i = 0; i < x.size(); ++i) {
      const long double ref = reference(fn, x[i], y[i]);
      const T got = out[i];
      auto where = [&] {
        char args[64];
        std::snprintf(args, sizeof args, binary ? "%.17g, %.17g" : "%.17g", double(x[i]),
                      double(y[i]));
        return std::string(ir::fn_name(fn)) + "(" + args + ") in " + (is_f32<T> ? "f32" : "f64") +
               " on the " + (gpu ? "GPU" : "CPU");
      };
      // What is wrong with this result, or nothing.
      auto problem = [&]() -> std::string {
        std::ostringstream os;
        if (!gpu) { // the interpreter computes what the compiled code does
          ir::ScalarValue args[2];
          args[0].f = x[i];
          args[1].f = y[i];
          const ir::ScalarType t = is_f32<T> ? ir::ScalarType::F32 : ir::ScalarType::F64;
          const T interpreted = static_cast<T>(ir::math_op(fn, t, args).f);
          if (std::memcmp(&interpreted, &got, sizeof(T)) != 0 &&
              !(std::isnan(interpreted) && std::isnan(got)))
            os << ": the interpreter gives " << interpreted << ", compiled code " << got;
        }
        const T rounded = static_cast<T>(ref); // the reference in T: overflow, underflow, NaN
        const T largest = std::numeric_limits<T>::max();
        if (!os.str().empty()) {
        } else if (std::isnan(ref)) {
          if (!std::isnan(got))
            os << " gave " << got << ", expected NaN";
        } else if (std::isinf(rounded) && std::isinf(got) &&
                   std::signbit(got) == std::signbit(ref)) {
          // overflow, as the reference does (a finite result near the edge is measured below)
        } else if (std::isinf(ref)) {
          if (got != rounded)
            os << " gave " << got << ", expected " << rounded;
        } else if (ref == 0) {
          if (got != T(0) || std::signbit(got) != std::signbit(ref))
            os << " gave " << got << ", expected " << (std::signbit(ref) ? "-0" : "0");
        } else if (gpu && std::isinf(got) && !std::isinf(rounded) &&
                   std::fabs(ref) > largest * (1 - 4 * std::numeric_limits<T>::epsilon())) {
          // libdevice's hypot overflows within a few ulps of the largest finite value
          // (docs/semantics.md); any other function doing so fails below
          if (fn != MathFn::Hypot)
            os << " gave " << got << ", expected " << double(ref);
        } else if (std::isnan(got)) {
          os << " gave NaN, expected " << double(ref);
        } else {
          const long double scale =
              absolute_error_region(fn, x[i]) ? std::max(1.0L, std::fabs(ref)) : std::fabs(ref);
          const long double off = std::fabs(static_cast<long double>(got) - ref) / ulp_at<T>(scale);
          if (off > worst)
            worst = off, worst_x = x[i], worst_y = y[i];
          if (off > bound)
            os << " gave " << got << ", expected " << double(ref) << ": " << double(off)
               << " ulps, documented " << bound - 0.5;
        }
        return os.str();
      };
      std::string wrong = problem();
      if (!wrong.empty() && failures++ == 0)
        first_failure = where() + wrong;
    }
    if (failures > 0)
      ADD_FAILURE() << failures << " wrong result(s) of " << ir::fn_name(fn)
                    << "; the first: " << first_failure;
    char at[64];
    if (binary)
      std::snprintf(at, sizeof at, "%.9g, %.9g", double(worst_x), double(worst_y));
    else
      std::snprintf(at, sizeof at, "%.9g", double(worst_x));
    std::printf("  %-9s %s %s: max %.2f ulps (at %s), bound %.1f\n", ir::fn_name(fn),
                is_f32<T> ? "f32" : "f64", gpu ? "gpu" : "cpu", double(worst), at, bound - 0.5);
  }

  template <class T> void check_all() {
    for (int k = 0; k < ir::kRealMathFnCount; ++k) {
      MathFn fn = static_cast<MathFn>(k);
      const ir::MathFnInfo &info = ir::math_info(fn);
      if (info.args == ir::MathArgs::Classify || fn == MathFn::Ldexp || fn == MathFn::Fma)
        continue; // checked exactly below
      check<T>(fn);
    }
  }
};

TEST_P(MathAccuracy, F32) {
  check_all<float>();
}
TEST_P(MathAccuracy, F64) {
  check_all<double>();
}

// isfinite, isinf, isnan, ldexp and sign are exact: every edge value against <cmath>.
TEST_P(MathAccuracy, ClassificationLdexpAndSignAreExact) {
  auto k = kernel("classify", [](Array<double> x, Array<int32_t> n, Array<int32_t> finite,
                                 Array<int32_t> inf, Array<int32_t> nan, Array<double> scaled,
                                 Array<float> scaled32, Array<double> s) {
    parallel_for(x.size(), [&](Index i) {
      finite[i] = isfinite(x[i]);
      inf[i] = isinf(x[i]);
      nan[i] = isnan(cast<float>(x[i]));
      scaled[i] = ldexp(x[i], n[i]);
      scaled32[i] = ldexp(cast<float>(x[i]), n[i]);
      s[i] = sign(x[i]);
    });
  });
  prepare(k);
  std::vector<double> x = edge_values<double>();
  std::vector<int32_t> n;
  for (size_t i = 0; i < x.size(); ++i)
    n.push_back(static_cast<int32_t>(i * 37 % 2200) - 1100);
  const size_t m = x.size();
  std::vector<int32_t> finite(m, 7), inf(m, 7), nan(m, 7);
  std::vector<double> scaled(m), s(m);
  std::vector<float> scaled32(m);
  k(x, n, finite, inf, nan, scaled, scaled32, s);
  for (size_t i = 0; i < m; ++i) {
    EXPECT_EQ(finite[i] != 0, std::isfinite(x[i])) << x[i];
    EXPECT_EQ(inf[i] != 0, std::isinf(x[i])) << x[i];
    EXPECT_EQ(nan[i] != 0, std::isnan(static_cast<float>(x[i]))) << x[i];
    const double ld = std::ldexp(x[i], n[i]);
    EXPECT_TRUE(std::memcmp(&scaled[i], &ld, 8) == 0 || (std::isnan(ld) && std::isnan(scaled[i])))
        << "ldexp(" << x[i] << ", " << n[i] << ") gave " << scaled[i] << ", expected " << ld;
    const float lf = std::ldexp(static_cast<float>(x[i]), n[i]);
    EXPECT_TRUE(std::memcmp(&scaled32[i], &lf, 4) == 0 ||
                (std::isnan(lf) && std::isnan(scaled32[i])))
        << "ldexp(f32 " << x[i] << ", " << n[i] << ") gave " << scaled32[i];
    const double sg = x[i] > 0 ? 1 : x[i] < 0 ? -1 : x[i];
    EXPECT_TRUE(std::memcmp(&s[i], &sg, 8) == 0 || (std::isnan(sg) && std::isnan(s[i])))
        << "sign(" << x[i] << ") gave " << s[i];
  }
}

TEST_P(MathAccuracy, IntegerAbsAndSignStayIntegers) {
  auto k = kernel("int_sign", [](Array<int64_t> x, Array<int64_t> a, Array<int32_t> s) {
    parallel_for(x.size(), [&](Index i) {
      a[i] = abs(x[i]);
      s[i] = sign(cast<int32_t>(x[i]));
    });
  });
  prepare(k);
  std::vector<int64_t> x = {0,
                            1,
                            -1,
                            7,
                            -7,
                            std::numeric_limits<int64_t>::min(),
                            std::numeric_limits<int64_t>::max(),
                            int64_t(1) << 40,
                            -(int64_t(1) << 31)};
  std::vector<int64_t> a(x.size());
  std::vector<int32_t> s(x.size());
  k(x, a, s);
  for (size_t i = 0; i < x.size(); ++i) {
    const int64_t expected =
        x[i] < 0 ? static_cast<int64_t>(0 - static_cast<uint64_t>(x[i])) : x[i]; // MIN stays MIN
    EXPECT_EQ(a[i], expected) << x[i];
    const int32_t narrowed = static_cast<int32_t>(x[i]);
    EXPECT_EQ(s[i], (narrowed > 0) - (narrowed < 0)) << x[i];
  }
}

LOOM_INSTANTIATE_TARGETS(MathAccuracy);

} // namespace
