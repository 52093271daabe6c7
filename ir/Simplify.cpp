#include "ir/Build.h"
#include "ir/Mutator.h"
#include "ir/Passes.h"
#include "ir/Semantics.h"

#include <cstdint>
#include <limits>

namespace loom::ir {

namespace {

// Integer arithmetic with loom's defined semantics (wrap-around, x/0 == 0, x%0 == x).
int64_t fold_int(BinaryOp op, int64_t a, int64_t b, ScalarType t) {
  return binary_op(op, t, int_value(t, a), int_value(t, b)).i;
}

bool foldable(BinaryOp op) {
  return op <= BinaryOp::Max;
}

class Simplify : public Mutator {
protected:
  Expr mutate_node(const Binary *n, const Expr &self) override {
    Expr a = mutate(n->a), b = mutate(n->b);
    auto *ca = a.as<IntConst>();
    auto *cb = b.as<IntConst>();
    if (ca && cb && foldable(n->op))
      return IntConst::make(n->type, fold_int(n->op, ca->value, cb->value, n->type));
    if (is_int(n->type)) {
      if (n->op == BinaryOp::Add && is_int_const(b, 0))
        return a;
      if (n->op == BinaryOp::Add && is_int_const(a, 0))
        return b;
      if (n->op == BinaryOp::Sub && is_int_const(b, 0))
        return a;
      if (n->op == BinaryOp::Mul && is_int_const(b, 1))
        return a;
      if (n->op == BinaryOp::Mul && is_int_const(a, 1))
        return b;
    }
    return a.same_as(n->a) && b.same_as(n->b) ? self : Binary::make(n->op, a, b);
  }

  Expr mutate_node(const Cast *n, const Expr &self) override {
    Expr a = mutate(n->a);
    if (auto *c = a.as<IntConst>()) {
      if (is_int(n->type))
        return IntConst::make(n->type, c->value);
      if (is_float(n->type)) // one rounding: i64 -> f64 -> f32 could round twice
        return FloatConst::make(n->type, cast_op(n->type, c->type, int_value(c->type, c->value)).f);
    }
    if (auto *c = a.as<FloatConst>(); c && is_float(n->type))
      return FloatConst::make(n->type, c->value);
    return a.same_as(n->a) ? self : Cast::make(n->type, a);
  }

  Expr mutate_node(const Select *n, const Expr &self) override {
    Expr c = mutate(n->cond), a = mutate(n->a), b = mutate(n->b);
    if (auto *k = c.as<BoolConst>())
      return k->value ? a : b;
    return c.same_as(n->cond) && a.same_as(n->a) && b.same_as(n->b) ? self : Select::make(c, a, b);
  }

  Stmt mutate_node(const IfThenElse *n, const Stmt &self) override {
    Expr c = mutate(n->cond);
    if (auto *k = c.as<BoolConst>()) {
      Stmt taken = k->value ? n->then_case : n->else_case;
      return taken.defined() ? mutate(taken) : Block::make({});
    }
    return Mutator::mutate_node(n, self);
  }
};

// A parallel loop with a constant extent of 0 or less runs no iteration.
class DropEmptyParallelLoops : public Mutator {
protected:
  Stmt mutate_node(const ParallelFor *n, const Stmt &self) override {
    for (const Expr &extent : n->extents)
      if (auto *c = extent.as<IntConst>(); c && c->value <= 0)
        return Block::make({});
    return Mutator::mutate_node(n, self);
  }
};

} // namespace

Stmt drop_empty_parallel_loops(const Stmt &s) {
  return DropEmptyParallelLoops().mutate(s);
}

Stmt simplify(const Stmt &s) {
  return Simplify().mutate(s);
}
Expr simplify(const Expr &e) {
  return Simplify().mutate(e);
}

} // namespace loom::ir
