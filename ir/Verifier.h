// Checks that IR is well-formed: variables in scope, array accesses with the array's rank and
// element type, parallel loops only where loom can map them. Throws loom::VerifyError.
#pragma once

#include "ir/IR.h"

#include <string>

namespace loom::ir {

void verify(const Kernel &kernel);
void verify(const LoweredKernel &kernel);
// verify(kernel) for the IR lowering pass `pass` made (lower() calls it after every pass under
// LOOM_VERIFY_EACH_PASS), except that a parallel task may still hold its parallel loop at the top
// level of its body: split_into_tasks leaves it there for map_parallel_loops, and the end of
// lower() checks that none is left. Invalid IR here is loom's bug, not the user's: the VerifyError
// says "internal error: the IR is invalid after lowering pass <pass>: <what the verifier found>".
void verify_after_pass(const std::string &pass, const LoweredKernel &kernel);

} // namespace loom::ir
