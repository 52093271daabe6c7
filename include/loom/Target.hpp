// Where kernels run: LOOM_TARGET=auto|gpu|cpu, and why.
#pragma once

#include "ir/IR.h"

#include <string>

namespace loom {

struct TargetChoice {
  ir::Target target;
  std::string reason; // e.g. "LOOM_TARGET=auto and NVIDIA H200 is usable"
};

// Reads LOOM_TARGET (auto when unset). Throws TargetError for gpu without a usable GPU, or for an
// unknown value.
TargetChoice choose_target();

} // namespace loom
