// A SIMT kernel's dynamic shared array (SharedArray::dynamic: CUDA's extern __shared__ array,
// Numba's cuda.shared.array(0, T)) and the launch that sizes it: Kernel::shape(grid, block,
// shared_bytes) on both targets, InterpreterOptions::simt_dynamic_shared_bytes in the
// interpreter. The checks of a launch's size live here, so that every path says the same.
#pragma once

#include "ir/IR.h"

#include <cstdint>
#include <string>
#include <vector>

namespace loom::ir {

// The most shared memory, static and dynamic, a block may take on the CPU (and in the
// interpreter): the opt-in limit of sm_90 (H100, H200), so that a launch the CPU runs also fits
// those GPUs. A GPU's own limit is its device's
// (CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN).
inline constexpr int64_t max_cpu_block_shared_bytes = 227 * 1024;

// The dynamic array among a kernel's shared arrays, or null.
const Shared &dynamic_shared_array(const std::vector<Shared> &shared);

// The extent of the dynamic array of `shared` (kernel `kernel`'s) for a launch that gives it
// `bytes` of dynamic shared memory; 0 for a kernel without one. ArgumentError when the kernel has
// a dynamic array and `bytes` is 0 or not a multiple of its element size, or has none and
// `bytes` is not 0. Allocates nothing unless it throws (every call checks).
int64_t dynamic_shared_extent(const std::string &kernel, const std::vector<Shared> &shared,
                              int64_t bytes);

// ArgumentError, naming `limit` and `where` ("the CPU", "GPU 0 (NVIDIA H200)"), when the block's
// static shared bytes and `dynamic_bytes` together exceed the `limit` of where it runs. (A caller
// that builds `where` may test first whether they do.)
void check_block_shared_bytes(const std::string &kernel, int64_t static_bytes,
                              int64_t dynamic_bytes, int64_t limit, const std::string &where);

} // namespace loom::ir
