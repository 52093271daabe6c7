// An interpreter of loom's IR on host buffers, exact about loom's semantics (ir/Semantics.h):
// the reference that differential tests compare every backend with, a way to run a kernel with
// no GPU and no LLVM, and a teaching aid.
//
// A kernel as a front end built it runs its parallel loops' iterations one after another, in
// row-major order. A lowered kernel runs its tasks in order: on the CPU a parallel task's chunks
// [chunk_begin, chunk_end) cover its domain[0]; on the GPU every thread of a simulated launch
// runs its grid-stride loops in turn. Race-free kernels give the same result either way.
//
// A SIMT kernel (Kernel::simt, or the Simt task of one lowered for either target) runs every
// thread of the launch InterpreterOptions::simt_grid x simt_block: the blocks one after another,
// each with its own zeroed shared arrays (the dynamic one of simt_dynamic_shared_bytes); within a
// block, when the body has barriers or warp collectives, the threads run on the fibers of a
// support::SimtBlock and switch at each of them, as compiled CPU code does (so warp collectives
// give what ir::warp_result defines, the CPU runtime's results by construction); otherwise one
// after another. Every thread has its own locals. Atomics update the element with loom's operations
// (float min/max are fmin/fmax, CompareExchange compares bits) and give the old value.
#pragma once

#include "ir/IR.h"
#include "ir/Semantics.h"

#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace loom::ir {

// A dense row-major host array. Bools take one byte (0 or 1), as in loom's calling convention.
struct Buffer {
  ScalarType type = ScalarType::I32;
  std::vector<int64_t> shape;
  std::vector<unsigned char> bytes;

  Buffer() = default;
  Buffer(ScalarType type, std::vector<int64_t> shape); // zero-filled
  int64_t size() const;
  ScalarValue get(int64_t linear) const;
  void set(int64_t linear, ScalarValue v);
  void *data() { return bytes.data(); }
};

// One argument: a scalar in its parameter's type, or an array read and written in place.
struct InterpreterArg {
  ScalarValue scalar;
  Buffer array;

  static InterpreterArg of_scalar(ScalarValue v) { return {v, {}}; }
  static InterpreterArg of_array(Buffer b) { return {{}, std::move(b)}; }
};

struct InterpreterOptions {
  // Statements executed (loop iterations included) before InterpreterError: a loop that does not
  // end stops instead of hanging. A SIMT launch counts the statements of all its threads together.
  uint64_t step_limit = 100'000'000;
  // Where print(...) writes each line (with its newline); null: the process's stdout, as compiled
  // code prints (support/PrintLine.h).
  std::function<void(const std::string &)> print_line;
  // A kernel's parallel loops must be race-free: InterpreterError when one iteration writes an
  // array element another iteration reads or writes (checked before lowering). In a lowered task
  // whose threads share a block's work (block_per_iteration, tiles, a serial task on a block),
  // also when one thread writes an element that another reads or writes with no barrier between
  // them: a race the lowering made.
  bool check_races = true;
  // Also bound how far another conforming backend's results may be (ir/Uncertainty.h). In a
  // SIMT kernel, threads' atomics on an element run in an order the launch leaves open: the old
  // value an atomic returns, and an element an exchange or compare-and-swap writes, are unknown;
  // float atomic adds (and Reduce statements) are bounded as unordered sums.
  bool track_uncertainty = false;
  // Lowered CPU kernels: a parallel task runs as this many consecutive chunks of its domain[0].
  int cpu_chunks = 1;
  // Lowered GPU kernels: the launch simulated for parallel tasks, x y z (serial tasks: one
  // thread; axes past a task's dimensions: one thread and one block, as loom launches them).
  std::array<unsigned, 3> gpu_block = {4, 2, 2};
  std::array<unsigned, 3> gpu_grid = {2, 2, 1};
  // SIMT kernels: the launch, blocks x y z and threads per block x y z (each at least 1, at most
  // 1024 threads a block, else ArgumentError), for the kernel as built and lowered for either
  // target. The race checker does not look at SIMT kernels: their threads synchronize
  // explicitly, and the interpreter runs them in one order the CPU runtime may also take.
  std::array<unsigned, 3> simt_grid = {2, 1, 1};
  std::array<unsigned, 3> simt_block = {64, 1, 1};
  // A run in which assertions failed throws KernelAssertionError as a call does; off, it returns
  // with InterpreterResult::assert_failures counting them.
  bool throw_on_assert = true;
  // SIMT kernels: the launch's dynamic shared memory, in bytes (Kernel::shape's shared_bytes): a
  // kernel's dynamic shared array has this many bytes (ArgumentError when it has one and they are
  // 0 or not whole elements, when it has none and they are not 0, or past the CPU's limit,
  // ir/DynamicShared.h).
  int64_t simt_dynamic_shared_bytes = 0;
};

struct InterpreterResult {
  uint64_t steps = 0; // statements executed (SIMT: by all threads)
  // With track_uncertainty, for each array parameter (scalars: empty) and element: the bound on
  // how far another backend's value may be; infinity means any value (not comparable).
  std::vector<std::vector<double>> error_bounds;
  // With track_uncertainty: non-empty when a branch, loop bound or store index depended on a
  // value another backend may compute differently, so whole arrays are not comparable; says
  // where. (The run itself goes on: its results are those of a run without tracking.)
  std::string inconclusive;
  uint64_t assert_failures = 0; // failed assertions (without throw_on_assert)
};

// Throws ArgumentError for arguments that do not match the parameters (or a SIMT launch shape
// out of range), InterpreterError for an index out of bounds (of an array parameter or a shared
// array), a data race, the step limit or a SIMT block whose threads deadlock (they wait at sync
// points that cannot complete, e.g. some at a barrier while others of their warp wait at a warp
// collective; threads that have returned do not count at barriers, as on sm_70+).
InterpreterResult interpret(const Kernel &kernel, std::vector<InterpreterArg> &args,
                            const InterpreterOptions &options = {});
InterpreterResult interpret(const LoweredKernel &kernel, std::vector<InterpreterArg> &args,
                            const InterpreterOptions &options = {});

} // namespace loom::ir
