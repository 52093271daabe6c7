// The CPU's part of a call (loom/Call.h): host arrays used in place, device arrays staged in host
// copies, each task run over OpenMP threads or, for SIMT tasks, fibers.
#include "loom/Call.h"
#include "loom/ViewCopies.h"
#include "runtime/CpuLaunch.h"
#include "runtime/DeviceBuffer.h"
#include "runtime/GpuContext.h"

#include "ir/DynamicShared.h"
#include "ir/Evaluate.h"
#include "ir/Mutator.h"
#include "ir/Semantics.h"
#include "ir/Synchronizes.h"
#include "support/Error.h"
#include "support/PrintLine.h"

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
    // A complex array is an array of its parts: one more dimension, of extent 2
    // (ir/ExpandComplex.cpp), which the argument's shape does not have.
    auto extent = [&](size_t d) { return d < shape.size() ? shape[d] : int64_t(2); };
    // A strided view's element is at its strides (in elements of the parts for a complex view,
    // whose parts dimension steps by one), as pack_params passes them to the code.
    const bool strided = params[red.array].strided;
    const bool parts = params[red.array].part == ir::ComplexPart::Parts;
    auto stride = [&](size_t d) {
      return d < shape.size() ? values.strides[red.array][d] * (parts ? 2 : 1) : int64_t(1);
    };
    int64_t linear = 0;
    for (size_t d = 0; d < red.indices.size(); ++d) {
      int64_t i = ir::evaluate(red.indices[d], params, values).i;
      if (i < 0 || i >= extent(d)) // checked whether or not the kernel is bounds-checked
        throw BoundsError(kernel.name, params[red.array].name, static_cast<int>(d), i, extent(d));
      linear = strided ? linear + i * stride(d) : linear * extent(d) + i;
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

namespace {

// One call's CPU part. A device array (LOOM_TARGET=cpu on a GPU machine) goes through a host copy,
// kept in the CallScratch from call to call.
struct CpuCall final : CallTarget {
  KernelState &state;
  std::span<const Argument> args;
  std::vector<std::vector<unsigned char>> &staged; // per parameter
  CompiledCpu *cpu = nullptr;
  int64_t chunks = 0; // the last task's: how many threads' partials its reductions left

  CpuCall(KernelState &state, std::span<const Argument> args)
      : CallTarget(Argument::Kind::HostArray, true), state(state), args(args),
        staged(state.call.host_staged) {
    staged.resize(args.size());
  }

  void choose_code() override {
    cpu = &state.compiled_cpu();
    code = &cpu->lowered;
  }

  uint64_t in_place(size_t, const Argument &a) override {
    return reinterpret_cast<uint64_t>(a.host);
  }

  uint64_t stage(size_t p, const Argument &a, size_t bytes, bool copy_in) override {
    runtime::DeviceScope scope(a.device_ordinal); // a device array's copies: on its device
    staged[p].resize(bytes);
    if (bytes && copy_in && is_view(a)) // only the elements the view covers, dense
      view_to_dense(a, staged[p]);
    else if (bytes && copy_in)
      runtime::copy_device_to_host(staged[p].data(), a.device, bytes);
    return reinterpret_cast<uint64_t>(staged[p].data());
  }

  uint64_t bounds_record() override {
    state.cpu_bounds_record.fill(0);
    return reinterpret_cast<uint64_t>(state.cpu_bounds_record.data());
  }
  const uint64_t *read_bounds_record() override { return state.cpu_bounds_record.data(); }

  void prepare_task(size_t, const std::vector<int64_t> &) override {}

  uint64_t scratch_array(size_t k, size_t bytes) override {
    if (state.cpu_scratch_arrays.size() <= k)
      state.cpu_scratch_arrays.resize(k + 1);
    std::vector<unsigned char> &buffer = state.cpu_scratch_arrays[k];
    if (buffer.size() < bytes)
      buffer.resize(bytes);
    return reinterpret_cast<uint64_t>(buffer.data());
  }

  uint64_t reduction_scratch(size_t t) override {
    const size_t slots = 1 + runtime::cpu_thread_count() * cpu->lowered.tasks[t].reductions.size();
    state.cpu_reduction_scratch.assign(slots, 0);
    return reinterpret_cast<uint64_t>(state.cpu_reduction_scratch.data());
  }

  void run_task(size_t t, const std::vector<int64_t> &domain, PackedParams &packed) override {
    void **params = packed.data();
    const ir::Task &task = cpu->lowered.tasks[t];
    if (task.kind == ir::TaskKind::Simt) {
      int64_t static_bytes = 0;
      ir::shared_offsets(cpu->lowered.shared, &static_bytes);
      ir::check_block_shared_bytes(state.kernel.name, static_bytes,
                                   state.shape->dynamic_shared_bytes,
                                   ir::max_cpu_block_shared_bytes, "the CPU");
      runtime::run_cpu_simt_task(cpu->code->tasks()[t], params, *state.shape, static_bytes,
                                 cpu->synchronizes.at(t));
      return;
    }
    const bool parallel = task.kind == ir::TaskKind::Parallel;
    chunks = runtime::run_cpu_task(cpu->code->tasks()[t], params, parallel ? domain[0] : 0,
                                   parallel, cpu->grains.at(t));
  }

  void combine_reductions(size_t t, const ir::ArgumentValues &current) override {
    finish_reductions(cpu->lowered, cpu->lowered.tasks[t], current, args, state.call.pointers,
                      state.cpu_reduction_scratch, chunks);
  }

  bool finish() override { // each task finished before run_task returned
    if (cpu->lowered.prints)
      support::flush_printed();
    return true;
  }

  void copy_back(size_t p, const Argument &a) override {
    runtime::DeviceScope scope(a.device_ordinal);
    if (!staged[p].empty() && is_view(a))
      dense_to_view(a, staged[p].data());
    else if (!staged[p].empty())
      runtime::copy_host_to_device(a.device, staged[p].data(), staged[p].size());
  }
};

} // namespace

void run_on_cpu(KernelState &state, std::span<const Argument> args,
                const ir::ArgumentValues &values) {
  CpuCall target(state, args);
  run_call(state, args, values, target);
}

} // namespace loom
