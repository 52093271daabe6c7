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

} // namespace loom::ir
