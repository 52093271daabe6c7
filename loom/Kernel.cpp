#include "loom/Kernel.hpp"

#include "ir/Lower.h"
#include "ir/Printer.h"
#include "loom/KernelState.h"
#include "runtime/GpuContext.h"
#include "runtime/GpuLinker.h"
#include "support/Error.h"
#include "support/Settings.h"

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

} // namespace

Kernel detail::make_kernel(ir::Kernel kernel) {
  return Kernel(std::move(kernel));
}

Kernel::Kernel(ir::Kernel kernel) : state_(std::make_shared<KernelState>()) {
  state_->access = ir::summarize_accesses(kernel);
  state_->kernel = std::move(kernel);
  if (settings::bounds_check())
    state_->kernel.bounds_check = true;
  state_->tiered = tiering() != Tiering::Off;
}

namespace {

// Sets one of the kernel's code options; the code compiles (or is found in the caches) again on
// the next call when it changes.
template <class T> void set_code_option(KernelState &state, T ir::Kernel::*option, T on) {
  std::lock_guard<std::mutex> lock(state.mutex);
  if (state.kernel.*option == on)
    return;
  state.kernel.*option = on;
  state.gpu.reset();
  state.gpu_variants = {};
  state.optimizing = {}; // waits for background compiles of the old code
  state.cpu.reset();
  state.launches.invalidate();
}

} // namespace

Kernel &Kernel::bounds_check(bool on) {
  set_code_option(*state_, &ir::Kernel::bounds_check, on);
  return *this;
}

Kernel &Kernel::tile(const TileSchedule &tile) {
  if (std::string problem = ir::tile_problem(tile); !problem.empty())
    throw ArgumentError("kernel '" + name() + "': schedule " + problem);
  if (tile.rows > 0 && (state_->kernel.simt || state_->kernel.block_per_iteration > 0))
    throw ArgumentError("kernel '" + name() + "': the tile schedule does not combine with " +
                        (state_->kernel.simt ? "the SIMT level" : "block_per_iteration"));
  set_code_option(*state_, &ir::Kernel::tile, tile);
  return *this;
}

// The name is checked here, not at the next call like what the tile schedule cannot do: the
// kernel's loops are known now, and a misspelt name is a mistake in this call's arguments.
Kernel &Kernel::unroll(const std::string &loop, int factor) {
  if (factor < 0 || factor > 64)
    throw ArgumentError("kernel '" + name() + "': unroll('" + loop +
                        "') takes a factor from 1 to 64 (or 0 for loom's choice), not " +
                        std::to_string(factor));
  ir::LoopSchedules loops = ir().loops;
  loops[loop].unroll = factor;
  set_loop_schedules(loops);
  return *this;
}

Kernel &Kernel::vectorize(const std::string &loop, int width) {
  if (width < 0 || width > 16 || (width & (width - 1)) != 0)
    throw ArgumentError("kernel '" + name() + "': vectorize('" + loop +
                        "') takes a width of 1, 2, 4, 8 or 16 (or 0 for the automatic choice), "
                        "not " +
                        std::to_string(width));
  ir::LoopSchedules loops = ir().loops;
  loops[loop].vectorize = width;
  set_loop_schedules(loops);
  return *this;
}

void Kernel::set_loop_schedules(ir::LoopSchedules loops) {
  std::erase_if(loops, [](const auto &entry) { return entry.second == ir::LoopSchedule(); });
  if (std::string problem = ir::loop_schedule_problem(loops, state_->kernel); !problem.empty())
    throw ArgumentError(problem);
  set_code_option(*state_, &ir::Kernel::loops, loops);
}

Kernel &Kernel::block_per_iteration(int threads) {
  if (threads != 0 && (threads < 32 || threads > 1024 || threads % 32 != 0))
    throw ArgumentError("kernel '" + name() +
                        "': block_per_iteration takes a multiple of 32 threads from 32 to 1024 "
                        "(or 0 for the default mapping), not " +
                        std::to_string(threads));
  set_code_option(*state_, &ir::Kernel::block_per_iteration, threads);
  return *this;
}

Kernel &Kernel::fast_math(bool on) {
  set_code_option(*state_, &ir::Kernel::fast_math, on);
  return *this;
}

ir::Target Kernel::current_target() const {
  std::lock_guard<std::mutex> lock(state_->mutex);
  return state_->target ? state_->target->target : choose_target().target;
}

const std::string &Kernel::name() const {
  return state_->kernel.name;
}
const ir::Kernel &Kernel::ir() const {
  return state_->kernel;
}

void Kernel::call(std::span<const Argument> args) {
  run(args, nullptr);
}

void Kernel::call_async(runtime::Stream &stream, std::span<const Argument> args) {
  run(args, &stream);
}

void Kernel::run(std::span<const Argument> args, runtime::Stream *stream) {
  std::lock_guard<std::mutex> lock(state_->mutex);
  ir::ArgumentValues &values = state_->call.values;
  check_arguments(*state_, args, values);
  if (state_->kernel.simt && !state_->shape)
    throw ArgumentError("kernel '" + name() +
                        "' is a SIMT kernel and has no launch shape: call shape(grid, block) "
                        "before calling it");
  for (size_t p = 0; stream && p < args.size(); ++p)
    if (args[p].kind == Argument::Kind::HostArray)
      throw ArgumentError("argument " + std::to_string(p + 1) + " ('" +
                          state_->kernel.params[p].name + "') of kernel '" + name() +
                          "' is a host array; an asynchronous launch takes device arrays "
                          "(loom::DeviceArray), as copying a host array would wait");
  if (!state_->target)
    state_->target = choose_target();
  if (state_->target->target == ir::Target::GPU)
    run_on_gpu(*state_, args, values, stream);
  else
    run_on_cpu(*state_, args, values);
}

void Kernel::compile() {
  std::lock_guard<std::mutex> lock(state_->mutex);
  if (!state_->target)
    state_->target = choose_target();
  if (state_->target->target == ir::Target::GPU)
    state_->compiled_gpu(resolve_variant(*state_, {}));
  else
    state_->compiled_cpu();
}

Kernel &Kernel::tiered(bool on) {
  std::lock_guard<std::mutex> lock(state_->mutex);
  state_->tiered = on;
  return *this;
}

void Kernel::await_optimized() {
  std::lock_guard<std::mutex> lock(state_->mutex);
  state_->await_optimized_gpu();
}

CompileTimes Kernel::compile_times() const {
  std::lock_guard<std::mutex> lock(state_->mutex);
  ir::Target target = state_->target ? state_->target->target : choose_target().target;
  return target == ir::Target::GPU ? state_->gpu_times : state_->cpu_times;
}

std::string Kernel::ir_text() const {
  return ir::to_string(state_->kernel);
}

Variant Kernel::variant(const VariantRequest &request) const {
  std::lock_guard<std::mutex> lock(state_->mutex);
  return resolve_variant(*state_, request);
}

std::string Kernel::lowered(const VariantRequest &request, bool passes) const {
  Variant v = variant(request);
  if (!passes)
    return ir::to_string(lower_variant(state_->kernel, v));
  std::string out;
  lower_variant(state_->kernel, v, [&](const std::string &pass, const std::string &text) {
    out += "; IR after " + pass + "\n" + text + "\n";
  });
  return out;
}

std::string Kernel::lowered(ir::Target target, bool passes) const {
  return lowered(VariantRequest{.target = target}, passes);
}

std::string Kernel::lowered() const {
  return lowered(VariantRequest{});
}

std::string Kernel::llvm(const VariantRequest &request, bool optimized) const {
  Variant v = variant(request);
  auto stage = optimized ? codegen::LlvmStage::Optimized : codegen::LlvmStage::Unoptimized;
  return codegen::emit_llvm(lower_variant(state_->kernel, v), stage,
                            v.target == Target::GPU ? gpu_target_of(v) : codegen::GpuTarget());
}

std::string Kernel::llvm(bool optimized) const {
  return llvm(VariantRequest{}, optimized);
}

std::string Kernel::ptx(const VariantRequest &request) const {
  VariantRequest gpu = request;
  gpu.target = Target::GPU;
  Variant v = variant(gpu);
  {
    // The code a call compiled for this variant, when there is one.
    std::lock_guard<std::mutex> lock(state_->mutex);
    for (const std::shared_ptr<CompiledGpu> &code : state_->gpu_variants)
      if (code && code->variant == v && !code->ptx.empty())
        return code->ptx;
  }
  return codegen::emit_ptx(lower_variant(state_->kernel, v), gpu_target_of(v));
}

std::string Kernel::ptx(const std::string &sm) const {
  return ptx(sm.empty() ? VariantRequest{} : VariantRequest{.sm = sm});
}

Kernel &Kernel::launch_policy(const LaunchPolicy &policy) {
  uint64_t threads =
      uint64_t(policy.block[0]) * std::max(policy.block[1], 1u) * std::max(policy.block[2], 1u);
  if (policy.block[0] != 0 && threads > 1024)
    throw ArgumentError("kernel '" + name() + "': a block of " + std::to_string(threads) +
                        " threads; CUDA allows at most 1024");
  if (policy.max_waves < 0)
    throw ArgumentError("kernel '" + name() + "': max_waves must be 0 (no cap) or positive");
  std::lock_guard<std::mutex> lock(state_->mutex);
  state_->launch_policy = policy;
  state_->launches.invalidate(); // choose the launch shapes again
  return *this;
}

Kernel &Kernel::shape(Dim3 grid, Dim3 block) {
  const unsigned g[3] = {grid.x, grid.y, grid.z}, b[3] = {block.x, block.y, block.z};
  auto text = [](const unsigned *v) {
    return "(" + std::to_string(v[0]) + ", " + std::to_string(v[1]) + ", " + std::to_string(v[2]) +
           ")";
  };
  const uint64_t threads = uint64_t(b[0]) * b[1] * b[2];
  std::string why;
  if (threads == 0 || g[0] == 0 || g[1] == 0 || g[2] == 0)
    why = "every extent must be at least 1";
  else if (threads > 1024)
    why = "a block has at most 1024 threads, this one " + std::to_string(threads);
  else if (b[2] > runtime::max_block_z)
    why = "a block's z extent is at most " + std::to_string(runtime::max_block_z);
  else if (g[0] > runtime::max_grid_x || g[1] > runtime::max_grid_yz || g[2] > runtime::max_grid_yz)
    why = "a grid has at most 2^31 - 1 blocks along x and 65535 along y and z";
  if (!why.empty())
    throw ArgumentError("kernel '" + name() + "': launch shape grid " + text(g) + " x block " +
                        text(b) + ": " + why);
  std::lock_guard<std::mutex> lock(state_->mutex);
  state_->shape = runtime::SimtShape{{g[0], g[1], g[2]}, {b[0], b[1], b[2]}};
  state_->launches.invalidate();
  return *this;
}

Kernel &Kernel::automatic_shape() {
  if (state_->kernel.simt)
    throw ArgumentError("kernel '" + name() +
                        "' is a SIMT kernel: its launch shape cannot be chosen automatically");
  std::lock_guard<std::mutex> lock(state_->mutex);
  state_->shape.reset();
  state_->launches.invalidate();
  return *this;
}

Kernel &Kernel::on(ir::Target target) {
  std::string why;
  if (target == ir::Target::GPU && !runtime::GpuContext::usable(&why))
    throw TargetError("kernel '" + name() +
                      "' was asked to run on the GPU, but no GPU is usable: " + why);
  std::lock_guard<std::mutex> lock(state_->mutex);
  state_->target =
      TargetChoice{target, std::string("Kernel::on(") + ir::target_name(target) + ") was called"};
  return *this;
}

std::string Kernel::explain() const {
  std::lock_guard<std::mutex> lock(state_->mutex);
  std::ostringstream os;
  const ir::Kernel &k = state_->kernel;
  TargetChoice choice = state_->target ? *state_->target : choose_target();
  os << "kernel " << k.name << "\n";
  if (choice.target == ir::Target::GPU) {
    const runtime::DeviceInfo &d = runtime::GpuContext::get().info();
    os << "  target: GPU " << d.name << " (sm_" << d.cc_major << d.cc_minor << ", " << d.sm_count
       << " SMs), because " << choice.reason << "\n";
  } else {
    os << "  target: CPU " << codegen::host_cpu_name() << ", because " << choice.reason << "\n";
  }
  if (k.bounds_check)
    os << "  bounds checks: every array access (an out-of-range index throws BoundsError)\n";
  if (k.fast_math)
    os << "  fastmath: on\n";
  for (const auto &[loop, schedule] : k.loops) {
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
  if (choice.target == ir::Target::GPU && state_->gpu) {
    const CompiledGpu &g = *state_->gpu;
    const runtime::DeviceInfo &d = runtime::GpuContext::get().info();
    os << "  code: PTX ISA " << g.variant.ptx_version / 10 << "." << g.variant.ptx_version % 10
       << " for " << g.variant.sm << " (driver " << d.driver_version / 1000 << "."
       << d.driver_version % 1000 / 10 << " accepts PTX "
       << codegen::ptx_version_for_driver(d.driver_version) / 10 << "."
       << codegen::ptx_version_for_driver(d.driver_version) % 10 << ", LLVM emits up to "
       << codegen::max_llvm_ptx_version() / 10 << "." << codegen::max_llvm_ptx_version() % 10
       << ")\n  code from: " << code_origin(state_->gpu_times) << "\n"
       << (g.variant.tier == Tier::Quick && tiering() == Tiering::QuickOnly
               ? "  tier: quick code (LLVM's short pipeline, backend at -O0) only, as "
                 "LOOM_TIERED=quick asks\n"
           : g.variant.tier == Tier::Quick ? "  tier: quick code (LLVM's short pipeline, backend at -O0); the "
                              "optimized code is compiling in the background, and the first "
                              "call to find it ready switches to it\n"
           : state_->tiered ? "  tier: optimized code (the kernel is tiered)\n"
                            : "")
       << "  PTX to machine code: " << runtime::ptx_linker_description() << "\n"
       << "  index arithmetic: "
       << (g.variant.index32   ? "32-bit, as the last call's arrays each have at most 2^30 elements"
           : index32_allowed() ? "64-bit, as an array of the last call has more "
                                 "than 2^30 elements (or its grid is that large)"
                               : "64-bit, as LOOM_INDEX_BITS=64 asks")
       << "\n";
    for (size_t t = 0; t < g.functions.size(); ++t) {
      const ir::Task &task = g.lowered.tasks[t];
      os << "  task " << task.name << ": " << g.functions[t].num_regs << " registers";
      if (task.kind == ir::TaskKind::Parallel) {
        os << ", parallel over (";
        for (size_t i = 0; i < task.domain.size(); ++i)
          os << (i ? ", " : "") << ir::to_string(task.domain[i], k.params);
        os << ")";
        if (task.tile.rows > 0)
          os << "; tile: a block of " << task.threads << " threads per " << task.tile.rows << "x"
             << task.tile.cols << " tile, " << task.tile.thread_rows << "x" << task.tile.thread_cols
             << " iterations per thread"
             << (task.tile.depth > 0 ? ", staged in shared memory " +
                                           std::to_string(task.tile.depth) + " steps at a time"
                                     : std::string());
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
      } else {
        os << ", serial (one thread)";
      }
      os << "\n";
      const LaunchMemo &memo = state_->launches;
      if (t < memo.shapes.size() && !memo.shapes[t].reason.empty())
        os << "    last launch: " << memo.shapes[t].to_string()
           << "\n      why: " << memo.shapes[t].reason << "\n";
      else
        os << "    launch shape: chosen at each call from the extents and "
              "cuOccupancyMaxPotentialBlockSize\n";
    }
  } else if (choice.target == ir::Target::CPU && state_->cpu) {
    os << (k.simt ? "  code: native; the launch's blocks run on OpenMP threads, one block per "
                    "thread at a time, its threads one after another or, where they synchronize, "
                    "on fibers switching at barriers and warp collectives\n"
                  : "  code: native; parallel tasks split their outermost dimension among OpenMP "
                    "threads\n")
       << "  code from: " << code_origin(state_->cpu_times) << "\n";
    for (const ir::Task &task : state_->cpu->lowered.tasks)
      if (task.lanes > 1)
        os << "  task " << task.name << ": each chunk's float sums and products run in "
           << task.lanes << " lanes (of each group of " << task.lanes
           << " consecutive iterations of the innermost loop, the l-th into lane l; combined in "
              "order), so they vectorize without fastmath\n";
  } else {
    os << "  code: not compiled yet (compiled on the first call)\n";
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
