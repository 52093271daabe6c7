// Runs one program on every backend and on every prefix of the lowering pipeline, and compares
// each result with the reference interpreter's.
//
// Checks (names used in reports and by the shrinker):
//   pass:simplify            simplify() on the kernel body as the front end built it
//   pass:split_into_tasks    the tasks of split_into_tasks(), each verified as a kernel (these
//                            pass:* checks take the kernel after expand_complex, as lower() does)
//   pass:map_parallel:cpu    ... then map_parallel_loops(CPU), run in 3 chunks per task
//   pass:map_parallel:gpu    ... then map_parallel_loops(GPU), on a simulated 2x2x1 x 4x2x2 grid
//   lowered:cpu, lowered:gpu ir::lower() (all passes and the verifier), interpreted likewise
//   jit:cpu                  loom::Kernel on the CPU (LLVM, ORC JIT, OpenMP chunks)
//   gpu                      loom::Kernel on the GPU, when one is usable
// Comparisons: the interpreted pipeline stages must give the same bits (NaN matching NaN); the
// CPU JIT the same values (also -0 == +0: fmin/fmax may return either zero); the GPU values
// within the reference's tracked uncertainty (ir/Uncertainty.h), skipping elements whose value
// depended on a decision the GPU's rounding may flip, and skipping the whole program when
// control flow did ("inconclusive").
//
// Strided views: a program's ViewLayouts (Generator.h) pass arrays to the compiled runs as views
// inside larger buffers padded with a sentinel: host views on the CPU (read in place by strided
// code), device views on the GPU (in place too) or host views there (staged dense). The view's
// elements, gathered dense, are compared as the array; an element of the padding that lost its
// sentinel is a mismatch of its own (a write outside the view).
//
// Complex numbers compare part by part, each part as a float of the parts' type: the reference
// computes them as the real operations expand_complex makes of them (the formulas of
// docs/semantics.md, "Complex numbers"), so each part carries its own tracked bound, grown by
// those operations (a product's part ac - bd by the roundings of ac and bd, however much they
// cancel; hypot, atan2, exp, sin, cos, tan, sinh, cosh by their ulps between the targets).
#pragma once

#include "differential/Generator.h"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace loom::difftest {

struct CheckOptions {
  bool passes = true; // the pass:* and lowered:* checks
  bool cpu_jit = true;
  bool gpu = false;                 // needs a usable GPU
  std::vector<std::string> only;    // when not empty: run just these checks
  uint64_t step_limit = 20'000'000; // of each interpreter run
  // Test hook: rewrites every task body before the lowered:cpu check interprets it (a planted
  // bug, to test that the harness and the shrinker catch one).
  std::function<ir::Stmt(const ir::Stmt &)> fault;
  // Test hook: changes the layout the compiled runs tell loom of the view of parameter `param`
  // (it must stay inside the buffer); the harness still fills and gathers the view where the
  // program's layout puts it: a planted addressing bug.
  std::function<void(size_t param, ViewLayout &layout)> view_fault;
};

struct Failure {
  std::string check;  // e.g. "jit:cpu"
  std::string kind;   // "mismatch" or "exception <type>": what the shrinker keeps constant
  std::string detail; // the first differing element, or the exception's message
};

struct Verdict {
  // Non-empty when the reference interpreter rejected the program: a bug in the generator.
  std::string invalid;
  std::vector<Failure> failures;
  bool gpu_compared = false;    // the GPU ran and its results were compared
  std::string gpu_inconclusive; // why the GPU's results could not be compared, if so
  uint64_t steps = 0;           // statements the reference ran
};

// The interpreter's options for `program`: its SIMT launch, when it is a SIMT kernel.
ir::InterpreterOptions launch_options(const Program &program);

Verdict check_program(const Program &program, const CheckOptions &options);

// The GPU comparison of one element of type t: empty when `other` is a value another backend may
// compute where the reference computed `ref` with bound `bound[0]` (for complex numbers: the real
// part's, and the imaginary part's in `bound[1]`), else why not.
std::string outside_bound(ir::ScalarType t, ir::ScalarValue ref, const double bound[2],
                          ir::ScalarValue other);

// Whether a GPU is usable here (and why not, when not).
bool gpu_usable(std::string *why = nullptr);

} // namespace loom::difftest
