// Locals whose value nothing with an effect reads (directly or through other locals): their
// declarations and assignments are removed, when what they compute has no effect (no warp
// operation, and no array read that a bounds check could fail), until none is left; a chain of them
// goes too, and a range loop left empty. Besides smaller code, the GPU needs it: ptxas 13.0 crashed
// on a grid-stride loop of constant trip count around a dead cos, whose libdevice range reduction
// LLVM keeps (its inline carry-chain PTX), in a differential program (seed 71025163).
#include "ir/Mutator.h"
#include "ir/Passes.h"

#include <map>
#include <set>
#include <vector>

namespace loom::ir {

namespace {

// Which locals are live: those read where a value has an effect (a store, a condition, a
// loop's bounds, a print, ...), and those a live local's declaration or assignment reads, and so
// on; a local read only by dead ones (an accumulator read by its own assignments, two locals
// assigned from each other) is dead.
struct Liveness : Visitor {
  std::set<const Variable *> roots;
  std::map<const Variable *, std::set<const Variable *>> deps;
  const Variable *target = nullptr; // the local whose declaration or assignment is visited
  void visit_node(const VarRef *n) override {
    (target ? deps[target] : roots).insert(n->var.get());
  }
  void visit_node(const Declare *n) override {
    target = n->var.get();
    Visitor::visit_node(n);
    target = nullptr;
  }
  void visit_node(const Assign *n) override {
    target = n->var.get();
    Visitor::visit_node(n);
    target = nullptr;
  }
  // The closure of `roots` and `kept` over what each live local reads.
  std::set<const Variable *> live(const std::set<const Variable *> &kept) const {
    std::set<const Variable *> out;
    std::vector<const Variable *> work(roots.begin(), roots.end());
    work.insert(work.end(), kept.begin(), kept.end());
    while (!work.empty()) {
      const Variable *v = work.back();
      work.pop_back();
      if (!out.insert(v).second)
        continue;
      if (auto it = deps.find(v); it != deps.end())
        work.insert(work.end(), it->second.begin(), it->second.end());
    }
    return out;
  }
};

// Whether evaluating `e` has no effect beyond its value.
bool pure(const Expr &e, bool bounds_checked) {
  if (!e.defined())
    return true;
  struct Effects : Visitor {
    bool bounds_checked = false, found = false;
    void visit_node(const WarpOp *n) override {
      found = true;
      Visitor::visit_node(n);
    }
    void visit_node(const Load *n) override {
      found = found || bounds_checked;
      Visitor::visit_node(n);
    }
    void visit_node(const SharedLoad *n) override {
      found = found || bounds_checked;
      Visitor::visit_node(n);
    }
  } effects;
  effects.bounds_checked = bounds_checked;
  effects.visit(e);
  return !effects.found;
}

// Whether a statement does nothing: empty blocks only.
bool empty(const Stmt &s) {
  if (!s.defined())
    return true;
  auto *b = s.as<Block>();
  if (!b)
    return false;
  for (const Stmt &inner : b->stmts)
    if (!empty(inner))
      return false;
  return true;
}

// The locals some declaration or assignment of which has an effect: those stay, all of them.
struct Kept : Visitor {
  bool bounds_checked = false;
  std::set<const Variable *> vars;
  void visit_node(const Declare *n) override {
    if (!pure(n->init, bounds_checked))
      vars.insert(n->var.get());
    Visitor::visit_node(n);
  }
  void visit_node(const Assign *n) override {
    if (!pure(n->value, bounds_checked))
      vars.insert(n->var.get());
    Visitor::visit_node(n);
  }
  void visit_node(const Atomic *n) override { // its result: the old value, written by the atomic
    if (n->result)
      vars.insert(n->result.get());
    Visitor::visit_node(n);
  }
};

class DropDeadLocals : public Mutator {
public:
  DropDeadLocals(const std::set<const Variable *> &live, bool bounds_checked)
      : live_(live), bounds_checked_(bounds_checked) {}

protected:
  bool dead(const Var &v) const { return !live_.count(v.get()); }
  Stmt mutate_node(const Declare *n, const Stmt &self) override {
    return dead(n->var) ? Block::make({}) : Mutator::mutate_node(n, self);
  }
  Stmt mutate_node(const Assign *n, const Stmt &self) override {
    return dead(n->var) ? Block::make({}) : Mutator::mutate_node(n, self);
  }
  // A range loop left with nothing to do (its step a nonzero constant, its bounds without
  // effect) goes too.
  Stmt mutate_node(const For *n, const Stmt &self) override {
    Stmt s = Mutator::mutate_node(n, self);
    const For *f = s.as<For>();
    auto *step = f ? f->step.as<IntConst>() : nullptr;
    if (f && step && step->value != 0 && empty(f->body) && pure(f->begin, bounds_checked_) &&
        pure(f->end, bounds_checked_))
      return Block::make({});
    return s;
  }

private:
  const std::set<const Variable *> &live_;
  bool bounds_checked_;
};

} // namespace

Stmt drop_dead_locals(const Stmt &body, bool bounds_checked) {
  Stmt s = body;
  for (int round = 0; round < 64; ++round) {
    Liveness liveness;
    liveness.visit(s);
    Kept kept;
    kept.bounds_checked = bounds_checked;
    kept.visit(s);
    Stmt next = DropDeadLocals(liveness.live(kept.vars), bounds_checked).mutate(s);
    if (next.same_as(s))
      break;
    s = next;
  }
  return s;
}

} // namespace loom::ir
