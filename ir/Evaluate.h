// Evaluates expressions over a call's arguments on the host: launch domains are computed from
// scalar parameters and array shapes before a kernel runs.
#pragma once

#include "ir/IR.h"

#include <cstdint>
#include <vector>

namespace loom::ir {

// A scalar value; which member is meaningful follows the expression's type.
struct ScalarValue {
  int64_t i = 0; // bool, i32, i64
  double f = 0;  // f32, f64
};

struct ArgumentValues {
  std::vector<ScalarValue> scalars;          // by parameter index (arrays: unused)
  std::vector<std::vector<int64_t>> extents; // by parameter index (scalars: empty)
};

// Throws loom::VerifyError if `e` reads anything but parameters (locals, arrays, thread ids).
ScalarValue evaluate(const Expr &e, const std::vector<Param> &params, const ArgumentValues &args);

} // namespace loom::ir
