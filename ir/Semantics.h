// loom's scalar semantics on the host (docs/semantics.md as code): every IR operator on values.
// The interpreter, the host evaluator of launch domains and the tests share these functions, so
// there is one definition of what `x / 0`, a saturating cast or an f32 addition gives.
#pragma once

#include "ir/IR.h"

#include <cstdint>

namespace loom::ir {

// A scalar value; which member is meaningful follows the expression's type. Integers are held
// sign-extended (an i32 is in int32_t's range), bools as 0 or 1, and an f32 as the double that
// equals the float (every f32 operation rounds to float).
struct ScalarValue {
  int64_t i = 0; // bool, i32, i64
  double f = 0;  // f32, f64
};

ScalarValue int_value(ScalarType t, int64_t v);  // wraps to the width of t (bool: v != 0)
ScalarValue float_value(ScalarType t, double v); // rounds to float for f32

// An element of type t in memory, as loom's calling convention lays it out (bool: one byte,
// any non-zero byte is true).
ScalarValue load_scalar(const void *memory, ScalarType t);
void store_scalar(void *memory, ScalarType t, ScalarValue v);

ScalarValue unary_op(UnaryOp op, ScalarType t, ScalarValue a);
// `t` is the operands' type (comparisons give a bool).
ScalarValue binary_op(BinaryOp op, ScalarType t, ScalarValue a, ScalarValue b);
// float -> int truncates and saturates (NaN -> 0); anything -> bool is `!= 0`.
ScalarValue cast_op(ScalarType to, ScalarType from, ScalarValue a);
// Math functions in the type's precision (std::exp(float) for f32), as the CPU's libm computes
// them.
ScalarValue math_op(MathFn fn, ScalarType t, const ScalarValue *args);

// Whether two values of type `t` are the same: integers equal, floats with the same bits except
// that every NaN equals every other NaN.
bool same_value(ScalarType t, ScalarValue a, ScalarValue b);

} // namespace loom::ir
