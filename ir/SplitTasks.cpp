#include "ir/Mutator.h"
#include "ir/Passes.h"
#include "ir/Printer.h"
#include "support/Error.h"

#include <algorithm>
#include <map>
#include <set>

namespace loom::ir {

namespace {

// What a statement reads and writes: variables used and assigned, arrays loaded and stored.
class Uses : public Visitor {
public:
  std::set<const Variable *> vars_read, vars_assigned;
  std::set<int> arrays_read, arrays_written;

protected:
  void visit_node(const VarRef *n) override { vars_read.insert(n->var.get()); }
  void visit_node(const Load *n) override {
    arrays_read.insert(n->array);
    Visitor::visit_node(n);
  }
  void visit_node(const Store *n) override {
    arrays_written.insert(n->array);
    Visitor::visit_node(n);
  }
  void visit_node(const Reduce *n) override {
    arrays_read.insert(n->array);
    arrays_written.insert(n->array);
    Visitor::visit_node(n);
  }
  void visit_node(const Assign *n) override {
    vars_assigned.insert(n->var.get());
    Visitor::visit_node(n);
  }
};

template <class T> Uses uses_of(const T &node) {
  Uses u;
  u.visit(node);
  return u;
}

void flatten(const Stmt &s, std::vector<Stmt> &out) {
  if (auto *b = s.as<Block>()) {
    for (const Stmt &c : b->stmts)
      flatten(c, out);
  } else if (s.defined()) {
    out.push_back(s);
  }
}

// Whether a statement holds a parallel loop (a sequential loop around one is a task loop).
bool holds_parallel_loop(const Stmt &s) {
  return contains<ParallelFor>(s);
}

// Splits a kernel's top level, and the bodies of the sequential loops there around parallel
// loops, into tasks (TaskProgram).
class Splitter {
public:
  explicit Splitter(const Kernel &kernel) : kernel_(kernel), whole_(uses_of(kernel.body)) {}

  TaskProgram run() {
    std::vector<Stmt> top;
    flatten(kernel_.body, top);
    split(top);
    for (size_t k = 0; k < out_.tasks.size(); ++k)
      out_.tasks[k].name =
          out_.tasks.size() == 1 ? kernel_.name : kernel_.name + "_task" + std::to_string(k);
    return std::move(out_);
  }

private:
  // One statement list: each parallel loop alone, each sequential loop around parallel loops
  // alone (its body split in turn), the serial runs between them together.
  void split(const std::vector<Stmt> &stmts) {
    struct Group {
      enum Kind { Serial, Parallel, Loop } kind;
      std::vector<Stmt> stmts;
    };
    std::vector<Group> groups;
    for (const Stmt &s : stmts) {
      Group::Kind kind = s.kind() == StmtKind::ParallelFor                     ? Group::Parallel
                         : s.kind() == StmtKind::For && holds_parallel_loop(s) ? Group::Loop
                                                                               : Group::Serial;
      if (kind != Group::Serial || groups.empty() || groups.back().kind != Group::Serial)
        groups.push_back({kind, {}});
      groups.back().stmts.push_back(s);
    }
    const size_t declared_outside = declared_.size(); // a loop body's locals are its own
    for (Group &group : groups) {
      if (group.kind == Group::Loop) {
        loop(group.stmts[0].as<For>());
        continue;
      }
      // Inside a loop, a run of declarations alone needs no task: the tasks that read them
      // declare them again.
      const bool only_declarations =
          std::all_of(group.stmts.begin(), group.stmts.end(),
                      [](const Stmt &s) { return s.kind() == StmtKind::Declare; });
      Task task = make_task(group.kind == Group::Parallel, group.stmts);
      if (group.kind == Group::Serial && only_declarations && !loop_vars_.empty())
        continue;
      out_.tasks.push_back(std::move(task));
    }
    declared_.resize(declared_outside);
  }

  // A sequential loop around parallel loops: its bounds go to the host, its body into tasks.
  void loop(const For *f) {
    TaskLoop l;
    l.var = f->var;
    l.begin = host_value(f->begin, "a bound of the sequential loop over '" + f->var->name + "'");
    l.end = host_value(f->end, "a bound of the sequential loop over '" + f->var->name + "'");
    l.step = host_value(f->step, "the step of the sequential loop over '" + f->var->name + "'");
    l.first = out_.tasks.size();
    l.param = static_cast<int>(kernel_.params.size() + out_.loops.size());
    const size_t index = out_.loops.size();
    out_.loops.push_back(l);
    loop_vars_.insert(f->var.get());
    std::vector<Stmt> body;
    flatten(f->body, body);
    split(body);
    loop_vars_.erase(f->var.get());
    out_.loops[index].last = out_.tasks.size();
  }

  // `e` with top-level locals replaced by their values; VerifyError unless the host can evaluate
  // it from the arguments and the enclosing loops' variables.
  Expr host_value(const Expr &e, const std::string &what) {
    Expr d = SubstituteVars(initial_values_).mutate(e);
    Uses u = uses_of(d);
    for (const Param &p : kernel_.params)
      if (p.var)
        u.vars_read.erase(p.var.get());
    for (const Variable *v : loop_vars_)
      u.vars_read.erase(v);
    if (!u.arrays_read.empty() || !u.vars_read.empty())
      throw VerifyError("kernel '" + kernel_.name + "': " + what + ", " +
                        to_string(e, kernel_.params) +
                        ", must depend only on scalar parameters, array shapes and the variables "
                        "of the sequential loops around it (loom evaluates it on the host, "
                        "before the launches it decides)");
    return d;
  }

  Task make_task(bool parallel, const std::vector<Stmt> &stmts) {
    Stmt body = Block::make(stmts);
    Uses used = uses_of(body);

    // Re-declare earlier locals this task reads, when that keeps their value, and those their
    // initial values read (latest first: a local reads only earlier ones).
    std::set<const Variable *> needed = used.vars_read;
    for (auto d = declared_.rbegin(); d != declared_.rend(); ++d)
      if (needed.count((*d)->var.get())) {
        Uses init = uses_of((*d)->init);
        needed.insert(init.vars_read.begin(), init.vars_read.end());
      }
    std::vector<Stmt> prelude;
    for (const Declare *d : declared_) {
      if (!needed.count(d->var.get()))
        continue;
      Uses init = uses_of(d->init);
      std::string why;
      if (whole_.vars_assigned.count(d->var.get()))
        why = "it is assigned after its declaration";
      for (int a : init.arrays_read)
        if (whole_.arrays_written.count(a))
          why = "its initial value reads '" + kernel_.params[a].name + "', which the kernel writes";
      if (!why.empty())
        throw VerifyError("kernel '" + kernel_.name + "': variable '" + d->var->name +
                          "' is used in a parallel loop, but " + why +
                          "; each parallel loop outside any other runs as its own launch, so "
                          "declare the variable inside the loop or pass the value as a parameter");
      prelude.push_back(Stmt(std::make_shared<const Declare>(d->var, d->init)));
    }
    for (const Stmt &s : stmts)
      if (auto *d = s.as<Declare>()) {
        declared_.push_back(d);
        initial_values_[d->var.get()] = d->init;
      }

    Task task;
    task.kind = parallel ? TaskKind::Parallel : TaskKind::Serial;
    if (parallel)
      for (const Expr &e : stmts[0].as<ParallelFor>()->extents)
        task.domain.push_back(host_value(e, "the extent of a parallel loop"));
    prelude.insert(prelude.end(), stmts.begin(), stmts.end());
    task.body = prelude.size() == 1 ? prelude[0] : Block::make(std::move(prelude));
    return task;
  }

  const Kernel &kernel_;
  Uses whole_;
  std::vector<const Declare *> declared_; // the declarations in scope so far, in order
  std::map<const Variable *, Expr> initial_values_;
  std::set<const Variable *> loop_vars_; // of the task loops around the statements
  TaskProgram out_;
};

} // namespace

TaskProgram split_into_tasks(const Kernel &kernel) {
  return Splitter(kernel).run();
}

std::vector<Param> task_loop_params(const std::vector<Param> &params,
                                    const std::vector<TaskLoop> &loops) {
  std::vector<Param> out = params;
  for (const TaskLoop &l : loops)
    out.push_back({l.var->name, ParamKind::Scalar, ScalarType::I64, 0, l.var});
  return out;
}

} // namespace loom::ir
