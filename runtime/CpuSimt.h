// Running a SIMT task on the CPU: the blocks of the launch are spread over the host's cores
// through the OpenMP runtime; each block runs on one OS thread, its threads one after another, or,
// when the kernel synchronizes them (barriers, warp collectives), on fibers that switch at each
// synchronization (support/SimtBlock.h), so that barriers and shuffles behave as on a GPU.
#pragma once

#include "support/Abi.h"

#include <array>
#include <cstdint>

namespace loom::runtime {

struct SimtShape {
  std::array<unsigned, 3> grid{1, 1, 1};  // blocks along x, y, z
  std::array<unsigned, 3> block{1, 1, 1}; // threads along x, y, z
  int64_t dynamic_shared_bytes = 0;       // per block, for the dynamic shared array
};

// Runs `fn` (a SIMT task's CPU entry) once per thread of `shape`, each block with zeroed shared
// memory: `static_shared_bytes` for its static arrays (ir::shared_offsets), then, 16-byte aligned,
// the shape's dynamic shared bytes. `synchronizes`: the task has barriers or warp collectives
// (without, no fibers are needed). Throws what the block's scheduler throws (DeadlockError when a
// block's threads deadlock at barriers), after every block has run.
void run_cpu_simt_task(CpuTaskFn fn, void *const *params, const SimtShape &shape,
                       int64_t static_shared_bytes, bool synchronizes);

} // namespace loom::runtime
