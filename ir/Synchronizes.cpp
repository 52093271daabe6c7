#include "ir/Synchronizes.h"

#include "ir/Mutator.h"

namespace loom::ir {

bool synchronizes(const Stmt &s) {
  struct FindSync : Visitor {
    bool found = false;
    void visit_node(const Barrier *) override { found = true; }
    void visit_node(const WarpOp *) override { found = true; }
  } find;
  find.visit(s);
  return find.found;
}

} // namespace loom::ir
