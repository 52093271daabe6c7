#include "ir/ParallelRange.h"

#include "ir/Build.h"
#include "ir/Evaluate.h"

namespace loom::ir {

namespace {

const IntConst *constant(const Expr &e) {
  return e.as<IntConst>();
}

// ceil(distance / stride) for a positive stride, and at least 0.
Expr positive_trips(Expr distance, Expr stride) {
  if (const IntConst *c = constant(stride); c && c->value == 1)
    return max(std::move(distance), i64(0));
  Expr rounded_up = add(std::move(distance), sub(stride, i64(1)));
  return max(div(std::move(rounded_up), stride), i64(0));
}

} // namespace

Expr trip_count(const ParallelRange &r) {
  if (const IntConst *s = constant(r.step)) {
    if (s->value > 0)
      return positive_trips(sub(r.end, r.begin), r.step);
    if (s->value < 0)
      return positive_trips(sub(r.begin, r.end), i64(-s->value));
    return i64(0);
  }
  // A step known only at run time: either direction, and none for 0.
  Expr up = positive_trips(sub(r.end, r.begin), r.step);
  Expr down = positive_trips(sub(r.begin, r.end), sub(i64(0), r.step));
  return Select::make(lt(i64(0), r.step), up, Select::make(lt(r.step, i64(0)), down, i64(0)));
}

Expr range_index(const ParallelRange &r, const Var &j) {
  Expr index = var_ref(j);
  if (const IntConst *s = constant(r.step); !s || s->value != 1)
    index = mul(index, r.step);
  if (const IntConst *b = constant(r.begin); !b || b->value != 0)
    index = add(r.begin, index);
  return index;
}

void add_step_check(std::vector<CallCheck> &checks, const std::vector<Param> &params,
                    const ParallelRange &r, const std::string &where) {
  if (constant(r.step) || !reads_only_parameters(r.step, params))
    return;
  checks.push_back({Binary::make(BinaryOp::Ne, r.step, i64(0)),
                    "the step of " + where + " is 0; a parallel range needs a non-zero step"});
}

} // namespace loom::ir
