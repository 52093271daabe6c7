// A kernel's schedule: how its loops run on the machine, kept apart from what they compute (the
// kernel's body), as Halide keeps a Func's schedule apart from its definition. One mapping of the
// parallel loops, and the unroll and vectorize schedules of single loops. Schedules never change
// results: a scheduled kernel computes the bits of the same kernel unscheduled (docs/semantics.md).
//
// schedule_problem() is the one check of a schedule's values (Kernel's schedule calls, the text
// DSL's @kernel options and the verifier all make it); ir::lower() switches on the mapping once,
// and what a mapping cannot do with a particular loop is a CompileError of its pass.
#pragma once

#include <cstdint>
#include <map>
#include <string>

namespace loom::ir {

struct Kernel;

// The tile schedule (ir/Tile.cpp): a 2-D parallel loop runs as tiles of rows x cols iterations,
// a thread block per tile on the GPU (tiles shared among threads on the CPU), each thread taking
// thread_rows x thread_cols of them with their inner loops fused; with a depth, the GPU stages
// the arrays the inner loop reads at [i, k] or [k, j] through shared memory `depth` steps of k
// at a time. rows == 0: no tiling.
// {128, 128, 8, 8, 8, 2}: a float SGEMM's usual schedule.
//
// Whether a tile of the matmul form runs on the tensor cores (ir/TileMma.cpp): where it can
// (Auto), or always (Required: where the kernel's form or the tile does not allow it, the next
// call throws CompileError saying which condition failed; a GPU without tensor cores, or the CPU,
// still runs the FP32 tile, and explain() says so), or never (Off).
enum class TensorCores : uint8_t { Auto, Required, Off };

struct TileSchedule {
  int rows = 0, cols = 0;
  int thread_rows = 1, thread_cols = 1;
  int depth = 0;
  // The blocks an SM should hold at once (CUDA's __launch_bounds__ minimum): ptxas then keeps a
  // thread's registers within 65536 / (threads x min_blocks); 0 leaves the choice to ptxas.
  int min_blocks = 0;
  TensorCores tensor_cores = TensorCores::Auto;
  int threads() const { return rows > 0 ? (rows / thread_rows) * (cols / thread_cols) : 0; }
  bool operator==(const TileSchedule &) const = default;
};
// Why `tile` is not a valid schedule, or empty: rows and cols multiples of thread_rows and
// thread_cols, 1 to 1024 threads, depth 0 to 64.
std::string tile_problem(const TileSchedule &tile);

// The schedule of the sequential loops whose variable has one name (Kernel::unroll and
// Kernel::vectorize; ir/LoopSchedule.cpp). It changes how a thread's iterations are laid out in
// code, never their order, so results are those of the loop without it, bit for bit.
struct LoopSchedule {
  int unroll = 0; // 0: loom's choice; 1: not unrolled; n: unrolled n times (up to 64)
  // 0: LLVM's choice. CPU: the loop vectorizes with vectors of `vectorize` elements (a float
  // reduction only with fastmath). GPU: a 1-D parallel loop's variable takes runs of `vectorize`
  // consecutive iterations per thread (ir/MapParallelLoops.cpp); a sequential loop is unrolled
  // `vectorize` times unless `unroll` says otherwise. A power of two up to 16.
  int vectorize = 0;
  bool operator==(const LoopSchedule &) const = default;
};
// By loop variable, named as ir::to_string(Kernel) prints it: a name the kernel's loops share is
// told apart there as k, k.1, k.2 in order of appearance (the embedded DSL names every for_range
// variable k and every parallel_for variable i).
using LoopSchedules = std::map<std::string, LoopSchedule>;

// How a kernel's parallel loops map onto the machine: one choice per kernel.
enum class Mapping : uint8_t {
  // GPU: a thread per iteration (a covering launch, else grid-stride loops); CPU: chunks of the
  // outermost parallel dimension among threads (ir/MapParallelLoops.cpp).
  Parallel,
  // GPU: each iteration of a 1-D parallel loop runs on a block of `threads` threads, which split
  // its inner loops (ir/BlockPerIteration.cpp); CPU: as Parallel.
  BlockPerIteration,
  // A 2-D parallel loop runs as tiles (`tile`, ir/Tile.cpp), on both targets.
  Tile,
  // The SIMT level (CUDA's model): the kernel has no parallel loops; its body is what each thread
  // of an explicitly shaped launch runs, reading its position from SpecialReg.
  Simt,
};
// "the default mapping", "block_per_iteration", "the tile schedule", "the SIMT level".
const char *mapping_name(Mapping mapping);

struct Schedule {
  Mapping mapping = Mapping::Parallel;
  int threads = 0;          // BlockPerIteration: the block's threads, 0 otherwise
  TileSchedule tile = {};   // Tile: the tiles, empty otherwise
  LoopSchedules loops = {}; // by loop variable, under any mapping
  // Under the default mapping, whether loom may choose a schedule itself where one keeps the
  // results bit for bit and pays (ir/AutoSchedule.cpp: register blocks for a CPU loop of the
  // matmul form). Kernel::schedule(loom::none) and @kernel(schedule=None) turn it off.
  bool automatic = true;
  // The tile schedule with its values chosen by trials (Kernel::autotune, @kernel(tile="auto")):
  // at the first call of each shape class a bounded set of tiles is timed and the fastest kept,
  // also in the disk cache (loom/Autotune.cpp). Until then the mapping is the default one; after,
  // the tile schedule with the tile chosen for the last call's shape class.
  bool autotune = false;

  bool simt() const { return mapping == Mapping::Simt; }
  bool operator==(const Schedule &) const = default;
};

// Why the mapping cannot change from `from` to `to`, or empty: a SIMT kernel's body is written
// for its mapping, and block_per_iteration and the tile schedule replace only the default mapping
// (or themselves). Back to the default (threads 0, an empty tile) is always possible but from
// the SIMT level.
std::string remap_problem(Mapping from, Mapping to);

// `schedule` with its mapping set to block_per_iteration(threads), or the default for 0. Checks
// nothing: schedule_problem() does.
Schedule with_block_per_iteration(Schedule schedule, int threads);
// `schedule` with its mapping set to the tile schedule `tile`, or the default for an empty tile.
Schedule with_tile(Schedule schedule, const TileSchedule &tile);

// Why `schedule` is not a valid schedule of `kernel`, or empty: the mapping's values (threads a
// multiple of 32 from 32 to 1024, tile_problem), values only the mapping uses, and the loop
// schedules' names against the kernel's loops (loop_schedule_problem).
std::string schedule_problem(const Schedule &schedule, const Kernel &kernel);

// Why `loops` does not fit `kernel`'s loops, or empty: every name must be a sequential loop's
// variable (or, for vectorize, a parallel loop's), naming the loops there are otherwise.
std::string loop_schedule_problem(const LoopSchedules &loops, const Kernel &kernel);

} // namespace loom::ir
