// One call of a kernel on the GPU: stage host arrays, launch each task, copy back what was written.
// With device arrays and the launch shapes of the last call, a call allocates nothing on the heap:
// its working storage is the KernelState's CallScratch.
#include "loom/KernelState.h"
#include "runtime/DeviceBuffer.h"
#include "runtime/GpuContext.h"
#include "runtime/Launch.h"

#include <algorithm>
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
    shape = runtime::choose_block_per_iteration_grid(g.functions[t], domain[0], task.threads,
                                                     device, state.launch_policy);
    shape.reason =
        (task.tile.rows > 0
             ? "tile: one block of " + std::to_string(task.threads) + " threads per " +
                   std::to_string(task.tile.rows) + "x" + std::to_string(task.tile.cols) + " tile; "
             : "block_per_iteration: one block of " + std::to_string(task.threads) +
                   " threads per iteration; ") +
        shape.reason;
  } else if (task.covering) {
    // The grid must cover the domain (run_on_gpu checks that it does).
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
bool arrays_allow_index32(std::span<const Argument> args) {
  for (const Argument &a : args)
    if ((a.kind == Argument::Kind::DeviceArray || a.kind == Argument::Kind::HostArray) &&
        a.size() > codegen::index32_max_elements)
      return false;
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

} // namespace

void run_on_gpu(KernelState &state, std::span<const Argument> args,
                const ir::ArgumentValues &values, runtime::Stream *async) {
  CompiledGpu *code = &state.compiled_gpu(resolve_variant(
      state, {.target = Target::GPU,
              .index32 = arrays_allow_index32(args) ? std::nullopt : std::optional(false)}));
  runtime::GpuContext::activate(); // fails fast once a sticky error has poisoned the context
  const std::vector<ir::Param> &params = code->lowered.params;
  CallScratch &call = state.call;
  runtime::CUstream stream = async ? async->handle() : nullptr;

  // Host arrays get a device buffer for this call only (also when it throws); they are copied in
  // only when their old contents matter.
  call.staged.clear();
  struct ReleaseStaged {
    std::vector<runtime::DeviceBuffer> &staged;
    ~ReleaseStaged() { staged.clear(); }
  } release_staged{call.staged};
  call.staged_index.assign(args.size(), -1);
  call.pointers.assign(args.size(), 0);
  for (size_t p = 0; p < args.size(); ++p) {
    if (params[p].kind != ir::ParamKind::Array)
      continue;
    const Argument &a = args[p];
    if (a.kind == Argument::Kind::DeviceArray) {
      // GPU code takes every array to be 16-byte aligned (vector loads), as allocations are.
      if (a.device % 16 != 0)
        throw ArgumentError("argument '" + params[p].name +
                            "': a device array must start 16-byte aligned (it starts at address " +
                            std::to_string(a.device) + ")");
      call.pointers[p] = a.device;
      continue;
    }
    const ir::ArrayAccess &access = state.access[p];
    if (!access.read && !access.written)
      continue; // the kernel never touches it: no buffer, null pointer
    size_t bytes = static_cast<size_t>(a.size()) * ir::byte_size(a.type);
    call.staged.emplace_back(bytes);
    call.staged_index[p] = static_cast<int>(call.staged.size() - 1);
    // Overwritten whole before any read (the kernel may read it afterwards): the old contents
    // never matter.
    if (!access.fully_overwritten)
      call.staged.back().copy_from_host(a.host, bytes);
    call.pointers[p] = call.staged.back().ptr();
  }

  // A bounds-checked kernel's tasks take the bounds record last (support/Abi.h); it is zero
  // between calls.
  const bool checked = code->lowered.bounds_check;
  if (checked && state.bounds_record.bytes() == 0) {
    state.bounds_record = runtime::DeviceBuffer(sizeof cleared_record);
    state.bounds_record.copy_from_host(cleared_record.data(), sizeof cleared_record);
  }
  const uint64_t record = checked ? state.bounds_record.ptr() : 0;
  pack_params(call.params, params, values, call.pointers, {.bounds_record = record});
  for (size_t t = 0; t < code->lowered.tasks.size(); ++t) {
    const ir::Task &task = code->lowered.tasks[t];
    call.domain.clear();
    for (const ir::Expr &e : task.domain)
      // A negative extent runs no iteration, as on the CPU and in the interpreter.
      call.domain.push_back(std::max<int64_t>(0, ir::evaluate(e, params, values).i));
    const runtime::GridShape *chosen = &grid_for(state, *code, t, call.domain);
    if (code->lowered.tasks[t].covering &&
        (!covers(*chosen, call.domain) ||
         (code->variant.index32 && !grid_allows_index32(*chosen)))) {
      // CUDA's grid limits, or the 32-bit code's bound on blocks, leave iterations without a
      // thread of their own: this task and the next run the grid-stride code.
      code = &switch_variant(
          state, *code,
          {.target = Target::GPU, .index32 = code->variant.index32, .covering = false});
      chosen = &grid_for(state, *code, t, call.domain);
    }
    if (code->variant.index32 && !grid_allows_index32(*chosen)) {
      // Too many blocks for 32-bit counters (only an uncapped launch policy gets there): this
      // task and the next run the 64-bit code, lowered alike.
      code = &switch_variant(state, *code,
                             {.target = Target::GPU, .index32 = false, .covering = false});
      chosen = &grid_for(state, *code, t, call.domain);
    }
    const CompiledGpu &g = *code;
    const runtime::GridShape &shape = *chosen;
    if (task.reductions.empty()) {
      runtime::launch(g.functions[t], shape, call.params.data(), stream);
      continue;
    }
    size_t bytes = 8 * (1 + shape.block_count() * task.reductions.size());
    // The scratch memory is the kernel object's: an asynchronous launch that may still use it
    // finishes first when another stream, or a larger buffer, would take it.
    if (state.reduction_stream &&
        (state.reduction_stream != stream || state.reduction_scratch.bytes() < bytes)) {
      runtime::synchronize_stream(state.reduction_stream, state.kernel.name);
      state.reduction_stream = nullptr;
    }
    if (state.reduction_scratch.bytes() < bytes) {
      state.reduction_scratch = runtime::DeviceBuffer(); // free the old one first
      state.reduction_scratch = runtime::DeviceBuffer(bytes);
      const uint64_t zero = 0;
      state.reduction_scratch.copy_from_host(&zero, sizeof zero);
    }
    pack_params(call.task_params, params, values, call.pointers,
                {.reduction_scratch = state.reduction_scratch.ptr(), .bounds_record = record});
    runtime::launch(g.functions[t], shape, call.task_params.data(), stream);
    state.reduction_stream = stream;
  }
  if (async && !checked)
    return; // faults surface at the stream's synchronization
  // An illegal address or trap inside the kernel surfaces here, naming it.
  if (async)
    runtime::synchronize_stream(stream, state.kernel.name);
  else
    runtime::synchronize(state.kernel.name);
  state.reduction_stream = nullptr;
  if (checked) {
    std::array<uint64_t, bounds_record::slots> record;
    state.bounds_record.copy_to_host(record.data(), sizeof record);
    if (record[bounds_record::claimed] != 0) {
      state.bounds_record.copy_from_host(cleared_record.data(), sizeof cleared_record);
      throw_if_out_of_bounds(code->lowered, record.data()); // host arrays keep their old contents
    }
  }

  for (size_t p = 0; p < args.size(); ++p)
    if (call.staged_index[p] >= 0 && state.access[p].written)
      call.staged[call.staged_index[p]].copy_to_host(args[p].host,
                                                     call.staged[call.staged_index[p]].bytes());
}

} // namespace loom
