// Which array parameters a kernel reads and writes: the runtime copies host arrays to the device
// only when their old contents may matter (read or partly written, and not overwritten whole
// before any read) and back only when they are written.
#pragma once

#include "ir/IR.h"

#include <vector>

namespace loom::ir {

struct ArrayAccess {
  bool read = false;
  bool written = false;
  // Every element is stored unconditionally before any read (a top-level parallel loop over the
  // array's whole shape that stores at its own index): its old contents need not be copied in.
  bool fully_overwritten = false;
};

// One entry per parameter (scalars: all false).
std::vector<ArrayAccess> summarize_accesses(const Kernel &kernel);

} // namespace loom::ir
