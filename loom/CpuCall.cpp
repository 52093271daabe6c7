// One call of a kernel on the CPU: host arrays are used in place; device arrays are staged.
#include "loom/KernelState.h"
#include "runtime/CpuLaunch.h"
#include "runtime/DeviceBuffer.h"

#include "ir/Evaluate.h"
#include "ir/Mutator.h"
#include "ir/Semantics.h"
#include "ir/Synchronizes.h"
#include "support/Error.h"

#include <cstring>

namespace loom {

namespace {

// Combines the chunks' partials (support/Abi.h's scratch slots) in chunk order, then each total
// into its array element: with the combination order fixed, a fixed thread count gives the same
// bits on every run.
void finish_reductions(const ir::LoweredKernel &kernel, const ir::Task &task,
                       const ir::ArgumentValues &values, std::span<const Argument> args,
                       const std::vector<uint64_t> &pointers, const std::vector<uint64_t> &scratch,
                       int64_t chunks) {
  const std::vector<ir::Param> &params = kernel.params;
  const size_t count = task.reductions.size();
  for (size_t r = 0; r < count && chunks > 0; ++r) {
    const ir::TaskReduction &red = task.reductions[r];
    const ir::ScalarType t = params[red.array].type;
    const ir::BinaryOp op = ir::binary_op_of(red.op);
    ir::ScalarValue total = ir::load_scalar(&scratch[1 + r], t);
    for (int64_t c = 1; c < chunks; ++c)
      total = ir::binary_op(op, t, total, ir::load_scalar(&scratch[1 + c * count + r], t));
    const Shape &shape = args[red.array].shape;
    int64_t linear = 0;
    for (size_t d = 0; d < red.indices.size(); ++d) {
      int64_t i = ir::evaluate(red.indices[d], params, values).i;
      if (i < 0 || i >= shape[d]) // checked whether or not the kernel is bounds-checked
        throw BoundsError(kernel.name, params[red.array].name, static_cast<int>(d), i, shape[d]);
      linear = linear * shape[d] + i;
    }
    auto *element = reinterpret_cast<unsigned char *>(pointers[red.array]) +
                    linear * static_cast<int64_t>(ir::byte_size(t));
    ir::store_scalar(element, t, ir::binary_op(op, t, ir::load_scalar(element, t), total));
  }
}

// Whether one iteration of the task's parallel loop is light: the chunk loop is the task's only
// loop (no inner loop, no further parallel dimension), so a few thousand iterations cost less
// than opening a parallel region for them. A chunk loop in lanes (ir/CpuLanes.cpp) is two: the
// groups of lanes and the rest.
bool light_iterations(const ir::Task &task) {
  struct CountLoops : ir::Visitor {
    int loops = 0;
    void visit_node(const ir::For *n) override {
      ++loops;
      ir::Visitor::visit_node(n);
    }
    void visit_node(const ir::While *n) override {
      ++loops;
      ir::Visitor::visit_node(n);
    }
  } count;
  count.visit(task.body);
  return count.loops <= (task.lanes > 1 ? 2 : 1);
}

} // namespace

// Light iterations (no inner loop) run at least 4096 to a thread, so that a small loop does not
// pay for a parallel region (a few microseconds) and for waking threads; a loop with inner loops
// splits down to one iteration per thread.
int64_t cpu_grain(const ir::Task &task) {
  return task.kind == ir::TaskKind::Parallel && light_iterations(task) ? 4096 : 1;
}

bool simt_synchronizes(const ir::Task &task) {
  return task.kind == ir::TaskKind::Simt && ir::synchronizes(task.body);
}

void run_on_cpu(KernelState &state, std::span<const Argument> args,
                const ir::ArgumentValues &values) {
  CompiledCpu &c = state.compiled_cpu();
  const std::vector<ir::Param> &params = c.lowered.params;

  // A DeviceArray passed while running on the CPU (LOOM_TARGET=cpu on a GPU machine) goes through
  // a host copy.
  CallScratch &call = state.call;
  std::vector<std::vector<unsigned char>> &staged = call.host_staged;
  staged.resize(args.size());
  for (std::vector<unsigned char> &copy : staged)
    copy.clear();
  std::vector<uint64_t> &pointers = call.pointers;
  pointers.assign(args.size(), 0);
  for (size_t p = 0; p < args.size(); ++p) {
    if (params[p].kind != ir::ParamKind::Array)
      continue;
    const Argument &a = args[p];
    if (a.kind == Argument::Kind::HostArray) {
      pointers[p] = reinterpret_cast<uint64_t>(a.host);
      continue;
    }
    size_t bytes = static_cast<size_t>(a.size()) * ir::byte_size(a.type);
    staged[p].resize(bytes);
    if (bytes && (state.access[p].read || state.access[p].written))
      runtime::copy_device_to_host(staged[p].data(), a.device, bytes);
    pointers[p] = reinterpret_cast<uint64_t>(staged[p].data());
  }

  // A bounds-checked kernel's tasks take the bounds record last (support/Abi.h).
  const bool checked = c.lowered.bounds_check;
  uint64_t *record = state.cpu_bounds_record.data();
  state.cpu_bounds_record.fill(0);
  PackedParams &packed = call.params;
  const uint64_t record_address = checked ? reinterpret_cast<uint64_t>(record) : 0;
  pack_params(packed, params, values, pointers, {.bounds_record = record_address});
  std::vector<uint64_t> &scratch = state.cpu_reduction_scratch;
  for (size_t t = 0; t < c.lowered.tasks.size(); ++t) {
    const ir::Task &task = c.lowered.tasks[t];
    if (task.kind == ir::TaskKind::Simt) {
      int64_t shared_bytes = 0;
      ir::shared_offsets(c.lowered.shared, &shared_bytes);
      runtime::run_cpu_simt_task(c.code->tasks()[t], packed.data(), *state.shape, shared_bytes,
                                 c.synchronizes.at(t));
      if (checked)
        throw_if_out_of_bounds(c.lowered, record);
      continue;
    }
    bool parallel = task.kind == ir::TaskKind::Parallel;
    int64_t extent = parallel ? ir::evaluate(task.domain[0], params, values).i : 0;
    const int64_t grain = c.grains.at(t);
    PackedParams *task_params = &packed;
    if (!task.reductions.empty()) {
      scratch.assign(1 + runtime::cpu_thread_count() * task.reductions.size(), 0);
      task_params = &call.task_params;
      pack_params(*task_params, params, values, pointers,
                  {.reduction_scratch = reinterpret_cast<uint64_t>(scratch.data()),
                   .bounds_record = record_address});
    }
    int64_t chunks =
        runtime::run_cpu_task(c.code->tasks()[t], task_params->data(), extent, parallel, grain);
    // A violation is reported before later tasks read what this one wrote, and before its
    // partials (garbage then) are combined.
    if (checked)
      throw_if_out_of_bounds(c.lowered, record);
    if (!task.reductions.empty())
      finish_reductions(c.lowered, task, values, args, pointers, scratch, chunks);
  }

  for (size_t p = 0; p < args.size(); ++p)
    if (args[p].kind == Argument::Kind::DeviceArray && state.access[p].written &&
        !staged[p].empty())
      runtime::copy_host_to_device(args[p].device, staged[p].data(), staged[p].size());
}

} // namespace loom
