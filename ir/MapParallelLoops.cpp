#include "ir/Mutator.h"
#include "ir/Passes.h"

namespace loom::ir {

namespace {

Expr i64(Expr e) {
  return Cast::make(ScalarType::I64, std::move(e));
}
Expr reg(Reg r, int axis) {
  return i64(SpecialReg::make(r, axis));
}
Expr mul(Expr a, Expr b) {
  return Binary::make(BinaryOp::Mul, std::move(a), std::move(b));
}
Expr add(Expr a, Expr b) {
  return Binary::make(BinaryOp::Add, std::move(a), std::move(b));
}

class MapParallelLoops : public Mutator {
public:
  MapParallelLoops(Target target, Var chunk_begin, Var chunk_end)
      : target_(target), chunk_begin_(std::move(chunk_begin)), chunk_end_(std::move(chunk_end)) {}

protected:
  Stmt mutate_node(const ParallelFor *n, const Stmt &) override {
    const int dims = static_cast<int>(n->vars.size());
    Stmt body = n->body;
    // Build from the innermost dimension outwards.
    for (int k = dims - 1; k >= 0; --k) {
      const Var &v = n->vars[k];
      if (target_ == Target::GPU) {
        int axis = dims - 1 - k; // innermost dimension -> x
        Expr first =
            add(mul(reg(Reg::BlockIdx, axis), reg(Reg::BlockDim, axis)), reg(Reg::ThreadIdx, axis));
        Expr stride = mul(reg(Reg::BlockDim, axis), reg(Reg::GridDim, axis));
        body = For::make(v, first, n->extents[k], stride, body);
      } else if (k == 0) {
        body = For::make(v, VarRef::make(chunk_begin_), VarRef::make(chunk_end_), one(), body);
      } else {
        body = For::make(v, IntConst::make(ScalarType::I64, 0), n->extents[k], one(), body);
      }
    }
    return body;
  }

private:
  static Expr one() { return IntConst::make(ScalarType::I64, 1); }

  Target target_;
  Var chunk_begin_, chunk_end_;
};

} // namespace

Task map_parallel_loops(const Task &task, Target target) {
  if (task.kind != TaskKind::Parallel)
    return task;
  Task out = task;
  if (target == Target::CPU) {
    out.chunk_begin = make_var("chunk_begin", ScalarType::I64);
    out.chunk_end = make_var("chunk_end", ScalarType::I64);
  }
  out.body = MapParallelLoops(target, out.chunk_begin, out.chunk_end).mutate(task.body);
  return out;
}

} // namespace loom::ir
