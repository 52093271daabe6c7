// The lowering passes, each a pure function from IR to IR. ir/Lower.cpp runs them in order.
#pragma once

#include "ir/IR.h"

#include <optional>
#include <set>
#include <string>
#include <vector>

namespace loom::ir {

// Complex numbers as their real and imaginary parts (ir/ExpandComplex.cpp): the kernel itself
// when it has none. Its complex parameters become parameters of their parts (ir::ComplexPart);
// VerifyError for a complex product (*=) into an element a parallel loop's iterations share.
Kernel expand_complex(const Kernel &kernel);
// 16-bit float values (f16, bf16) as the f32s that hold them, each operation that makes one
// rounded (ir/ExpandHalf.cpp): the kernel itself when it has none. Runs before expand_complex.
Kernel expand_half(const Kernel &kernel);

// Assertions (ir::Assert) as every backend runs them (ir/LowerAsserts.cpp): a failed one ends its
// parallel iteration, a SIMT kernel's name their thread; with Kernel::asserts off they go. The
// kernel itself when it has none.
Kernel lower_asserts(const Kernel &kernel);

// Each top-level parallel loop becomes its own parallel task (one launch), the serial statements
// between them serial tasks. A sequential loop around parallel loops (at the top level, or in
// such a loop) becomes a TaskLoop around the tasks its body splits into; a run of declarations
// alone there makes no task. Locals read by later tasks are re-declared there; it is an error
// when that would change their value (they are reassigned, or read arrays a task writes), or when
// a launch domain or a loop bound is not computable on the host.
TaskProgram split_into_tasks(const Kernel &kernel);
// `params` followed by the i64 scalar parameters of `loops`' variables (LoweredKernel::params).
std::vector<Param> task_loop_params(const std::vector<Param> &params,
                                    const std::vector<TaskLoop> &loops);

// Array-element reductions (Reduce statements), by where their element lies:
// - serial tasks, and parallel iterations that own the element (its indices are the loop's own
//   variables and nothing else in the loop touches the array differently): a plain load-op-store;
// - one element every iteration combines into (indices over scalar parameters and shapes, and
//   the array only reduced into, with one operation): a per-worker accumulator and a
//   TaskReduction, deterministic for a fixed launch shape;
// - anything else stays a Reduce, which code generation makes an atomic read-modify-write.
Task lower_reductions(const Task &task, const std::vector<Param> &params);

// An element a sequential loop stores at the same indices in every step, unconditionally, while
// its other reads of that array are provably of other elements (from the ranges of the loops
// around them), lives in a local for the loop: read before its first step and written after its
// last, under `if begin < end` (ir/PromoteUpdates.cpp). Serial and parallel tasks, after
// lower_reductions; loops holding parallel loops, atomics or warp operations are left alone.
Task promote_element_updates(const Task &task, const std::vector<Param> &params);
// GPU: a sequential loop that only computes, whose count of steps varies but is provably at most
// 16, runs that many steps between constant bounds, the steps past its end reading what its last
// step read and dropping their results (ir/ShortLoops.cpp): LLVM then unrolls it whole and its
// loads issue together instead of one cache latency a step.
Task run_short_loops_whole(const Task &task, const std::vector<Param> &params);
// GPU, default mapping, before it: the elements one iteration of a parallel loop writes and reads
// back in a sequential loop, when the loop's accesses of them lie in a box of at most 32 elements
// and its other accesses of the array provably outside it, live in a local array for the loop
// (copied in before it, stores written through; ir/StagePrivate.cpp). The new local arrays are
// appended to `locals`; Task::staged says which.
// GPU, default mapping, before it: consecutive parallel tasks whose accesses are provably apart
// (no element one writes is accessed by the other) and whose domains agree past the outermost
// dimension run as one task, the first's iterations then the second's along that dimension
// (ir/FuseTasks.cpp). Task loops' task ranges follow. Whether any were fused.
bool fuse_independent_tasks(std::vector<Task> &tasks, std::vector<TaskLoop> &loops,
                            const std::vector<Param> &params);
// GPU, default mapping, before it: a task loop of one 1-D stencil task (each step a row of one
// array from the row the step before wrote, reaching at most 4 columns each side) runs `steps`
// steps a launch: a copy of the row the loop starts from into a scratch array before the loop, and
// in the loop a task whose blocks compute overlapping tiles of columns through all the steps in
// shared memory, each launch leaving its last row in the scratch array for the next
// (ir/StepsPerLaunch.cpp).
// The scratch arrays' parameters are appended to `params` and `scratch`, the shared rows to
// `shared`; Task::steps_per_launch says which tasks. Whether any loop changed.
bool run_steps_per_launch(std::vector<Task> &tasks, std::vector<TaskLoop> &loops,
                          std::vector<Param> &params, std::vector<Shared> &shared,
                          std::vector<ScratchArray> &scratch, int steps);
Task stage_private_elements(const Task &task, const std::vector<Param> &params,
                            std::vector<Shared> &locals);
// GPU: a serial task that map_serial_block put on one block (`block`, made from `serial`): the
// arrays it stores to whose every access in `serial` lies in a box of at most 1024 elements
// over its loops' ranges, and which it reads back, live in shared arrays (appended to `shared`):
// copied in by the block's threads before a barrier, read from there, stores written to them and
// through to the array (ir/StagePrivate.cpp). The barriers map_serial_block placed for the
// array's elements order the shared array's too.
Task stage_serial_block(const Task &serial, const Task &block, const std::vector<Param> &params,
                        std::vector<Shared> &shared);

// Turns a parallel task's ParallelFor into loops over the iterations one worker runs:
// GPU: grid-stride loops, innermost dimension on threadIdx.x so neighbouring threads touch
//      neighbouring elements; a 1-D loop whose accesses are all at [i] (or, for the parts of a
//      dense complex array, at [i, 0] and [i, 1]) steps through runs of consecutive iterations
//      instead (16 bytes of its widest array per thread, 32 with a
//      reduction: vector loads, more of them in flight); CPU: the outermost dimension over
//      [chunk_begin, chunk_end).
// With `covering` (GPU), a task whose iterations run a loop, without runs or reductions, takes one
// iteration per thread instead: each index is its thread's first, guarded by `if`, and
// Task::covering says that the launch must cover the domain.
// `runs` (GPU): a 1-D loop whose variable has a vectorize schedule takes runs of that many
// iterations (1: none), and CompileError says why when its accesses do not allow runs.
Task map_parallel_loops(const Task &task, const std::vector<Param> &params, Target target,
                        bool covering = false, const LoopHints &runs = {});

// GPU, default mapping, instead of it: a parallel task whose innermost extent is a constant C
// (64 to 1024) and whose sequential loops of constant count read elements that depend only on
// indices the same for the C iterations of that dimension runs a block of C threads for each
// iteration of the outer dimensions, the loop's elements copied to shared memory by the block
// before each run of the loop (ir/StageBlockReads.cpp); the copies are appended to `shared`,
// Task::block_reads says which loops. The task unchanged where the form does not hold.
Task stage_block_reads(const Task &task, const std::vector<Param> &params,
                       std::vector<Shared> &shared);

// GPU, after map_parallel_loops: a 3-D loop's walk along z (the innermost grid-stride loop over
// axis z, which runs with step 1 when the launch has one block along z) keeps in registers the
// values a step loads and the next step loads again (t[max(z - 1, 0)], t[z], t[min(z + 1, T - 1)]
// of an array the task never stores), under `if stride == 1`, the loop as it was otherwise
// (ir/CarryLoads.cpp); Task::carried says which. Results are unchanged, bit for bit.
Task carry_loads_along_walks(const Task &task, const std::vector<Param> &params);

// A CPU worker's float sums and products (TaskReductions of op Add or Mul) accumulate in
// `cpu_reduction_lanes` lanes: the innermost loop of a chunk's nest runs whole groups of that
// many consecutive iterations, iteration l of a group into lane l, then the rest of the loop into
// lane 0; the lanes are combined in order after the nest (ir/CpuLanes.cpp). Each lane is a chain
// of additions of its own, so a strict float sum runs at the speed of memory (LLVM's SLP
// vectorizer makes the lanes vector registers), and the result still depends only on the thread
// count. Applies to CPU parallel tasks (after map_parallel_loops) whose innermost iteration body
// runs no loop; sets Task::lanes. Without fastmath only: with it LLVM reassociates the sums
// itself.
inline constexpr int cpu_reduction_lanes = 16;
Task accumulate_in_lanes(const Task &task);

// Kernel::loops as code generation applies them (LoweredKernel::loops), by loop variable:
// CompileError when a name matches no loop of the kernel. On the GPU the parallel loops'
// vectorize goes to `runs` instead, for map_parallel_loops (the tile and block_per_iteration
// mappings refuse it).
LoopHints loop_schedules_for(const Kernel &kernel, Target target, LoopHints *runs);

// The block_per_iteration schedule (GPU): each iteration of the task's 1-D parallel loop runs on a
// block of `threads` threads (a multiple of 32), which split the iteration's range loops among
// them and combine the locals those loops reduce into; the shared arrays it needs are appended
// to `shared`. CompileError when the loop or its body does not allow it, saying why.
Task map_block_per_iteration(const Task &task, const std::string &kernel,
                             const std::vector<Param> &params, int threads,
                             std::vector<Shared> &shared);
// A GPU serial task on one block of `threads` threads (ir/BlockPerIteration.cpp): the loops in
// `split` (shown to have independent iterations) split among them, every other statement run by
// each thread, stores outside the split loops by thread 0 between barriers.
Task map_serial_block(const Task &task, const std::string &kernel, const std::vector<Param> &params,
                      int threads, const std::set<const For *> &split, std::vector<Shared> &shared);
// The loops of a GPU serial task whose iterations are independent (ir/SerialBlock.cpp), to run
// split among one block's threads; empty when none is (or the task prints, asserts or is
// bounds-checked). `why` says which loops, or why none, for explain().
std::set<const For *> independent_loops(const Task &task, const std::vector<Param> &params,
                                        std::string &why);

// The tile schedule (ir/Tile.cpp): the task's 2-D parallel loop runs as tiles. GPU: a block of
// tile.threads() threads per tile; the shared arrays it stages through are appended to `shared`.
// CPU: a parallel loop over tiles, each tile's thread shares (register blocks) one after another,
// nothing staged (map_parallel_loops then chunks the loop over tiles). For parallel tasks with a
// 2-D parallel loop (has_2d_parallel_loop); CompileError when the loop or its body does not
// allow the schedule, saying why.
bool has_2d_parallel_loop(const Task &task);
// The tile schedule on the tensor cores (ir/TileMma.cpp), GPU only: a loop of the matmul form over
// f16 or bf16 arrays (or f32 ones read as TF32 when `tf32`), on sm_80 or later (`sm`; 0: not
// known), under a tile whose threads, depth and shape split into warps' 16 x 8 x 16 products.
// nullopt, with `why_not` saying which condition failed, where it does not apply (map_tile then
// runs the loop on the FP32 units); Task::tensor_cores describes the mapping where it does.
std::optional<Task> map_tile_mma(const Task &task, const std::vector<Param> &params,
                                 const TileSchedule &tile, int sm, bool tf32,
                                 std::vector<Shared> &shared, std::string &why_not);
// On sm_90, the tile of map_tile_mma on Hopper's warpgroup instructions (ir/TileWgmma.cpp):
// wgmma.mma_async reading its operands from swizzled stages of a dynamic shared array (appended
// to `shared`; Task::dynamic_shared_bytes sizes it). nullopt, with `why_not`, where the tile or
// the form does not allow it (f32 arrays, a tile not of whole warpgroups, a depth other than 64
// with an operand read along k, too little shared memory); map_tile_mma then runs mma.sync.
namespace tile {
struct MatmulForm;
}
std::optional<Task> map_tile_wgmma(const Task &task, const std::vector<Param> &params,
                                   const TileSchedule &tile, const tile::MatmulForm &form,
                                   std::vector<Shared> &shared, std::string &why_not);
Task map_tile(const Task &task, const std::string &kernel, const std::vector<Param> &params,
              const TileSchedule &tile, std::vector<Shared> &shared, Target target);
// Why the tile schedule (unstaged) cannot take `task`'s 2-D parallel loop, or empty.
std::string tile_form_problem(const Task &task, const std::vector<Param> &params);
// The register blocks the CPU runs a task's loop of the matmul form in without being asked
// (ir/AutoSchedule.cpp): a tile schedule sized to `vector_bits`-bit vector registers, `registers`
// of them, where the loop has the form and the blocks pay; nullopt otherwise. `why` receives the
// reason either way (explain()).
std::optional<TileSchedule> auto_cpu_tile(const Task &task, const std::vector<Param> &params,
                                          int vector_bits, int registers, std::string &why);

// Folds constants and removes arithmetic identities (x + 0, x * 1, casts of constants).
// A warp's tensor-core product (Mma) as the statements each of its lanes runs (ir/MmaLanes.cpp):
// the CPU's code for it.
Stmt mma_by_lane(const Mma &n);

Stmt simplify(const Stmt &s);
Expr simplify(const Expr &e);

// Removes the parallel loops whose extent in some dimension is a constant 0 or less: they run no
// iteration, and their code is not compiled. (ptxas 13.0 crashed on the grid-stride loop of
// `for i in parallel(0)` around a dead cos, whose libdevice range reduction LLVM keeps.)
Stmt drop_empty_parallel_loops(const Stmt &s);
// Removes the declarations and assignments of locals nothing reads, where what they compute has
// no effect (no warp operation; no array read when `bounds_checked`), repeatedly
// (ir/DeadLocals.cpp).
Stmt drop_dead_locals(const Stmt &body, bool bounds_checked);

} // namespace loom::ir
