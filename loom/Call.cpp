// The steps of one call, the same on both targets; what differs is the target's part
// (loom/Call.h), in loom/GpuCall.cpp and loom/CpuCall.cpp.
#include "loom/Call.h"

#include "ir/TaskLoops.h"

#include <algorithm>

namespace loom {

void run_call(KernelState &state, std::span<const Argument> args, const ir::ArgumentValues &values,
              CallTarget &target) {
  // The code, and where it reads each array: a native one in place; a foreign one the kernel
  // touches through the target's memory, copied in unless the kernel overwrites it whole before
  // any read (its old contents never matter); one it never touches gets a null pointer.
  target.choose_code();
  const std::vector<ir::Param> &params = target.code->params; // the same in every variant
  CallScratch &call = state.call;
  call.pointers.assign(params.size(), 0);
  for (size_t p = 0; p < args.size(); ++p) {
    if (params[p].kind != ir::ParamKind::Array)
      continue;
    const Argument &a = args[p];
    const ir::ArrayAccess &access = state.access[p];
    if (a.kind == target.native)
      call.pointers[p] = target.in_place(p, a);
    else if (access.read || access.written)
      call.pointers[p] = target.stage(p, a, static_cast<size_t>(a.size()) * ir::byte_size(a.type),
                                      !access.fully_overwritten);
  }

  // The parameters, then the record of a kernel with bounds checks or assertions (support/Abi.h).
  // The variables of the task loops around the tasks are parameters past the kernel's own, set as
  // the loops run.
  const bool checked = target.code->takes_record();
  const uint64_t record = checked ? target.bounds_record() : 0;
  const std::vector<ir::TaskLoop> &loops = target.code->task_loops;
  const std::vector<ir::ScratchArray> &scratch = target.code->scratch;
  const ir::ArgumentValues *current = &values;
  if (!loops.empty() || !scratch.empty()) {
    call.loop_values = values;
    call.loop_values.scalars.resize(params.size());
    call.loop_values.extents.resize(params.size());
    call.loop_values.strides.resize(params.size());
    current = &call.loop_values;
  }
  // The arrays the lowering added, in the target's memory.
  for (size_t k = 0; k < scratch.size(); ++k) {
    const ir::ScratchArray &a = scratch[k];
    std::vector<int64_t> &extents = call.loop_values.extents[a.param];
    extents.clear();
    size_t elements = 1;
    for (const ir::Expr &e : a.extents) {
      extents.push_back(std::max<int64_t>(0, ir::evaluate(e, params, values).i));
      elements *= static_cast<size_t>(extents.back());
    }
    call.pointers[a.param] = target.scratch_array(k, std::max<size_t>(elements, 1) *
                                                         ir::byte_size(params[a.param].type));
  }
  if (loops.empty())
    pack_params(call.params, params, *current, call.pointers, {.bounds_record = record});

  // Each task over its domain; a task with reductions takes their scratch too.
  auto run = [&](size_t t) {
    const ir::Task &task = target.code->tasks[t];
    call.domain.clear();
    for (const ir::Expr &e : task.domain)
      // A negative extent runs no iteration, as in the interpreter.
      call.domain.push_back(std::max<int64_t>(0, ir::evaluate(e, params, *current).i));
    target.prepare_task(t, call.domain);
    const bool reduces = !task.reductions.empty();
    // The task's own parameters: its reduction scratch, or the loops' variables as they are now.
    const bool own_params = reduces || !loops.empty();
    if (own_params)
      pack_params(call.task_params, params, *current, call.pointers,
                  {.reduction_scratch = reduces ? target.reduction_scratch(t) : 0,
                   .bounds_record = record});
    target.run_task(t, call.domain, own_params ? call.task_params : call.params);
    // Before a later task reads what this one wrote, and before its partials (garbage then) are
    // combined.
    if (checked && target.record_between_tasks)
      throw_if_failed(*target.code, target.read_bounds_record(), true);
    if (reduces)
      target.combine_reductions(t, *current);
  };
  ir::run_task_program(
      target.code->tasks, loops,
      [&](const ir::Expr &e) { return ir::evaluate(e, params, *current).i; },
      [&](const ir::TaskLoop &l, int64_t v) { call.loop_values.scalars[l.param].i = v; }, run);

  // The tasks finished, a violation is reported (foreign arrays keep their old contents), and
  // what the kernel wrote goes back into the foreign arrays.
  if (!target.finish())
    return;
  if (checked)
    throw_if_failed(*target.code, target.read_bounds_record());
  for (size_t p = 0; p < args.size(); ++p)
    if (params[p].kind == ir::ParamKind::Array && args[p].kind != target.native &&
        state.access[p].written)
      target.copy_back(p, args[p]);
}

} // namespace loom
