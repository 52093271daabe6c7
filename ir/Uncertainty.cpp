#include "ir/Uncertainty.h"

#include "ir/MathFunctions.h"
#include "support/Float16.h"

#include <algorithm>
#include <cfloat>
#include <cmath>

namespace loom::ir {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

double max_finite(ScalarType t) {
  return t == ScalarType::F32 ? FLT_MAX : DBL_MAX;
}

// The spacing of t's values at magnitude x (at least the smallest denormal); inf past the range.
double ulp(ScalarType t, double x) {
  x = std::fabs(x);
  if (!std::isfinite(x) || x > max_finite(t))
    return kInf;
  if (t == ScalarType::F32) {
    float f = static_cast<float>(x);
    float up = std::nextafter(f, std::numeric_limits<float>::infinity());
    return std::isfinite(up) ? static_cast<double>(up) - f
                             : static_cast<double>(f) - std::nextafter(f, 0.0f);
  }
  double up = std::nextafter(x, kInf);
  return std::isfinite(up) ? up - x : x - std::nextafter(x, 0.0);
}

// An operation whose operands may be off by `e` rounds the perturbed result: one more ulp.
double inexact(ScalarType t, double r, double e) {
  return e == 0 ? 0 : e + ulp(t, std::fabs(r) + e);
}

// The bound for result r: any value when the bound is not finite or reaches past the range (one
// backend may overflow where another does not).
Uncertainty finish(ScalarType t, double r, double error, double slack = 0) {
  if (error == 0)
    return {0, slack};
  if (std::isnan(error) || !std::isfinite(error) || !std::isfinite(r) ||
      std::fabs(r) + error > max_finite(t))
    return Uncertainty::any();
  return {error, slack};
}

Uncertainty int_result(Uncertainty a, Uncertainty b = {}) {
  return a.unknown() || b.unknown() ? Uncertainty::any() : Uncertainty{};
}

// The rounding error of the product r = fl(a * b): what fusing it into an add may change.
double product_residual(ScalarType t, double a, double b, double r) {
  if (std::isinf(r) && std::isfinite(a) && std::isfinite(b))
    return kInf; // overflowed here; a fused a*b+c may not
  if (!std::isfinite(r))
    return 0;
  if (t == ScalarType::F32)
    return std::fabs(a * b - r); // two floats' product is exact in double
  return std::fabs(std::fma(a, b, -r)) + std::numeric_limits<double>::denorm_min();
}

// Whether every value in [lo, hi] gives the same comparison result as the interpreter's.
bool comparison_decided(BinaryOp op, double a, double ea, double b, double eb) {
  double lo_a = a - ea, hi_a = a + ea, lo_b = b - eb, hi_b = b + eb;
  switch (op) {
  case BinaryOp::Lt:
  case BinaryOp::Ge:
    return hi_a < lo_b || lo_a >= hi_b;
  case BinaryOp::Le:
  case BinaryOp::Gt:
    return hi_a <= lo_b || lo_a > hi_b;
  default: // Eq, Ne: decided only when the intervals are apart
    return hi_a < lo_b || hi_b < lo_a;
  }
}

int64_t saturated(ScalarType to, double f) {
  ScalarValue v;
  v.f = f;
  return cast_op(to, ScalarType::F64, v).i;
}

// The function at x (and y) in long double: tells a far overflow (every backend gives inf)
// from one at the edge of the range, and bounds how far an uncertain argument moves the result.
long double wide_value(MathFn fn, long double x, long double y) {
  int sign;
  // clang-format off
  switch (fn) {
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
  case MathFn::Rsqrt: return 1 / std::sqrt(x);
  case MathFn::Sinh: return std::sinh(x);
  case MathFn::Tan: return std::tan(x);
  default: return 0;
  }
  // clang-format on
}

// Whether a pole or a branch cut of fn lies where uncertain arguments may be: the values
// there are not bounded by the values around it.
bool crosses_singularity(MathFn fn, double x, double e, double y, double ey) {
  const long double lo = static_cast<long double>(x) - e, hi = static_cast<long double>(x) + e;
  switch (fn) {
  case MathFn::Tan: { // poles at pi/2 + k pi
    const long double pi = 3.141592653589793238462643383279502884L;
    return std::floor(lo / pi - 0.5L) != std::floor(hi / pi - 0.5L);
  }
  case MathFn::Gamma:
  case MathFn::Lgamma: // poles at 0, -1, -2, ...
    return lo <= 0 && std::ceil(lo) <= std::min(hi, 0.0L);
  case MathFn::Atan2: // atan2(x, y) jumps by 2 pi across x = 0 where y < 0
    return lo <= 0 && hi >= 0 && (static_cast<long double>(y) - ey) <= 0;
  default:
    return false;
  }
}

// How far fn's value may move when its arguments move within their bounds: twice the largest
// change over a grid of the box (the functions are smooth there), or infinity when an argument's
// bound reaches a domain edge, a pole or a branch cut.
double propagated_error(MathFn fn, int arity, double x, double e, double y, double ey) {
  if (e == 0 && ey == 0)
    return 0;
  if (crosses_singularity(fn, x, e, y, ey))
    return kInf;
  const long double at = wide_value(fn, x, y);
  long double worst = 0;
  const int ny = arity > 1 ? 2 : 0;
  for (int i = -4; i <= 4; ++i)
    for (int j = -ny; j <= ny; ++j) {
      long double v = wide_value(fn, x + e * (i / 4.0L), y + ey * (j / 2.0L));
      if (std::isnan(v) != std::isnan(at) || std::isinf(v))
        return kInf;
      if (!std::isnan(v))
        worst = std::max(worst, std::fabs(v - at));
    }
  return static_cast<double>(2 * worst);
}

// The magnitude whose ulps measure fn's error near result r: r itself, except lgamma, whose
// libraries are accurate in absolute terms near its zeros (1, 2 and between the negative poles).
double error_scale(MathFn fn, double x, double r) {
  if (fn != MathFn::Lgamma)
    return std::fabs(r);
  double scale = std::max(std::fabs(r), 1.0);
  if (x < 0) // lgamma(x) = log(pi / |x sin(pi x)|) - lgamma(1 - x): that term's size
    scale = std::max(scale, 1 + std::fabs(x) * (1 + std::log1p(std::fabs(x))));
  return scale;
}

} // namespace

Uncertainty unary_uncertainty(UnaryOp op, ScalarType t, ScalarValue a, Uncertainty ua,
                              ScalarValue r) {
  if (op == UnaryOp::Neg && is_float(t))
    return ua; // exact; -(a*b) + c still fuses
  if (is_rounding(op)) {
    // Rounding is monotonic: when both ends of the operand's bound (widened by a double's ulp
    // against the rounding of a -+ e) round to the same 16-bit value, zeros of one sign, so does
    // every value between them, another backend's too.
    if (!ua.unknown() && std::isfinite(a.f)) {
      const double e = ua.error + ua.fma_slack;
      auto round = [op](double x) {
        return op == UnaryOp::RoundF16    ? round_to_f16(x)
               : op == UnaryOp::RoundBF16 ? round_to_bf16(x)
                                          : round_to_tf32(x);
      };
      const double lo = round(std::nextafter(a.f - e, -kInf)),
                   hi = round(std::nextafter(a.f + e, kInf));
      if (lo == hi && std::signbit(lo) == std::signbit(hi))
        return {};
    }
    // Else as a store into a 16-bit array rounds (TF32 as bf16: its spacing is the wider, so the
    // bound holds).
    return storage_uncertainty(op == UnaryOp::RoundF16 ? ScalarType::F16 : ScalarType::BF16, r, ua);
  }
  return int_result(ua);
}

Uncertainty binary_uncertainty(BinaryOp op, ScalarType t, ScalarValue av, Uncertainty ua,
                               ScalarValue bv, Uncertainty ub, ScalarValue rv) {
  if (!is_float(t))
    return int_result(ua, ub);
  if (ua.unknown() || ub.unknown())
    return Uncertainty::any();
  const double a = av.f, b = bv.f, r = rv.f, ea = ua.error, eb = ub.error;
  // A NaN operand is exact (an uncertain one is unknown): it decides the result everywhere.
  if (std::isnan(a) || std::isnan(b)) {
    if (op == BinaryOp::Min || op == BinaryOp::Max) // the other operand, itself: LLVM folds
      return std::isnan(a) ? ub : ua;               // min(a * b, NaN) + c into fma(a, b, c)
    return {};
  }
  if (is_comparison(op))
    return (ea == 0 && eb == 0) || comparison_decided(op, a, ea, b, eb) ? Uncertainty{}
                                                                        : Uncertainty::any();
  // An exact infinity plus or minus a finite number (uncertain ones are never near overflow).
  if ((op == BinaryOp::Add || op == BinaryOp::Sub) &&
      ((std::isinf(a) && ea == 0 && std::isfinite(b)) ||
       (std::isinf(b) && eb == 0 && std::isfinite(a))))
    return {};
  switch (op) {
  case BinaryOp::Add:
  case BinaryOp::Sub:
    return finish(t, r, inexact(t, r, ea + eb + ua.fma_slack + ub.fma_slack));
  case BinaryOp::Mul: {
    double e = inexact(t, r, std::fabs(a) * eb + std::fabs(b) * ea + ea * eb);
    // A zero product of an uncertain operand: its sign is that operand's, which may differ, and
    // the sign of a zero decides what a later division or rsqrt gives (+inf or -inf).
    if (r == 0 && e == 0 && (ea > 0 || eb > 0))
      e = std::numeric_limits<double>::denorm_min();
    double slack = e == 0 ? product_residual(t, a, b, r) : ulp(t, std::fabs(r) + e);
    if (std::isinf(slack))
      return Uncertainty::any();
    return finish(t, r, e, slack);
  }
  case BinaryOp::Div:
    if (ea == 0 && eb == 0)
      return {};
    if (std::isinf(b)) {
      // A zero, of the sign of the finite dividend: unknown where the dividend may overflow or
      // the divisor be finite, a zero of either sign where the dividend's sign is uncertain.
      if (eb > 0 || std::fabs(a) + ea > max_finite(t))
        return Uncertainty::any();
      return {a - ea <= 0 && a + ea >= 0 ? std::numeric_limits<double>::denorm_min() : 0, 0};
    }
    if (eb >= std::fabs(b))
      return Uncertainty::any();
    return finish(t, r, inexact(t, r, (ea + std::fabs(r) * eb) / (std::fabs(b) - eb)));
  case BinaryOp::Mod: {
    // fmod is exact, and continuous in a between multiples of b.
    if (ea == 0 && eb == 0)
      return {};
    if (eb > 0 || std::isnan(r))
      return Uncertainty::any();
    long double m = std::fabs(static_cast<long double>(b));
    if (std::trunc((a - ea) / m) != std::trunc((a + ea) / m))
      return Uncertainty::any();
    return finish(t, r, inexact(t, r, ea));
  }
  case BinaryOp::Min:
  case BinaryOp::Max: {
    double e = std::max(ea, eb);
    // Between -0 and +0 either may be returned (fmin/llvm.minnum).
    if (a == 0 && b == 0 && std::signbit(a) != std::signbit(b))
      e = std::max(e, std::numeric_limits<double>::denorm_min());
    // The operands' slack stays: LLVM folds min(x, x), or a min it can decide, to an operand,
    // and a product there may still fuse into a following add (min(t, t) + 1 with t = -(n * x)
    // stored and loaded again became fma(-n, x, 1) on the GPU).
    return finish(t, r, e, std::max(ua.fma_slack, ub.fma_slack));
  }
  default:
    return Uncertainty::any();
  }
}

Uncertainty cast_uncertainty(ScalarType to, ScalarType from, ScalarValue a, Uncertainty ua,
                             ScalarValue r) {
  if (ua.unknown())
    return Uncertainty::any();
  if (!is_float(from) || to == from)
    return ua;
  // A product keeps its slack into f64, and back into f32 when that is exact: LLVM folds
  // f32(f64(x * y)) to x * y, which may then fuse into a following add.
  if (ua.error == 0)
    return {0, to == ScalarType::F64 || (to == ScalarType::F32 && r.f == a.f) ? ua.fma_slack : 0};
  const double lo = a.f - ua.error, hi = a.f + ua.error;
  if (to == ScalarType::Bool)
    return lo > 0 || hi < 0 ? Uncertainty{} : Uncertainty::any();
  if (is_int(to))
    return saturated(to, lo) == saturated(to, hi) ? Uncertainty{} : Uncertainty::any();
  if (to == ScalarType::F32)
    return finish(to, r.f, inexact(to, r.f, ua.error));
  return {ua.error, ua.fma_slack};
}

Uncertainty math_uncertainty(MathFn fn, ScalarType t, const ScalarValue *args,
                             const Uncertainty *us, ScalarValue rv) {
  const MathFnInfo &info = math_info(fn);
  const int arity = info.arity;
  for (int k = 0; k < arity; ++k)
    if (us[k].unknown())
      return Uncertainty::any();
  if (!is_float(t))
    return {}; // abs or sign of an integer
  const double x = args[0].f, e = us[0].error, r = rv.f;
  const double y = arity > 1 ? args[1].f : 0, ey = arity > 1 ? us[1].error : 0;
  // A rounding to an integer, or a sign, is decided when the bound's ends give the same.
  auto decided = [&](double v) {
    ScalarValue lo, hi;
    lo.f = v - e;
    hi.f = v + e;
    return math_op(fn, ScalarType::F64, &lo).f == math_op(fn, ScalarType::F64, &hi).f;
  };
  switch (fn) {
  case MathFn::Abs:
    return {e, 0};
  case MathFn::Floor:
  case MathFn::Ceil:
  case MathFn::Trunc:
  case MathFn::Round:
  case MathFn::Sign:
    return e == 0 || decided(x) ? Uncertainty{} : Uncertainty::any();
  case MathFn::Copysign: // |x| with y's sign; a NaN's sign bit is not defined (asin(inf))
    if (std::isnan(y))
      return Uncertainty::any();
    return ey == 0 || y - ey > 0 || y + ey < 0 ? Uncertainty{e, 0} : Uncertainty::any();
  case MathFn::IsFinite:
  case MathFn::IsInf:
  case MathFn::IsNan: // an uncertain value is a finite one
    return e == 0 || (std::isfinite(x) && std::fabs(x) + e <= max_finite(t)) ? Uncertainty{}
                                                                             : Uncertainty::any();
  case MathFn::Ldexp: // exact but for a subnormal result's rounding
    return e == 0 ? Uncertainty{}
                  : finish(t, r, inexact(t, r, std::ldexp(e, static_cast<int>(args[1].i))));
  case MathFn::Remainder: // exact, but not continuous where the quotient's rounding changes
    return e == 0 && ey == 0 ? Uncertainty{} : Uncertainty::any();
  case MathFn::Sqrt:
    if (e == 0 || x + e < 0)
      return {}; // correctly rounded everywhere; NaN everywhere
    if (x - e < 0)
      return Uncertainty::any();
    return finish(t, r, inexact(t, r, e / (std::sqrt(x - e) + std::sqrt(x))));
  case MathFn::Fma: {
    const double ez = us[2].error;
    // fma(x, 1, z) is x + z (and fma(1, y, z) is y + z), which LLVM makes an add: a product in an
    // operand may then fuse into it, as into any add.
    const double fused = std::fabs(x) == 1 || std::fabs(y) == 1
                             ? us[0].fma_slack + us[1].fma_slack + us[2].fma_slack
                             : 0;
    double error = inexact(t, r, std::fabs(x) * ey + std::fabs(y) * e + e * ey + ez + fused);
    // fma(x, y, -0) is x * y, and LLVM turns it into one: a product the GPU may fuse again.
    double slack = 0;
    if (args[2].f == 0)
      slack = error == 0 ? product_residual(t, x, y, r) : ulp(t, std::fabs(r) + error);
    if (std::isinf(slack))
      return Uncertainty::any();
    return finish(t, r, error, slack);
  }
  default:
    break;
  }

  // The library functions: the propagated error plus the libraries' difference.
  double propagated = 0;
  if (e > 0 || ey > 0) {
    switch (fn) {
    case MathFn::Exp:
      propagated = std::exp(x + e) - std::exp(x);
      break;
    case MathFn::Log:
      if (x - e <= 0)
        return Uncertainty::any();
      propagated = e / (x - e);
      break;
    case MathFn::Pow: {
      if (x - e <= 0)
        return Uncertainty::any(); // negative bases need an exact integer exponent
      double log_error = (std::fabs(y) + ey) * (e / (x - e)) + std::fabs(std::log(x)) * ey;
      propagated = 2 * std::fabs(r) * std::expm1(log_error);
      break;
    }
    case MathFn::Sin:
    case MathFn::Cos:
    case MathFn::Tanh: // 1-Lipschitz
      propagated = e;
      break;
    default:
      propagated = propagated_error(fn, arity, x, e, y, ey);
      if (std::isinf(propagated))
        return Uncertainty::any();
      break;
    }
  }
  if (std::isnan(r))
    return propagated == 0 ? Uncertainty{} : Uncertainty::any();
  if (std::isinf(r)) {
    if (propagated != 0)
      return Uncertainty::any();
    if (fn == MathFn::Log || std::isinf(x) || (fn == MathFn::Pow && (x == 0 || std::isinf(y))))
      return {}; // log(0), pow(0, -y), infinite inputs: exact special cases
    // A pole (lgamma(0), atanh(1)) or a far overflow: every backend gives the infinity.
    long double wide = wide_value(fn, x, y);
    return std::fabs(wide) > 2.0L * max_finite(t) ? Uncertainty{} : Uncertainty::any();
  }
  const double ulps = t == ScalarType::F32 ? info.ulps_f32 : info.ulps_f64;
  const double scale = error_scale(fn, x, r) + propagated;
  double error = propagated + ulps * ulp(t, scale);
  // LLVM rewrites pow(2^n, y) as exp2(n * y) even without fast-math: the rounding of n * y
  // (relative u) becomes a relative error of |log2 r| * u * ln 2 in the result.
  if (fn == MathFn::Pow)
    error += std::fabs(std::log2(std::fabs(r) + propagated)) * ulp(t, std::fabs(r) + propagated);
  return finish(t, r, error);
}

Uncertainty either_uncertainty(ScalarType t, ScalarValue a, Uncertainty ua, ScalarValue b,
                               Uncertainty ub, ScalarValue r) {
  if (ua.unknown() || ub.unknown())
    return Uncertainty::any();
  if (!is_float(t))
    return a.i == b.i ? Uncertainty{} : Uncertainty::any();
  if (std::isnan(a.f) || std::isnan(b.f))
    return std::isnan(a.f) && std::isnan(b.f) ? Uncertainty{} : Uncertainty::any();
  double e = std::max(ua.error, ub.error) + std::fabs(a.f - b.f);
  if (e == 0 && std::signbit(a.f) != std::signbit(b.f))
    e = std::numeric_limits<double>::denorm_min();
  return finish(t, r.f, e, std::max(ua.fma_slack, ub.fma_slack));
}

Uncertainty storage_uncertainty(ScalarType t, ScalarValue stored, Uncertainty u) {
  if (!is_half_float(t) || u.unknown() || std::isnan(stored.f))
    return u;
  // Another backend's f32 is within error (and a fused product's slack) of ours; each rounds to
  // a 16-bit neighbour, at most one spacing of the larger magnitude apart beyond that.
  const double error = u.error + u.fma_slack;
  const double magnitude = std::fabs(stored.f) + error;
  const double max_finite = t == ScalarType::F16 ? 65504.0 : 0x1.fep127;
  if (!(magnitude < max_finite)) // near overflow one may round to infinity, the other not
    return Uncertainty::any();
  if (error == 0)
    return {0, 0}; // the same f32 rounds to the same 16 bits
  const int bits = t == ScalarType::F16 ? 10 : 7;
  const int min_exponent = t == ScalarType::F16 ? -14 : -126;
  const int exponent =
      magnitude == 0 ? min_exponent : std::max(std::ilogb(magnitude), min_exponent);
  return {error + std::ldexp(1.0, exponent - bits), 0};
}

bool within_uncertainty(ScalarType t, ScalarValue ref, Uncertainty u, ScalarValue other) {
  if (u.unknown())
    return true;
  if (!is_float(t))
    return ref.i == other.i;
  if (std::isnan(ref.f) || std::isnan(other.f))
    return std::isnan(ref.f) && std::isnan(other.f);
  if (u.error == 0)
    return ref.f == other.f;
  return std::fabs(other.f - ref.f) <= u.error;
}

} // namespace loom::ir
