// An array element that a sequential loop updates at the same indices in every step lives in a
// local for the loop's duration: loaded before the first step, stored after the last. The loop's
// other reads of the array must provably be of other elements, which the pass shows from the
// ranges of the loops around them (lud's diagonal block: `a[i, j] -= a[i, k] * a[k, j]` with
// k < i <= j). LLVM cannot: the reads are of the same array, so it keeps a store and a load of
// the element in every step, a round trip through memory that on the GPU costs a cache's latency
// per step (docs/semantics.md, "Updates in sequential loops").
#include "ir/Build.h"
#include "ir/LinearForm.h"
#include "ir/Mutator.h"
#include "ir/Passes.h"

#include <optional>
#include <set>
#include <vector>

namespace loom::ir {

namespace {

// What a loop's body does to one array, and everything that rules a promotion out.
struct LoopBody : Visitor {
  int array;
  std::vector<Expr> element;               // the indices of the body's unconditional store
  std::set<const Variable *> changed;      // variables the body declares or assigns
  std::vector<Range> ranges;               // at the access being visited
  const std::set<const Variable *> *fixed; // see BoundNames
  bool ok = true;

  void visit_node(const Store *n) override {
    if (n->array == array && !equal_all(n->indices, element))
      ok = false;
    Visitor::visit_node(n);
  }
  void visit_node(const Load *n) override {
    if (n->array == array && !equal_all(n->indices, element) &&
        !distinct(n->indices, element, ranges))
      ok = false;
    Visitor::visit_node(n);
  }
  void visit_node(const Reduce *n) override {
    ok = ok && n->array != array;
    Visitor::visit_node(n);
  }
  void visit_node(const Atomic *) override { ok = false; }
  void visit_node(const ParallelFor *) override { ok = false; }
  void visit_node(const Barrier *) override { ok = false; }
  void visit_node(const WarpOp *) override { ok = false; }
  void visit_node(const Mma *) override { ok = false; }
  void visit_node(const AsyncCopy *) override { ok = false; }
  void visit_node(const Declare *n) override {
    changed.insert(n->var.get());
    Visitor::visit_node(n);
  }
  void visit_node(const Assign *n) override {
    changed.insert(n->var.get());
    Visitor::visit_node(n);
  }
  void visit_node(const For *n) override {
    changed.insert(n->var.get());
    visit(n->begin);
    visit(n->end);
    visit(n->step);
    ranges.push_back(range_of(n->var.get(), n->begin, n->end, *fixed));
    visit(n->body);
    ranges.pop_back();
  }
};

// The statements a loop's body runs in every step: its top level, through nested blocks.
void unconditional(const Stmt &s, std::vector<Stmt> &out) {
  if (auto *b = s.as<Block>()) {
    for (const Stmt &t : b->stmts)
      unconditional(t, out);
    return;
  }
  out.push_back(s);
}

// The element's reads and writes in a loop body become the local's.
class UseLocal : public Mutator {
public:
  int array;
  std::vector<Expr> element;
  Var local;

protected:
  Expr mutate_node(const Load *n, const Expr &self) override {
    if (n->array == array && equal_all(n->indices, element))
      return VarRef::make(local);
    return Mutator::mutate_node(n, self);
  }
  Stmt mutate_node(const Store *n, const Stmt &self) override {
    if (n->array == array && equal_all(n->indices, element))
      return Assign::make(local, mutate(n->value));
    return Mutator::mutate_node(n, self);
  }
};

class Promote : public Mutator {
public:
  explicit Promote(const std::vector<Param> &params) : params(&params), loops(params) {}
  const std::vector<Param> *params;
  LoopRanges loops; // around the node being rewritten

protected:
  Stmt mutate_node(const For *n, const Stmt &self) override {
    loops.enter(n->var.get(), n->begin, n->end);
    const Range own = loops.ranges.back();
    Stmt inner = Mutator::mutate_node(n, self);
    loops.leave();
    auto *loop = inner.as<For>();

    std::vector<Stmt> top;
    unconditional(loop->body, top);
    std::vector<Stmt> before, after;
    Stmt body = loop->body;
    std::set<int> done;
    for (const Stmt &s : top) {
      auto *store = s.as<Store>();
      if (!store || done.count(store->array))
        continue;
      done.insert(store->array);
      const ScalarType t = (*params)[store->array].type;
      if (t != ScalarType::F32 && t != ScalarType::F64 && t != ScalarType::I32 &&
          t != ScalarType::I64)
        continue;
      LoopBody use;
      use.array = store->array;
      use.element = store->indices;
      use.fixed = &loops.fixed;
      use.ranges = loops.ranges;
      use.ranges.push_back(own);
      use.visit(loop->body);
      // The indices are the same in every step: they read no array and no variable the body
      // changes, nor the loop's own.
      struct Reads : Visitor {
        std::set<const Variable *> vars;
        bool loads = false;
        void visit_node(const VarRef *n) override { vars.insert(n->var.get()); }
        void visit_node(const Load *) override { loads = true; }
        void visit_node(const SharedLoad *) override { loads = true; }
      } reads;
      for (const Expr &i : store->indices)
        reads.visit(i);
      bool invariant = !reads.loads && !reads.vars.count(loop->var.get());
      for (const Variable *v : reads.vars)
        invariant = invariant && !use.changed.count(v);
      if (!use.ok || !invariant)
        continue;
      Var local = make_var((*params)[store->array].name + "_element", t);
      UseLocal rewrite;
      rewrite.array = store->array;
      rewrite.element = store->indices;
      rewrite.local = local;
      body = rewrite.mutate(body);
      before.push_back(Declare::make(local, Load::make(t, store->array, store->indices)));
      after.push_back(Store::make(store->array, store->indices, VarRef::make(local)));
    }
    if (before.empty())
      return inner;
    // Only when the loop takes a step: the element is then read and written by the first one.
    std::vector<Stmt> stmts = std::move(before);
    stmts.push_back(For::make(loop->var, loop->begin, loop->end, loop->step, body));
    stmts.insert(stmts.end(), after.begin(), after.end());
    return IfThenElse::make(Binary::make(BinaryOp::Lt, loop->begin, loop->end),
                            Block::make(std::move(stmts)));
  }
};

} // namespace

Task promote_element_updates(const Task &task, const std::vector<Param> &params) {
  if (task.kind == TaskKind::Simt)
    return task;
  Promote promote(params);
  Task out = task;
  out.body = promote.mutate(task.body);
  return out;
}

} // namespace loom::ir
