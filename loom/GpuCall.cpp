// One call of a kernel on the GPU: stage host arrays, launch each task, copy back what was written.
#include "loom/KernelState.h"
#include "runtime/DeviceBuffer.h"
#include "runtime/GpuContext.h"
#include "runtime/Launch.h"

#include <algorithm>
#include <array>

namespace loom {

void run_on_gpu(KernelState &state, std::span<const Argument> args,
                const ir::ArgumentValues &values) {
  CompiledGpu &g = state.compiled_gpu();
  runtime::GpuContext::activate(); // fails fast once a sticky error has poisoned the context
  const runtime::GpuContext &ctx = runtime::GpuContext::get();
  const std::vector<ir::Param> &params = g.lowered.params;

  // Host arrays get a device buffer; they are copied in only when their old contents matter.
  std::vector<runtime::DeviceBuffer> staged;
  staged.reserve(args.size());
  std::vector<int> staged_index(args.size(), -1);
  std::vector<uint64_t> pointers(args.size(), 0);
  for (size_t p = 0; p < args.size(); ++p) {
    if (params[p].kind != ir::ParamKind::Array)
      continue;
    const Argument &a = args[p];
    if (a.kind == Argument::Kind::DeviceArray) {
      pointers[p] = a.device;
      continue;
    }
    const ir::ArrayAccess &access = state.access[p];
    if (!access.read && !access.written)
      continue; // the kernel never touches it: no buffer, null pointer
    size_t bytes = static_cast<size_t>(a.size()) * ir::byte_size(a.type);
    staged.emplace_back(bytes);
    staged_index[p] = static_cast<int>(staged.size() - 1);
    if (access.read || !access.fully_overwritten)
      staged.back().copy_from_host(a.host, bytes);
    pointers[p] = staged.back().ptr();
  }

  // A bounds-checked kernel's tasks take the bounds record last (support/Abi.h); it is zero
  // between calls.
  const bool checked = g.lowered.bounds_check;
  if (checked && state.bounds_record.bytes() == 0) {
    const std::array<uint64_t, bounds_record::slots> zeros{};
    state.bounds_record = runtime::DeviceBuffer(sizeof zeros);
    state.bounds_record.copy_from_host(zeros.data(), sizeof zeros);
  }
  PackedParams packed = pack_params(params, values, pointers, checked ? 1 : 0);
  if (checked)
    packed.push(state.bounds_record.ptr());
  state.last_grids.clear();
  for (size_t t = 0; t < g.lowered.tasks.size(); ++t) {
    const ir::Task &task = g.lowered.tasks[t];
    std::vector<int64_t> domain;
    for (const ir::Expr &e : task.domain)
      // A negative extent runs no iteration, as on the CPU and in the interpreter.
      domain.push_back(std::max<int64_t>(0, ir::evaluate(e, params, values).i));
    runtime::GridShape shape =
        runtime::choose_grid(g.functions[t], domain, ctx.info(), state.launch_policy);
    if (task.reductions.empty()) {
      runtime::launch(g.functions[t], shape, packed.data());
    } else {
      size_t bytes = 8 * (1 + shape.block_count() * task.reductions.size());
      if (state.reduction_scratch.bytes() < bytes) {
        state.reduction_scratch = runtime::DeviceBuffer(); // free the old one first
        state.reduction_scratch = runtime::DeviceBuffer(bytes);
        const uint64_t zero = 0;
        state.reduction_scratch.copy_from_host(&zero, sizeof zero);
      }
      PackedParams with_scratch = pack_params(params, values, pointers, checked ? 2 : 1);
      with_scratch.push(state.reduction_scratch.ptr());
      if (checked)
        with_scratch.push(state.bounds_record.ptr());
      runtime::launch(g.functions[t], shape, with_scratch.data());
    }
    state.last_grids.push_back(std::move(shape));
  }
  // An illegal address or trap inside the kernel surfaces here, naming it.
  runtime::synchronize(state.kernel.name);
  if (checked) {
    std::array<uint64_t, bounds_record::slots> record;
    state.bounds_record.copy_to_host(record.data(), sizeof record);
    if (record[bounds_record::claimed] != 0) {
      const std::array<uint64_t, bounds_record::slots> zeros{};
      state.bounds_record.copy_from_host(zeros.data(), sizeof zeros);
      throw_if_out_of_bounds(g.lowered, record.data()); // host arrays keep their old contents
    }
  }

  for (size_t p = 0; p < args.size(); ++p)
    if (staged_index[p] >= 0 && state.access[p].written)
      staged[staged_index[p]].copy_to_host(args[p].host, staged[staged_index[p]].bytes());
}

} // namespace loom
