// Which rows (indices along the first dimension) of each array iteration i of a parallel loop's
// first dimension touches: rows i + lo to i + hi (a stencil's halo), fixed rows, or rows the
// analysis cannot bound (an index that reads an array, another loop's variable, a scalar
// parameter, ...). Kernel::on(all_gpus()) splits the loop's first dimension among devices and
// copies each array's rows by it: only the rows a part reads go in, only those it writes come out.
#pragma once

#include "ir/IR.h"

#include <optional>
#include <string>
#include <vector>

namespace loom::ir {

// A set of rows as iteration i sees it: the union of i + [lo, hi] (when `relative`), of the fixed
// rows [first, last] (when `fixed`), or every row (when `any`).
struct RowSet {
  bool any = false;
  bool relative = false;
  int64_t lo = 0, hi = 0;
  bool fixed = false;
  int64_t first = 0, last = 0;
  std::string unbounded_index; // `any`: the first index that made it so, as the IR prints it

  bool empty() const { return !any && !relative && !fixed; }
  // The rows iterations [begin, end) of the loop touch, clamped to [0, extent): [*from, *to).
  void rows(int64_t begin, int64_t end, int64_t extent, int64_t *from, int64_t *to) const;
};

struct ArrayRows {
  RowSet read;    // loads
  RowSet written; // stores and atomics
  RowSet reduced; // reductions (ir::Reduce)
  std::optional<ReduceOp> reduce_op;
  bool mixed_reduce_ops = false; // reductions of more than one op
};

// Per parameter of `kernel` (scalars: empty sets), the rows `loop`'s body touches relative to
// its first variable.
std::vector<ArrayRows> row_accesses(const Kernel &kernel, const ParallelFor &loop);

} // namespace loom::ir
