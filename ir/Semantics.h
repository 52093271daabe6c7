// loom's scalar semantics on the host (docs/semantics.md as code): every IR operator on values.
// The interpreter, the host evaluator of launch domains and the tests share these functions, so
// there is one definition of what `x / 0`, a saturating cast or an f32 addition gives.
#pragma once

#include "ir/IR.h"

#include <cstdint>

namespace loom::ir {

// A scalar value; which member is meaningful follows the expression's type. Integers are held as
// wrap_int (ir/Type.h) holds them: signed ones sign-extended (an i32 is in int32_t's range),
// unsigned ones zero-extended (a u64 keeps its bits), bools as 0 or 1; an f32 is held as the
// double that equals the float (every f32 operation rounds to float).
struct ScalarValue {
  int64_t i = 0; // bool and the integers
  double f = 0;  // f32, f64; the real part of c64, c128
  double im = 0; // the imaginary part of c64, c128
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
// float -> int truncates and saturates (NaN -> 0); anything -> bool is `!= 0`. A real becomes a
// complex number with a zero imaginary part, a complex number a real by its real part (NumPy's
// astype), each part rounded as a float is.
ScalarValue cast_op(ScalarType to, ScalarType from, ScalarValue a);
// Math functions in the type's precision (std::exp(float) for f32), as the CPU's libm computes
// them. `t` is the type of the arguments (of the first, for ldexp), not of the result: isnan and
// the other classifications give a bool in `i`.
ScalarValue math_op(MathFn fn, ScalarType t, const ScalarValue *args);

// Whether two values of type `t` are the same: integers equal, floats with the same bits except
// that every NaN equals every other NaN.
bool same_value(ScalarType t, ScalarValue a, ScalarValue b);

// A value's bits in its type's width, zero-extended to 64 (bool: 0 or 1; f32: the float's bits),
// as compiled CPU code passes values to the SIMT runtime; and the value those bits hold.
uint64_t value_bits(ScalarType t, ScalarValue v);
ScalarValue value_from_bits(ScalarType t, uint64_t bits);

// A warp collective's result for one lane (IR.h, WarpOpKind), the one definition that the CPU
// runtime (loom_simt_warp) and the interpreter share. `values` holds the 32 lanes' contributions
// (value_bits of a shuffle's operand, 0 or 1 for a vote), `active` has bit l set for each lane l
// that took part, `own` is the calling lane's contribution and `operand` a shuffle's lane operand
// (its low 5 bits count). A shuffle from a lane that did not take part, or from outside the warp
// (ShflUp below 0, ShflDown past 31), gives `own`. Results are bits as well: the shuffled value,
// Any/All 0 or 1, Ballot the 32-bit mask (only active lanes' bits can be set).
uint64_t warp_result(WarpOpKind op, const uint64_t *values, uint32_t active, int lane, uint64_t own,
                     int32_t operand);

} // namespace loom::ir
