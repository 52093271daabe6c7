#include "ir/Semantics.h"

#include "support/Float16.h"

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>

namespace loom::ir {

namespace {

int64_t min_of(ScalarType t) {
  return t == ScalarType::I32 ? std::numeric_limits<int32_t>::min()
                              : std::numeric_limits<int64_t>::min();
}

int64_t wrap(ScalarType t, uint64_t v) {
  if (t == ScalarType::I32)
    return static_cast<int32_t>(static_cast<uint32_t>(v));
  if (t == ScalarType::Bool)
    return v != 0;
  return static_cast<int64_t>(v);
}

// Integer result of a float, truncated toward zero and saturated to t's range; NaN gives 0.
int64_t saturate(ScalarType t, double f) {
  if (std::isnan(f))
    return 0;
  double truncated = std::trunc(f);
  if (t == ScalarType::I32) {
    if (truncated >= 2147483647.0)
      return std::numeric_limits<int32_t>::max();
    if (truncated <= -2147483648.0)
      return std::numeric_limits<int32_t>::min();
    return static_cast<int64_t>(truncated);
  }
  if (truncated >= 9223372036854775808.0) // 2^63: INT64_MAX is not a double
    return std::numeric_limits<int64_t>::max();
  if (truncated < -9223372036854775808.0)
    return std::numeric_limits<int64_t>::min();
  return static_cast<int64_t>(truncated);
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

template <class F> ScalarValue float_math(MathFn fn, const ScalarValue *args) {
  F x = static_cast<F>(args[0].f);
  ScalarValue r;
  switch (fn) {
  case MathFn::Sqrt:
    r.f = std::sqrt(x);
    break;
  case MathFn::Exp:
    r.f = std::exp(x);
    break;
  case MathFn::Log:
    r.f = std::log(x);
    break;
  case MathFn::Sin:
    r.f = std::sin(x);
    break;
  case MathFn::Cos:
    r.f = std::cos(x);
    break;
  case MathFn::Tanh:
    r.f = std::tanh(x);
    break;
  case MathFn::Pow:
    r.f = std::pow(x, static_cast<F>(args[1].f));
    break;
  case MathFn::Abs:
    r.f = std::fabs(x);
    break;
  case MathFn::Floor:
    r.f = std::floor(x);
    break;
  case MathFn::Fma:
    r.f = std::fma(x, static_cast<F>(args[1].f), static_cast<F>(args[2].f));
    break;
  }
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
  r.f = t == ScalarType::F32 ? static_cast<double>(static_cast<float>(v)) : v;
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
  }
  return r;
}

ScalarValue binary_op(BinaryOp op, ScalarType t, ScalarValue a, ScalarValue b) {
  if (t == ScalarType::F32)
    return float_binary<float>(op, static_cast<float>(a.f), static_cast<float>(b.f));
  if (t == ScalarType::F64)
    return float_binary<double>(op, a.f, b.f);
  const int64_t min = min_of(t);
  const uint64_t ua = a.i, ub = b.i;
  const int bits = bit_width(t);
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
    r.i = b.i == 0 ? 0 : (a.i == min && b.i == -1) ? a.i : a.i / b.i;
    break;
  case BinaryOp::Mod:
    r.i = b.i == 0 ? a.i : (a.i == min && b.i == -1) ? 0 : a.i % b.i;
    break;
  case BinaryOp::Min:
    r.i = a.i < b.i ? a.i : b.i;
    break;
  case BinaryOp::Max:
    r.i = a.i > b.i ? a.i : b.i;
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
  case BinaryOp::Shr: // held sign-extended, so an i64 shift is the i32 arithmetic shift too
    r.i = a.i >> (ub % bits);
    break;
  case BinaryOp::Lt:
    r.i = a.i < b.i;
    break;
  case BinaryOp::Le:
    r.i = a.i <= b.i;
    break;
  case BinaryOp::Gt:
    r.i = a.i > b.i;
    break;
  case BinaryOp::Ge:
    r.i = a.i >= b.i;
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
  ScalarValue r;
  if (to == ScalarType::Bool) {
    r.i = is_float(from) ? a.f != 0 : a.i != 0; // NaN != 0 is true
  } else if (is_int(to)) {
    r.i = is_float(from) ? saturate(to, a.f) : wrap(to, static_cast<uint64_t>(a.i));
  } else if (is_float(from)) {
    r = float_value(to, a.f);
  } else if (to == ScalarType::F32) {
    // One rounding, int64 -> float: going through double could round twice.
    r.f = static_cast<double>(static_cast<float>(a.i));
  } else {
    r.f = static_cast<double>(a.i);
  }
  return r;
}

ScalarValue math_op(MathFn fn, ScalarType t, const ScalarValue *args) {
  if (t == ScalarType::F32)
    return float_math<float>(fn, args);
  if (t == ScalarType::F64)
    return float_math<double>(fn, args);
  // Only abs is defined on integers; abs(MIN) == MIN.
  ScalarValue r;
  r.i = args[0].i < 0 ? wrap(t, 0 - static_cast<uint64_t>(args[0].i)) : args[0].i;
  return r;
}

bool same_value(ScalarType t, ScalarValue a, ScalarValue b) {
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
    return static_cast<uint64_t>(v.i);
  case ScalarType::F32:
    return std::bit_cast<uint32_t>(static_cast<float>(v.f));
  case ScalarType::F64:
    return std::bit_cast<uint64_t>(v.f);
  case ScalarType::F16:
    return f16_bits_from_f32(static_cast<float>(v.f));
  case ScalarType::BF16:
    return bf16_bits_from_f32(static_cast<float>(v.f));
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
    v.i = static_cast<int64_t>(bits);
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
  }
}

} // namespace loom::ir
