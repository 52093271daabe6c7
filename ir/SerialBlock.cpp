// GPU: a serial task (the statements between parallel loops, or a kernel without any) runs on one
// block instead of one thread when some of its loops have independent iterations: those loops
// split among the block's threads, everything else runs in every thread, stores outside the split
// loops by thread 0 between barriers (ir/BlockPerIteration.cpp makes the code):
//
//   for i in range(16):                      for i in range(16):            (every thread)
//     for j in range(i, 16):                   for j = i + tid; j < 16; j += 128:
//       a[o + i, o + j] -= ...        ==>          a[o + i, o + j] -= ...
//     ...                                      barrier
//
// Rodinia's lud factors its 16 x 16 diagonal block in such a task, which took 70 us a step on one
// thread of the H200; its CUDA version gives the block 16 threads.
//
// A loop's iterations are independent when no element one of them writes is read or written by
// another: for each store and each access of the same array, in two iterations v != v' (v' > v,
// then v' < v), some index differs by an amount of constant sign, over the ranges of the loops
// around (ir/LinearForm.h). lud's `a[o + i, o + j] -= a[o + i, o + k] * a[o + k, o + j]` with
// k < i <= j: the store's column o + j is never another iteration's column o + j', nor a read's
// o + k (k < i <= j), and the read's row o + k is never the store's row o + i. A loop also must
// not assign locals declared before it (its iterations would depend on each other through them),
// update elements (Reduce), or hold while loops; its indices must be affine in the loops' variables
// with terms the loop does not change. Results are unchanged, bit for bit: each element is
// computed by the same statements from the same values, whichever thread runs its iteration.
// Tasks that print, assert, use local arrays or are bounds-checked keep their one thread.
#include "ir/Build.h"
#include "ir/LinearForm.h"
#include "ir/Mutator.h"
#include "ir/Passes.h"
#include "ir/Printer.h"

#include <algorithm>
#include <optional>

namespace loom::ir {

namespace {

// An array access inside a loop: its indices and the loops inside that loop around it.
struct Access {
  int array;
  std::vector<Expr> indices;
  bool store;
  std::vector<const For *> loops; // outermost first
};

// What a loop's body does: its array accesses, and what rules the loop out.
struct LoopBody : Visitor {
  std::vector<Access> accesses;
  std::vector<const For *> loops;
  std::set<const Variable *> inside;   // declared or bound in the body
  std::set<const Variable *> assigned; // assigned in the body
  std::string problem;

  void rule_out(const std::string &why) {
    if (problem.empty())
      problem = why;
  }
  void visit_node(const Declare *n) override {
    inside.insert(n->var.get());
    Visitor::visit_node(n);
  }
  void visit_node(const Assign *n) override {
    assigned.insert(n->var.get());
    Visitor::visit_node(n);
  }
  void visit_node(const For *n) override {
    inside.insert(n->var.get());
    visit(n->begin), visit(n->end), visit(n->step);
    loops.push_back(n);
    visit(n->body);
    loops.pop_back();
  }
  void visit_node(const Load *n) override {
    accesses.push_back({n->array, n->indices, false, loops});
    Visitor::visit_node(n);
  }
  void visit_node(const Store *n) override {
    accesses.push_back({n->array, n->indices, true, loops});
    Visitor::visit_node(n);
  }
  void visit_node(const Reduce *n) override {
    rule_out("it updates array elements in place (+=, min=, ...)");
    Visitor::visit_node(n);
  }
  void visit_node(const While *n) override {
    rule_out("it holds a while loop");
    Visitor::visit_node(n);
  }
};

// Whether the task holds only what one block's threads can share as ir/BlockPerIteration.cpp
// makes them: no prints, asserts, atomics, local arrays, warp operations or barriers.
struct Plain : Visitor {
  bool ok = true;
  void visit_node(const Print *) override { ok = false; }
  void visit_node(const Assert *) override { ok = false; }
  void visit_node(const Atomic *) override { ok = false; }
  void visit_node(const SharedStore *) override { ok = false; }
  void visit_node(const SharedLoad *) override { ok = false; }
  void visit_node(const SharedExtent *) override { ok = false; }
  void visit_node(const WarpOp *) override { ok = false; }
  void visit_node(const Barrier *) override { ok = false; }
  void visit_node(const Mma *) override { ok = false; }
  void visit_node(const AsyncCopy *) override { ok = false; }
  void visit_node(const AsyncWait *) override { ok = false; }
  void visit_node(const WarpgroupMma *) override { ok = false; }
  void visit_node(const Mbarrier *) override { ok = false; }
  void visit_node(const ParallelFor *) override { ok = false; }
};

// Whether `e` mentions none of `vars` and reads no array.
bool unchanged_by(const Expr &e, const std::set<const Variable *> &vars) {
  struct Reads : Visitor {
    const std::set<const Variable *> *vars;
    bool found = false;
    void visit_node(const VarRef *n) override { found = found || vars->count(n->var.get()); }
    void visit_node(const Load *) override { found = true; }
  } reads;
  reads.vars = &vars;
  reads.visit(e);
  return !reads.found;
}

class Independence {
public:
  Independence(const std::vector<Param> &params, const LoopRanges &outer, const For &loop)
      : params_(params), outer_(outer), loop_(loop) {}

  // Empty when the loop's iterations are independent, else why not.
  std::string problem() {
    LoopBody body;
    body.visit(loop_.body);
    if (!body.problem.empty())
      return body.problem;
    for (const Variable *v : body.assigned)
      if (!body.inside.count(v))
        return "it assigns '" + v->name + "', declared before it";
    bool stores = false;
    for (const Access &a : body.accesses)
      stores = stores || a.store;
    if (!stores)
      return "it writes no array";
    // Every index affine in the loops' variables, its other terms unchanged by the loop.
    std::set<const Variable *> changing = body.inside;
    changing.insert(body.assigned.begin(), body.assigned.end());
    std::set<const Variable *> loop_vars = {loop_.var.get()};
    for (const Access &a : body.accesses)
      for (const For *f : a.loops)
        loop_vars.insert(f->var.get());
    for (const Access &a : body.accesses)
      for (const Expr &e : a.indices) {
        Linear form = linear(e);
        if (!form.exact)
          return "an index overflows: " + to_string(e, params_);
        for (const auto &[atom, c] : form.terms) {
          auto *ref = atom.as<VarRef>();
          if (c != 0 && !(ref && loop_vars.count(ref->var.get())) && !unchanged_by(atom, changing))
            return "an index is not affine in the loops' variables: " + to_string(e, params_);
        }
      }
    range_ = range_of(loop_.var.get(), loop_.begin, loop_.end, outer_.fixed);
    if (!range_.var)
      return "its bounds change while it runs";
    for (const Access &s : body.accesses) {
      if (!s.store)
        continue;
      for (const Access &x : body.accesses)
        if (x.array == s.array && !apart(s, x))
          return std::string("an element written at [") + indices(s) + "] may be " +
                 (x.store ? "written" : "read") + " at [" + indices(x) + "] by another iteration";
    }
    return "";
  }

private:
  std::string indices(const Access &a) const {
    std::string out;
    for (size_t d = 0; d < a.indices.size(); ++d)
      out += (d ? ", " : "") + to_string(a.indices[d], params_);
    return out;
  }

  // The ranges of the loops around `a` inside the loop, with `rename` applied to their bounds and
  // variables (another iteration's copies), appended to `ranges`.
  void inner_ranges(const Access &a, RenameVars &rename, std::set<const Variable *> &fixed,
                    std::vector<Range> &ranges) const {
    for (const For *f : a.loops) {
      const Var v = rename.to.count(f->var.get()) ? rename.to.at(f->var.get()) : f->var;
      fixed.insert(v.get());
      ranges.push_back(range_of(v.get(), rename.mutate(f->begin), rename.mutate(f->end), fixed));
    }
  }

  // Whether store `s` in iteration v and access `x` in any other iteration v' are of different
  // elements: for v' > v and for v' < v, some index's difference has a constant sign.
  bool apart(const Access &s, const Access &x) const {
    for (bool later : {true, false}) {
      std::set<const Variable *> fixed = outer_.fixed;
      fixed.insert(loop_.var.get());
      std::vector<Range> ranges = outer_.ranges;
      ranges.push_back(range_);
      RenameVars same;
      inner_ranges(s, same, fixed, ranges);
      // The other iteration's variable v' and its loops' variables.
      RenameVars other;
      Var v2 = make_var(loop_.var->name + "'", ScalarType::I64);
      other.to[loop_.var.get()] = v2;
      for (const For *f : x.loops)
        other.to[f->var.get()] = make_var(f->var->name + "'", f->var->type);
      Linear v = linear(var_ref(loop_.var));
      Range r{v2.get(), range_.begin, range_.last};
      if (later) {
        r.begin = v;
        r.begin.plus(r.begin.constant, 1);
      } else {
        r.last = v;
        r.last.plus(r.last.constant, -1);
      }
      ranges.push_back(r);
      fixed.insert(v2.get());
      inner_ranges(x, other, fixed, ranges);
      std::vector<Expr> elsewhere;
      for (const Expr &e : x.indices)
        elsewhere.push_back(other.mutate(e));
      if (!distinct(s.indices, elsewhere, ranges))
        return false;
    }
    return true;
  }

  const std::vector<Param> &params_;
  const LoopRanges &outer_;
  const For &loop_;
  Range range_{nullptr, {}, {}};
};

// The loops to split: each loop whose iterations are independent, else the loops inside it.
class Search : public Visitor {
public:
  explicit Search(const std::vector<Param> &params) : params_(params), loops_(params) {}
  std::set<const For *> split;
  std::vector<std::string> refused; // loops not split, and why

protected:
  void visit_node(const For *n) override {
    std::string why = Independence(params_, loops_, *n).problem();
    if (why.empty()) {
      split.insert(n);
      return;
    }
    refused.push_back("for " + n->var->name + ": " + why);
    loops_.enter(n->var.get(), n->begin, n->end);
    visit(n->body);
    loops_.leave();
  }

private:
  const std::vector<Param> &params_;
  LoopRanges loops_; // around the node being visited
};

} // namespace

std::set<const For *> independent_loops(const Task &task, const std::vector<Param> &params,
                                        std::string &why) {
  why.clear();
  if (task.kind != TaskKind::Serial || !contains<For>(task.body))
    return {};
  Plain plain;
  plain.visit(task.body);
  if (!plain.ok) {
    why = "one thread: it prints, asserts or uses local arrays or atomics";
    return {};
  }
  Search search(params);
  search.visit(task.body);
  if (search.split.empty()) {
    why = "one thread: no loop of it has iterations shown independent";
    for (const std::string &r : search.refused)
      why += "; " + r;
    return {};
  }
  std::vector<std::string> names;
  for (const For *f : search.split)
    names.push_back(f->var->name);
  std::sort(names.begin(), names.end());
  std::string over;
  for (size_t k = 0; k < names.size(); ++k)
    over += (k ? ", " : "") + names[k];
  why = names.size() == 1 ? "one block: its loop over " + over + " splits"
                          : "one block: " + std::to_string(names.size()) + " of its loops (over " +
                                over + ") split";
  why += " among the block's threads (no element one iteration writes is another's), the rest "
         "run by every thread, stores outside those loops by thread 0 between barriers";
  return search.split;
}

} // namespace loom::ir
