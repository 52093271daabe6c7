// DSL values: typed handles to IR expressions, with C++ operators that build IR while tracing.
#pragma once

#include "frontend/DType.h"
#include "ir/IR.h"

#include <concepts>
#include <numbers>
#include <type_traits>

namespace loom {

template <DslScalar T> class Value;

// Anything that stands for a DSL value of type `dsl_value_type`: Value, Var, an array element.
template <class X>
concept DslExpr = requires(const std::decay_t<X> &x) {
  typename std::decay_t<X>::dsl_value_type;
  { x.value() } -> std::same_as<Value<typename std::decay_t<X>::dsl_value_type>>;
};

// A C++ number a kernel may use as a literal: an arithmetic type, a host loom::f16 or loom::bf16,
// std::complex<float> or std::complex<double> (`z * 2.0i` with std::complex_literals).
template <class X>
concept DslLiteral = std::is_arithmetic_v<X> || is_half_v<X> || is_complex_v<X>;

// A DSL value or a C++ number (a literal, weakly typed).
template <class X>
concept Operand = DslExpr<X> || DslLiteral<std::decay_t<X>>;

namespace detail {

template <class X> struct operand_type { using type = dsl_type_t<std::decay_t<X>>; };
template <DslExpr X> struct operand_type<X> {
  using type = typename std::decay_t<X>::dsl_value_type;
};
template <class X> using operand_type_t = typename operand_type<X>::type;

// The type arithmetic between A and B produces (see DType.h for the literal rule).
template <class A, class B> struct arith_result {
  using type = promote_t<operand_type_t<A>, operand_type_t<B>>;
};
template <DslExpr A, class B>
requires(!DslExpr<B>) struct arith_result<A, B> {
  using type = literal_promote_t<operand_type_t<A>, std::decay_t<B>>;
};
template <class A, DslExpr B>
requires(!DslExpr<A>) struct arith_result<A, B> {
  using type = literal_promote_t<operand_type_t<B>, std::decay_t<A>>;
};
template <class A, class B> using arith_result_t = typename arith_result<A, B>::type;

// Whether any of the operands is complex.
template <class... X> constexpr bool any_complex = (is_complex_v<operand_type_t<X>> || ...);

// A real C++ literal as it is: an arithmetic value, or a host f16 or bf16 as the float it holds
// (they convert to float explicitly only).
template <class U> auto literal_number(U v) {
  if constexpr (is_half_v<U>)
    return static_cast<float>(v);
  else
    return v;
}

// A constant of type R of the C++ number v. A complex constant is complex(re, im) of two
// constants of its parts' type; a complex number made real gives its real part (cast<R>). An f16
// or bf16 constant is v rounded once to R (ir::FloatConst).
template <DslScalar R, class U> ir::Expr constant(U v) {
  if constexpr (is_complex_v<R>) {
    constexpr ir::ScalarType part = dtype_of<complex_part_t<R>>();
    double re, im = 0;
    if constexpr (is_complex_v<U>)
      re = v.real(), im = v.imag();
    else
      re = static_cast<double>(literal_number(v));
    return ir::Call::make(ir::MathFn::Complex,
                          {ir::FloatConst::make(part, re), ir::FloatConst::make(part, im)});
  } else if constexpr (is_complex_v<U>) {
    if constexpr (std::is_same_v<R, bool>) // a complex number is true when either part is nonzero
      return ir::BoolConst::make(v != U(0));
    else
      return constant<R>(v.real());
  } else if constexpr (std::is_same_v<R, bool>) {
    return ir::BoolConst::make(literal_number(v) != 0);
  } else if constexpr (is_float_v<R>) {
    return ir::FloatConst::make(dtype_of<R>(), static_cast<double>(literal_number(v)));
  } else {
    return ir::IntConst::make(dtype_of<R>(), static_cast<int64_t>(literal_number(v)));
  }
}

// The IR of an operand converted to R as cast<R> converts it (an explicit Cast node when the
// types differ): a complex number becomes a real one by its real part.
template <DslScalar R, Operand X> ir::Expr convert_expr(const X &x) {
  if constexpr (DslExpr<X>) {
    ir::Expr e = x.value().expr();
    if constexpr (std::is_same_v<R, bool>) {
      if (e.type() != ir::ScalarType::Bool) // C++: nonzero is true
        return ir::Binary::make(ir::BinaryOp::Ne, e,
                                ir::Cast::make(e.type(), constant<int32_t>(0)));
    }
    return ir::Cast::make(dtype_of<R>(), e);
  } else {
    return constant<R>(x);
  }
}

// The IR of an operand converted to R implicitly (an assignment, an argument, an index, a
// promotion): as convert_expr, but a complex number does not become real, as in C++ and NumPy's
// same-kind casts (it becomes a bool, true when either part is nonzero, as Python's bool(z)).
template <DslScalar R, Operand X> ir::Expr to_expr(const X &x) {
  // Fires for `F32 x = z;`, `out_f32[i] = z;`, `x_f32 += z;` and `a[z]` with a complex z.
  static_assert(is_complex_v<R> || std::is_same_v<R, bool> || !any_complex<X>,
                "a complex number does not become a real one implicitly (its imaginary part would "
                "be lost): take loom::real(z), loom::imag(z) or loom::abs(z), or convert with "
                "loom::cast<T>(z), which keeps the real part");
  return convert_expr<R>(x);
}

// complex(re, im) of type R from two real operands converted to R's parts' type.
template <DslScalar R, Operand Re, Operand Im> ir::Expr complex_expr(const Re &re, const Im &im) {
  // Fires for C64(z, 1.0f) with a complex z.
  static_assert(!any_complex<Re, Im>, "a complex number is made from two real numbers");
  using P = complex_part_t<R>;
  return ir::Call::make(ir::MathFn::Complex, {to_expr<P>(re), to_expr<P>(im)});
}

} // namespace detail

template <DslScalar T> class Value {
public:
  using dsl_value_type = T;

  explicit Value(ir::Expr e) : expr_(std::move(e)) {}
  // A C++ number, or another DSL value converted as C++ would convert it (a complex one to a
  // complex type or bool only; loom::cast makes one real).
  template <class U>
  requires DslLiteral<U> Value(U literal) : expr_(detail::to_expr<T>(literal)) {}
  template <DslExpr X>
  requires(!std::is_same_v<std::decay_t<X>, Value>) Value(const X &x)
      : expr_(detail::to_expr<T>(x)) {}
  // A complex number from its real and imaginary parts, each converted to the parts' type:
  // C64(x, 0.5f), C128(r * cos(t), r * sin(t)).
  template <Operand Re, Operand Im>
  requires is_complex_v<T> Value(const Re &re, const Im &im)
      : expr_(detail::complex_expr<T>(re, im)) {}

  const ir::Expr &expr() const { return expr_; }
  Value value() const { return *this; }

private:
  ir::Expr expr_;
};

using Bool = Value<bool>;
using I8 = Value<int8_t>;
using I16 = Value<int16_t>;
using I32 = Value<int32_t>;
using I64 = Value<int64_t>;
using U8 = Value<uint8_t>;
using U16 = Value<uint16_t>;
using U32 = Value<uint32_t>;
using U64 = Value<uint64_t>;
using F32 = Value<float>;
using F64 = Value<double>;
// IEEE binary16 and bfloat16 values, each operation rounded to the type (loom::f16 and loom::bf16
// on the host).
using F16 = Value<f16>;
using BF16 = Value<bf16>;
using C64 = Value<std::complex<float>>;   // complex numbers of two f32, as std::complex<float>
using C128 = Value<std::complex<double>>; // ... of two f64
using Index = Value<int64_t>;

namespace detail {

template <class A, class B> auto arith(ir::BinaryOp op, const A &a, const B &b) {
  using R = arith_result_t<A, B>;
  return Value<R>(ir::Binary::make(op, to_expr<R>(a), to_expr<R>(b)));
}

// %: of real numbers only.
template <class A, class B> auto modulo(ir::BinaryOp op, const A &a, const B &b) {
  // Fires for z % w, z % 2 and z %= w with a complex z.
  static_assert(!any_complex<A, B>, "% takes real numbers, not complex ones");
  return arith(op, a, b);
}

template <class A, class B> Value<bool> compare(ir::BinaryOp op, const A &a, const B &b) {
  using R = arith_result_t<A, B>;
  return Value<bool>(ir::Binary::make(op, to_expr<R>(a), to_expr<R>(b)));
}

// < <= > >=: of real numbers only.
template <class A, class B> Value<bool> order(ir::BinaryOp op, const A &a, const B &b) {
  // Fires for z < w and z >= 0.0 with a complex z.
  static_assert(!any_complex<A, B>,
                "complex numbers are not ordered: <, <=, > and >= take real numbers");
  return compare(op, a, b);
}

template <class A, class B> auto bitwise(ir::BinaryOp op, const A &a, const B &b) {
  // Fires for z & w, z | 1 and z ^= w with a complex z.
  static_assert(!any_complex<A, B>, "bitwise operators need integer operands, not complex ones");
  using TA = operand_type_t<A>;
  using TB = operand_type_t<B>;
  if constexpr (std::is_same_v<TA, bool> && std::is_same_v<TB, bool>) {
    return Value<bool>(ir::Binary::make(op, to_expr<bool>(a), to_expr<bool>(b)));
  } else {
    // Fires for h & 1 and v |= h with an f16 or bf16 h and a Var<f16> v.
    static_assert(!is_half_v<TA> && !is_half_v<TB>,
                  "bitwise operators need integer operands, not 16-bit floats (f16, bf16)");
    static_assert(!std::is_floating_point_v<TA> && !std::is_floating_point_v<TB>,
                  "bitwise operators need integer operands");
    return arith(op, a, b);
  }
}

// Shifts take the (promoted) type of the left operand, as in C++.
template <class A, class B> auto shift(ir::BinaryOp op, const A &a, const B &b) {
  // Fires for z << 1 and z >>= 1 with a complex z.
  static_assert(!any_complex<A, B>, "shifts need integer operands, not complex ones");
  using R = promoted_t<operand_type_t<A>>;
  // Fires for h << 1, 1 << h and v >>= 1 with an f16 or bf16 h and a Var<f16> v.
  static_assert(!is_half_v<R> && !is_half_v<operand_type_t<B>>,
                "shifts need integer operands, not 16-bit floats (f16, bf16)");
  static_assert(!std::is_floating_point_v<R> && !std::is_floating_point_v<operand_type_t<B>>,
                "shifts need integer operands");
  return Value<R>(ir::Binary::make(op, to_expr<R>(a), to_expr<R>(b)));
}

template <class A, class B> Value<bool> logical(ir::BinaryOp op, const A &a, const B &b) {
  return Value<bool>(ir::Binary::make(op, to_expr<bool>(a), to_expr<bool>(b)));
}

// The floating type math on a value of type P is done in: floats (f16 and bf16 too) and complex
// numbers keep their type, integers become f64 (as in C++).
template <class P>
using float_type_t = std::conditional_t<is_float_v<P> || is_complex_v<P>, P, double>;
template <class X> using math_type_t = float_type_t<operand_type_t<X>>;

template <class R> Value<R> call(ir::MathFn fn, std::vector<ir::Expr> args) {
  return Value<R>(ir::Call::make(fn, std::move(args)));
}

} // namespace detail

// Binary operators, defined when at least one operand is a DSL value.
#define LOOM_BINARY_OPERATOR(sym, maker, op)                                                       \
  template <Operand A, Operand B>                                                                  \
  requires(DslExpr<A> || DslExpr<B>) auto operator sym(const A &a, const B &b) {                   \
    return detail::maker(ir::BinaryOp::op, a, b);                                                  \
  }
LOOM_BINARY_OPERATOR(+, arith, Add)
LOOM_BINARY_OPERATOR(-, arith, Sub)
LOOM_BINARY_OPERATOR(*, arith, Mul)
LOOM_BINARY_OPERATOR(/, arith, Div)
LOOM_BINARY_OPERATOR(%, modulo, Mod)
LOOM_BINARY_OPERATOR(<, order, Lt)
LOOM_BINARY_OPERATOR(<=, order, Le)
LOOM_BINARY_OPERATOR(>, order, Gt)
LOOM_BINARY_OPERATOR(>=, order, Ge)
LOOM_BINARY_OPERATOR(==, compare, Eq)
LOOM_BINARY_OPERATOR(!=, compare, Ne)
LOOM_BINARY_OPERATOR(&, bitwise, BitAnd)
LOOM_BINARY_OPERATOR(|, bitwise, BitOr)
LOOM_BINARY_OPERATOR(^, bitwise, BitXor)
LOOM_BINARY_OPERATOR(<<, shift, Shl)
LOOM_BINARY_OPERATOR(>>, shift, Shr)
LOOM_BINARY_OPERATOR(&&, logical, And) // both sides are evaluated (no short circuit)
LOOM_BINARY_OPERATOR(||, logical, Or)
#undef LOOM_BINARY_OPERATOR

template <DslExpr A> auto operator-(const A &a) {
  using R = promoted_t<detail::operand_type_t<A>>;
  return Value<R>(ir::Unary::make(ir::UnaryOp::Neg, detail::to_expr<R>(a)));
}
template <DslExpr A> auto operator+(const A &a) {
  return a.value();
}
template <DslExpr A> Value<bool> operator!(const A &a) {
  return Value<bool>(ir::Unary::make(ir::UnaryOp::Not, detail::to_expr<bool>(a)));
}
template <DslExpr A> auto operator~(const A &a) {
  using T = detail::operand_type_t<A>;
  // Fires for ~h with an f16 or bf16 h.
  static_assert(!is_half_v<T>, "~ needs an integer operand, not a 16-bit float (f16, bf16)");
  static_assert(!std::is_floating_point_v<T> && !is_complex_v<T>, "~ needs an integer operand");
  using R = promoted_t<T>;
  return Value<R>(ir::Unary::make(ir::UnaryOp::BitNot, detail::to_expr<R>(a)));
}

// ---- functions ------------------------------------------------------------------------------

// Converts to T explicitly (float -> int truncates toward zero and saturates; NaN gives 0). A
// real number becomes complex with a zero imaginary part; a complex number becomes real by its
// real part (NumPy's astype) and a bool by whether either part is nonzero.
template <DslScalar T, Operand X> Value<T> cast(const X &x) {
  return Value<T>(detail::convert_expr<T>(x));
}

// cond ? a : b, with a and b promoted to a common type. Both sides are evaluated.
template <Operand C, Operand A, Operand B>
requires(DslExpr<C> || DslExpr<A> || DslExpr<B>) auto select(const C &cond, const A &a,
                                                             const B &b) {
  // Two bools select a bool (no promotion to i32: nothing is computed on them).
  using R = std::conditional_t<std::is_same_v<detail::operand_type_t<A>, bool> &&
                                   std::is_same_v<detail::operand_type_t<B>, bool>,
                               bool, detail::arith_result_t<A, B>>;
  return Value<R>(
      ir::Select::make(detail::to_expr<bool>(cond), detail::to_expr<R>(a), detail::to_expr<R>(b)));
}

template <Operand A, Operand B>
requires(DslExpr<A> || DslExpr<B>) auto min(const A &a, const B &b) {
  // Fires for min(z, w) with a complex z.
  static_assert(!detail::any_complex<A, B>,
                "complex numbers are not ordered: min takes real numbers");
  return detail::arith(ir::BinaryOp::Min, a, b);
}
template <Operand A, Operand B>
requires(DslExpr<A> || DslExpr<B>) auto max(const A &a, const B &b) {
  // Fires for max(z, w) with a complex z.
  static_assert(!detail::any_complex<A, B>,
                "complex numbers are not ordered: max takes real numbers");
  return detail::arith(ir::BinaryOp::Max, a, b);
}

// The math library (docs/language.md lists it, docs/semantics.md gives each function's accuracy).
// Integers are computed in f64, as std::sqrt(int) is; floats and complex numbers keep their type
// (of an f16 or bf16, f32's function rounded to it: sqrt is correctly rounded, docs/semantics.md).
// Of complex numbers: sqrt exp log sin cos tanh pow abs isnan isinf isfinite (and real, imag,
// conj in frontend/Complex.h); the other functions take real numbers only.
#define LOOM_UNARY_MATH(name, fn, takes_complex)                                                   \
  template <DslExpr X> auto name(const X &x) {                                                     \
    using R = detail::math_type_t<X>;                                                              \
    static_assert(takes_complex || !is_complex_v<R>,                                               \
                  #name " takes real numbers, not complex ones");                                  \
    return detail::call<R>(ir::MathFn::fn, {detail::to_expr<R>(x)});                               \
  }
LOOM_UNARY_MATH(sqrt, Sqrt, true)
LOOM_UNARY_MATH(exp, Exp, true)
LOOM_UNARY_MATH(log, Log, true)
LOOM_UNARY_MATH(sin, Sin, true)
LOOM_UNARY_MATH(cos, Cos, true)
LOOM_UNARY_MATH(tanh, Tanh, true)
// Each of these fires, for a complex z, as floor(z) does: "floor takes real numbers, ...".
LOOM_UNARY_MATH(floor, Floor, false)
LOOM_UNARY_MATH(acos, Acos, false)
LOOM_UNARY_MATH(acosh, Acosh, false)
LOOM_UNARY_MATH(asin, Asin, false)
LOOM_UNARY_MATH(asinh, Asinh, false)
LOOM_UNARY_MATH(atan, Atan, false)
LOOM_UNARY_MATH(atanh, Atanh, false)
LOOM_UNARY_MATH(cbrt, Cbrt, false)
LOOM_UNARY_MATH(ceil, Ceil, false)
LOOM_UNARY_MATH(cosh, Cosh, false)
LOOM_UNARY_MATH(erf, Erf, false)
LOOM_UNARY_MATH(erfc, Erfc, false)
LOOM_UNARY_MATH(exp2, Exp2, false)
LOOM_UNARY_MATH(expm1, Expm1, false)
LOOM_UNARY_MATH(gamma, Gamma, false) // Python's math.gamma, C's tgamma
LOOM_UNARY_MATH(tgamma, Gamma, false)
LOOM_UNARY_MATH(lgamma, Lgamma, false)
LOOM_UNARY_MATH(log10, Log10, false)
LOOM_UNARY_MATH(log1p, Log1p, false)
LOOM_UNARY_MATH(log2, Log2, false)
LOOM_UNARY_MATH(round, Round, false) // half to even, as Python's round (not std::round)
LOOM_UNARY_MATH(rsqrt, Rsqrt, false)
LOOM_UNARY_MATH(sinh, Sinh, false)
LOOM_UNARY_MATH(tan, Tan, false)
LOOM_UNARY_MATH(trunc, Trunc, false)
#undef LOOM_UNARY_MATH

// |x| as a float, as C's fabs.
template <DslExpr X> auto fabs(const X &x) {
  using R = detail::math_type_t<X>;
  // Fires for fabs(z) with a complex z.
  static_assert(
      !is_complex_v<R>,
      "fabs takes real numbers, not complex ones (abs(z) is a complex number's magnitude)");
  return detail::call<R>(ir::MathFn::Abs, {detail::to_expr<R>(x)});
}

// |x|; integers stay integers (abs of the most negative value wraps to itself). The magnitude of
// a complex number is of its parts' type (f32 for c64).
template <DslExpr X> auto abs(const X &x) {
  using R = promoted_t<detail::operand_type_t<X>>;
  return detail::call<complex_part_t<R>>(ir::MathFn::Abs, {detail::to_expr<R>(x)});
}

// -1, 0 or 1 (integers stay integers); a float's ±0 and NaN are their own sign.
template <DslExpr X> auto sign(const X &x) {
  using R = promoted_t<detail::operand_type_t<X>>;
  // Fires for sign(z) with a complex z.
  static_assert(!is_complex_v<R>, "sign takes real numbers, not complex ones");
  return detail::call<R>(ir::MathFn::Sign, {detail::to_expr<R>(x)});
}

// Functions of two floats, computed in the operands' common type (f64 for integers); pow also of
// complex numbers.
#define LOOM_BINARY_MATH(name, fn, takes_complex)                                                  \
  template <Operand A, Operand B>                                                                  \
  requires(DslExpr<A> || DslExpr<B>) auto name(const A &a, const B &b) {                           \
    using R = detail::float_type_t<detail::arith_result_t<A, B>>;                                  \
    static_assert(takes_complex || !is_complex_v<R>,                                               \
                  #name " takes real numbers, not complex ones");                                  \
    return detail::call<R>(ir::MathFn::fn, {detail::to_expr<R>(a), detail::to_expr<R>(b)});        \
  }
LOOM_BINARY_MATH(pow, Pow, true)
// Each of these fires, for a complex z, as atan2(z, 1.0) does: "atan2 takes real numbers, ...".
LOOM_BINARY_MATH(atan2, Atan2, false)
LOOM_BINARY_MATH(copysign, Copysign, false)
LOOM_BINARY_MATH(hypot, Hypot, false)
// IEEE remainder: a - n * b, n = a / b rounded to even
LOOM_BINARY_MATH(remainder, Remainder, false)
#undef LOOM_BINARY_MATH

// C's fmod: loom's float %, with integers computed in f64.
template <Operand A, Operand B>
requires(DslExpr<A> || DslExpr<B>) auto fmod(const A &a, const B &b) {
  using R = detail::float_type_t<detail::arith_result_t<A, B>>;
  // Fires for fmod(z, 2.0) with a complex z.
  static_assert(!is_complex_v<R>, "fmod takes real numbers, not complex ones");
  return Value<R>(
      ir::Binary::make(ir::BinaryOp::Mod, detail::to_expr<R>(a), detail::to_expr<R>(b)));
}

// Whether x is finite, infinite, NaN (a complex number: both parts finite; either part infinite;
// either part NaN, as NumPy).
#define LOOM_CLASSIFY(name, fn)                                                                    \
  template <DslExpr X> Value<bool> name(const X &x) {                                              \
    using R = detail::math_type_t<X>;                                                              \
    return Value<bool>(ir::Call::make(ir::MathFn::fn, {detail::to_expr<R>(x)}));                   \
  }
LOOM_CLASSIFY(isfinite, IsFinite)
LOOM_CLASSIFY(isinf, IsInf)
LOOM_CLASSIFY(isnan, IsNan)
#undef LOOM_CLASSIFY

// x * 2^n; n is converted to an i32, as C's ldexp takes an int.
template <Operand X, Operand N>
requires(DslExpr<X> || DslExpr<N>) auto ldexp(const X &x, const N &n) {
  // Fires for ldexp(z, 2) with a complex z.
  static_assert(!detail::any_complex<X, N>, "ldexp takes real numbers, not complex ones");
  static_assert(!is_float_v<detail::operand_type_t<N>>, "ldexp's exponent must be an integer");
  using R =
      std::conditional_t<is_float_v<detail::operand_type_t<X>>, detail::operand_type_t<X>, double>;
  return detail::call<R>(ir::MathFn::Ldexp, {detail::to_expr<R>(x), detail::to_expr<int32_t>(n)});
}

// x in degrees as radians and back (Python's math.radians and math.degrees).
template <DslExpr X> auto radians(const X &x) {
  using R = detail::math_type_t<X>;
  // Fires for radians(z) with a complex z; degrees(z) alike.
  static_assert(!is_complex_v<R>, "radians takes real numbers, not complex ones");
  return Value<R>(ir::Binary::make(ir::BinaryOp::Mul, detail::to_expr<R>(x),
                                   detail::to_expr<R>(std::numbers::pi / 180)));
}
template <DslExpr X> auto degrees(const X &x) {
  using R = detail::math_type_t<X>;
  static_assert(!is_complex_v<R>, "degrees takes real numbers, not complex ones");
  return Value<R>(ir::Binary::make(ir::BinaryOp::Mul, detail::to_expr<R>(x),
                                   detail::to_expr<R>(180 / std::numbers::pi)));
}

// a * b + c with one rounding.
template <Operand A, Operand B, Operand C>
requires(DslExpr<A> || DslExpr<B> || DslExpr<C>) auto fma(const A &a, const B &b, const C &c) {
  // Fires for fma(z, w, 1.0) with a complex z.
  static_assert(!detail::any_complex<A, B, C>, "fma takes real numbers, not complex ones");
  // Typed as (a * b) + c: the product is a value unless both factors are literals.
  using AB = detail::arith_result_t<A, B>;
  using Product = std::conditional_t<DslExpr<A> || DslExpr<B>, Value<AB>, AB>;
  using P = detail::arith_result_t<Product, C>;
  using R = std::conditional_t<is_float_v<P>, P, double>;
  return detail::call<R>(ir::MathFn::Fma,
                         {detail::to_expr<R>(a), detail::to_expr<R>(b), detail::to_expr<R>(c)});
}

} // namespace loom
