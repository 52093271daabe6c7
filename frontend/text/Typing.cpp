#include "frontend/text/Typing.h"

#include "ir/MathFunctions.h"
#include "ir/Semantics.h"

#include <cmath>
#include <complex>
#include <limits>

namespace loom::text {

using ir::BinaryOp;
using ir::ScalarType;

namespace {

// A float converted to an integer as loom converts: truncation, saturation, NaN to 0.
int64_t saturate(double f) {
  if (std::isnan(f))
    return 0;
  if (f >= 9223372036854775807.0)
    return std::numeric_limits<int64_t>::max();
  if (f <= -9223372036854775808.0)
    return std::numeric_limits<int64_t>::min();
  return static_cast<int64_t>(f);
}

bool has_float(const Value &v) {
  return ir::is_float(v.type) || ir::is_complex(v.type);
}
// A literal's number (a complex literal's real part, as a conversion to a real type takes).
double as_double(const Value &v) {
  return has_float(v) ? v.f : static_cast<double>(v.i);
}
int64_t as_int(const Value &v) {
  return has_float(v) ? saturate(v.f) : v.i;
}
bool truthy(const Value &v) {
  return has_float(v) ? v.f != 0 || v.im != 0 : v.i != 0;
}
std::complex<double> as_complex(const Value &v) {
  return {as_double(v), ir::is_complex(v.type) ? v.im : 0.0};
}

Value literal_of(ScalarType t, int64_t i, double f, double im = 0) {
  Value v;
  v.literal = true;
  v.type = t;
  if (t == ScalarType::F32)
    v.f = static_cast<float>(f);
  else if (t == ScalarType::F64)
    v.f = f;
  else if (ir::is_half_float(t)) // rounded once, from the exact double
    v.f = ir::float_value(t, f).f;
  else if (t == ScalarType::C64)
    v.f = static_cast<float>(f), v.im = static_cast<float>(im);
  else if (t == ScalarType::C128)
    v.f = f, v.im = im;
  else if (t == ScalarType::Bool)
    v.i = i != 0;
  else
    v.i = ir::wrap_int(t, static_cast<uint64_t>(i));
  return v;
}
// A literal converted to the literal type `t`, as C++ converts numbers.
Value literal_as(ScalarType t, const Value &v) {
  if (ir::is_complex(t))
    return literal_of(t, 0, as_complex(v).real(), as_complex(v).imag());
  if (ir::is_float(t))
    return literal_of(t, 0, as_double(v));
  if (t == ScalarType::Bool)
    return literal_of(t, truthy(v), 0);
  return literal_of(t, as_int(v), 0);
}

// literal_promote_t of frontend/DType.h: a value of type `value` meets a literal of type `lit`.
ScalarType literal_promote(ScalarType value, ScalarType lit) {
  if (ir::is_complex(lit) && !ir::is_complex(value)) // NumPy 2's weak Python complex
    return value == ScalarType::F32 || ir::is_half_float(value) ? ScalarType::C64 : lit;
  if (ir::is_float(value) || ir::is_complex(value))
    return value;
  if (ir::is_float(lit))
    return lit;
  return ir::promote_integer(value);
}

bool is_bitwise(BinaryOp op) {
  return op == BinaryOp::BitAnd || op == BinaryOp::BitOr || op == BinaryOp::BitXor;
}
bool is_shift(BinaryOp op) {
  return op == BinaryOp::Shl || op == BinaryOp::Shr;
}

// Integer arithmetic of loom (wrapping; x / 0 == 0, x % 0 == x) in type t.
int64_t integer_op(BinaryOp op, ScalarType t, int64_t x, int64_t y) {
  auto ux = static_cast<uint64_t>(x), uy = static_cast<uint64_t>(y);
  int64_t min = t == ScalarType::I32 ? std::numeric_limits<int32_t>::min()
                                     : std::numeric_limits<int64_t>::min();
  switch (op) {
  case BinaryOp::Add:
    return static_cast<int64_t>(ux + uy);
  case BinaryOp::Sub:
    return static_cast<int64_t>(ux - uy);
  case BinaryOp::Mul:
    return static_cast<int64_t>(ux * uy);
  case BinaryOp::Div:
    return y == 0 ? 0 : (x == min && y == -1) ? min : x / y;
  case BinaryOp::Mod:
    return y == 0 ? x : y == -1 ? 0 : x % y;
  case BinaryOp::Min:
    return std::min(x, y);
  case BinaryOp::Max:
    return std::max(x, y);
  case BinaryOp::BitAnd:
    return x & y;
  case BinaryOp::BitOr:
    return x | y;
  case BinaryOp::BitXor:
    return x ^ y;
  case BinaryOp::Shl:
    return static_cast<int64_t>(ux << (y & (ir::bit_width(t) - 1)));
  case BinaryOp::Shr:
    return x >> (y & (ir::bit_width(t) - 1));
  default:
    return 0;
  }
}

double float_op(BinaryOp op, double x, double y) {
  switch (op) {
  case BinaryOp::Add:
    return x + y;
  case BinaryOp::Sub:
    return x - y;
  case BinaryOp::Mul:
    return x * y;
  case BinaryOp::Div:
    return x / y;
  case BinaryOp::Mod:
    return std::fmod(x, y);
  case BinaryOp::Min:
    return std::fmin(x, y);
  case BinaryOp::Max:
    return std::fmax(x, y);
  default:
    return 0;
  }
}

bool compare(BinaryOp op, double x, double y) {
  switch (op) {
  case BinaryOp::Lt:
    return x < y;
  case BinaryOp::Le:
    return x <= y;
  case BinaryOp::Gt:
    return x > y;
  case BinaryOp::Ge:
    return x >= y;
  case BinaryOp::Eq:
    return x == y;
  default:
    return x != y;
  }
}
bool compare(BinaryOp op, int64_t x, int64_t y) {
  switch (op) {
  case BinaryOp::Lt:
    return x < y;
  case BinaryOp::Le:
    return x <= y;
  case BinaryOp::Gt:
    return x > y;
  case BinaryOp::Ge:
    return x >= y;
  case BinaryOp::Eq:
    return x == y;
  default:
    return x != y;
  }
}

// The result of an operator between two complex literals, as std::complex<double> computes it.
Value fold_complex(BinaryOp op, std::complex<double> x, std::complex<double> y) {
  switch (op) {
  case BinaryOp::Eq:
    return Value::bool_literal(x == y);
  case BinaryOp::Ne:
    return Value::bool_literal(x != y);
  case BinaryOp::Add:
    x += y;
    break;
  case BinaryOp::Sub:
    x -= y;
    break;
  case BinaryOp::Mul:
    x *= y;
    break;
  default:
    x /= y;
    break;
  }
  return Value::complex_literal(x.real(), x.imag());
}

// The result of an operator between two literals, computed as C++ would type it.
Value fold(BinaryOp op, const Value &a, const Value &b) {
  if (op == BinaryOp::And)
    return Value::bool_literal(truthy(a) && truthy(b));
  if (op == BinaryOp::Or)
    return Value::bool_literal(truthy(a) || truthy(b));
  if (ir::is_complex(a.type) || ir::is_complex(b.type))
    return fold_complex(op, as_complex(a), as_complex(b));
  ScalarType t = is_shift(op) ? ir::promote_integer(a.type) : ir::promote(a.type, b.type);
  Value x = literal_as(t, a), y = literal_as(is_shift(op) ? ir::promote_integer(b.type) : t, b);
  if (ir::is_comparison(op))
    return Value::bool_literal(ir::is_float(t) ? compare(op, x.f, y.f) : compare(op, x.i, y.i));
  if (ir::is_float(t))
    return literal_of(t, 0, float_op(op, x.f, y.f));
  return literal_of(t, integer_op(op, t, x.i, y.i), 0);
}

void require_integers(BinaryOp op, const Value &a, const Value &b) {
  if (has_float(a) || has_float(b))
    throw TypeError{std::string("'") + ir::op_name(op) + "' needs integer or bool operands, got " +
                    describe(a) + " and " + describe(b)};
}

// Complex numbers take + - * / == != and the logical operators (on their truth, nonzero).
void require_complex_op(BinaryOp op, const Value &a, const Value &b) {
  if (!ir::is_complex(a.type) && !ir::is_complex(b.type))
    return;
  switch (op) {
  case BinaryOp::Add:
  case BinaryOp::Sub:
  case BinaryOp::Mul:
  case BinaryOp::Div:
  case BinaryOp::Eq:
  case BinaryOp::Ne:
  case BinaryOp::And:
  case BinaryOp::Or:
    return;
  default:
    throw TypeError{std::string("'") + ir::op_name(op) + "' does not take complex numbers (got " +
                    describe(a) + " and " + describe(b) + "); they take + - * / == != only" +
                    (ir::is_comparison(op) || op == BinaryOp::Min || op == BinaryOp::Max
                         ? ", and are not ordered: compare abs(z) or real(z)"
                         : "")};
  }
}

// A complex constant: complex(re, im) of two constants of the parts' type.
ir::Expr complex_constant(ScalarType t, std::complex<double> z) {
  ScalarType part = ir::part_type(t);
  return ir::Call::make(ir::MathFn::Complex, {ir::FloatConst::make(part, z.real()),
                                              ir::FloatConst::make(part, z.imag())});
}

} // namespace

Value Value::of(ir::Expr e) {
  Value v;
  v.type = e.type();
  v.expr = std::move(e);
  return v;
}
Value Value::int_literal(int64_t v) {
  bool fits = v >= std::numeric_limits<int32_t>::min() && v <= std::numeric_limits<int32_t>::max();
  return literal_of(fits ? ScalarType::I32 : ScalarType::I64, v, 0);
}
Value Value::float_literal(double v) {
  return literal_of(ScalarType::F64, 0, v);
}
Value Value::bool_literal(bool v) {
  return literal_of(ScalarType::Bool, v, 0);
}
Value Value::complex_literal(double re, double im) {
  return literal_of(ScalarType::C128, 0, re, im);
}

std::string describe(const Value &v) {
  return ir::type_name(v.type);
}

ir::Expr convert(const Value &v, ScalarType to) {
  if (v.literal) {
    if (to == ScalarType::Bool)
      return ir::BoolConst::make(truthy(v));
    if (ir::is_complex(to))
      return complex_constant(to, as_complex(v));
    if (ir::is_float(to))
      return ir::FloatConst::make(to, as_double(v));
    return ir::IntConst::make(to, as_int(v));
  }
  if (to == ScalarType::Bool && v.type != ScalarType::Bool) // as C++: nonzero is true
    return ir::Binary::make(BinaryOp::Ne, v.expr,
                            ir::Cast::make(v.type, ir::IntConst::make(ScalarType::I32, 0)));
  return ir::Cast::make(to, v.expr);
}

ir::Expr convert_assigned(const Value &v, ScalarType to) {
  if (ir::is_complex(v.type) && !ir::is_complex(to))
    throw TypeError{std::string("a ") + describe(v) + " value cannot become " + ir::type_name(to) +
                    " implicitly (its imaginary part would be lost); take real(z), imag(z) or "
                    "abs(z), or convert with " +
                    ir::type_name(to) + "(z), which keeps the real part"};
  return convert(v, to);
}

ScalarType arithmetic_type(const Value &a, const Value &b) {
  if (a.literal == b.literal)
    return ir::promote(a.type, b.type);
  return a.literal ? literal_promote(b.type, a.type) : literal_promote(a.type, b.type);
}

Value binary(BinaryOp op, const Value &a, const Value &b) {
  if (is_bitwise(op) || is_shift(op))
    require_integers(op, a, b);
  require_complex_op(op, a, b);
  if (a.literal && b.literal)
    return fold(op, a, b);
  ScalarType t;
  if (op == BinaryOp::And || op == BinaryOp::Or)
    t = ScalarType::Bool;
  else if (is_shift(op)) // shifts take the (promoted) type of the left operand, as in C++
    t = ir::promote_integer(a.type);
  else if (is_bitwise(op) && a.type == ScalarType::Bool && b.type == ScalarType::Bool)
    t = ScalarType::Bool;
  else
    t = arithmetic_type(a, b);
  return Value::of(ir::Binary::make(op, convert(a, t), convert(b, t)));
}

Value negate(const Value &a) {
  ScalarType t = ir::promote_integer(a.type);
  if (a.literal)
    return has_float(a) ? literal_of(t, 0, -a.f, -a.im)
                        : literal_of(t, integer_op(BinaryOp::Sub, t, 0, a.i), 0);
  return Value::of(ir::Unary::make(ir::UnaryOp::Neg, convert(a, t)));
}

Value unary_plus(const Value &a) {
  return a.literal ? literal_as(ir::promote_integer(a.type), a) : a;
}

Value logical_not(const Value &a) {
  if (a.literal)
    return Value::bool_literal(!truthy(a));
  return Value::of(ir::Unary::make(ir::UnaryOp::Not, convert(a, ScalarType::Bool)));
}

Value bitwise_not(const Value &a) {
  if (has_float(a))
    throw TypeError{"'~' needs an integer or bool operand, got " + describe(a)};
  ScalarType t = ir::promote_integer(a.type);
  if (a.literal)
    return literal_of(t, ~a.i, 0);
  return Value::of(ir::Unary::make(ir::UnaryOp::BitNot, convert(a, t)));
}

Value select(const Value &cond, const Value &a, const Value &b) {
  // Two bools select a bool (no promotion to i32: nothing is computed on them).
  ScalarType t = a.type == ScalarType::Bool && b.type == ScalarType::Bool ? ScalarType::Bool
                                                                          : arithmetic_type(a, b);
  if (cond.literal && a.literal && b.literal)
    return literal_as(t, truthy(cond) ? a : b);
  return Value::of(ir::Select::make(convert(cond, ScalarType::Bool), convert(a, t), convert(b, t)));
}

Value cast(ScalarType to, const Value &a) {
  return Value::of(convert(a, to));
}

Value math(ir::MathFn fn, const std::vector<Value> &args) {
  const ir::MathFnInfo &info = ir::math_info(fn);
  // Literals are folded with loom's own math semantics, except complex ones and the functions
  // of complex numbers.
  bool all_literal = static_cast<int>(fn) < ir::kRealMathFnCount;
  for (const Value &v : args)
    all_literal = all_literal && v.literal && !ir::is_complex(v.type);
  const Value &a = args[0];
  ScalarType t = a.type; // the type the function is computed in
  switch (info.args) {
  case ir::MathArgs::FloatOrInt: // abs, sign: integers stay integers
    t = ir::promote_integer(a.type);
    if (a.literal && !has_float(a)) {
      int64_t r = fn == ir::MathFn::Sign ? (a.i > 0) - (a.i < 0)
                                         : integer_op(BinaryOp::Sub, t, 0, a.i < 0 ? a.i : -a.i);
      return literal_of(t, r, 0);
    }
    break;
  case ir::MathArgs::FloatAndExp: // ldexp(x, n): n is an int, as C's ldexp takes
    if (has_float(args[1]))
      throw TypeError{"the exponent of ldexp() must be an integer, not " + describe(args[1])};
    t = a.type;
    break;
  case ir::MathArgs::Classify:
  case ir::MathArgs::Part: // real, imag, conj: of a complex number or a float
    t = a.type;
    break;
  case ir::MathArgs::Parts: // complex(re, im): the result is a complex value
    t = arithmetic_type(a, args[1]);
    break;
  case ir::MathArgs::Float:
    if (args.size() == 3) {
      // fma, as (a * b) + c: the product is a value unless both factors are literals.
      Value product;
      product.literal = a.literal && args[1].literal;
      product.type = arithmetic_type(a, args[1]);
      t = arithmetic_type(product, args[2]);
    } else {
      t = args.size() == 2 ? arithmetic_type(a, args[1]) : a.type;
    }
    break;
  }
  if (!ir::is_float(t) && !ir::is_complex(t) && info.args != ir::MathArgs::FloatOrInt)
    t = ScalarType::F64; // math on integers is done in f64, as std::sqrt(int) is
  if (!ir::math_takes(fn, t))
    throw TypeError{std::string(info.name) + "() takes " + ir::math_takes_what(fn) + ", not " +
                    ir::type_name(t)};
  if (all_literal) { // C++ would call std::sqrt etc. on the numbers: a double
    ir::ScalarValue numbers[3];
    for (size_t k = 0; k < args.size() && k < 3; ++k)
      numbers[k].f = as_double(args[k]);
    if (info.args == ir::MathArgs::FloatAndExp)
      numbers[1].i = static_cast<int32_t>(as_int(args[1]));
    ir::ScalarValue r = ir::math_op(fn, ScalarType::F64, numbers); // loom's own math semantics
    return info.args == ir::MathArgs::Classify ? Value::bool_literal(r.i != 0)
                                               : Value::float_literal(r.f);
  }
  std::vector<ir::Expr> converted;
  for (size_t k = 0; k < args.size(); ++k)
    converted.push_back(
        convert(args[k], info.args == ir::MathArgs::FloatAndExp && k == 1 ? ScalarType::I32 : t));
  return Value::of(ir::Call::make(fn, std::move(converted)));
}

namespace {
// The float type a function of `a` alone is computed in: a float's own, else f64.
ScalarType float_type_of(const Value &a) {
  return ir::is_float(a.type) ? a.type : ScalarType::F64;
}
} // namespace

namespace {
void require_real(const char *fn, const Value &a) {
  if (ir::is_complex(a.type))
    throw TypeError{std::string(fn) + "() takes real numbers, not " + describe(a) +
                    (std::string(fn) == "fabs" ? "; abs(z) is a complex number's magnitude" : "")};
}
} // namespace

Value float_abs(const Value &a) {
  require_real("fabs", a);
  if (a.literal)
    return Value::float_literal(std::fabs(as_double(a)));
  return Value::of(ir::Call::make(ir::MathFn::Abs, {convert(a, float_type_of(a))}));
}

Value float_mod(const Value &a, const Value &b) {
  require_real("fmod", a);
  require_real("fmod", b);
  ScalarType t = arithmetic_type(a, b);
  if (a.literal && b.literal)
    return Value::float_literal(std::fmod(as_double(a), as_double(b)));
  if (!ir::is_float(t))
    t = ScalarType::F64;
  return Value::of(ir::Binary::make(BinaryOp::Mod, convert(a, t), convert(b, t)));
}

Value scale_angle(const Value &a, double factor) {
  require_real(factor > 1 ? "degrees" : "radians", a);
  if (a.literal)
    return Value::float_literal(as_double(a) * factor);
  ScalarType t = float_type_of(a);
  return Value::of(ir::Binary::make(BinaryOp::Mul, convert(a, t), ir::FloatConst::make(t, factor)));
}

} // namespace loom::text
