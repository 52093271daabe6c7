// Schedules, kept beside a kernel rather than in it (as Halide keeps a Func's schedule apart from
// its definition): how its loops map onto the machine, never what they compute.
#pragma once

#include "ir/IR.h"
#include "runtime/GridShape.h"

namespace loom {

// Kernel::tile: a 2-D parallel loop as register-blocked tiles (docs/semantics.md, "The tile
// schedule"); {256, 128, 16, 8, 8, 1} is the H200's float SGEMM schedule.
using TileSchedule = ir::TileSchedule;
// TileSchedule::tensor_cores: Auto (where the kernel and the tile allow them), Required, Off.
using TensorCores = ir::TensorCores;
// Kernel::unroll and Kernel::vectorize of one loop.
using LoopSchedule = ir::LoopSchedule;
// Kernel::launch_policy: a GPU block shape and/or grid cap instead of the automatic choice.
using LaunchPolicy = runtime::LaunchPolicy;

// Kernel::schedule(loom::none): the default mapping, and no schedule of loom's own choosing
// (text DSL: @kernel(schedule=None)); Kernel::schedule(loom::automatic): the default mapping,
// where loom chooses a schedule itself when one keeps the results and pays (the CPU's register
// blocks for a loop of the matmul form; docs/semantics.md). Automatic is where a kernel starts.
struct ScheduleChoice {
  bool automatic;
};
inline constexpr ScheduleChoice none{false};
inline constexpr ScheduleChoice automatic{true};

} // namespace loom
