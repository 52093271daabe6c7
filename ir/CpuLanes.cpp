// A CPU worker's float sums and products in lanes (see Passes.h): the chunk's innermost loop
// runs whole groups of `cpu_reduction_lanes` consecutive iterations, iteration l of a group
// updating lane l of each such accumulator, then the rest of the loop into lane 0; after the
// nest the lanes are combined in order, lane 0 first:
//
//   acc = 0                                  acc = 0; acc_lane1 = 0; ... acc_lane15 = 0
//   for i in [b, e):               ==>       for i0 in [b, last) step 16:
//     acc += x[i]                              acc += x[i0]; acc_lane1 += x[i0 + 1]; ...
//                                            for i in [last, e): acc += x[i]
//                                            acc = ((acc + acc_lane1) + acc_lane2) + ...
//
// Each lane is a chain of additions of its own, which is what lets a strict float sum run at the
// speed of memory instead of at one addition's latency per element: LLVM's SLP vectorizer makes
// the lanes vector registers. Which lane an iteration updates depends only on its position in
// the loop, so results are the same for every run with the same thread count.
#include "ir/Build.h"
#include "ir/Mutator.h"
#include "ir/Passes.h"

#include <map>

namespace loom::ir {

namespace {

// Whether `body` runs straight through: lanes copy the body, and a loop in it would be copied
// with it (and its own accumulation is not the chunk's).
bool straight_line(const Stmt &body) {
  return !contains<For, While, ParallelFor, Barrier>(body);
}

class Lanes {
public:
  explicit Lanes(std::vector<const TaskReduction *> laned) : laned_(std::move(laned)) {
    for (int l = 1; l < cpu_reduction_lanes; ++l)
      for (const TaskReduction *r : laned_) {
        const Var &acc = r->accumulator;
        lanes_[l][acc.get()] = make_var(acc->name + "_lane" + std::to_string(l), acc->type);
      }
  }

  // The loops `depth` levels of nesting below `loop`, their innermost one in lanes.
  Stmt nest(const Stmt &loop, int depth) {
    auto *f = loop.as<For>();
    if (depth > 0)
      return For::make(f->var, f->begin, f->end, f->step, nest(f->body, depth - 1));
    Var last = make_var(f->var->name + "_lanes_end", ScalarType::I64);
    Expr whole =
        mul(div(sub(f->end, f->begin), i64(cpu_reduction_lanes)), i64(cpu_reduction_lanes));
    Var group = make_var(f->var->name + "_group", ScalarType::I64);
    std::vector<Stmt> copies;
    for (int l = 0; l < cpu_reduction_lanes; ++l) {
      RenameVars copy; // the accumulators by the lane's, the loop variable, fresh locals
      copy.fresh_locals = true;
      if (l > 0)
        for (const auto &[acc, lane] : lanes_[l])
          copy.to[acc] = lane;
      Var index = make_var(f->var->name, f->var->type);
      copy.to[f->var.get()] = index;
      copies.push_back(Declare::make(index, add(VarRef::make(group), i64(l))));
      copies.push_back(copy.mutate(f->body));
    }
    return Block::make({Declare::make(last, add(f->begin, whole)),
                        For::make(group, f->begin, VarRef::make(last), i64(cpu_reduction_lanes),
                                  Block::make(std::move(copies))),
                        For::make(f->var, VarRef::make(last), f->end, f->step, f->body)});
  }

  // The lanes' declarations, then `nest`, then the lanes combined into the accumulators.
  Stmt around(Stmt nest) const {
    std::vector<Stmt> out;
    for (int l = 1; l < cpu_reduction_lanes; ++l)
      for (const TaskReduction *r : laned_) {
        const ScalarType t = r->accumulator->type;
        out.push_back(Declare::make(lanes_.at(l).at(r->accumulator.get()),
                                    FloatConst::make(t, r->op == ReduceOp::Add ? 0.0 : 1.0)));
      }
    out.push_back(std::move(nest));
    for (int l = 1; l < cpu_reduction_lanes; ++l)
      for (const TaskReduction *r : laned_) {
        const Var &acc = r->accumulator;
        out.push_back(Assign::make(acc, Binary::make(binary_op_of(r->op), VarRef::make(acc),
                                                     VarRef::make(lanes_.at(l).at(acc.get())))));
      }
    return Block::make(std::move(out));
  }

private:
  std::vector<const TaskReduction *> laned_;
  std::map<int, std::map<const Variable *, Var>> lanes_; // by lane 1.., by accumulator
};

} // namespace

Task accumulate_in_lanes(const Task &task) {
  if (task.kind != TaskKind::Parallel || !task.chunk_begin || task.tile.rows > 0 ||
      task.domain.empty())
    return task;
  std::vector<const TaskReduction *> laned;
  for (const TaskReduction &r : task.reductions)
    if (is_float(r.accumulator->type) && (r.op == ReduceOp::Add || r.op == ReduceOp::Mul))
      laned.push_back(&r);
  if (laned.empty())
    return task;

  // The chunk's loop nest: the last top-level statement, one loop per dimension of the domain,
  // each directly the body of the one outside it (map_parallel_loops builds it so).
  std::vector<Stmt> top = statements_of(task.body);
  const int depth = static_cast<int>(task.domain.size()) - 1;
  const For *inner = top.empty() ? nullptr : top.back().as<For>();
  auto *first = inner ? inner->begin.as<VarRef>() : nullptr;
  if (!first || first->var != task.chunk_begin)
    return task;
  for (int d = 0; d < depth; ++d) {
    inner = inner->body.as<For>();
    if (!inner)
      return task;
  }
  // A loop in the body is not copied. A vectorize schedule of the innermost loop stays with its
  // variable, the rest loop's, and changes no result, as schedules never do.
  if (!straight_line(inner->body))
    return task;

  Lanes lanes(std::move(laned));
  top.back() = lanes.around(lanes.nest(top.back(), depth));
  Task out = task;
  out.body = top.size() == 1 ? top[0] : Block::make(std::move(top));
  out.lanes = cpu_reduction_lanes;
  return out;
}

} // namespace loom::ir
