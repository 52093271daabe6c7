// Checks that IR is well-formed: variables in scope, array accesses with the array's rank and
// element type, parallel loops only where loom can map them. Throws loom::VerifyError.
#pragma once

#include "ir/IR.h"

namespace loom::ir {

void verify(const Kernel &kernel);
void verify(const LoweredKernel &kernel);

} // namespace loom::ir
