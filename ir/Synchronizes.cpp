#include "ir/Synchronizes.h"

#include "ir/Mutator.h"

namespace loom::ir {

bool synchronizes(const Stmt &s) {
  return contains<Barrier, WarpOp, Mbarrier>(s);
}

} // namespace loom::ir
