// The calling convention between compiled kernels and the runtime, shared by both targets.
//
// A kernel's parameters are flattened in order: an array parameter of rank R becomes its data
// pointer followed by R i64 extents (outermost first), and a strided one (ir::Param::strided) by R
// i64 strides after them (in elements, any sign; the pointer is that of element [0, ..., 0]); a
// scalar parameter becomes its value (bool as one byte). The runtime passes `params`, an array
// holding the address of each flattened value: exactly what cuLaunchKernel takes as kernelParams,
// and what a CPU task entry receives.
//
// A task with reductions (ir::TaskReduction) takes one more pointer after them: scratch memory
// of 8-byte slots. Slot 0 is the GPU's count of finished blocks (zero before a launch, and reset
// to zero by the last block); slot 1 + w * R + r receives worker w's partial of reduction r
// (R reductions; a worker is a GPU block or a CPU chunk), stored in the element type.
//
// A kernel with bounds checks or assertions (ir::LoweredKernel::takes_record) passes its tasks one
// more pointer, last: its record, bounds_record's slots. An access whose index is out of range
// claims the record (slot `claimed` from 0 to 1, atomically; the first claim wins), writes what it
// was, and goes to the `sink` slots instead of the array (a load reads garbage). A failed
// assertion adds 1 to `failures` and claims the record with 2, writing its site and the values of
// its indices. The runtime zeroes the record before a call and throws loom::BoundsError or
// loom::KernelAssertionError after it when it was claimed.
#pragma once

#include <cstdint>

namespace loom {

// Entry point of a CPU task: runs iterations [chunk_begin, chunk_end) of the task's outermost
// parallel dimension (serial tasks ignore both); chunk_index numbers the chunks from 0 in
// iteration order, and picks the scratch slots of a task with reductions.
namespace bounds_record {
constexpr int claimed = 0;   // 0 until a violation claims the record
constexpr int array = 1;     // the kernel parameter's index
constexpr int dimension = 2; // which index of the access, 0 first
constexpr int index = 3;     // its value
constexpr int extent = 4;    // the extent it exceeded
constexpr int failures = 5;  // failed assertions, counted
constexpr int sink = 6;      // slots 6 and 7: where the out-of-range access goes instead
constexpr int site = 8;      // the failed assertion's site (ir::Assert::site)
constexpr int indices = 9;   // slots 9 to 15: its indices' values (ir::max_assert_indices)
constexpr int slots = 16;    // 8-byte slots in all
constexpr uint64_t out_of_bounds = 1, assertion = 2; // what claimed the record
} // namespace bounds_record

using CpuTaskFn = void (*)(void *const *params, int64_t chunk_begin, int64_t chunk_end,
                           int64_t chunk_index);

// A SIMT task (ir::TaskKind::Simt) on the CPU: the runtime runs each block on one OS thread and
// its threads on fibers (support/SimtBlock.h), calling the task's entry once per thread with
// chunk bounds 0. The code asks the runtime for its position and block's shared memory, and
// calls it for barriers and warp collectives (runtime/CpuSimt.cpp defines the three functions,
// which the CPU JIT resolves through simt_entry_points()).
struct SimtThread {
  int32_t regs[4][3];    // [ir::Reg][x, y, z]: threadIdx, blockIdx, blockDim, gridDim
  unsigned char *shared; // the block's shared arrays, at ir::shared_offsets
  // The launch's dynamic shared memory (Kernel::shape), which the dynamic shared array takes at
  // the end of `shared`: CUDA's %dynamic_smem_size.
  int64_t dynamic_shared_bytes;
};
extern "C" {
// The calling thread's SimtThread, valid while its entry runs.
const SimtThread *loom_simt_thread();
// __syncthreads.
void loom_simt_barrier();
// The ir::WarpOp `op` (an ir::WarpOpKind) of the calling thread's warp: `value` holds the
// thread's value's bits (zero-extended; a bool is 0 or 1), the result the result's.
uint64_t loom_simt_warp(int32_t op, uint64_t value, int32_t operand);
}

// The three functions above, as the CPU JIT binds SIMT tasks' calls to them. runtime/CpuSimt.cpp
// fills the table when the library loads, so that codegen, a layer beside runtime, holds no
// link-time reference to it (docs/architecture.md); null until then.
struct SimtEntryPoints {
  const SimtThread *(*thread)() = nullptr;
  void (*barrier)() = nullptr;
  uint64_t (*warp)(int32_t op, uint64_t value, int32_t operand) = nullptr;
};
SimtEntryPoints &simt_entry_points();

// print(...) on the CPU: `format` is the line's printf format (ir/PrintFormat.h) and `slots` its
// arguments, 8 bytes each; the runtime formats the line and writes it whole
// (support/PrintLine.h). runtime/CpuPrint.cpp fills the entry when the library loads.
extern "C" void loom_print(const char *format, const uint64_t *slots);
struct PrintEntryPoint {
  void (*print)(const char *format, const uint64_t *slots) = nullptr;
};
PrintEntryPoint &print_entry_point();

} // namespace loom
