#include "ir/Semantics.h"

#include "ir/MathFunctions.h"

#include "support/Error.h"
#include "support/Float16.h"

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

namespace loom::ir {

namespace {

// The smallest value of a signed integer type (MIN / -1 is MIN).
int64_t min_of(ScalarType t) {
  return int_min(t);
}

int64_t wrap(ScalarType t, uint64_t v) {
  return wrap_int(t, v);
}

// Integer result of a float, truncated toward zero and saturated to t's range; NaN gives 0.
int64_t saturate(ScalarType t, double f) {
  if (std::isnan(f))
    return 0;
  const double truncated = std::trunc(f);
  const int bits = bit_width(t);
  if (is_unsigned(t)) {
    if (truncated <= 0)
      return 0;
    const double limit = std::ldexp(1.0, bits); // 2^bits, exact
    if (truncated >= limit)
      return int_max(t);
    return wrap_int(t, static_cast<uint64_t>(truncated));
  }
  const double limit = std::ldexp(1.0, bits - 1); // 2^(bits-1): the max plus one, exact
  if (truncated >= limit)
    return int_max(t);
  if (truncated < -limit)
    return min_of(t);
  return static_cast<int64_t>(truncated);
}

// Whether a < b for integers of type t as held (unsigned ones compare as unsigned: a u64 above
// INT64_MAX is held negative).
bool int_less(ScalarType t, int64_t a, int64_t b) {
  return is_unsigned(t) ? static_cast<uint64_t>(a) < static_cast<uint64_t>(b) : a < b;
}

// Float operators, computed in the type itself so that f32 rounds after every operation.
template <class F> ScalarValue float_binary(BinaryOp op, F a, F b) {
  ScalarValue r;
  switch (op) {
  case BinaryOp::Add:
    r.f = a + b;
    break;
  case BinaryOp::Sub:
    r.f = a - b;
    break;
  case BinaryOp::Mul:
    r.f = a * b;
    break;
  case BinaryOp::Div:
    r.f = a / b;
    break;
  case BinaryOp::Mod:
    r.f = std::fmod(a, b);
    break;
  case BinaryOp::Min:
    r.f = std::fmin(a, b);
    break;
  case BinaryOp::Max:
    r.f = std::fmax(a, b);
    break;
  case BinaryOp::Lt:
    r.i = a < b;
    break;
  case BinaryOp::Le:
    r.i = a <= b;
    break;
  case BinaryOp::Gt:
    r.i = a > b;
    break;
  case BinaryOp::Ge:
    r.i = a >= b;
    break;
  case BinaryOp::Eq:
    r.i = a == b;
    break;
  case BinaryOp::Ne:
    r.i = a != b;
    break;
  default: // bitwise and logical operators are not defined on floats (IR.cpp rejects them)
    break;
  }
  return r;
}

// Python's round: to the nearest integer, a tie to the even one (independent of the rounding mode).
template <class F> F round_half_even(F x) {
  F r = std::round(x); // ties away from zero
  if (std::fabs(x - std::trunc(x)) == F(0.5))
    r = 2 * std::round(x / 2);
  return r;
}

template <class F> F log_gamma(F x) {
  int sign; // lgamma_r: lgamma writes the global signgam, a race between threads
  if constexpr (std::is_same_v<F, float>)
    return lgammaf_r(x, &sign);
  else
    return lgamma_r(x, &sign);
}

// Math functions in F's precision, through the host's C library as the CPU's code calls it.
// `args` holds the function's arity of values (one, for most).
template <class F> ScalarValue float_math(MathFn fn, const ScalarValue *args) {
  F x = static_cast<F>(args[0].f);
  F y = fn_arity(fn) > 1 ? static_cast<F>(args[1].f) : F(0);
  ScalarValue r;
  auto set = [&r](F v) { r.f = v; };
  // clang-format off
  switch (fn) {
  case MathFn::Sqrt: set(std::sqrt(x)); break;
  case MathFn::Exp: set(std::exp(x)); break;
  case MathFn::Log: set(std::log(x)); break;
  case MathFn::Sin: set(std::sin(x)); break;
  case MathFn::Cos: set(std::cos(x)); break;
  case MathFn::Tanh: set(std::tanh(x)); break;
  case MathFn::Pow: set(std::pow(x, y)); break;
  case MathFn::Abs: set(std::fabs(x)); break;
  case MathFn::Floor: set(std::floor(x)); break;
  case MathFn::Fma: set(std::fma(x, y, static_cast<F>(args[2].f))); break;
  case MathFn::Acos: set(std::acos(x)); break;
  case MathFn::Acosh: set(std::acosh(x)); break;
  case MathFn::Asin: set(std::asin(x)); break;
  case MathFn::Asinh: set(std::asinh(x)); break;
  case MathFn::Atan: set(std::atan(x)); break;
  case MathFn::Atan2: set(std::atan2(x, y)); break;
  case MathFn::Atanh: set(std::atanh(x)); break;
  case MathFn::Cbrt: set(std::cbrt(x)); break;
  case MathFn::Ceil: set(std::ceil(x)); break;
  case MathFn::Copysign: set(std::copysign(x, y)); break;
  case MathFn::Cosh: set(std::cosh(x)); break;
  case MathFn::Erf: set(std::erf(x)); break;
  case MathFn::Erfc: set(std::erfc(x)); break;
  case MathFn::Exp2: set(std::exp2(x)); break;
  case MathFn::Expm1: set(std::expm1(x)); break;
  case MathFn::Gamma: set(std::tgamma(x)); break;
  case MathFn::Hypot: set(std::hypot(x, y)); break;
  case MathFn::IsFinite: r.i = std::isfinite(x); break;
  case MathFn::IsInf: r.i = std::isinf(x); break;
  case MathFn::IsNan: r.i = std::isnan(x); break;
  case MathFn::Ldexp: set(std::ldexp(x, static_cast<int>(args[1].i))); break;
  case MathFn::Lgamma: set(log_gamma(x)); break;
  case MathFn::Log10: set(std::log10(x)); break;
  case MathFn::Log1p: set(std::log1p(x)); break;
  case MathFn::Log2: set(std::log2(x)); break;
  case MathFn::Remainder: set(std::remainder(x, y)); break;
  case MathFn::Round: set(round_half_even(x)); break;
  case MathFn::Rsqrt: set(F(1) / std::sqrt(x)); break;
  case MathFn::Sign: set(x > 0 ? F(1) : x < 0 ? F(-1) : x); break; // keeps ±0 and NaN
  case MathFn::Sinh: set(std::sinh(x)); break;
  case MathFn::Tan: set(std::tan(x)); break;
  case MathFn::Trunc: set(std::trunc(x)); break;
  case MathFn::Real: set(x); break; // of a real number: itself (complex ones are expanded)
  case MathFn::Conj: set(x); break;
  case MathFn::Imag: set(F(0)); break;
  case MathFn::Complex: throw Error("internal error: complex() evaluated as a real function");
  }
  // clang-format on
  return r;
}

} // namespace

ScalarValue int_value(ScalarType t, int64_t v) {
  ScalarValue r;
  r.i = wrap(t, static_cast<uint64_t>(v));
  return r;
}

ScalarValue float_value(ScalarType t, double v) {
  ScalarValue r;
  r.f = t == ScalarType::F32    ? static_cast<double>(static_cast<float>(v))
        : t == ScalarType::F16  ? round_to_f16(v)
        : t == ScalarType::BF16 ? round_to_bf16(v)
                                : v;
  return r;
}

ScalarValue unary_op(UnaryOp op, ScalarType t, ScalarValue a) {
  ScalarValue r;
  switch (op) {
  case UnaryOp::Neg:
    if (is_float(t))
      r.f = -a.f;
    else
      r.i = wrap(t, 0 - static_cast<uint64_t>(a.i));
    break;
  case UnaryOp::Not:
    r.i = !a.i;
    break;
  case UnaryOp::BitNot:
    r.i = wrap(t, ~static_cast<uint64_t>(a.i));
    break;
  case UnaryOp::RoundF16:
    r.f = round_to_f16(a.f);
    break;
  case UnaryOp::RoundBF16:
    r.f = round_to_bf16(a.f);
    break;
  case UnaryOp::RoundTF32:
    r.f = round_to_tf32(a.f);
    break;
  }
  return r;
}

ScalarValue binary_op(BinaryOp op, ScalarType t, ScalarValue a, ScalarValue b) {
  if (is_half_float(t)) { // computed as f32, the result rounded (expand_half's definition)
    ScalarValue r = float_binary<float>(op, static_cast<float>(a.f), static_cast<float>(b.f));
    if (!is_comparison(op))
      r = float_value(t, r.f);
    return r;
  }
  if (t == ScalarType::F32)
    return float_binary<float>(op, static_cast<float>(a.f), static_cast<float>(b.f));
  if (t == ScalarType::F64)
    return float_binary<double>(op, a.f, b.f);
  const uint64_t ua = a.i, ub = b.i;
  const int bits = bit_width(t);
  const bool u = is_unsigned(t);
  const bool min_by_minus_one = !u && t != ScalarType::Bool && a.i == min_of(t) && b.i == -1;
  ScalarValue r;
  switch (op) {
  case BinaryOp::Add:
    r.i = wrap(t, ua + ub);
    break;
  case BinaryOp::Sub:
    r.i = wrap(t, ua - ub);
    break;
  case BinaryOp::Mul:
    r.i = wrap(t, ua * ub);
    break;
  case BinaryOp::Div:
    r.i = b.i == 0 ? 0 : u ? wrap(t, ua / ub) : min_by_minus_one ? a.i : a.i / b.i;
    break;
  case BinaryOp::Mod:
    r.i = b.i == 0 ? a.i : u ? wrap(t, ua % ub) : min_by_minus_one ? 0 : a.i % b.i;
    break;
  case BinaryOp::Min:
    r.i = int_less(t, b.i, a.i) ? b.i : a.i;
    break;
  case BinaryOp::Max:
    r.i = int_less(t, a.i, b.i) ? b.i : a.i;
    break;
  case BinaryOp::BitAnd:
  case BinaryOp::And:
    r.i = a.i & b.i;
    break;
  case BinaryOp::BitOr:
  case BinaryOp::Or:
    r.i = a.i | b.i;
    break;
  case BinaryOp::BitXor:
    r.i = a.i ^ b.i;
    break;
  case BinaryOp::Shl:
    r.i = wrap(t, ua << (ub % bits));
    break;
  case BinaryOp::Shr: // signed: arithmetic (held sign-extended); unsigned: logical (zero-extended)
    r.i = u ? wrap(t, ua >> (ub % bits)) : a.i >> (ub % bits);
    break;
  case BinaryOp::Lt:
    r.i = int_less(t, a.i, b.i);
    break;
  case BinaryOp::Le:
    r.i = !int_less(t, b.i, a.i);
    break;
  case BinaryOp::Gt:
    r.i = int_less(t, b.i, a.i);
    break;
  case BinaryOp::Ge:
    r.i = !int_less(t, a.i, b.i);
    break;
  case BinaryOp::Eq:
    r.i = a.i == b.i;
    break;
  case BinaryOp::Ne:
    r.i = a.i != b.i;
    break;
  }
  return r;
}

ScalarValue cast_op(ScalarType to, ScalarType from, ScalarValue a) {
  if (to == from)
    return a;
  if (is_complex(to) || is_complex(from)) {
    if (to == ScalarType::Bool)
      return int_value(to, a.f != 0 || a.im != 0);
    if (!is_complex(to))
      return cast_op(to, part_type(from), a);
    const ScalarType t = part_type(to);
    ScalarValue r = cast_op(t, part_type(from), a);
    r.i = 0;
    r.im = is_complex(from) ? float_value(t, a.im).f : 0;
    return r;
  }
  ScalarValue r;
  if (to == ScalarType::Bool) {
    r.i = is_float(from) ? a.f != 0 : a.i != 0; // NaN != 0 is true
  } else if (is_int(to)) {
    r.i = is_float(from) ? saturate(to, a.f) : wrap(to, static_cast<uint64_t>(a.i));
  } else if (is_float(from)) {
    r = float_value(to, a.f);
  } else if (is_unsigned(from)) { // one rounding from the integer (via double could round twice)
    const uint64_t v = static_cast<uint64_t>(a.i);
    r.f =
        to == ScalarType::F32 ? static_cast<double>(static_cast<float>(v)) : static_cast<double>(v);
  } else if (to == ScalarType::F32) {
    r.f = static_cast<double>(static_cast<float>(a.i));
  } else {
    r.f = static_cast<double>(a.i);
  }
  if (is_half_float(to) && !is_float(from)) // an integer: via f64 (exact below 2^53)
    r = float_value(to, r.f);
  return r;
}

ScalarValue math_op(MathFn fn, ScalarType t, const ScalarValue *args) {
  if (is_half_float(t)) {
    ScalarValue r = float_math<float>(fn, args);
    if (is_float(math_result_type(fn, t)))
      r = float_value(t, r.f);
    return r;
  }
  if (t == ScalarType::F32)
    return float_math<float>(fn, args);
  if (t == ScalarType::F64)
    return float_math<double>(fn, args);
  // abs and sign on integers; abs(MIN) == MIN; an unsigned value is its own abs.
  ScalarValue r;
  const int64_t x = args[0].i;
  if (is_unsigned(t))
    r.i = fn == MathFn::Sign ? x != 0 : x;
  else if (fn == MathFn::Sign)
    r.i = (x > 0) - (x < 0);
  else
    r.i = x < 0 ? wrap(t, 0 - static_cast<uint64_t>(x)) : x;
  return r;
}

bool same_value(ScalarType t, ScalarValue a, ScalarValue b) {
  if (is_complex(t)) {
    ScalarValue ai{0, a.im, 0}, bi{0, b.im, 0};
    return same_value(part_type(t), a, b) && same_value(part_type(t), ai, bi);
  }
  if (!is_float(t))
    return a.i == b.i;
  if (std::isnan(a.f) || std::isnan(b.f))
    return std::isnan(a.f) && std::isnan(b.f);
  return std::memcmp(&a.f, &b.f, sizeof(double)) == 0;
}

uint64_t value_bits(ScalarType t, ScalarValue v) {
  switch (t) {
  case ScalarType::Bool:
    return v.i != 0;
  case ScalarType::I32:
    return static_cast<uint32_t>(v.i);
  case ScalarType::I64:
  case ScalarType::U64:
    return static_cast<uint64_t>(v.i);
  case ScalarType::I8:
  case ScalarType::I16:
  case ScalarType::U8:
  case ScalarType::U16:
  case ScalarType::U32:
    return static_cast<uint64_t>(v.i) & ((uint64_t(1) << bit_width(t)) - 1);
  case ScalarType::F32:
    return std::bit_cast<uint32_t>(static_cast<float>(v.f));
  case ScalarType::F64:
    return std::bit_cast<uint64_t>(v.f);
  case ScalarType::F16:
    return f16_bits_from_f32(static_cast<float>(v.f));
  case ScalarType::BF16:
    return bf16_bits_from_f32(static_cast<float>(v.f));
  case ScalarType::C64:
  case ScalarType::C128:
    throw Error("internal error: a complex value in 64 bits (warp collectives take reals)");
  }
  return 0;
}

ScalarValue value_from_bits(ScalarType t, uint64_t bits) {
  ScalarValue v;
  switch (t) {
  case ScalarType::Bool:
    v.i = bits != 0;
    break;
  case ScalarType::I32:
    v.i = static_cast<int32_t>(static_cast<uint32_t>(bits));
    break;
  case ScalarType::I64:
  case ScalarType::I8:
  case ScalarType::I16:
  case ScalarType::U8:
  case ScalarType::U16:
  case ScalarType::U32:
  case ScalarType::U64:
    v.i = wrap_int(t, bits);
    break;
  case ScalarType::F32:
    v.f = std::bit_cast<float>(static_cast<uint32_t>(bits));
    break;
  case ScalarType::F64:
    v.f = std::bit_cast<double>(bits);
    break;
  case ScalarType::F16:
    v.f = f32_from_f16_bits(static_cast<uint16_t>(bits));
    break;
  case ScalarType::BF16:
    v.f = f32_from_bf16_bits(static_cast<uint16_t>(bits));
    break;
  case ScalarType::C64:
  case ScalarType::C128:
    throw Error("internal error: a complex value in 64 bits (warp collectives take reals)");
  }
  return v;
}

uint64_t warp_result(WarpOpKind op, const uint64_t *values, uint32_t active, int lane, uint64_t own,
                     int32_t operand) {
  const int d = static_cast<int>(static_cast<uint32_t>(operand) & 31u);
  auto from = [&](int source) { // a lane outside the warp or not taking part: the own value
    return source >= 0 && source < 32 && (active >> source & 1u) ? values[source] : own;
  };
  switch (op) {
  case WarpOpKind::ShflIdx:
    return from(d);
  case WarpOpKind::ShflUp:
    return from(lane - d);
  case WarpOpKind::ShflDown:
    return from(lane + d);
  case WarpOpKind::ShflXor:
    return from(lane ^ d);
  case WarpOpKind::Any:
  case WarpOpKind::All:
  case WarpOpKind::Ballot: {
    uint32_t ballot = 0;
    for (int l = 0; l < 32; ++l)
      if ((active >> l & 1u) && values[l] != 0)
        ballot |= 1u << l;
    if (op == WarpOpKind::Ballot)
      return ballot;
    if (op == WarpOpKind::Any)
      return ballot != 0;
    return ballot == active;
  }
  }
  return own;
}

ScalarValue load_scalar(const void *memory, ScalarType type) {
  const unsigned char *p = static_cast<const unsigned char *>(memory);
  ScalarValue v;
  switch (type) {
  case ScalarType::Bool:
    v.i = *p != 0; // any non-zero byte is true, as in compiled code
    break;
  case ScalarType::I32: {
    int32_t x;
    std::memcpy(&x, p, 4);
    v.i = x;
    break;
  }
  case ScalarType::I64:
    std::memcpy(&v.i, p, 8);
    break;
  case ScalarType::I8:
  case ScalarType::I16:
  case ScalarType::U8:
  case ScalarType::U16:
  case ScalarType::U32:
  case ScalarType::U64: {
    uint64_t bits = 0; // little-endian: the low bytes
    std::memcpy(&bits, p, byte_size(type));
    v.i = wrap_int(type, bits);
    break;
  }
  case ScalarType::F32: {
    float x;
    std::memcpy(&x, p, 4);
    v.f = x;
    break;
  }
  case ScalarType::F64:
    std::memcpy(&v.f, p, 8);
    break;
  case ScalarType::F16:
  case ScalarType::BF16: {
    uint16_t bits;
    std::memcpy(&bits, p, 2);
    v.f = type == ScalarType::F16 ? f32_from_f16_bits(bits) : f32_from_bf16_bits(bits);
    break;
  }
  case ScalarType::C64:
  case ScalarType::C128: { // as std::complex: the real part, then the imaginary part
    const ScalarType t = part_type(type);
    v.f = load_scalar(p, t).f;
    v.im = load_scalar(p + byte_size(t), t).f;
    break;
  }
  }
  return v;
}

void store_scalar(void *memory, ScalarType type, ScalarValue v) {
  unsigned char *p = static_cast<unsigned char *>(memory);
  switch (type) {
  case ScalarType::Bool:
    *p = v.i != 0;
    break;
  case ScalarType::I32: {
    int32_t x = static_cast<int32_t>(v.i);
    std::memcpy(p, &x, 4);
    break;
  }
  case ScalarType::I64:
    std::memcpy(p, &v.i, 8);
    break;
  case ScalarType::I8:
  case ScalarType::I16:
  case ScalarType::U8:
  case ScalarType::U16:
  case ScalarType::U32:
  case ScalarType::U64: {
    uint64_t bits = static_cast<uint64_t>(v.i);
    std::memcpy(p, &bits, byte_size(type));
    break;
  }
  case ScalarType::F32: {
    float x = static_cast<float>(v.f);
    std::memcpy(p, &x, 4);
    break;
  }
  case ScalarType::F64:
    std::memcpy(p, &v.f, 8);
    break;
  case ScalarType::F16:
  case ScalarType::BF16: {
    // v is an f32 value (value_type), so rounding it once to 16 bits is the one rounding.
    float x = static_cast<float>(v.f);
    uint16_t bits = type == ScalarType::F16 ? f16_bits_from_f32(x) : bf16_bits_from_f32(x);
    std::memcpy(p, &bits, 2);
    break;
  }
  case ScalarType::C64:
  case ScalarType::C128: {
    const ScalarType t = part_type(type);
    store_scalar(p, t, v);
    store_scalar(p + byte_size(t), t, ScalarValue{0, v.im, 0});
    break;
  }
  }
}

} // namespace loom::ir
