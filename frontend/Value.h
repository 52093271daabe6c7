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

// A DSL value or a C++ number (a literal, weakly typed).
template <class X>
concept Operand = DslExpr<X> || std::is_arithmetic_v<std::decay_t<X>>;

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

template <DslScalar R, class U> ir::Expr constant(U v) {
  if constexpr (std::is_same_v<R, bool>)
    return ir::BoolConst::make(v != U(0));
  else if constexpr (std::is_floating_point_v<R>)
    return ir::FloatConst::make(dtype_of<R>(), static_cast<double>(v));
  else
    return ir::IntConst::make(dtype_of<R>(), static_cast<int64_t>(v));
}

// The IR of an operand converted to R (an explicit Cast node when the types differ).
template <DslScalar R, Operand X> ir::Expr to_expr(const X &x) {
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

} // namespace detail

template <DslScalar T> class Value {
public:
  using dsl_value_type = T;

  explicit Value(ir::Expr e) : expr_(std::move(e)) {}
  // A C++ number, or another DSL value converted as C++ would convert it.
  template <class U>
  requires std::is_arithmetic_v<U> Value(U literal) : expr_(detail::constant<T>(literal)) {}
  template <DslExpr X>
  requires(!std::is_same_v<std::decay_t<X>, Value>) Value(const X &x)
      : expr_(detail::to_expr<T>(x)) {}

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
using Index = Value<int64_t>;

namespace detail {

template <class A, class B> auto arith(ir::BinaryOp op, const A &a, const B &b) {
  using R = arith_result_t<A, B>;
  return Value<R>(ir::Binary::make(op, to_expr<R>(a), to_expr<R>(b)));
}

template <class A, class B> Value<bool> compare(ir::BinaryOp op, const A &a, const B &b) {
  using R = arith_result_t<A, B>;
  return Value<bool>(ir::Binary::make(op, to_expr<R>(a), to_expr<R>(b)));
}

template <class A, class B> auto bitwise(ir::BinaryOp op, const A &a, const B &b) {
  using TA = operand_type_t<A>;
  using TB = operand_type_t<B>;
  if constexpr (std::is_same_v<TA, bool> && std::is_same_v<TB, bool>) {
    return Value<bool>(ir::Binary::make(op, to_expr<bool>(a), to_expr<bool>(b)));
  } else {
    static_assert(!std::is_floating_point_v<TA> && !std::is_floating_point_v<TB>,
                  "bitwise operators need integer operands");
    return arith(op, a, b);
  }
}

// Shifts take the (promoted) type of the left operand, as in C++.
template <class A, class B> auto shift(ir::BinaryOp op, const A &a, const B &b) {
  using R = promoted_t<operand_type_t<A>>;
  static_assert(!std::is_floating_point_v<R> && !std::is_floating_point_v<operand_type_t<B>>,
                "shifts need integer operands");
  return Value<R>(ir::Binary::make(op, to_expr<R>(a), to_expr<R>(b)));
}

template <class A, class B> Value<bool> logical(ir::BinaryOp op, const A &a, const B &b) {
  return Value<bool>(ir::Binary::make(op, to_expr<bool>(a), to_expr<bool>(b)));
}

// The floating type math on X is done in: floats keep their type, integers become f64 (as in C++).
template <class X>
using math_type_t =
    std::conditional_t<std::is_floating_point_v<operand_type_t<X>>, operand_type_t<X>, double>;

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
LOOM_BINARY_OPERATOR(%, arith, Mod)
LOOM_BINARY_OPERATOR(<, compare, Lt)
LOOM_BINARY_OPERATOR(<=, compare, Le)
LOOM_BINARY_OPERATOR(>, compare, Gt)
LOOM_BINARY_OPERATOR(>=, compare, Ge)
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
  static_assert(!std::is_floating_point_v<T>, "~ needs an integer operand");
  using R = promoted_t<T>;
  return Value<R>(ir::Unary::make(ir::UnaryOp::BitNot, detail::to_expr<R>(a)));
}

// ---- functions ------------------------------------------------------------------------------

// Converts to T explicitly (float -> int truncates toward zero and saturates; NaN gives 0).
template <DslScalar T, Operand X> Value<T> cast(const X &x) {
  return Value<T>(detail::to_expr<T>(x));
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
  return detail::arith(ir::BinaryOp::Min, a, b);
}
template <Operand A, Operand B>
requires(DslExpr<A> || DslExpr<B>) auto max(const A &a, const B &b) {
  return detail::arith(ir::BinaryOp::Max, a, b);
}

// The math library (docs/language.md lists it, docs/semantics.md gives each function's accuracy).
// Integers are computed in f64, as std::sqrt(int) is; floats keep their type.
#define LOOM_UNARY_MATH(name, fn)                                                                  \
  template <DslExpr X> auto name(const X &x) {                                                     \
    using R = detail::math_type_t<X>;                                                              \
    return detail::call<R>(ir::MathFn::fn, {detail::to_expr<R>(x)});                               \
  }
LOOM_UNARY_MATH(sqrt, Sqrt)
LOOM_UNARY_MATH(exp, Exp)
LOOM_UNARY_MATH(log, Log)
LOOM_UNARY_MATH(sin, Sin)
LOOM_UNARY_MATH(cos, Cos)
LOOM_UNARY_MATH(tanh, Tanh)
LOOM_UNARY_MATH(floor, Floor)
LOOM_UNARY_MATH(acos, Acos)
LOOM_UNARY_MATH(acosh, Acosh)
LOOM_UNARY_MATH(asin, Asin)
LOOM_UNARY_MATH(asinh, Asinh)
LOOM_UNARY_MATH(atan, Atan)
LOOM_UNARY_MATH(atanh, Atanh)
LOOM_UNARY_MATH(cbrt, Cbrt)
LOOM_UNARY_MATH(ceil, Ceil)
LOOM_UNARY_MATH(cosh, Cosh)
LOOM_UNARY_MATH(erf, Erf)
LOOM_UNARY_MATH(erfc, Erfc)
LOOM_UNARY_MATH(exp2, Exp2)
LOOM_UNARY_MATH(expm1, Expm1)
LOOM_UNARY_MATH(gamma, Gamma) // Python's math.gamma, C's tgamma
LOOM_UNARY_MATH(tgamma, Gamma)
LOOM_UNARY_MATH(lgamma, Lgamma)
LOOM_UNARY_MATH(log10, Log10)
LOOM_UNARY_MATH(log1p, Log1p)
LOOM_UNARY_MATH(log2, Log2)
LOOM_UNARY_MATH(round, Round) // half to even, as Python's round (not std::round)
LOOM_UNARY_MATH(rsqrt, Rsqrt)
LOOM_UNARY_MATH(sinh, Sinh)
LOOM_UNARY_MATH(tan, Tan)
LOOM_UNARY_MATH(trunc, Trunc)
LOOM_UNARY_MATH(fabs, Abs) // |x| as a float, as C's fabs
#undef LOOM_UNARY_MATH

// |x|; integers stay integers (abs of the most negative value wraps to itself).
template <DslExpr X> auto abs(const X &x) {
  using R = promoted_t<detail::operand_type_t<X>>;
  return detail::call<R>(ir::MathFn::Abs, {detail::to_expr<R>(x)});
}

// -1, 0 or 1 (integers stay integers); a float's ±0 and NaN are their own sign.
template <DslExpr X> auto sign(const X &x) {
  using R = promoted_t<detail::operand_type_t<X>>;
  return detail::call<R>(ir::MathFn::Sign, {detail::to_expr<R>(x)});
}

// Functions of two floats, computed in the operands' common type (f64 for integers).
#define LOOM_BINARY_MATH(name, fn)                                                                 \
  template <Operand A, Operand B>                                                                  \
  requires(DslExpr<A> || DslExpr<B>) auto name(const A &a, const B &b) {                           \
    using P = detail::arith_result_t<A, B>;                                                        \
    using R = std::conditional_t<std::is_floating_point_v<P>, P, double>;                          \
    return detail::call<R>(ir::MathFn::fn, {detail::to_expr<R>(a), detail::to_expr<R>(b)});        \
  }
LOOM_BINARY_MATH(pow, Pow)
LOOM_BINARY_MATH(atan2, Atan2)
LOOM_BINARY_MATH(copysign, Copysign)
LOOM_BINARY_MATH(hypot, Hypot)
LOOM_BINARY_MATH(remainder, Remainder) // IEEE remainder: a - n * b, n = a / b rounded to even
#undef LOOM_BINARY_MATH

// C's fmod: loom's float %, with integers computed in f64.
template <Operand A, Operand B>
requires(DslExpr<A> || DslExpr<B>) auto fmod(const A &a, const B &b) {
  using P = detail::arith_result_t<A, B>;
  using R = std::conditional_t<std::is_floating_point_v<P>, P, double>;
  return Value<R>(
      ir::Binary::make(ir::BinaryOp::Mod, detail::to_expr<R>(a), detail::to_expr<R>(b)));
}

// Whether x is finite, infinite, NaN.
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
  static_assert(!std::is_floating_point_v<detail::operand_type_t<N>>,
                "ldexp's exponent must be an integer");
  using R = std::conditional_t<std::is_floating_point_v<detail::operand_type_t<X>>,
                               detail::operand_type_t<X>, double>;
  return detail::call<R>(ir::MathFn::Ldexp, {detail::to_expr<R>(x), detail::to_expr<int32_t>(n)});
}

// x in degrees as radians and back (Python's math.radians and math.degrees).
template <DslExpr X> auto radians(const X &x) {
  using R = detail::math_type_t<X>;
  return Value<R>(ir::Binary::make(ir::BinaryOp::Mul, detail::to_expr<R>(x),
                                   detail::to_expr<R>(std::numbers::pi / 180)));
}
template <DslExpr X> auto degrees(const X &x) {
  using R = detail::math_type_t<X>;
  return Value<R>(ir::Binary::make(ir::BinaryOp::Mul, detail::to_expr<R>(x),
                                   detail::to_expr<R>(180 / std::numbers::pi)));
}

// a * b + c with one rounding.
template <Operand A, Operand B, Operand C>
requires(DslExpr<A> || DslExpr<B> || DslExpr<C>) auto fma(const A &a, const B &b, const C &c) {
  // Typed as (a * b) + c: the product is a value unless both factors are literals.
  using AB = detail::arith_result_t<A, B>;
  using Product = std::conditional_t<DslExpr<A> || DslExpr<B>, Value<AB>, AB>;
  using P = detail::arith_result_t<Product, C>;
  using R = std::conditional_t<std::is_floating_point_v<P>, P, double>;
  return detail::call<R>(ir::MathFn::Fma,
                         {detail::to_expr<R>(a), detail::to_expr<R>(b), detail::to_expr<R>(c)});
}

} // namespace loom
