// A JIT-compiled kernel: traced once, compiled per target on first use, called like a function.
#pragma once

#include "ir/IR.h"
#include "loom/Arguments.hpp"
#include "loom/Cache.hpp"
#include "loom/Schedule.hpp"
#include "loom/Variant.hpp"
#include "loom/Version.hpp"
#include "runtime/Stream.h"

#include <memory>
#include <span>
#include <string>

namespace loom {

struct KernelState; // compile caches and the last launch, shared by copies of a Kernel
class Kernel;
class Module;
namespace detail {
// A Kernel of traced or parsed IR: what loom::kernel, loom::simt_kernel and loom::compile make.
Kernel make_kernel(ir::Kernel kernel);
} // namespace detail

// A launch's extent along x, y and z: Dim3(64) is (64, 1, 1).
struct Dim3 {
  unsigned x = 1, y = 1, z = 1;
  Dim3(unsigned x_ = 1, unsigned y_ = 1, unsigned z_ = 1) : x(x_), y(y_), z(z_) {}
};

class Kernel {
public:
  // Runs the kernel on the chosen target (see explain()). Host arrays are copied to the GPU only
  // if the kernel reads them (or writes part of them) and back only if it writes them; const host
  // arrays must not be written. Scalars convert to the parameter's type as in a C++ call.
  template <class... Args> void operator()(Args &&...args) {
    Argument packed[] = {to_argument(std::forward<Args>(args))..., Argument()};
    call(std::span<const Argument>(packed, sizeof...(Args)));
  }
  void call(std::span<const Argument> args);

  // Queues the kernel on `stream` and returns without waiting for it (on the GPU; a kernel that
  // runs on the CPU runs at once). Arguments are device arrays and scalars: a host array would
  // need a copy the call waits for, so it is an ArgumentError. A fault inside the kernel surfaces
  // at the stream's or an event's synchronization. Calls of one Kernel object with reductions are
  // serialized across streams (they share the kernel's scratch memory); a bounds-checked call
  // waits for its stream, to read the bounds record.
  template <class... Args> void launch_async(Stream &stream, Args &&...args) {
    Argument packed[] = {to_argument(std::forward<Args>(args))..., Argument()};
    call_async(stream, std::span<const Argument>(packed, sizeof...(Args)));
  }
  void call_async(Stream &stream, std::span<const Argument> args);

  // Compiles for the target the kernel runs on now rather than at its first call (a no-op once
  // compiled). The code comes from the in-memory cache when this process already compiled an
  // identical kernel, else from the disk cache, else from LLVM (loom/Cache.h). On the GPU this is
  // the code for arrays of up to 2^30 elements (32-bit indices); a call with a larger array
  // compiles the 64-bit variant then (explain() says which one ran).
  void compile();
  // Where the code for the current target came from and how long each stage took; source is
  // NotCompiled before the first call or compile(). For a tiered kernel, the quick code's until
  // the optimized code is in use, then the background compile's.
  CompileTimes compile_times() const;

  // Tiered compiles on the GPU (off unless LOOM_TIERED=1): when the kernel's code is in neither
  // cache, its first call (or compile()) runs quick code, compiled by a short LLVM pipeline in a
  // fraction of the optimized compile's time, while the optimized code compiles on another
  // thread; the first call to find it ready switches to it (explain() says which ran). Results
  // are the same (the kernel is lowered once for both), speeds are not: for a short time to a
  // first result rather than for benchmarks. The CPU compiles once, optimized.
  Kernel &tiered(bool on = true);
  // Waits for the optimized code of a tiered compile and runs it from the next call on (at once
  // when nothing compiles in the background).
  void await_optimized();

  // Runs this kernel on `target` from now on instead of the LOOM_TARGET choice; GPU without a
  // usable GPU throws TargetError.
  Kernel &on(Target target);
  // Runs this kernel on GPU `device` from now on (loom::devices() lists them; without this, on
  // the default device: LOOM_DEVICE's, else 0). Its device arrays and stream must be on that
  // device (else ArgumentError). Each device gets its own code (from the caches when another
  // device of the same sm compiled it), memory and launch shapes. on(Target::GPU) returns to
  // the default device.
  Kernel &on(const Device &device);
  // Splits every later call among `devices` (loom::all_gpus(), or logical devices:
  // DeviceSet({Device(0), Device(0)}), DeviceSet::cpu(3)): the kernel, one parallel loop, runs
  // its first dimension's iterations in parts, one per device, in proportion to the devices'
  // multiprocessors. Each GPU part gets the rows of each host array that its iterations read
  // (rows i + c of the loop's variable i, so a stencil's halo too; an array read at rows that
  // cannot be bounded goes whole to each part) and returns the rows it writes. Reductions into
  // an array combine across parts in part order: deterministic for a device set. A kernel of
  // another form, or one that stores at rows that cannot be bounded, is a CompileError at the
  // call saying why; device arrays are an ArgumentError (the arrays are host arrays). explain()
  // shows the parts and each array's rows. on(Target) or on(Device) end the split.
  Kernel &on(const DeviceSet &devices);

  // Imposes a GPU block shape and/or grid cap instead of the automatic choice (for schedules and
  // for benchmarks sweeping shapes); see runtime/GridShape.h. Throws ArgumentError for a block of
  // more than 1024 threads.
  Kernel &launch_policy(const LaunchPolicy &policy);

  // The launch shape of every later call: `grid` blocks of `block` threads (Numba's
  // kernel[grid, block]), each block with `shared_bytes` of dynamic shared memory (Numba's
  // kernel[grid, block, stream, shared_bytes]), the size of the kernel's dynamic shared array
  // (loom::dynamic_shared_array, shared.array(0, T)): its extent is shared_bytes / element size.
  // A SIMT kernel (loom::simt_kernel) needs one; for a kernel of parallel loops it replaces the
  // automatic choice on the GPU (its loops stride over any grid) and is ignored on the CPU.
  // ArgumentError for a block of more than 1024 threads (z at most 64), a grid past CUDA's limits
  // (x < 2^31, y and z at most 65535) or a zero extent; at the call, for shared_bytes that are 0
  // or not whole elements when the kernel has a dynamic shared array, not 0 when it has none, or
  // more than a block may take where it runs (with the kernel's static shared arrays: the GPU's
  // opt-in limit, 227 KiB on an H200; the same 227 KiB on the CPU). Sizes above 48 KiB opt the
  // kernel in to the device's larger limit, as CUDA requires.
  Kernel &shape(Dim3 grid, Dim3 block, size_t shared_bytes = 0);
  // Back to the automatic launch shape (kernels of parallel loops).
  Kernel &automatic_shape();

  // Checks every array access of the kernel against the extents from now on (on) or not (off;
  // LOOM_BOUNDS_CHECK=1 turns it on for every kernel when it is created): a call that indexes
  // out of range throws BoundsError naming the array, dimension, index and extent. Slower; the
  // code compiles again on the next call.
  Kernel &bounds_check(bool on = true);
  // Whether the kernel's assertions (loom::check, the text DSL's assert) are checked from now on:
  // on by default (LOOM_ASSERTS=0 turns them off for kernels created while it is set); off
  // compiles them out, conditions and all. A call in which one fails throws
  // KernelAssertionError. The code compiles again on the next call.
  Kernel &asserts(bool on = true);
  // What @kernel(fastmath=True) is in the text DSL: from now on the CPU may reassociate and
  // contract float operations (a float sum vectorizes) and the GPU may approximate division and
  // square root and flush subnormals (docs/semantics.md). The code compiles again on the next call.
  Kernel &fast_math(bool on = true);

  // The tensor-core tile (docs/semantics.md) may read f32 arrays as TF32: each element rounded to
  // 10 significand bits (ties away from zero), the products exact, their sums f32, as cuBLAS's
  // and PyTorch's allow_tf32. Off by default: f32 products then stay on the FP32 units. The CPU
  // and the FP32 tile ignore it (they compute in f32). Text DSL: @kernel(tile=..., tf32=True).
  Kernel &allow_tf32(bool on = true);

  // Schedule: on the GPU, each iteration of the kernel's (1-D) parallel loops runs on a block of
  // `threads` threads (a multiple of 32 up to 1024; 0: back to the default mapping), which split
  // the iteration's range loops among them and combine the locals those loops reduce into (sums,
  // products, min, max) across the block: a row of a softmax or of a matrix-vector product is
  // read by neighbouring threads instead of one. The reductions are reordered (float sums can
  // change in the last bits, the same way every run). A loop the schedule cannot split throws
  // CompileError saying why, at the next call. The CPU ignores it. Text DSL:
  // @kernel(block_per_iteration=256).
  Kernel &block_per_iteration(int threads);

  // Schedule: on the GPU, the kernel's 2-D parallel loops run as tiles of rows x cols iterations,
  // a block per tile, each thread taking thread_rows x thread_cols of them with their inner range
  // loops fused into one (a value loaded once serves several iterations, kept in registers). A
  // depth > 0 stages the arrays the inner loop reads at [i, k] or [k, j] (either order) through
  // shared memory, `depth` steps of k at a time, double-buffered and prefetched. Results are
  // those of the default mapping, bit for bit. What the schedule cannot do throws CompileError
  // saying why, at the next call; {} is back to the default mapping. min_blocks: CUDA's launch
  // bounds. On the CPU, tiles are shared among threads and each thread's share of a tile is a
  // register block (consecutive iterations in vector registers); depth and min_blocks are GPU
  // settings. Schedules measured: {256, 128, 16, 8, 8, 1} on the H200, {64, 128, 8, 32} on an
  // AVX-512 CPU (bench/RESULTS.md). Text DSL: @kernel(tile=(128, 128), thread_tile=(8, 8),
  // stage=8, blocks_per_sm=2). A loop of the matmul form over f16 or bf16 arrays (f32 ones with
  // allow_tf32()) runs on the tensor cores on sm_80 and later where the tile allows it;
  // tile.tensor_cores = TensorCores::Required makes a kernel or tile that does not allow it a
  // CompileError at the next call, saying which condition failed, TensorCores::Off keeps the
  // FP32 units (text DSL: tensor_cores=True / False).
  Kernel &tile(const TileSchedule &tile);

  // Schedule: back to the default mapping (from block_per_iteration or tile), and whether loom
  // may choose a schedule itself: loom::automatic (where every kernel starts) lets the CPU run a
  // 2-D loop of the matmul form in register blocks, results unchanged bit for bit, explain()
  // saying what it chose and why; loom::none runs the loops as written. Unroll and vectorize
  // settings stay (a kernel that has them gets no automatic schedule). Text DSL:
  // @kernel(schedule=None).
  Kernel &schedule(ScheduleChoice choice);

  // Schedule: the tile schedule with its values chosen by trials (Triton's autotuning). At the
  // first call of each shape class (every array extent rounded up to a power of two) on each
  // machine, a bounded set of candidate tiles for the target and the element types is compiled
  // and timed on copies of the call's arrays (device copies on the GPU; the call's own arrays are
  // untouched until the call itself), and the fastest is kept: in this object, and in the disk
  // cache, so that later processes make no trials. A candidate that does not apply (too much
  // shared memory for f64) is skipped; none applying is a CompileError. Results are the default
  // mapping's, whichever tile wins. explain() lists the candidates and their times. The first
  // call of a shape class takes the trials' time (about a second on a GPU); autotune(false)
  // goes back to the default mapping. Text DSL: @kernel(tile="auto").
  Kernel &autotune(bool on = true);

  // Schedule: the sequential loop over the variable named `loop` as ir_text() prints it (a
  // for_range's is k, then k.1, k.2, ... in order; the text DSL's `for k in range(...)` is k)
  // is unrolled `factor` times (1: not unrolled; 0: back to loom's choice, which is 16 for an
  // innermost GPU loop), on both targets. A thread's iterations run in the same order, so results
  // are unchanged, bit for bit. ArgumentError for a factor past 64 or a name that is no sequential
  // loop of the kernel (the message lists those there are). Text DSL: @kernel(unroll=(k, 4)), or
  // unroll=((k, 4), (j, 2)) for several loops.
  Kernel &unroll(const std::string &loop, int factor);
  // Schedule: the loops over `loop` are vectorized `width` elements wide (a power of two up to 16;
  // 1: not vectorized; 0: back to the automatic choice). CPU: a sequential loop, or a parallel
  // loop's variable (a sequential loop inside each thread's chunk), gets LLVM's vectorize width;
  // a float reduction in it stays in order (and scalar) unless fastmath. GPU: a 1-D parallel
  // loop's threads take runs of `width` consecutive iterations instead of the automatic run (a
  // CompileError at the next call when its accesses do not allow runs, saying why); a sequential
  // loop is unrolled `width` times (unless unroll() gives its factor). Results are unchanged, bit
  // for bit. ArgumentError as for unroll(). Text DSL: @kernel(vectorize=(i, 8)).
  Kernel &vectorize(const std::string &loop, int width);

  const std::string &name() const;
  const ir::Kernel &ir() const;

  // The code variant `request` resolves to: its empty fields take what a call whose arrays each
  // have at most 2^30 elements would run now (include/loom/Variant.hpp). Calls, the stage dumps
  // below and dsl-to-ptx all resolve variants by this one rule.
  Variant variant(const VariantRequest &request = {}) const;

  // Every stage, one call each: the traced IR, the lowered IR (with a dump after each pass when
  // `passes`), LLVM IR before and after optimization, and PTX, each of the variant `request`
  // resolves to, and byte for byte what a call of that variant compiles. Stages default to the
  // target the kernel runs on; ptx() needs no GPU (it targets sm_90 when none is present).
  std::string ir_text() const;
  std::string lowered(const VariantRequest &request, bool passes = false) const;
  std::string lowered(Target target, bool passes = false) const;
  std::string lowered() const;
  std::string llvm(const VariantRequest &request, bool optimized = true) const;
  std::string llvm(bool optimized = true) const;
  std::string ptx(const VariantRequest &request) const;
  // PTX for `sm` ("sm_80"), or for this machine's GPU (sm_90 when there is none) when empty.
  std::string ptx(const std::string &sm = "") const;
  // The target and why, and for the GPU: device, sm and PTX version, registers, the launch shape
  // and why it was chosen, and which arrays are copied in which direction.
  std::string explain() const;

private:
  friend Kernel detail::make_kernel(ir::Kernel kernel);
  explicit Kernel(ir::Kernel kernel);
  Target current_target() const;
  // tile(), block_per_iteration(), unroll() and vectorize(): checks the new schedule (its
  // mapping may replace only the default one; the loops' names against the kernel's), sets it.
  void set_schedule(ir::Schedule schedule);
  // call() (stream null) and call_async(): checks, picks the target, runs.
  void run(std::span<const Argument> args, Stream *stream);
  std::shared_ptr<KernelState> state_;
};

} // namespace loom
