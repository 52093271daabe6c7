// A generator of random loom kernels that are well typed and free of undefined behaviour and
// races by construction (in the style of YARPGen), with their inputs.
//
// Every program is a function of its seed. What the generator guarantees:
// - indices are in bounds: a loop index whose range fits the extent, a constant, or any integer
//   expression clamped (min/max) or reduced modulo the extent;
// - loops end: sequential loops have small constant or clamped trip counts, while loops a counter
//   that the generated code never assigns;
// - no races: a top-level parallel loop writes only the arrays it owns, each at an index whose
//   parallel dimensions are the loop's indices (an injective map: identity, permuted or reversed;
//   the other dimensions are free), and reads those arrays only at that same index;
// - the task split is legal: a top-level variable read by a later parallel loop is never
//   reassigned and its initial value reads only arrays no statement writes.
// Everything else is fair game: all types, operators (division by zero, overflowing arithmetic,
// shifts by any amount are defined in loom), math functions, casts, selects, nested loops,
// if/else, reductions, 1-3-D arrays and parallel loops, serial code between parallel loops, and
// sequential loops around parallel loops (task loops, two deep at most); in some programs complex
// numbers too (what complex numbers take: + - * / == !=, their math functions and parts, casts,
// stores and += reductions; *= only where no other iteration updates the element), and in some
// f16 and bf16 scalar values (parameters, locals, arithmetic, comparisons, selects, math
// functions, casts from and to every type; arrays of them hold f32 values in every program), and
// in some local arrays in parallel loops (written whole where the iteration starts, then read and
// written at in-bounds indices), and in some Philox random number generators
// (frontend/PhiloxIR.h) with draws of every kind, and in some print statements.
#pragma once

#include "ir/IR.h"
#include "ir/Interpreter.h"

#include <cstdint>
#include <string>
#include <vector>

namespace loom::difftest {

// How the compiled runs (CPU JIT, GPU) pass an array argument; the interpreter always takes the
// dense Buffer. Dense (no strides), or a strided view inside a larger buffer whose other elements
// hold a sentinel: element [i0, i1, ...] of the array is element offset + i0 * s0 + i1 * s1 + ...
// of the buffer (strides in elements of the array's type, any sign). The Buffer's elements are
// scattered there before the call and gathered back after it; the sentinel must stay.
struct ViewLayout {
  std::vector<int64_t> strides; // one per dimension; empty: passed dense
  int64_t offset = 0;           // element [0, ..., 0]'s index in the buffer
  int64_t buffer = 0;           // the buffer's element count
  bool device = true; // on the GPU: a device view (DeviceArray memory), else a host view (staged)
  bool strided() const { return !strides.empty(); }
};

// A kernel with the arguments to run it on.
struct Program {
  uint64_t seed = 0;
  ir::Kernel kernel;
  // A SIMT kernel's launch (kernel.simt()): blocks and threads along x, and the dynamic shared
  // memory of its dynamic shared array, if it has one.
  unsigned simt_grid = 1, simt_block = 1;
  int64_t dynamic_shared_bytes = 0;
  std::vector<ir::InterpreterArg> args;
  // One per parameter (a scalar's is dense), or empty: every array passed dense.
  std::vector<ViewLayout> views;
};

struct GeneratorOptions {
  int max_sections = 4;   // top-level parallel loops and serial groups
  int max_block = 6;      // statements generated per block
  int max_nesting = 3;    // if / for / while nesting
  int max_expr_depth = 4; // operators nested in one expression
  // The fraction of programs with complex numbers (c64, c128): arrays, scalars, locals and
  // expressions. Whether a program has them is drawn apart from the rest, so the others are the
  // programs their seeds gave before complex numbers were generated.
  double complex_fraction = 0.15;
  // The fraction of programs with 16-bit float values (f16, bf16): scalar parameters, locals and
  // expressions (f16 and bf16 arrays are in every program). Drawn apart from the rest like
  // complex numbers: the other programs are those their seeds gave before these were generated.
  double half_fraction = 0.2;
  // The fraction of programs whose parallel loops may declare local arrays (local.array), drawn
  // apart like complex numbers: the other programs are those their seeds gave before.
  double local_fraction = 0.25;
  // The fraction of programs with Philox generators: now and then a statement of a block is a
  // generator (seed, stream and first block from expressions of the scope) and a few draws from
  // it (raw words, uniforms, now and then normals and randint), each into a local the block's
  // later statements may read. Drawn apart like complex numbers.
  double philox_fraction = 0.15;
  // The fraction of programs with print statements: now and then a statement of a block prints a
  // label and integer and bool values (exact on every backend; the tester compares the lines as
  // sorted lists). Drawn apart like complex numbers.
  double print_fraction = 0.15;
  // The fraction of programs with assertions: now and then a statement of a block asserts a bool
  // expression of the scope (true or false by chance: the tester compares the count of failures,
  // or the arrays when none failed). Drawn apart like complex numbers.
  double assert_fraction = 0.15;
  // The fraction of programs that are SIMT kernels (a shared array, static or dynamic, written at
  // each thread's index, a barrier, another thread's element read back; see Generator.cpp's
  // simt_kernel). Drawn apart like complex numbers.
  double simt_fraction = 0.1;
  // Of those, the fraction that multiply on the tensor cores instead (ir::Mma, the SIMT level's
  // mma_sync; see Generator.cpp's simt_mma_kernel), drawn apart so that the others are the SIMT
  // kernels their seeds gave before.
  double mma_fraction = 0.3;
  // The fraction of programs (not SIMT) that end with a parallel loop of the matmul form over
  // 2-D arrays (see Generator.cpp's matmul_loop), drawn apart like complex numbers: the others
  // are the programs their seeds gave before.
  double matmul_fraction = 0.2;
  // The fraction of programs (not SIMT) that end with a task loop around a 1-D stencil over a 2-D
  // array's rows (see Generator.cpp's stencil_loop; the GPU runs 16 of its steps a launch,
  // ir/StepsPerLaunch.cpp), drawn apart like complex numbers.
  double stencil_fraction = 0.15;
  // The fraction of programs (not SIMT) that end with a 2-D parallel loop of a constant innermost
  // extent (64 to 100) whose iterations along it read the same elements in a loop (see
  // Generator.cpp's shared_reads_loop; the GPU stages them in shared memory once a block,
  // ir/StageBlockReads.cpp), drawn apart like complex numbers.
  double shared_reads_fraction = 0.1;
  // The fraction of programs whose parallel loops may end with a recurrence along a free
  // dimension of their own array (`a[i, k] = a[i, k - c] * x + y` for k in a constant range: an
  // iteration's row written and read back, which the GPU keeps in a local array,
  // ir/StagePrivate.cpp), drawn apart like complex numbers.
  double row_fraction = 0.2;
  // The fraction of programs whose compiled runs pass arrays as strided views (ViewLayout), and
  // in those the fraction of array arguments that are views: transposed (permuted strides),
  // stepped (1 to 3), padded, reversed (negative strides), from an offset; a few read-only ones
  // broadcast a dimension (stride 0, the Buffer then holds equal elements along it). Drawn from a
  // generator of their own: the kernels and (but for broadcasts) the arguments are those the
  // seeds gave before views were generated.
  double view_fraction = 0.3;
  double view_array_fraction = 0.5;
};

Program generate_program(uint64_t seed, const GeneratorOptions &options = {});

// Why `program.views` cannot be run (empty when they can): one layout per parameter, each strided
// one with a stride per dimension and inside its buffer, and a Buffer whose elements a broadcast
// (several indices naming one element) names consistently.
std::string invalid_views(const Program &program);

// The arrays the kernel stores or reduces into.
std::vector<bool> written_arrays(const ir::Kernel &kernel);

} // namespace loom::difftest
