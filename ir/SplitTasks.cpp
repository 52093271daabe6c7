#include "ir/Mutator.h"
#include "ir/Passes.h"
#include "ir/Printer.h"
#include "support/Error.h"

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

// Replaces references to top-level locals by their initial values (for launch domains, which the
// runtime evaluates from the arguments alone).
class SubstituteLocals : public Mutator {
public:
  explicit SubstituteLocals(const std::map<const Variable *, Expr> &values) : values_(values) {}

protected:
  Expr mutate_node(const VarRef *n, const Expr &self) override {
    auto it = values_.find(n->var.get());
    return it == values_.end() ? self : mutate(it->second);
  }

private:
  const std::map<const Variable *, Expr> &values_;
};

} // namespace

std::vector<Task> split_into_tasks(const Kernel &kernel) {
  std::vector<Stmt> top;
  flatten(kernel.body, top);

  // Group the top-level statements: each parallel loop alone, serial runs between them together.
  struct Group {
    bool parallel;
    std::vector<Stmt> stmts;
  };
  std::vector<Group> groups;
  for (const Stmt &s : top) {
    bool parallel = s.kind() == StmtKind::ParallelFor;
    if (parallel || groups.empty() || groups.back().parallel)
      groups.push_back({parallel, {}});
    groups.back().stmts.push_back(s);
  }

  Uses whole = uses_of(kernel.body);
  std::vector<const Declare *> declared; // top-level declarations seen so far, in order
  std::map<const Variable *, Expr> initial_values;
  std::vector<Task> tasks;
  for (size_t g = 0; g < groups.size(); ++g) {
    Group &group = groups[g];
    Stmt body = Block::make(group.stmts);
    Uses used = uses_of(body);

    // Re-declare earlier top-level locals this task reads, when that keeps their value, and
    // those their initial values read (latest first: a local reads only earlier ones).
    std::set<const Variable *> needed = used.vars_read;
    for (auto d = declared.rbegin(); d != declared.rend(); ++d)
      if (needed.count((*d)->var.get())) {
        Uses init = uses_of((*d)->init);
        needed.insert(init.vars_read.begin(), init.vars_read.end());
      }
    std::vector<Stmt> prelude;
    for (const Declare *d : declared) {
      if (!needed.count(d->var.get()))
        continue;
      Uses init = uses_of(d->init);
      std::string why;
      if (whole.vars_assigned.count(d->var.get()))
        why = "it is assigned after its declaration";
      for (int a : init.arrays_read)
        if (whole.arrays_written.count(a))
          why = "its initial value reads '" + kernel.params[a].name + "', which the kernel writes";
      if (!why.empty())
        throw VerifyError("kernel '" + kernel.name + "': top-level variable '" + d->var->name +
                          "' is used in a parallel loop, but " + why +
                          "; each top-level parallel loop runs as its own launch, so declare "
                          "the variable inside the loop or pass the value as a parameter");
      prelude.push_back(Stmt(std::make_shared<const Declare>(d->var, d->init)));
    }
    for (const Stmt &s : group.stmts)
      if (auto *d = s.as<Declare>()) {
        declared.push_back(d);
        initial_values[d->var.get()] = d->init;
      }

    Task task;
    task.kind = group.parallel ? TaskKind::Parallel : TaskKind::Serial;
    if (group.parallel) {
      SubstituteLocals subst(initial_values);
      for (const Expr &e : group.stmts[0].as<ParallelFor>()->extents) {
        Expr d = subst.mutate(e);
        Uses u = uses_of(d);
        for (const Param &p : kernel.params)
          if (p.var)
            u.vars_read.erase(p.var.get());
        if (!u.arrays_read.empty() || !u.vars_read.empty())
          throw VerifyError("kernel '" + kernel.name + "': the extent " +
                            to_string(e, kernel.params) +
                            " of a parallel loop must depend only on scalar parameters and "
                            "array shapes (loom sizes the launch from it before running)");
        task.domain.push_back(d);
      }
    }
    prelude.insert(prelude.end(), group.stmts.begin(), group.stmts.end());
    task.body = prelude.size() == 1 ? prelude[0] : Block::make(std::move(prelude));
    tasks.push_back(std::move(task));
  }

  for (size_t k = 0; k < tasks.size(); ++k)
    tasks[k].name = tasks.size() == 1 ? kernel.name : kernel.name + "_task" + std::to_string(k);
  return tasks;
}

} // namespace loom::ir
