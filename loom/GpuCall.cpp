// The GPU's part of a call (loom/Call.h): host arrays staged in device buffers for the call, each
// task's grid and the variant it needs, launches on the call's stream. With device arrays and the
// launch shapes of the last call, a call allocates nothing on the heap: its working storage is the
// KernelState's CallScratch.
#include "loom/Call.h"
#include "loom/ViewCopies.h"
#include "runtime/DeviceBuffer.h"
#include "runtime/DynamicShared.h"
#include "runtime/GpuContext.h"
#include "runtime/Launch.h"
#include "support/PrintLine.h"
#include "support/StridedLayout.h"

#include <array>

namespace loom {

namespace {

// A bounds record no violation has claimed (support/Abi.h).
constexpr std::array<uint64_t, bounds_record::slots> cleared_record{};

// The launch shape of task t for `domain`: the last call's when the domain and code are the same
// (no new choice, no allocation), else a new choice.
const runtime::GridShape &grid_for(KernelState &state, const CompiledGpu &g, size_t t,
                                   const std::vector<int64_t> &domain) {
  const ir::Task &task = g.lowered.tasks[t];
  LaunchMemo &memo = state.launches;
  memo.fit(g.lowered.tasks.size());
  runtime::GridShape &shape = memo.shapes[t];
  if (state.shape && task.threads == 0) {
    // Kernel::shape: a SIMT task's launch; for a parallel task the axes its grid-stride loops
    // use (the others would run every iteration again); a serial task stays one thread.
    const int axes = task.kind == ir::TaskKind::Simt       ? 3
                     : task.kind == ir::TaskKind::Parallel ? static_cast<int>(domain.size())
                                                           : 0;
    for (int d = 0; d < 3; ++d) {
      shape.grid[d] = d < axes ? state.shape->grid[d] : 1;
      shape.block[d] = d < axes ? state.shape->block[d] : 1;
    }
    shape.dynamic_shared_bytes = task.kind == ir::TaskKind::Simt
                                     ? static_cast<unsigned>(state.shape->dynamic_shared_bytes)
                                     : 0;
    if (shape.reason.empty())
      shape.reason = axes == 0                         ? "a serial task: one thread"
                     : task.kind == ir::TaskKind::Simt ? "the shape given by Kernel::shape()"
                                                       : "the shape given by Kernel::shape() "
                                                         "(axes past the loop's dimensions: 1)";
    return shape;
  }
  std::vector<int64_t> &known = memo.domains[t];
  if (!known.empty() && known == domain && memo.code[t] == &g)
    return shape;
  const runtime::DeviceInfo &device = runtime::GpuContext::get().info();
  if (task.threads > 0 && domain.size() == 1) {
    const int regs = g.functions[t].num_regs;
    if (int64_t(regs) * task.threads > 65536)
      throw CompileError("kernel '" + state.kernel.name + "': " +
                         (task.tile.rows > 0 ? "the tile schedule (" : "block_per_iteration(") +
                         std::to_string(task.threads) + " threads) needs " + std::to_string(regs) +
                         " registers per thread, more than a block of that many threads may "
                         "have (65536 in all); use fewer threads");
    runtime::LaunchPolicy policy = state.launch_policy;
    if (task.persistent && policy.max_waves == runtime::max_grid_waves)
      policy.max_waves = 1; // its blocks carry work from one tile to the next
    shape =
        runtime::choose_block_per_iteration_grid(g.functions[t], domain[0], task.threads, device,
                                                 policy, unsigned(task.dynamic_shared_bytes));
    shape.dynamic_shared_bytes = unsigned(task.dynamic_shared_bytes);
    shape.reason =
        (!task.serial_block.empty()
             ? "a serial task on one block of " + std::to_string(task.threads) +
                   " threads, which split its loops with independent iterations; "
         : !task.block_reads.empty()
             ? "one block of " + std::to_string(task.threads) +
                   " threads for each iteration of the outer dimensions, which share a loop's "
                   "reads in shared memory; "
         : task.tile.rows > 0
             ? "tile: one block of " + std::to_string(task.threads) + " threads per " +
                   std::to_string(task.tile.rows) + "x" + std::to_string(task.tile.cols) + " tile; "
             : "block_per_iteration: one block of " + std::to_string(task.threads) +
                   " threads per iteration; ") +
        shape.reason;
  } else if (task.covering) {
    // The grid must cover the domain (GpuCall::prepare_task checks that it does).
    shape = runtime::choose_covering_grid(g.functions[t], domain, device, state.launch_policy);
  } else {
    shape = runtime::choose_grid(g.functions[t], domain, device, state.launch_policy);
  }
  known = domain;
  memo.code[t] = &g;
  return shape;
}

// Whether `shape` gives every iteration of `domain` (outermost first) a thread of its own, as code
// lowered with ir::Task::covering needs.
bool covers(const runtime::GridShape &shape, const std::vector<int64_t> &domain) {
  for (size_t k = 0; k < domain.size(); ++k) {
    const size_t axis = domain.size() - 1 - k; // innermost dimension -> x
    if (uint64_t{shape.grid[axis]} * shape.block[axis] < static_cast<uint64_t>(domain[k]))
      return false;
  }
  return true;
}

// 32-bit index arithmetic is valid for a call whose arrays each have at most
// codegen::index32_max_elements elements (codegen/Codegen.h)...
// (a device view: its offsets from element [0, ..., 0] each way, which 32-bit arithmetic computes;
// a host view is staged dense).
bool arrays_allow_index32(std::span<const Argument> args) {
  for (const Argument &a : args) {
    if (a.kind == Argument::Kind::Scalar)
      continue;
    if (a.kind == Argument::Kind::DeviceArray && is_view(a)) {
      strided::Reach r;
      strided::reach(std::span<const int64_t>(a.shape.begin(), a.shape.end()),
                     std::span<const int64_t>(a.strides.begin(), a.strides.end()), r);
      if (-r.lowest > codegen::index32_max_elements || r.highest > codegen::index32_max_elements)
        return false;
    } else if (a.size() > codegen::index32_max_elements) {
      return false;
    }
  }
  return true;
}

// ... and whose grid has at most codegen::index32_max_blocks blocks in every dimension.
bool grid_allows_index32(const runtime::GridShape &shape) {
  for (unsigned blocks : shape.grid)
    if (blocks > codegen::index32_max_blocks)
      return false;
  return true;
}

// The code of another variant for the rest of a call's tasks, which must share the tasks and
// parameters of the code that ran the first ones.
CompiledGpu &switch_variant(KernelState &state, const CompiledGpu &from,
                            const VariantRequest &request) {
  CompiledGpu &to = state.compiled_gpu(resolve_variant(state, request));
  check_same_task_abi(from.lowered, to.lowered);
  return to;
}

// One call's GPU part. A host array gets a device buffer for the call only: the buffers go with
// the object, also when the call throws.
struct GpuCall final : CallTarget {
  KernelState &state;
  std::span<const Argument> args;
  runtime::Stream *async;
  runtime::CUstream stream;
  CallScratch &call;
  CompiledGpu *gpu = nullptr;
  const runtime::GridShape *shape = nullptr; // the task's launch (prepare_task)
  bool graphed = false;                      // launches recorded for a graph (choose_code)
  std::vector<std::shared_ptr<CompiledGpu>> graph_code; // the code the recorded launches use
  std::array<uint64_t, bounds_record::slots> record_copy;
  std::vector<unsigned char> view_staging; // a host view's elements, dense

  GpuCall(KernelState &state, std::span<const Argument> args, runtime::Stream *async)
      : CallTarget(Argument::Kind::DeviceArray, false), state(state), args(args), async(async),
        stream(async ? async->handle() : nullptr), call(state.call) {
    call.staged.clear();
    call.staged_index.assign(args.size(), -1);
  }
  ~GpuCall() { call.staged.clear(); }

  void choose_code() override {
    gpu = &state.compiled_gpu(resolve_variant(
        state, {.target = Target::GPU,
                .index32 = arrays_allow_index32(args) ? std::nullopt : std::optional(false)}));
    code = &gpu->lowered;
    runtime::GpuContext::activate(); // fails fast once a sticky error has poisoned the context
    // A kernel with task loops records its launches, which finish() runs as one CUDA graph.
    graphed = !code->task_loops.empty();
    if (graphed) {
      state.task_graph.clear();
      graph_code.clear();
      keep_loaded(gpu);
    }
  }

  // The shared handle of the code `g`, for the graph's keep-alive list.
  void keep_loaded(const CompiledGpu *g) {
    for (const std::shared_ptr<CompiledGpu> &c : state.gpu_variants)
      if (c.get() == g)
        graph_code.push_back(c);
    if (state.gpu.get() == g)
      graph_code.push_back(state.gpu);
  }

  // The launches recorded so far, as a graph on the call's stream.
  void run_graph() {
    if (state.task_graph.size() > 0) {
      state.task_graph.run(stream, state.kernel.name);
      state.task_graph_code = graph_code; // the graph kept now launches this code, no other
    }
    state.task_graph.clear();
  }

  uint64_t in_place(size_t p, const Argument &a) override {
    // GPU code takes every array to be 16-byte aligned (vector loads), as allocations are; an
    // array that is not is read as a strided view (loom/Kernel.cpp, views_state).
    if (!code->params[p].strided && a.device % 16 != 0)
      throw ArgumentError("argument '" + code->params[p].name +
                          "': a device array must start 16-byte aligned (it starts at address " +
                          std::to_string(a.device) + ")");
    return a.device;
  }

  uint64_t stage(size_t p, const Argument &a, size_t bytes, bool copy_in) override {
    call.staged.emplace_back(bytes);
    call.staged_index[p] = static_cast<int>(call.staged.size() - 1);
    if (copy_in && is_view(a)) { // only the elements the view covers, dense
      view_to_dense(a, view_staging);
      call.staged.back().copy_from_host(view_staging.data(), bytes);
    } else if (copy_in) {
      call.staged.back().copy_from_host(a.host, bytes);
    }
    return call.staged.back().ptr();
  }

  // Allocated on the first checked call; zero between calls.
  uint64_t bounds_record() override {
    if (state.bounds_record.bytes() == 0) {
      state.bounds_record = runtime::DeviceBuffer(sizeof cleared_record);
      state.bounds_record.copy_from_host(cleared_record.data(), sizeof cleared_record);
    }
    return state.bounds_record.ptr();
  }

  const uint64_t *read_bounds_record() override {
    state.bounds_record.copy_to_host(record_copy.data(), sizeof record_copy);
    if (record_copy[bounds_record::claimed] != 0)
      state.bounds_record.copy_from_host(cleared_record.data(), sizeof cleared_record);
    return record_copy.data();
  }

  void prepare_task(size_t t, const std::vector<int64_t> &domain) override {
    // The dynamic shared memory the launch gives: Kernel::shape's for a SIMT task, the lowering's
    // for a warpgroup tile; allowed before the grid's occupancy is asked with it.
    const ir::Task &task = gpu->lowered.tasks[t];
    if (const int64_t bytes = task.kind == ir::TaskKind::Simt ? state.shape->dynamic_shared_bytes
                                                              : task.dynamic_shared_bytes;
        bytes > 0)
      runtime::allow_dynamic_shared(gpu->functions[t], bytes, runtime::GpuContext::get().info(),
                                    state.kernel.name);
    shape = &grid_for(state, *gpu, t, domain);
    if (gpu->lowered.tasks[t].covering &&
        (!covers(*shape, domain) || (gpu->variant.index32 && !grid_allows_index32(*shape)))) {
      // CUDA's grid limits, or the 32-bit code's bound on blocks, leave iterations without a
      // thread of their own: this task and the next run the grid-stride code.
      switch_to({.target = Target::GPU, .index32 = gpu->variant.index32, .covering = false}, t,
                domain);
    }
    if (gpu->variant.index32 && !grid_allows_index32(*shape)) {
      // Too many blocks for 32-bit counters (only an uncapped launch policy gets there): this
      // task and the next run the 64-bit code, lowered alike.
      switch_to({.target = Target::GPU, .index32 = false, .covering = false}, t, domain);
    }
  }
  void switch_to(const VariantRequest &request, size_t t, const std::vector<int64_t> &domain) {
    gpu = &switch_variant(state, *gpu, request);
    if (graphed)
      keep_loaded(gpu);
    code = &gpu->lowered;
    shape = &grid_for(state, *gpu, t, domain);
  }

  uint64_t scratch_array(size_t k, size_t bytes) override {
    if (state.scratch_arrays.size() <= k)
      state.scratch_arrays.resize(k + 1);
    runtime::DeviceBuffer &buffer = state.scratch_arrays[k];
    if (state.scratch_stream && (state.scratch_stream != stream || buffer.bytes() < bytes))
      runtime::synchronize_stream(state.scratch_stream, state.kernel.name);
    if (buffer.bytes() < bytes) {
      buffer = runtime::DeviceBuffer(); // free the old one first
      buffer = runtime::DeviceBuffer(bytes);
    }
    state.scratch_stream = stream;
    return buffer.ptr();
  }

  uint64_t reduction_scratch(size_t t) override {
    size_t bytes = 8 * (1 + shape->block_count() * gpu->lowered.tasks[t].reductions.size());
    // The scratch memory is the kernel object's: an asynchronous launch that may still use it
    // finishes first when another stream, or a larger buffer, would take it.
    if (state.reduction_stream &&
        (state.reduction_stream != stream || state.reduction_scratch.bytes() < bytes)) {
      runtime::synchronize_stream(state.reduction_stream, state.kernel.name);
      state.reduction_stream = nullptr;
    }
    if (state.reduction_scratch.bytes() < bytes) {
      // Recorded launches read the old buffer: they run, and finish, before it goes.
      if (graphed && state.task_graph.size() > 0) {
        run_graph();
        runtime::synchronize_stream(stream, state.kernel.name);
      }
      state.reduction_scratch = runtime::DeviceBuffer(); // free the old one first
      state.reduction_scratch = runtime::DeviceBuffer(bytes);
      const uint64_t zero = 0;
      state.reduction_scratch.copy_from_host(&zero, sizeof zero);
    }
    return state.reduction_scratch.ptr();
  }

  void run_task(size_t t, const std::vector<int64_t> &, PackedParams &params) override {
    if (graphed)
      state.task_graph.add(gpu->functions[t], *shape, params.data(), params.size(),
                           gpu->lowered.tasks[t].waits_for_grid);
    else
      runtime::launch(gpu->functions[t], *shape, params.data(), stream);
    if (!gpu->lowered.tasks[t].reductions.empty())
      state.reduction_stream = stream;
  }

  void combine_reductions(size_t, const ir::ArgumentValues &) override {} // its last block did

  bool finish() override {
    if (graphed)
      run_graph();
    if (async && !gpu->lowered.takes_record() && !gpu->lowered.prints)
      return false; // faults surface at the stream's synchronization
    // An illegal address or trap inside the kernel surfaces here, naming it.
    if (async)
      runtime::synchronize_stream(stream, state.kernel.name);
    else
      runtime::synchronize(state.kernel.name);
    if (gpu->lowered.prints) // the driver wrote the kernel's lines at the synchronization
      support::flush_printed();
    state.reduction_stream = nullptr;
    return true;
  }

  void copy_back(size_t p, const Argument &a) override {
    runtime::DeviceBuffer &buffer = call.staged[call.staged_index[p]];
    if (is_view(a)) {
      view_staging.resize(buffer.bytes());
      buffer.copy_to_host(view_staging.data(), buffer.bytes());
      dense_to_view(a, view_staging.data());
      return;
    }
    buffer.copy_to_host(a.host, buffer.bytes());
  }
};

} // namespace

void run_on_gpu(KernelState &state, std::span<const Argument> args,
                const ir::ArgumentValues &values, runtime::Stream *async) {
  GpuCall target(state, args, async);
  run_call(state, args, values, target);
}

} // namespace loom
