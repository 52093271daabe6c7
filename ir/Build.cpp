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

} // namespace loom::ir
