// The typing rules of the text DSL, which are the embedded DSL's (frontend/Value.h), so that both
// front ends build the same IR for the same kernel:
//  - between two values, C++'s usual arithmetic conversions (ir::promote);
//  - literals are weakly typed, as C++ literals are in the embedded DSL: `x * 2.0` stays f32 for an
//    f32 x; an integer value with a float literal becomes f64; an imaginary literal `2j` is a c128
//    literal: a c64 value keeps its type with it, an f32 value becomes c64, any other c128;
//  - an expression of literals only is folded, with C++'s types (int, long, double, bool) and
//    loom's defined semantics (x / 0 == 0, shifts modulo the width, wrapping overflow).
#pragma once

#include "ir/IR.h"

#include <cstdint>
#include <string>
#include <vector>

namespace loom::text {

// A checked expression: an IR expression, or a literal.
struct Value {
  ir::ScalarType type =
      ir::ScalarType::I32; // a literal's C++ type: bool, i32 (int), i64 (long), f64, c128
  bool literal = false;
  ir::Expr expr; // when not a literal
  int64_t i = 0; // literal of bool or integer type
  double f = 0;  // literal of float type, or a complex literal's real part
  double im = 0; // a complex literal's imaginary part

  static Value of(ir::Expr e);
  static Value int_literal(int64_t v); // i32 when it fits, else i64 (as C++ types a literal)
  static Value float_literal(double v);
  static Value bool_literal(bool v);
  static Value complex_literal(double re, double im); // c128, as Python's complex is
};

// A type error, with its message; the checker adds the location.
struct TypeError {
  std::string message;
};

// "i32 value", "f64 literal": how a value is named in messages.
std::string describe(const Value &v);

// The value converted to `to`, as the embedded DSL converts (a Cast node; `!= 0` for bool).
ir::Expr convert(const Value &v, ir::ScalarType to);

// The value converted to `to` where it is stored, assigned, passed or returned: as convert(), but
// a complex value is never made real implicitly (TypeError: the imaginary part would be lost).
ir::Expr convert_assigned(const Value &v, ir::ScalarType to);

// The type arithmetic between a and b is done in.
ir::ScalarType arithmetic_type(const Value &a, const Value &b);

// Binary operators: + - * / % min max, comparisons, & | ^, << >>, and/or.
Value binary(ir::BinaryOp op, const Value &a, const Value &b);
Value negate(const Value &a);
Value unary_plus(const Value &a);
Value logical_not(const Value &a);
Value bitwise_not(const Value &a);
// `a if cond else b` (both arms are evaluated).
Value select(const Value &cond, const Value &a, const Value &b);
// An explicit conversion, `f32(x)`.
Value cast(ir::ScalarType to, const Value &a);
// A function of the math library (ir/MathFunctions.h); `args` has the function's arity. Throws
// TypeError for an argument the function does not take.
Value math(ir::MathFn fn, const std::vector<Value> &args);
// fabs(a): |a| as a float (f64 for an integer), as C's fabs.
Value float_abs(const Value &a);
// fmod(a, b): loom's float `%` (C's fmod), in f64 for integers.
Value float_mod(const Value &a, const Value &b);
// degrees(a) and radians(a): a * factor, in a's float type (f64 for an integer).
Value scale_angle(const Value &a, double factor);

} // namespace loom::text
