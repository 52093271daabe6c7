// Kernel::explain(): the target and why, the code and where it came from, each task's launch
// and why, and what is copied for each array, in words.
#include "loom/Kernel.hpp"

#include "ir/Printer.h"
#include "loom/KernelState.h"
#include "runtime/GpuContext.h"
#include "runtime/GpuLinker.h"
#include "support/Settings.h"

#include <optional>

#include <sstream>

namespace loom {
namespace {

const char *access_text(const ir::ArrayAccess &a) {
  if (a.fully_overwritten)
    return a.read ? "wholly overwritten, then read: copied out only"
                  : "wholly overwritten: copied out only";
  if (a.read && a.written)
    return "read and written: copied in and out";
  if (a.written)
    return "partly written: copied in and out";
  if (a.read)
    return "read only: copied in only";
  return "unused: not copied";
}

// "compiled by LLVM in 41.2 ms" for explain().
std::string code_origin(const CompileTimes &t) {
  std::ostringstream os;
  os << t.detail << ", in " << t.total_ms << " ms";
  return os.str();
}

// The sequential loops around tasks (ir::TaskLoop), one line each.
std::string task_loops_text(const ir::LoweredKernel &k, const runtime::LaunchGraph *graph) {
  std::ostringstream os;
  for (const ir::TaskLoop &l : k.task_loops) {
    os << "  loop over " << l.var->name << " in range(" << ir::to_string(l.begin, k.params) << ", "
       << ir::to_string(l.end, k.params) << ", " << ir::to_string(l.step, k.params) << "): ";
    if (l.last - l.first == 1)
      os << "task " << k.tasks[l.first].name;
    else
      os << "tasks " << k.tasks[l.first].name << " to " << k.tasks[l.last - 1].name;
    os << " run once per iteration, in order, from one loop on the host in this call"
       << (k.target == ir::Target::GPU
               ? " (the call's launches run as one CUDA graph, which a later call with the same "
                 "launches, arrays and scalars runs again; the stream runs each launch after the "
                 "one before), the arrays on the device throughout"
               : "")
       << "\n";
  }
  if (!k.task_loops.empty() && k.target == ir::Target::GPU)
    os << (k.tasks.front().waits_for_grid
               ? "  each launch after the first may begin while the one before finishes "
                 "(programmatic dependent launch): its blocks wait at their start for the grids "
                 "before them (griddepcontrol.wait), then let the next launch begin\n"
               : "  each launch begins when the one before has finished (programmatic dependent "
                 "launch needs sm_90 or later)\n");
  if (graph && graph->has_graph() && !k.task_loops.empty())
    os << "    last call: "
       << (graph->replayed() ? "ran the graph of the call before again"
                             : "captured a new graph (the first call, or other launches)")
       << "; " << graph->overlapped() << " launch" << (graph->overlapped() == 1 ? "" : "es")
       << " overlapping the one before"
       << "\n";
  return os.str();
}

} // namespace

std::string Kernel::explain() const {
  std::lock_guard<std::mutex> lock(state_->mutex);
  std::ostringstream os;
  const ir::Kernel &k = state_->kernel;
  TargetChoice choice = state_->target ? *state_->target : choose_target();
  // The GPU of the last call, else the one the next call would run on.
  const int device = state_->last_device >= 0           ? state_->last_device
                     : state_->device                   ? *state_->device
                     : choice.target == ir::Target::GPU ? runtime::current_device()
                                                        : 0;
  std::optional<runtime::DeviceScope> scope;
  if (choice.target == ir::Target::GPU)
    scope.emplace(device);
  // The code the last call ran: the kernel's own, or its copy for that device, or for strided
  // views.
  const KernelState &on_device = state_->of_device(device);
  const KernelState &last = on_device.last_views ? *on_device.last_views : on_device;
  os << "kernel " << k.name << "\n";
  if (state_->split)
    return os.str() + explain_split(*state_);
  if (choice.target == ir::Target::GPU) {
    const runtime::DeviceInfo &d = runtime::GpuContext::get().info();
    os << "  target: GPU " << d.name << " (sm_" << d.cc_major << d.cc_minor << ", " << d.sm_count
       << " SMs), because " << choice.reason << "\n";
    os << "  device: GPU " << device << " of " << runtime::GpuContext::count() << " (PCI "
       << d.pci_bus_id << "), because "
       << (state_->device       ? state_->device_reason + " chose it"
           : settings::device() ? "LOOM_DEVICE=" + *settings::device() + " chose it"
                                : std::string("it is the default device (0; "
                                              "LOOM_DEVICE or Kernel::on(loom::"
                                              "Device) choose another)"))
       << "\n";
  } else {
    os << "  target: CPU " << codegen::host_cpu_name() << ", because " << choice.reason << "\n";
  }
  if (k.schedule.autotune && state_->last_tuning >= 0)
    os << tuning_text(state_->tunings[size_t(state_->last_tuning)]);
  else if (k.schedule.autotune)
    os << "  autotune: on; the first call of each shape class times candidate tiles\n";
  if (k.bounds_check)
    os << "  bounds checks: every array access (an out-of-range index throws BoundsError)\n";
  if (!k.assert_sites.empty())
    os << "  assertions: " << k.assert_sites.size()
       << (k.asserts ? " checked (a failed one throws KernelAssertionError; every call waits for "
                       "its tasks to read the record)\n"
                     : " compiled out (asserts off)\n");
  if (k.fast_math)
    os << "  fastmath: on\n";
  if (k.tf32)
    os << "  tf32: on (the tensor-core tile reads f32 arrays as TF32)\n";
  for (const auto &[loop, schedule] : k.schedule.loops) {
    os << "  schedule of the loops over " << loop << ":";
    if (schedule.unroll > 0)
      os << " unrolled " << schedule.unroll
         << (schedule.unroll == 1 ? " time (not unrolled)" : " times");
    if (schedule.vectorize > 0)
      os << (schedule.unroll > 0 ? "," : "") << " vectorized " << schedule.vectorize
         << " wide (GPU: runs of " << schedule.vectorize
         << " iterations per thread for a parallel loop, an unroll for a sequential one)";
    os << "\n";
  }
  if (choice.target == ir::Target::GPU && last.gpu) {
    const CompiledGpu &g = *last.gpu;
    const runtime::DeviceInfo &d = runtime::GpuContext::get().info();
    os << "  code: PTX ISA " << g.variant.ptx_version / 10 << "." << g.variant.ptx_version % 10
       << " for " << g.variant.sm << " (driver " << d.driver_version / 1000 << "."
       << d.driver_version % 1000 / 10 << " accepts PTX "
       << codegen::ptx_version_for_driver(d.driver_version) / 10 << "."
       << codegen::ptx_version_for_driver(d.driver_version) % 10 << ", LLVM emits up to "
       << codegen::max_llvm_ptx_version() / 10 << "." << codegen::max_llvm_ptx_version() % 10
       << ")\n  variant: " << g.variant.to_string()
       << " (ptx(), lowered() and llvm() of this variant, or dsl-to-ptx with its flags, show "
          "this code)\n  code from: "
       << code_origin(last.gpu_times) << "\n"
       << (g.variant.tier == Tier::Quick && tiering() == Tiering::QuickOnly
               ? "  tier: quick code (LLVM's short pipeline, backend at -O0) only, as "
                 "LOOM_TIERED=quick asks\n"
           : g.variant.tier == Tier::Quick
               ? "  tier: quick code (LLVM's short pipeline, backend at -O0); the "
                 "optimized code is compiling in the background, and the first "
                 "call to find it ready switches to it\n"
           : last.tiered ? "  tier: optimized code (the kernel is tiered)\n"
                         : "")
       << "  PTX to machine code: " << runtime::ptx_linker_description() << "\n"
       << "  index arithmetic: "
       << (g.variant.index32   ? "32-bit, as the last call's arrays each have at most 2^30 elements"
           : index32_allowed() ? "64-bit, as an array of the last call has more "
                                 "than 2^30 elements (or its grid is that large)"
                               : "64-bit, as LOOM_INDEX_BITS=64 asks")
       << "\n";
    os << task_loops_text(g.lowered, &last.task_graph);
    for (size_t t = 0; t < g.functions.size(); ++t) {
      const ir::Task &task = g.lowered.tasks[t];
      os << "  task " << task.name << ": " << g.functions[t].num_regs << " registers";
      if (task.kind == ir::TaskKind::Parallel) {
        os << ", parallel over (";
        for (size_t i = 0; i < task.domain.size(); ++i)
          os << (i ? ", " : "") << ir::to_string(task.domain[i], g.lowered.params);
        os << ")";
        if (task.tile.rows > 0 && task.tensor_cores.rfind("not used", 0) != 0 &&
            !task.tensor_cores.empty())
          os << "; tile: a block of " << task.threads << " threads per " << task.tile.rows << "x"
             << task.tile.cols << " tile on the tensor cores, " << task.tensor_cores;
        else if (task.tile.rows > 0)
          os << "; tile: a block of " << task.threads << " threads per " << task.tile.rows << "x"
             << task.tile.cols << " tile, " << task.tile.thread_rows << "x" << task.tile.thread_cols
             << " iterations per thread"
             << (task.tile.depth > 0 ? ", staged in shared memory " +
                                           std::to_string(task.tile.depth) + " steps at a time"
                                     : std::string())
             << (task.tensor_cores.empty() ? std::string() : "; tensor cores " + task.tensor_cores);
        else if (!task.steps_per_launch.empty())
          os << "; " << task.steps_per_launch;
        else if (!task.serial_block.empty())
          os << "; a serial task on " << task.serial_block;
        else if (!task.block_reads.empty())
          os << "; a block of " << task.threads
             << " threads for each iteration of the outer dimensions (below)";
        else if (task.threads > 0)
          os << "; block_per_iteration: each iteration on a block of " << task.threads
             << " threads, which split its inner loops and combine their reductions";
        if (task.covering)
          os << "; one iteration per thread (an `if` instead of grid-stride loops; the launch "
                "covers the domain)";
        // Covering tasks are those whose iterations run a loop: in 1-D, a row walked by a thread.
        if (task.covering && task.domain.size() == 1)
          os << "; each iteration's inner loops run on its one thread: with fewer iterations "
                "than the GPU holds threads, block_per_iteration(256) splits them among a "
                "block (float sums then combine in a tree)";
        if (task.run > 1)
          os << "; each thread takes runs of " << task.run
             << " consecutive iterations (neighbouring elements: 16-byte vector loads)";
      } else if (task.kind == ir::TaskKind::Simt) {
        os << ", SIMT (every thread of the launch runs the body)";
      } else if (!task.serial_block.empty()) {
        os << ", serial, on " << task.serial_block;
      } else {
        os << ", serial (one thread)";
      }
      os << "\n";
      for (const std::string &u : task.updates)
        os << "    " << u << "\n";
      for (const std::string &s : task.staged)
        os << "    " << s << "\n";
      for (const std::string &c : task.carried)
        os << "    " << c << "\n";
      for (const std::string &r : task.block_reads)
        os << "    " << r << "\n";
      if (!task.fused.empty())
        os << "    the parallel loops of " << task.fused
           << " run in one launch, one after the other along the outermost dimension: no element "
              "one writes is accessed by another\n";
      const LaunchMemo &memo = last.launches;
      if (t < memo.shapes.size() && !memo.shapes[t].reason.empty())
        os << "    last launch: " << memo.shapes[t].to_string()
           << "\n      why: " << memo.shapes[t].reason << "\n";
      else
        os << "    launch shape: chosen at each call from the extents and "
              "cuOccupancyMaxPotentialBlockSize\n";
    }
  } else if (choice.target == ir::Target::CPU && last.cpu) {
    os << (k.simt() ? "  code: native; the launch's blocks run on OpenMP threads, one block per "
                      "thread at a time, its threads one after another or, where they synchronize, "
                      "on fibers switching at barriers and warp collectives\n"
                    : "  code: native; parallel tasks split their outermost dimension among OpenMP "
                      "threads\n")
       << "  code from: " << code_origin(last.cpu_times) << "\n"
       << task_loops_text(last.cpu->lowered, nullptr);
    for (const ir::Task &task : last.cpu->lowered.tasks) {
      if (task.tile.rows > 0 && task.auto_schedule.empty())
        os << "  task " << task.name << ": the tile schedule {" << task.tile.rows << ", "
           << task.tile.cols << ", " << task.tile.thread_rows << ", " << task.tile.thread_cols
           << "}: tiles shared among threads, each thread's share a register block\n";
      if (!task.auto_schedule.empty())
        os << "  task " << task.name << ": " << task.auto_schedule << "\n";
      for (const std::string &u : task.updates)
        os << "  task " << task.name << ": " << u << "\n";
    }
    for (const ir::Task &task : last.cpu->lowered.tasks)
      if (task.lanes > 1)
        os << "  task " << task.name << ": each chunk's float sums and products run in "
           << task.lanes << " lanes (of each group of " << task.lanes
           << " consecutive iterations of the innermost loop, the l-th into lane l; combined in "
              "order), so they vectorize without fastmath\n";
  } else {
    os << "  code: not compiled yet (compiled on the first call)\n";
  }
  if (state_->last_views) {
    os << "  strided views: the last call passed";
    const std::vector<ir::Param> &viewed = state_->last_views->kernel.params;
    for (size_t p = 0, n = 0; p < viewed.size(); ++p)
      if (viewed[p].strided)
        os << (n++ ? ", '" : " '") << viewed[p].name << "'";
    os << " as views the target reads in place, so it ran code that reads their strides at run "
          "time (contiguous arrays keep the row-major code)\n";
  }
  // What the GPU path copies for host arrays; the CPU uses host arrays in place.
  if (choice.target == ir::Target::CPU)
    os << "  arrays (host arrays are used in place on the CPU; on the GPU they would be):\n";
  for (size_t p = 0; p < k.params.size(); ++p)
    if (k.params[p].kind == ir::ParamKind::Array)
      os << "  array " << k.params[p].name << ": " << access_text(state_->access[p]) << "\n";
  return os.str();
}

} // namespace loom
