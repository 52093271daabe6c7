// A parallel loop dimension written as a range, `parallel(b, e, s)` (Numba's prange(b, e, s)):
// the IR's ParallelFor always runs from 0 to an extent, so both front ends lower a range to the
// extent of its trip count and give the body the index b + j * s of normalized iteration j. One
// definition, so that both front ends build the same IR.
#pragma once

#include "ir/IR.h"

namespace loom::ir {

struct ParallelRange {
  Expr begin, end, step; // i64; step may be any non-zero value (a literal 0 is refused before)
};

// The number of iterations, ceil((end - begin) / step) and at least 0, as Python's range counts
// them: 0 for a step of 0 (which the front ends refuse when it is a literal).
Expr trip_count(const ParallelRange &r);
// The index of iteration j (an i64 variable counting from 0): begin + j * step.
Expr range_index(const ParallelRange &r, const Var &j);
// Adds to `kernel` the call-time check that a step over its parameters (not a literal) is not 0:
// a call with such a step is an ArgumentError saying `where` ("parallel() on line 4"). A step that
// reads loop variables or locals cannot be checked before the call and runs no iteration when 0.
void add_step_check(std::vector<CallCheck> &checks, const std::vector<Param> &params,
                    const ParallelRange &r, const std::string &where);

} // namespace loom::ir
