// Whether code synchronizes the threads of a SIMT block: it holds a barrier, a warp collective or
// a memory barrier (whose waits the interpreter runs on fibers too).
// Such a body needs its threads on fibers on the CPU (the CPU runtime and the interpreter run it
// so), and the GPU schedules refuse to split a loop that already has one.
#pragma once

#include "ir/IR.h"

namespace loom::ir {

bool synchronizes(const Stmt &s);

} // namespace loom::ir
