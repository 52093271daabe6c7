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
  std::vector<std::vector<int64_t>> strides; // by parameter index: a strided array's, in elements
};

// Whether `e` reads only scalar parameters and array extents (so evaluate() can compute it).
bool reads_only_parameters(const Expr &e, const std::vector<Param> &params);

// Throws loom::VerifyError if `e` reads anything but parameters (locals, arrays, thread ids).
ScalarValue evaluate(const Expr &e, const std::vector<Param> &params, const ArgumentValues &args);

// Text-DSL shape symbols: throws loom::ArgumentError, naming the kernel, the symbol and both
// shapes, when two dimensions declared with one symbol have different extents in `args`, or one
// differs from its literal extent (`rgb: f32[n, 3]`).
void check_shape_symbols(const Kernel &k, const ArgumentValues &args);

} // namespace loom::ir
