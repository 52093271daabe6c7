// What a Kernel keeps between calls: the traced IR, its access summary and compiled code.
// Internal to loom (included by loom/*.cpp only).
#pragma once

#include "codegen/Codegen.h"
#include "ir/AccessSummary.h"
#include "ir/Evaluate.h"
#include "ir/IR.h"
#include "ir/Lower.h"
#include "loom/Arguments.hpp"
#include "loom/Autotune.h"
#include "loom/Cache.hpp"
#include "loom/Split.h"
#include "loom/Target.hpp"
#include "loom/Variant.hpp"
#include "runtime/CpuSimt.h"
#include "runtime/DeviceBuffer.h"
#include "runtime/GpuModule.h"
#include "runtime/GridShape.h"
#include "runtime/LaunchGraph.h"
#include "runtime/Stream.h"
#include "support/Abi.h"
#include "support/Error.h"
#include "support/Settings.h"

#include <array>
#include <cstring>
#include <future>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace loom {

// Compiled code is shared by every Kernel object whose cache key is equal (the in-memory cache,
// loom/MemoryCache.h), from any thread: it must not change once compiled (but for the dynamic
// shared memory the driver allows a function, which runtime/DynamicShared.cpp raises under its
// lock).
struct CompiledGpu {
  ir::LoweredKernel lowered;
  Variant variant; // what it was compiled for (resolve_variant)
  std::string ptx; // empty when the machine code came from the disk cache
  std::unique_ptr<runtime::GpuModule> module;
  std::vector<runtime::GpuFunction> functions; // one per task
};

// What a background compile of a tiered kernel hands over: its code, or why there is none.
struct OptimizedGpu {
  std::shared_ptr<CompiledGpu> code;
  CompileTimes times;
  std::string error; // the compile's exception, when code is null
};

struct CompiledCpu {
  ir::LoweredKernel lowered;
  std::unique_ptr<codegen::CpuCode> code;
  std::vector<int64_t> grains;    // per task: the fewest iterations a thread gets (cpu_grain)
  std::vector<char> synchronizes; // per task: a SIMT task with barriers or warp collectives
};

// The fewest iterations of a CPU task's parallel loop worth a thread of their own.
int64_t cpu_grain(const ir::Task &task);
// Whether a SIMT task's threads synchronize (ir::synchronizes of its body): on the CPU they then
// need fibers.
bool simt_synchronizes(const ir::Task &task);

// The flattened parameter values (see support/Abi.h) and the pointer to each, as a launch takes.
// Reused from call to call: reset() keeps the storage, so a call allocates nothing.
class PackedParams {
public:
  // Empties it with room for `count` values (allocating only to grow).
  void reset(size_t count) {
    values_.clear(), pointers_.clear();
    values_.reserve(count), pointers_.reserve(count);
  }
  // Room for `count` values: pushing more would move the values the pointers point at.
  template <class T> void push(T v) {
    if (values_.size() == values_.capacity())
      throw Error("internal error: more parameters packed than reserved");
    values_.emplace_back();
    static_assert(sizeof(T) <= sizeof(uint64_t));
    std::memcpy(&values_.back(), &v, sizeof(T));
    pointers_.push_back(&values_.back());
  }
  void **data() { return pointers_.data(); }
  size_t size() const { return pointers_.size(); }

private:
  std::vector<uint64_t> values_;
  std::vector<void *> pointers_;
};

// What one call works with, kept in the KernelState (calls hold its mutex) and reused, so that a
// call whose arguments have the same ranks as the last one's allocates nothing.
struct CallScratch {
  ir::ArgumentValues values;      // the checked arguments (check_arguments)
  ir::ArgumentValues loop_values; // the same plus the task loops' variables (ir::TaskLoop)
  std::vector<uint64_t> pointers; // per parameter: the array's address for the kernel
  std::vector<int> staged_index;  // GPU: per parameter, its buffer in staged, or -1
  std::vector<runtime::DeviceBuffer> staged;           // GPU: device copies of host arrays
  std::vector<std::vector<unsigned char>> host_staged; // CPU: per parameter, a device array's copy
  PackedParams params;         // the flattened parameters (and the bounds record)
  PackedParams task_params;    // the same plus a task's reduction scratch
  std::vector<int64_t> domain; // a task's iteration domain
};

// GPU: each task's launch shape from the last call, and the domain and code it was chosen for: a
// call with the same domain and code reuses it (no new choice, no allocation). Anything that
// changes the code or the launch settings invalidates it, in one call.
struct LaunchMemo {
  std::vector<runtime::GridShape> shapes; // one per task (explain() shows them)
  std::vector<std::vector<int64_t>> domains;
  std::vector<const CompiledGpu *> code;
  void invalidate() { shapes.clear(), domains.clear(), code.clear(); }
  // Room for `tasks` tasks, each to be chosen again, unless it has that already.
  void fit(size_t tasks) {
    if (shapes.size() == tasks && domains.size() == tasks && code.size() == tasks)
      return;
    shapes.assign(tasks, runtime::GridShape());
    domains.assign(tasks, {});
    code.assign(tasks, nullptr);
  }
};

// The extra parameters a task takes after the kernel's own (support/Abi.h), in the one order
// both targets pack them: the reduction scratch (a task with reductions), then the bounds record
// (a bounds-checked kernel). Zero: not taken.
struct TaskExtras {
  uint64_t reduction_scratch = 0;
  uint64_t bounds_record = 0;
};

struct KernelState {
  ir::Kernel kernel;
  std::vector<ir::ArrayAccess> access;
  std::mutex mutex; // guards everything below
  std::optional<TargetChoice> target;
  std::shared_ptr<CompiledGpu> gpu; // the code of the last GPU call (or of compile())
  // The GPU code by index width and loop mapping: [index32 + 2 * covering] (compiled_gpu).
  std::array<std::shared_ptr<CompiledGpu>, 4> gpu_variants;
  // Tiered compiles (Kernel::tiered, LOOM_TIERED=1): per GPU variant, the optimized code being
  // compiled in the background while the variant's quick code runs (empty: none). A destroyed
  // future waits for its compile.
  bool tiered = false;
  std::array<std::shared_future<OptimizedGpu>, 4> optimizing;
  std::shared_ptr<CompiledCpu> cpu;
  CompileTimes gpu_times, cpu_times; // how this object got its code
  runtime::LaunchPolicy launch_policy;
  std::optional<runtime::SimtShape> shape; // Kernel::shape; required by SIMT kernels
  LaunchMemo launches;
  CallScratch call;
  // GPU tasks with reductions: their scratch slots (support/Abi.h), grown as launches need;
  // slot 0, the finished-block count, is zero between launches.
  runtime::DeviceBuffer reduction_scratch;
  // The stream of the last asynchronous launch of a task with reductions (null: none pending):
  // a launch on another stream, or a new scratch buffer, waits for it first.
  runtime::CUstream reduction_stream = nullptr;
  // GPU calls of a kernel with task loops (ir::TaskLoop): the call's launches, run as one CUDA
  // graph, which a later call with the same launches runs again (runtime/LaunchGraph.h), and the
  // code whose functions it launches, kept loaded while the graph is (declared first: it goes
  // after the graph).
  std::vector<std::shared_ptr<CompiledGpu>> task_graph_code;
  runtime::LaunchGraph task_graph;
  std::vector<uint64_t> cpu_reduction_scratch; // CPU tasks with reductions: the same slots
  // The scratch arrays of the code (ir::ScratchArray), grown as calls need, and the stream of
  // the last call that used them (null: none pending): a call on another stream, or a larger
  // buffer, waits for it first.
  std::vector<runtime::DeviceBuffer> scratch_arrays;
  runtime::CUstream scratch_stream = nullptr;
  std::vector<std::vector<unsigned char>> cpu_scratch_arrays; // the CPU's
  // Calls with strided views that the target reads in place: per set of strided parameters
  // (ir::Param::strided, one char per parameter), the state of a copy of the kernel with those
  // parameters strided, made on first use (views_state in loom/Kernel.cpp), guarded by this
  // state's mutex; a change of the kernel's options or launch settings drops them. `last_views`:
  // the one the last call ran, or null (explain() describes it).
  std::vector<std::pair<std::vector<char>, std::unique_ptr<KernelState>>> views;
  KernelState *last_views = nullptr;
  // GPUs: Kernel::on(Device) sets `device` (else calls run on the calling thread's device:
  // LOOM_DEVICE's, or 0) and says why in `device_reason`. A state holds the code, memory and
  // launch shapes of one device, `bound_device` (-1 until its first GPU call); calls on another
  // device run the state in `devices` made for that device on first use (device_state in
  // loom/Kernel.cpp), guarded by this state's mutex and dropped as `views` are. `last_device`:
  // the device of the last GPU call (-1: none), which explain() describes.
  std::optional<int> device;
  std::string device_reason;
  int bound_device = -1;
  std::vector<std::pair<int, std::unique_ptr<KernelState>>> devices;
  int last_device = -1;
  // Kernel::on(DeviceSet): calls split the kernel's parallel loop among devices (loom/Split.h).
  std::shared_ptr<SplitState> split;
  // Bounds-checked kernels: the record their tasks report a violation in (support/Abi.h), zero
  // between calls. The GPU's is allocated on the first checked call.
  runtime::DeviceBuffer bounds_record;
  std::array<uint64_t, bounds_record::slots> cpu_bounds_record{};

  // Kernel::autotune: what was chosen for each shape class met so far, and the index of the
  // last call's (-1: none); explain() shows it.
  std::vector<Tuning> tunings;
  int last_tuning = -1;

  // Drops the code compiled for the kernel's present options (and the copies below): after a
  // change of them. The mutex must be held.
  void drop_code();
  // Drops the copies made for views and for other devices (their code compiles, or comes from the
  // caches, again on next use): after a change of the kernel's options or launch settings.
  void drop_copies() {
    views.clear(), last_views = nullptr;
    devices.clear();
    if (split)
      split->planned = false;
  }
  // The state a GPU call on `device` runs: this one, or its copy for that device.
  KernelState &on_device(int device);
  // The state of `device` (this one when it has no copy for it): what explain() and
  // compile_times() describe.
  const KernelState &of_device(int device) const {
    for (const auto &[d, copy] : devices)
      if (d == device)
        return *copy;
    return *this;
  }
  // f(state) for this state and every copy of it, for settings that apply to all of them.
  template <class F> void for_each_copy(F &&f) {
    f(*this);
    for (auto &entry : views)
      f(*entry.second);
    for (auto &entry : devices)
      entry.second->for_each_copy(f);
  }

  // Code for the target on first use, through the caches (loom/Compile.cpp); the caller holds
  // the mutex. The GPU's for `variant`, an optimized variant of this machine's GPU from
  // resolve_variant (one of the four of gpu_variants).
  // A tiered kernel whose code is in neither cache gets quick code (Tier::Quick) and its
  // optimized code compiles on another thread; a later call that finds it ready (or
  // await_optimized_gpu()) switches to it.
  CompiledGpu &compiled_gpu(const Variant &variant);
  // Waits for every background compile and switches to its code.
  void await_optimized_gpu();
  // Switches `variant` to the code its finished background compile made (keeping the quick code,
  // and saying why in gpu_times, when that compile failed).
  void adopt_optimized_gpu(int variant);
  CompiledCpu &compiled_cpu();
};

// False when LOOM_INDEX_BITS=64 asks for 64-bit index arithmetic on the GPU whatever the sizes
// (read once per process; "32" or unset: 32-bit where the arrays allow it).
bool index32_allowed();
// LOOM_TIERED (read once per process): 0 (the default) leaves kernels untiered unless
// Kernel::tiered asks; 1 makes every kernel tiered; quick makes every GPU kernel run quick code
// only, whatever the caches hold, and compile no optimized code (to measure the quick tier, or to
// rule out the optimizer when a result looks wrong). Error for another value.
using Tiering = settings::Tiered; // Off, On, QuickOnly
Tiering tiering();
// False when LOOM_GRID_STRIDE=1 asks for grid-stride loops on the GPU whatever the launch (read
// once per process).
bool covering_allowed();
// Whether the kernel's launch settings let a call's grid cover its domain: no Kernel::shape, and
// no launch policy other than an uncapped one.
bool covering_launch_possible(const KernelState &state);

// VersionError when the program's headers are of another loom version than the library
// (loom/Version.cpp); every kernel is made through it.
void require_matching_headers();

// The GPU target loom compiles for: the device's sm and the PTX version its driver accepts, or
// sm_90 and LLVM's newest PTX when there is no GPU.
const codegen::GpuTarget &gpu_target_for_this_machine();

// The variant `request` asks of this kernel, its empty fields filled with what a call runs
// (include/loom/Variant.hpp): the one function that decides it, for calls, dumps and tools.
Variant resolve_variant(const KernelState &state, const VariantRequest &request);
// The architecture's number of "sm_90" or "sm_90a" (90); 0 for anything else.
int sm_number(const std::string &sm);
// The kernel lowered for `variant` (`log`, else LOOM_DUMP's, sees the IR after each pass), and
// the target code generation takes for it: every compile and every dump goes through these two.
ir::LoweredKernel lower_variant(const ir::Kernel &kernel, const Variant &variant,
                                const ir::PassLog &log = nullptr);
codegen::GpuTarget gpu_target_of(const Variant &variant);

// Checks argument count, kinds, types, ranks, overlaps and constness against the kernel; converts
// scalars to their parameter types. Throws ArgumentError naming what was expected and given.
// Fills `values` in place (reusing its storage).
void check_arguments(const KernelState &state, std::span<const Argument> args,
                     ir::ArgumentValues &values);

// One call on the GPU, on the CPU: the call's steps (run_call, loom/Call.h) with the target's part.
// On `stream` without waiting when it is given (device arrays only), else synchronously.
void run_on_gpu(KernelState &state, std::span<const Argument> args,
                const ir::ArgumentValues &values, runtime::Stream *stream);
void run_on_cpu(KernelState &state, std::span<const Argument> args,
                const ir::ArgumentValues &values);

// Throws BoundsError when `record` (bounds_record::slots values) was claimed by an index out of
// bounds, KernelAssertionError when by a failed assertion (unless `bounds_only`: between a call's
// tasks, where a failed assertion lets the later tasks run).
void throw_if_failed(const ir::LoweredKernel &kernel, const uint64_t *record,
                     bool bounds_only = false);

// Packs the parameters into `out`: arrays as `pointers[k]` plus extents, scalars converted to
// their type, then the extras that are not zero, in TaskExtras' order.
void pack_params(PackedParams &out, const std::vector<ir::Param> &params,
                 const ir::ArgumentValues &values, const std::vector<uint64_t> &pointers,
                 const TaskExtras &extras = {});

// Throws an internal error unless `a` and `b`, two variants of one kernel that a call may switch
// between task by task, have the same tasks with the same parameters and extras.
void check_same_task_abi(const ir::LoweredKernel &a, const ir::LoweredKernel &b);

} // namespace loom
