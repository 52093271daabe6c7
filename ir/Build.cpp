#include "ir/Build.h"

#include "ir/Mutator.h"

namespace loom::ir {

int mentions(const Expr &e, const Variable *v) {
  struct Count : Visitor {
    const Variable *v = nullptr;
    int count = 0;
    void visit_node(const VarRef *n) override { count += n->var.get() == v; }
  } count;
  count.v = v;
  count.visit(e);
  return count.count;
}

std::vector<Expr> top_level_loads(const Stmt &body, const std::function<bool(const Load *)> &take) {
  struct Collect : Visitor {
    const std::function<bool(const Load *)> *take;
    std::vector<Expr> found;
    void visit_node(const Load *l) override {
      if (!(*take)(l)) {
        Visitor::visit_node(l);
        return;
      }
      Expr load = Load::make(l->type, l->array, l->indices);
      for (const Expr &f : found)
        if (equal(f, load))
          return;
      found.push_back(load);
    }
  } collect;
  collect.take = &take;
  for (const Stmt &s : statements_of(body)) {
    if (auto *d = s.as<Declare>())
      collect.visit(d->init);
    else if (auto *a = s.as<Assign>())
      collect.visit(a->value);
    else if (auto *store = s.as<Store>())
      collect.visit(store->value);
  }
  return collect.found;
}

std::set<int> stored_arrays(const Stmt &body) {
  struct Stores : Visitor {
    std::set<int> arrays;
    void visit_node(const Store *s) override {
      arrays.insert(s->array);
      Visitor::visit_node(s);
    }
    void visit_node(const Reduce *r) override {
      arrays.insert(r->array);
      Visitor::visit_node(r);
    }
    void visit_node(const Atomic *a) override {
      if (a->array >= 0)
        arrays.insert(a->array);
      Visitor::visit_node(a);
    }
  } stores;
  stores.visit(body);
  return stores.arrays;
}

std::set<const Variable *> changed_vars(const Stmt &body) {
  struct Changed : Visitor {
    std::set<const Variable *> vars;
    void visit_node(const Declare *d) override {
      vars.insert(d->var.get());
      Visitor::visit_node(d);
    }
    void visit_node(const Assign *a) override {
      vars.insert(a->var.get());
      Visitor::visit_node(a);
    }
    void visit_node(const For *f) override {
      vars.insert(f->var.get());
      Visitor::visit_node(f);
    }
  } changed;
  changed.visit(body);
  return changed.vars;
}

} // namespace loom::ir
