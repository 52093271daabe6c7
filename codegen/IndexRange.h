// Bounds of the integer expressions that index arrays and count loops, under the contract of
// 32-bit index arithmetic (GpuTarget::index32): every array has at most index32_max_elements
// elements and every grid dimension at most index32_max_blocks blocks. Code generation uses them
// to keep a loop's counter in 32 bits where its values and its last step provably fit, as nvcc
// does for `int` indices.
#pragma once

#include "ir/IR.h"

#include <cstdint>
#include <optional>
#include <unordered_map>

namespace loom::codegen {

struct IndexRange {
  int64_t lo = 0, hi = 0; // inclusive
};

// What is known of the variables in scope (the 32-bit loop counters).
using IndexRanges = std::unordered_map<const ir::Variable *, IndexRange>;

// The values `e` can take, or nothing when they are not bounded by the contract (a scalar
// parameter, a float, a variable not in `known`, a bound beyond ±2^62).
std::optional<IndexRange> index_range(const ir::Expr &e, const IndexRanges &known);

// The range of a loop's counter when `for var in begin .. end step step` may count in 32 bits:
// every value it takes and the one its last step computes lie in [INT32_MIN, INT32_MAX].
std::optional<IndexRange> counter_range_32(const ir::For &loop, const IndexRanges &known);

} // namespace loom::codegen
