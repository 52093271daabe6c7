// GPU: two consecutive parallel tasks whose accesses are provably apart run in one launch, the
// first's iterations followed by the second's along the outermost dimension:
//
//   parallel for c, j in (nb, 16): A(c, j)          parallel for f, j in (nb + nb, 16):
//   parallel for c2, i in (nb, 16): B(c2, i)   =>     if f < nb: A(f, j) else: B(f - nb, j)
//
// Rodinia's lud solves the blocks right of its diagonal block and the blocks below it so: two
// loops of 32 to 256 threads, each bound by latency (about 13 us a step on the H200), which ran
// one after the other where Rodinia's CUDA code runs both in one kernel. Fused, they take one
// launch's time.
//
// The tasks may run side by side when no element one of them writes is read or written by the
// other: for every store of each task and every access of the same array by the other, some index
// differs by an amount of constant sign over the ranges of the loops around both (their variables
// are distinct, the parallel loops' included; ir/LinearForm.h), locals declared once from loop
// variables and scalars reading as their definitions. Results are unchanged, bit for bit: each
// iteration runs its statements as written, on values neither task changes for the other. Tasks
// with reductions combined across iterations, atomics, prints, assertions, warp operations or
// barriers keep their launches (an update of an iteration's own element counts as a write), as do
// tasks whose domains differ past their outermost dimension, tasks with statements around their
// parallel loop, and tasks a task loop's boundary separates. Not on the CPU (its workers share the
// fork and join of each loop anyway), under bounds checks, or with loop schedules.
#include "ir/Build.h"
#include "ir/LinearForm.h"
#include "ir/Mutator.h"
#include "ir/Passes.h"

#include <map>
#include <set>
#include <string>
#include <vector>

namespace loom::ir {

namespace {

// A task's accesses of arrays, each with its indices as linear forms and the ranges of the loops
// around it, and what rules the task out.
struct TaskAccesses : Visitor {
  struct Access {
    int array;
    bool write;
    std::vector<Linear> index;
    std::vector<Range> ranges;
  };
  SubstituteVars definitions;
  std::set<const Variable *> fixed, assigned;
  std::vector<Range> ranges;
  std::vector<Access> found;
  bool ok = true;

  void add(int array, bool write, const std::vector<Expr> &indices) {
    Access a{array, write, {}, ranges};
    for (const Expr &i : indices)
      a.index.push_back(linear(definitions.mutate(i)));
    found.push_back(std::move(a));
  }
  void visit_node(const ParallelFor *n) override {
    for (size_t d = 0; d < n->vars.size(); ++d) {
      fixed.insert(n->vars[d].get());
      ranges.push_back(
          range_of(n->vars[d].get(), i64(0), definitions.mutate(n->extents[d]), fixed));
    }
    visit(n->body);
  }
  void visit_node(const For *n) override {
    visit(n->begin);
    visit(n->end);
    fixed.insert(n->var.get());
    ranges.push_back(
        range_of(n->var.get(), definitions.mutate(n->begin), definitions.mutate(n->end), fixed));
    if (!is_int_const(n->step, 1))
      ranges.back() = Range{nullptr, {}, {}};
    visit(n->body);
    ranges.pop_back();
  }
  void visit_node(const Declare *n) override {
    struct Pure : Visitor {
      const std::set<const Variable *> *fixed;
      const std::map<const Variable *, Expr> *defined;
      bool ok = true;
      void visit_node(const VarRef *v) override {
        ok = ok && (fixed->count(v->var.get()) || defined->count(v->var.get()));
      }
      void visit_node(const Load *) override { ok = false; }
      void visit_node(const SharedLoad *) override { ok = false; }
      void visit_node(const Call *) override { ok = false; }
      void visit_node(const WarpOp *) override { ok = false; }
    } pure;
    pure.fixed = &fixed;
    pure.defined = &definitions.to;
    pure.visit(n->init);
    if (pure.ok && !assigned.count(n->var.get()) && is_int(n->var->type))
      definitions.to[n->var.get()] = definitions.mutate(n->init);
    Visitor::visit_node(n);
  }
  void visit_node(const Load *n) override {
    add(n->array, false, n->indices);
    Visitor::visit_node(n);
  }
  void visit_node(const Store *n) override {
    add(n->array, true, n->indices);
    Visitor::visit_node(n);
  }
  // An update in place that lower_reductions left a Reduce reads and writes its element.
  void visit_node(const Reduce *n) override {
    add(n->array, true, n->indices);
    Visitor::visit_node(n);
  }
  void visit_node(const Atomic *) override { ok = false; }
  void visit_node(const Print *) override { ok = false; }
  void visit_node(const Assert *) override { ok = false; }
  void visit_node(const WarpOp *) override { ok = false; }
  void visit_node(const Barrier *) override { ok = false; }
};

TaskAccesses accesses_of(const Task &t, const std::vector<Param> &params) {
  TaskAccesses acc;
  for (const Param &p : params)
    if (p.var)
      acc.fixed.insert(p.var.get());
  struct Assigned : Visitor {
    std::set<const Variable *> *vars;
    void visit_node(const Assign *n) override {
      vars->insert(n->var.get());
      Visitor::visit_node(n);
    }
  } assigned;
  assigned.vars = &acc.assigned;
  assigned.visit(t.body);
  acc.visit(t.body);
  return acc;
}

// The task's one parallel loop, when the body is that loop alone.
const ParallelFor *loop_of(const Task &t) {
  std::vector<Stmt> top = statements_of(t.body);
  return top.size() == 1 ? top[0].as<ParallelFor>() : nullptr;
}

// Whether two indices are of different elements wherever both tasks' ranges hold.
bool apart(const TaskAccesses::Access &a, const TaskAccesses::Access &b) {
  std::vector<Range> ranges = a.ranges;
  ranges.insert(ranges.end(), b.ranges.begin(), b.ranges.end());
  return distinct(a.index, b.index, ranges);
}

// Whether tasks a and b may run as one launch: why not, or empty.
std::string conflict(const Task &a, const Task &b, const std::vector<Param> &params) {
  const ParallelFor *la = loop_of(a), *lb = loop_of(b);
  if (a.kind != TaskKind::Parallel || b.kind != TaskKind::Parallel || !la || !lb ||
      !a.reductions.empty() || !b.reductions.empty())
    return "not two parallel loops alone";
  if (la->extents.size() != lb->extents.size() || a.domain.size() != la->extents.size() ||
      b.domain.size() != lb->extents.size())
    return "parallel loops of different ranks";
  for (size_t d = 1; d < la->extents.size(); ++d)
    if (!equal(la->extents[d], lb->extents[d]) || !equal(a.domain[d], b.domain[d]))
      return "extents that differ past the outermost";
  TaskAccesses ta = accesses_of(a, params), tb = accesses_of(b, params);
  if (!ta.ok || !tb.ok)
    return "reductions, atomics, prints, assertions or warp operations";
  for (const auto &x : ta.found)
    for (const auto &y : tb.found)
      if (x.array == y.array && (x.write || y.write) && !apart(x, y))
        return "an element of '" + params[size_t(x.array)].name + "' that both may access";
  return "";
}

Task fuse(const Task &a, const Task &b) {
  const ParallelFor *la = loop_of(a), *lb = loop_of(b);
  std::vector<Var> vars;
  for (const Var &v : la->vars)
    vars.push_back(make_var(v->name, ScalarType::I64));
  SubstituteVars first, second;
  for (size_t d = 0; d < vars.size(); ++d) {
    first.to[la->vars[d].get()] = var_ref(vars[d]);
    second.to[lb->vars[d].get()] =
        d == 0 ? sub(var_ref(vars[0]), la->extents[0]) : var_ref(vars[d]);
  }
  std::vector<Expr> extents = la->extents;
  extents[0] = add(la->extents[0], lb->extents[0]);
  Task out = a;
  out.domain[0] = add(a.domain[0], b.domain[0]);
  out.body = ParallelFor::make(vars, extents,
                               IfThenElse::make(lt(var_ref(vars[0]), la->extents[0]),
                                                first.mutate(la->body), second.mutate(lb->body)));
  out.fused = (a.fused.empty() ? a.name : a.fused) + ", " + b.name;
  return out;
}

} // namespace

bool fuse_independent_tasks(std::vector<Task> &tasks, std::vector<TaskLoop> &loops,
                            const std::vector<Param> &params) {
  bool changed = false;
  for (size_t k = 0; k + 1 < tasks.size();) {
    bool boundary = false;
    for (const TaskLoop &l : loops)
      boundary = boundary || l.first == k + 1 || l.last == k + 1;
    if (boundary || !conflict(tasks[k], tasks[k + 1], params).empty()) {
      ++k;
      continue;
    }
    tasks[k] = fuse(tasks[k], tasks[k + 1]);
    tasks.erase(tasks.begin() + std::ptrdiff_t(k + 1));
    for (TaskLoop &l : loops) {
      if (l.first > k)
        --l.first;
      if (l.last > k)
        --l.last;
    }
    changed = true;
  }
  return changed;
}

} // namespace loom::ir
