// Evaluates expressions over a call's arguments on the host: launch domains are computed from
// scalar parameters and array shapes before a kernel runs.
#pragma once

#include "ir/IR.h"
#include "ir/Semantics.h"

#include <cstdint>
#include <vector>

namespace loom::ir {

struct ArgumentValues {
  std::vector<ScalarValue> scalars;          // by parameter index (arrays: unused)
  std::vector<std::vector<int64_t>> extents; // by parameter index (scalars: empty)
};

// Throws loom::VerifyError if `e` reads anything but parameters (locals, arrays, thread ids).
ScalarValue evaluate(const Expr &e, const std::vector<Param> &params, const ArgumentValues &args);

} // namespace loom::ir
