// GPU: a sequential loop whose count of steps varies but is provably small runs its largest count
// of steps between constant bounds, each step past its end repeating the last step's reads and
// discarding what it computes:
//
//   for k in b .. e:                    lo = b; hi = e
//     t = A[i, k] * B[k, j]      =>     if lo < hi:
//     s = s + t                           for step in 0 .. N:        (N: the most steps, <= 16)
//                                           k = min(lo + step, hi - 1)
//                                           t = A[i, k] * B[k, j]
//                                           s = lo + step < hi ? s + t : s
//
// Rodinia's lud has such loops (`for k in range(i)` with i < 16, on one thread for its diagonal
// block and one per column or row for the perimeter). LLVM unrolls a loop of varying count with an
// exit after each step, and ptxas issues no load above an exit: each step waited a cache's
// latency (about 100 cycles on the H200; the diagonal block took 70 us a step on one thread).
// Between constant bounds LLVM unrolls the loop whole and every step's loads issue together.
//
// The steps past the end read what the last step read (k clamped to hi - 1, a step the loop
// takes), so no access goes where the loop's own do not, and their results are dropped: every
// local ends as the loop leaves it, bit for bit. Only loops that compute, without effects, apply:
// their statements declare and assign locals (no stores, loops, conditions, prints or warp
// operations), they load something (the latency to win), their step is 1, and the ranges of the
// loops around them bound their count by 16 (ir/LinearForm.h); a loop of constant count LLVM
// unrolls itself. Not under bounds checks (a check reports the first bad index where the program
// has it) nor where the kernel names loops in an `unroll` or `vectorize` schedule.
#include "ir/Build.h"
#include "ir/LinearForm.h"
#include "ir/Mutator.h"
#include "ir/Passes.h"

#include <set>

namespace loom::ir {

namespace {

// The most steps a loop may take to be run whole: LLVM's full unroll of an innermost GPU loop.
constexpr int64_t most_steps = 16;

// Whether a loop body only computes: declarations and assignments of locals whose values read no
// warp operation, with a load among them.
struct Computes : Visitor {
  bool ok = true, loads = false;
  void visit_node(const Load *n) override {
    loads = true;
    Visitor::visit_node(n);
  }
  void visit_node(const SharedLoad *n) override {
    loads = true;
    Visitor::visit_node(n);
  }
  void visit_node(const WarpOp *) override { ok = false; }
};

class ShortLoops : public Mutator {
public:
  explicit ShortLoops(const std::vector<Param> &params) : loops_(params) {}

protected:
  Stmt mutate_node(const For *n, const Stmt &self) override {
    loops_.enter(n->var.get(), n->begin, n->end);
    Stmt inner = Mutator::mutate_node(n, self);
    loops_.leave();
    auto *loop = inner.as<For>();
    const int64_t steps = bounded_steps(*loop);
    if (steps == 0)
      return inner;

    // The locals the body declares keep their statements; assignments to the others take effect
    // only in the loop's own steps.
    std::set<const Variable *> own;
    for (const Stmt &s : statements_of(loop->body))
      if (auto *d = s.as<Declare>())
        own.insert(d->var.get());
    Var lo = make_var(loop->var->name + "_begin", ScalarType::I64);
    Var hi = make_var(loop->var->name + "_end", ScalarType::I64);
    Var step = make_var(loop->var->name + "_step", ScalarType::I64);
    Expr at = add(var_ref(lo), var_ref(step));
    std::vector<Stmt> body;
    body.push_back(Declare::make(loop->var, min(at, sub(var_ref(hi), i64(1)))));
    for (const Stmt &s : statements_of(loop->body)) {
      auto *a = s.as<Assign>();
      if (!a || own.count(a->var.get())) {
        body.push_back(s);
        continue;
      }
      body.push_back(
          Assign::make(a->var, Select::make(lt(at, var_ref(hi)), a->value, var_ref(a->var))));
    }
    return Block::make(
        {Declare::make(lo, loop->begin), Declare::make(hi, loop->end),
         IfThenElse::make(lt(var_ref(lo), var_ref(hi)),
                          For::make(step, i64(0), i64(steps), i64(1), Block::make(body)))});
  }

private:
  // The most steps `loop` takes when it qualifies (see the file's comment), else 0.
  int64_t bounded_steps(const For &loop) const {
    if (!is_int_const(loop.step, 1) || loop.var->type != ScalarType::I64)
      return 0;
    Computes computes;
    for (const Stmt &s : statements_of(loop.body)) {
      auto *d = s.as<Declare>();
      auto *a = s.as<Assign>();
      if (!d && !a)
        return 0;
      computes.visit(d ? d->init : a->value);
    }
    if (!computes.ok || !computes.loads)
      return 0;
    Linear count = linear(loop.end);
    count.add(linear(loop.begin), -1);
    if (!count.exact || count.constant_only())
      return 0; // of constant count (or not known to be linear): LLVM's to unroll
    std::optional<int64_t> most = max_of(count, loops_.ranges);
    return most && *most >= 2 && *most <= most_steps ? *most : 0;
  }

  LoopRanges loops_; // around the node being rewritten
};

} // namespace

Task run_short_loops_whole(const Task &task, const std::vector<Param> &params) {
  if (task.kind == TaskKind::Simt)
    return task;
  ShortLoops pass(params);
  Task out = task;
  out.body = pass.mutate(task.body);
  return out;
}

} // namespace loom::ir
