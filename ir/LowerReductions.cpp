#include "ir/Build.h"
#include "ir/Mutator.h"
#include "ir/Passes.h"
#include "ir/Printer.h"
#include "support/Error.h"

#include <cmath>
#include <limits>
#include <map>
#include <set>

namespace loom::ir {

namespace {

// Every access to one array inside the parallel loop.
struct ArrayUse {
  // Every update (store or reduction) is at the iteration's own elements: each of the loop's
  // variables has a dimension of its own that holds it or an affine map of it (v * c + o with c
  // a non-zero constant and o the same for every iteration: a parallel range's begin + j * step,
  // a shifted A[i + 1, j]), the same expression in that dimension in every update; the other
  // dimensions are free, and may differ between updates (C[k, j] in a loop over j, k a sequential
  // loop inside it; partial[t, c, j] = 0 and partial[t, nearest, j] += x in a loop over t).
  // Different iterations differ in some variable, so in its dimension, in every pair of their
  // updates: no two iterations update one element. Loads at other indices do not matter:
  // reading an element that another iteration updates races with or without atomics
  // (docs/semantics.md).
  bool all_owned = true;
  std::vector<Expr> owned_indices; // the tuple of the first update (of the first access, if none)
  std::vector<size_t> owned_dims;  // the first update's dimension of each loop variable
  bool updated = false;            // a store or reduction seen
  bool all_reduce = true;          // no plain load or store
  bool all_invariant = true;       // every index is the same for all iterations
  std::set<ReduceOp> ops;
};

class Uses : public Visitor {
public:
  Uses(const ParallelFor *loop, const std::vector<Param> &params) : loop_(loop) {
    for (const Param &p : params)
      if (p.var)
        scalar_params_.insert(p.var.get());
  }
  std::map<int, ArrayUse> arrays;

  // Each of the loop's variables in a dimension of its own, as an affine map of it; the other
  // dimensions are free (a sequential loop's variable inside the iteration, a constant, data):
  // two iterations differ in some variable, so in that variable's dimension. Sets `dims` (one per
  // loop variable) when they are.
  bool owned(const std::vector<Expr> &indices, std::vector<size_t> *dims = nullptr) const {
    if (!loop_ || nested_ > 0 || indices.size() < loop_->vars.size())
      return false;
    std::vector<bool> taken(indices.size(), false);
    std::vector<size_t> found_dims;
    for (const Var &v : loop_->vars) {
      bool found = false;
      for (size_t k = 0; k < indices.size() && !found; ++k)
        if (!taken[k] && affine_in(indices[k], v.get())) {
          taken[k] = found = true;
          found_dims.push_back(k);
        }
      if (!found)
        return false;
    }
    if (dims)
      *dims = std::move(found_dims);
    return true;
  }
  // Whether e is v, v * c, c * v, or one of those plus or minus an invariant offset (either
  // side of a +), with c a non-zero integer constant.
  bool affine_in(const Expr &e, const Variable *v) const {
    if (is_var(e, v))
      return true;
    auto *b = e.as<Binary>();
    if (!b)
      return false;
    auto nonzero_constant = [](const Expr &x) {
      auto *c = x.as<IntConst>();
      return c && c->value != 0;
    };
    switch (b->op) {
    case BinaryOp::Mul:
      return (is_var(b->a, v) && nonzero_constant(b->b)) ||
             (is_var(b->b, v) && nonzero_constant(b->a));
    case BinaryOp::Add:
      return (affine_in(b->a, v) && invariant({b->b})) || (affine_in(b->b, v) && invariant({b->a}));
    case BinaryOp::Sub:
      return affine_in(b->a, v) && invariant({b->b});
    default:
      return false;
    }
  }
  bool invariant(const std::vector<Expr> &indices) const {
    Invariant check(scalar_params_);
    for (const Expr &i : indices)
      check.visit(i);
    return check.ok;
  }

protected:
  void visit_node(const Load *n) override {
    note(n->array, n->indices, nullptr, /*update=*/false);
    Visitor::visit_node(n);
  }
  void visit_node(const Store *n) override {
    note(n->array, n->indices, nullptr, /*update=*/true);
    Visitor::visit_node(n);
  }
  void visit_node(const Reduce *n) override {
    note(n->array, n->indices, &n->op, /*update=*/true);
    Visitor::visit_node(n);
  }
  void visit_node(const ParallelFor *n) override {
    ++nested_;
    Visitor::visit_node(n);
    --nested_;
  }

private:
  // Over scalar parameters, constants and array shapes only.
  struct Invariant : Visitor {
    explicit Invariant(const std::set<const Variable *> &params) : params(params) {}
    const std::set<const Variable *> &params;
    bool ok = true;
    void visit_node(const VarRef *n) override { ok = ok && params.count(n->var.get()); }
    void visit_node(const Load *) override { ok = false; }
    void visit_node(const SharedLoad *) override { ok = false; } // a local array's element
    void visit_node(const WarpOp *) override { ok = false; }
    void visit_node(const SpecialReg *) override { ok = false; }
    void visit_node(const SharedExtent *) override { ok = false; } // known at launch
  };

  void note(int array, const std::vector<Expr> &indices, const ReduceOp *op, bool update) {
    auto [it, first] = arrays.try_emplace(array);
    ArrayUse &u = it->second;
    if (first || (update && !u.updated))
      u.owned_indices = indices;
    if (update && !u.updated) {
      u.all_owned = owned(indices, &u.owned_dims);
    } else if (update && u.all_owned) {
      // Owned too, and the same expressions as the first update in its variables' dimensions.
      bool same = owned(indices) && indices.size() == u.owned_indices.size();
      for (size_t d : u.owned_dims)
        same = same && equal(indices[d], u.owned_indices[d]);
      u.all_owned = same;
    }
    if (update)
      u.updated = true;
    u.all_reduce = u.all_reduce && op != nullptr && nested_ == 0;
    u.all_invariant = u.all_invariant && invariant(indices);
    if (op)
      u.ops.insert(*op);
  }

  const ParallelFor *loop_;
  std::set<const Variable *> scalar_params_;
  int nested_ = 0;
};

Expr identity(ReduceOp op, ScalarType t) {
  const bool fp = is_float(t);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const int64_t largest = fp ? 0 : int_max(t), smallest = fp ? 0 : int_min(t);
  switch (op) {
  case ReduceOp::Add:
    return fp ? FloatConst::make(t, 0.0) : IntConst::make(t, 0);
  case ReduceOp::Mul:
    return fp ? FloatConst::make(t, 1.0) : IntConst::make(t, 1);
  // Float min and max ignore a NaN operand (fmin, fmax), so NaN is their identity: a worker with
  // nothing to contribute leaves even a NaN element as it was (an infinity would replace it).
  case ReduceOp::Min:
    return fp ? FloatConst::make(t, nan) : IntConst::make(t, largest);
  case ReduceOp::Max:
    return fp ? FloatConst::make(t, nan) : IntConst::make(t, smallest);
  }
  return Expr();
}

// Rewrites each Reduce by what `lower` says of its array: a load-op-store, an update of a
// worker's accumulator, or (left alone) an atomic update.
class Rewrite : public Mutator {
public:
  enum class Kind { ReadModifyWrite, Accumulate, Atomic };
  std::map<int, Kind> kinds;                         // arrays not listed: ReadModifyWrite
  std::map<std::string, TaskReduction> accumulators; // by "array[indices] op"
  std::vector<std::string> order;                    // accumulators in order of first use
  const std::vector<Param> *params = nullptr;

protected:
  Stmt mutate_node(const Reduce *n, const Stmt &self) override {
    auto it = kinds.find(n->array);
    Kind kind = it == kinds.end() ? Kind::ReadModifyWrite : it->second;
    Stmt s = Mutator::mutate_node(n, self);
    auto *r = s.as<Reduce>();
    const ScalarType t = (*params)[r->array].type;
    if (kind != Kind::ReadModifyWrite && is_half_float(t))
      throw CompileError("kernel parameter '" + (*params)[r->array].name + "' is an array of " +
                         type_name(t) +
                         ", a storage type: a parallel loop cannot reduce into it (its iterations "
                         "update one element); reduce into an f32 array and convert after");
    switch (kind) {
    case Kind::Atomic:
      return s;
    case Kind::ReadModifyWrite:
      return Store::make(
          r->array, r->indices,
          Binary::make(binary_op_of(r->op), Load::make(t, r->array, r->indices), r->value));
    case Kind::Accumulate: {
      std::string key =
          to_string(Load::make(t, r->array, r->indices), *params) + " " + op_name(r->op);
      auto found = accumulators.find(key);
      if (found == accumulators.end()) {
        Var acc = make_var((*params)[r->array].name + "_partial" + std::to_string(order.size()),
                           value_type(t));
        found = accumulators.emplace(key, TaskReduction{r->op, acc, r->array, r->indices}).first;
        order.push_back(key);
      }
      const Var &acc = found->second.accumulator;
      return Assign::make(acc, Binary::make(binary_op_of(r->op), VarRef::make(acc), r->value));
    }
    }
    return s;
  }
};

} // namespace

Task lower_reductions(const Task &task, const std::vector<Param> &params) {
  Task out = task;
  Rewrite rewrite;
  rewrite.params = &params;

  // The task's parallel loop: the last top-level statement of a parallel task (after the
  // re-declared locals split_into_tasks puts first).
  const ParallelFor *loop = nullptr;
  std::vector<Stmt> top = statements_of(task.body);
  if (task.kind == TaskKind::Parallel && !top.empty())
    loop = top.back().as<ParallelFor>();

  Uses uses(loop, params);
  uses.visit(loop ? loop->body : task.body);
  // A serial task runs one update at a time, except inside a parallel loop nested in it.
  const bool nested = !loop && contains<ParallelFor>(task.body);
  for (const auto &[array, use] : uses.arrays) {
    if (use.ops.empty())
      continue;
    auto element_text = [&] {
      std::string text = params[array].name + "[";
      for (size_t k = 0; k < use.owned_indices.size(); ++k)
        text += (k ? ", " : "") + to_string(use.owned_indices[k], params);
      return text + "]";
    };
    if (!loop) {
      rewrite.kinds[array] = nested ? Rewrite::Kind::Atomic : Rewrite::Kind::ReadModifyWrite;
    } else if (use.all_owned) {
      rewrite.kinds[array] = Rewrite::Kind::ReadModifyWrite;
      out.updates.push_back("updates of " + element_text() +
                            ": each iteration's own elements (each parallel variable in an index "
                            "dimension of its own, the same in every update): plain loads and "
                            "stores");
    } else if (use.all_reduce && use.all_invariant && use.ops.size() == 1) {
      rewrite.kinds[array] = Rewrite::Kind::Accumulate;
      out.updates.push_back("updates of " + element_text() +
                            ": one element for every iteration: each worker's partial, combined "
                            "in a fixed order after the loop");
    } else {
      rewrite.kinds[array] = Rewrite::Kind::Atomic;
      out.updates.push_back(
          "updates of " + element_text() + ": atomic read-modify-writes, as " +
          (use.ops.size() > 1 ? std::string("the array is updated with more than one operation")
           : use.all_invariant
               ? std::string("the array is also read or stored in the loop")
               : std::string("two iterations may update one element (the indices are not each "
                             "iteration's own, or another update uses other indices)")));
    }
  }

  Stmt body = rewrite.mutate(task.body);
  if (!rewrite.order.empty()) {
    std::vector<Stmt> stmts;
    for (const std::string &key : rewrite.order) {
      const TaskReduction &r = rewrite.accumulators.at(key);
      stmts.push_back(Declare::make(r.accumulator, identity(r.op, r.accumulator->type)));
      out.reductions.push_back(r);
    }
    if (auto *b = body.as<Block>())
      stmts.insert(stmts.end(), b->stmts.begin(), b->stmts.end());
    else
      stmts.push_back(body);
    body = Block::make(std::move(stmts));
  }
  out.body = body;
  return out;
}

} // namespace loom::ir
