// An interpreter of loom's IR on host buffers, exact about loom's semantics (ir/Semantics.h):
// the reference that differential tests compare every backend with, a way to run a kernel with
// no GPU and no LLVM, and a teaching aid.
//
// A kernel as a front end built it runs its parallel loops' iterations one after another, in
// row-major order. A lowered kernel runs its tasks in order: on the CPU a parallel task's chunks
// [chunk_begin, chunk_end) cover its domain[0]; on the GPU every thread of a simulated launch
// runs its grid-stride loops in turn. Race-free kernels give the same result either way.
#pragma once

#include "ir/IR.h"
#include "ir/Semantics.h"

#include <array>
#include <cstdint>
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
  // end stops instead of hanging.
  uint64_t step_limit = 100'000'000;
  // A kernel's parallel loops must be race-free: InterpreterError when one iteration writes an
  // array element another iteration reads or writes (checked before lowering only).
  bool check_races = true;
  // Also bound how far another conforming backend's results may be (ir/Uncertainty.h).
  bool track_uncertainty = false;
  // Lowered CPU kernels: a parallel task runs as this many consecutive chunks of its domain[0].
  int cpu_chunks = 1;
  // Lowered GPU kernels: the launch simulated for parallel tasks, x y z (serial tasks: one
  // thread; axes past a task's dimensions: one thread and one block, as loom launches them).
  std::array<unsigned, 3> gpu_block = {4, 2, 2};
  std::array<unsigned, 3> gpu_grid = {2, 2, 1};
};

struct InterpreterResult {
  uint64_t steps = 0; // statements executed
  // With track_uncertainty, for each array parameter (scalars: empty) and element: the bound on
  // how far another backend's value may be; infinity means any value (not comparable).
  std::vector<std::vector<double>> error_bounds;
  // With track_uncertainty: non-empty when a branch, loop bound or store index depended on a
  // value another backend may compute differently, so whole arrays are not comparable; says
  // where. (The run itself goes on: its results are those of a run without tracking.)
  std::string inconclusive;
};

// Throws ArgumentError for arguments that do not match the parameters, InterpreterError for an
// index out of bounds, a data race or the step limit.
InterpreterResult interpret(const Kernel &kernel, std::vector<InterpreterArg> &args,
                            const InterpreterOptions &options = {});
InterpreterResult interpret(const LoweredKernel &kernel, std::vector<InterpreterArg> &args,
                            const InterpreterOptions &options = {});

} // namespace loom::ir
