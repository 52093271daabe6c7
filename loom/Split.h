// Kernel::on(DeviceSet): one call's parallel loop split among several devices (loom/Split.cpp).
// Internal to loom (included by loom/*.cpp only).
#pragma once

#include "ir/Evaluate.h"
#include "ir/IR.h"
#include "ir/RowAccess.h"
#include "loom/Kernel.hpp"
#include "runtime/Device.h"
#include "runtime/DeviceBuffer.h"

#include <span>
#include <string>
#include <vector>

namespace loom {

struct KernelState;

struct SplitState {
  explicit SplitState(runtime::DeviceSet set) : devices(std::move(set)) {}
  runtime::DeviceSet devices;
  // Made on the first call, and again after a change of the kernel's options (planned false):
  bool planned = false;
  std::string problem;             // why the kernel cannot be split: a CompileError at each call
  std::vector<ir::ArrayRows> rows; // per parameter: the rows each iteration touches
  ir::Expr extent;                 // the split dimension's extent, over the parameters
  std::string variable;            // its variable's name
  std::vector<Kernel> parts;       // per part: the kernel over its share, on its device
  // GPU parts: per part and parameter, the device copy of a host array, kept for the next call.
  std::vector<std::vector<runtime::DeviceBuffer>> buffers;
  std::string last; // the last call's parts and copies, for explain()
};

// One call of a kernel split by Kernel::on(DeviceSet), with its checked arguments: each part runs
// the kernel over its share of the loop's first dimension on its device (GPU parts at once, one
// host thread each), the arrays' rows copied in and out as SplitState::rows says, reductions
// combined into the host arrays in part order. Throws CompileError (saying why) for a kernel
// that cannot be split, ArgumentError for device arrays or strided host views.
void run_split(KernelState &state, std::span<const Argument> args,
               const ir::ArgumentValues &values);

// explain()'s lines for a split kernel.
std::string explain_split(const KernelState &state);

} // namespace loom
