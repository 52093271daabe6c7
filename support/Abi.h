// The calling convention between compiled kernels and the runtime, shared by both targets.
//
// A kernel's parameters are flattened in order: an array parameter of rank R becomes its data
// pointer followed by R i64 extents (outermost first); a scalar parameter becomes its value (bool
// as one byte). The runtime passes `params`, an array holding the address of each flattened value:
// exactly what cuLaunchKernel takes as kernelParams, and what a CPU task entry receives.
#pragma once

#include <cstdint>

namespace loom {

// Entry point of a CPU task: runs iterations [chunk_begin, chunk_end) of the task's outermost
// parallel dimension (serial tasks ignore both).
using CpuTaskFn = void (*)(void *const *params, int64_t chunk_begin, int64_t chunk_end);

} // namespace loom
