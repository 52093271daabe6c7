// How far another conforming backend's value may be from the interpreter's: a forward error
// bound carried beside every value when the interpreter runs with track_uncertainty.
//
// loom's targets agree exactly on integers and on correctly rounded float operations (+ - * /,
// sqrt, fma, floor, casts), but not everywhere: the GPU may contract a*b+c into one fma, and
// libdevice's exp, log, sin and the other library functions differ from the host's libm by a few
// ulps (ir/MathFunctions.h has each function's bound). The bound starts
// at 0 and grows only through those operations; where a decision (a comparison, a float -> int
// cast, floor, fmod) could go the other way within the bound, the result is unknown. Differential
// tests compare floats within the bound and skip unknown values, so the tolerance is derived
// from the operations that ran, not guessed.
#pragma once

#include "ir/Semantics.h"

#include <limits>

namespace loom::ir {

struct Uncertainty {
  // |other backend's value - this value| <= error; infinity means any value (for bools and
  // integers error is 0 or infinity).
  double error = 0;
  // For a float product that another backend may fuse into a following add or subtract: how far
  // the fused result may move (the product's rounding error).
  double fma_slack = 0;

  bool unknown() const { return error == std::numeric_limits<double>::infinity(); }
  static Uncertainty any() { return {std::numeric_limits<double>::infinity(), 0}; }
};

// Each takes the operands, their uncertainties and the result the interpreter computed.
Uncertainty unary_uncertainty(UnaryOp op, ScalarType t, ScalarValue a, Uncertainty ua,
                              ScalarValue r);
Uncertainty binary_uncertainty(BinaryOp op, ScalarType t, ScalarValue a, Uncertainty ua,
                               ScalarValue b, Uncertainty ub, ScalarValue r);
Uncertainty cast_uncertainty(ScalarType to, ScalarType from, ScalarValue a, Uncertainty ua,
                             ScalarValue r);
// `t` is the arguments' type, as for math_op.
Uncertainty math_uncertainty(MathFn fn, ScalarType t, const ScalarValue *args,
                             const Uncertainty *us, ScalarValue r);
// select(cond, a, b) of type t whose condition is unknown: either arm's value.
Uncertainty either_uncertainty(ScalarType t, ScalarValue a, Uncertainty ua, ScalarValue b,
                               Uncertainty ub, ScalarValue r);

// The uncertainty of `stored`, an f32 with uncertainty u rounded into an array of the storage
// type t (f16, bf16): another backend's f32 may round to a neighbouring 16-bit value.
Uncertainty storage_uncertainty(ScalarType t, ScalarValue stored, Uncertainty u);

// Whether `other` is a value another backend may compute where the interpreter computed `ref`
// with uncertainty `u` (NaN matches NaN; with no uncertainty, -0 and +0 match too).
bool within_uncertainty(ScalarType t, ScalarValue ref, Uncertainty u, ScalarValue other);

} // namespace loom::ir
