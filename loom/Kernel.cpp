#include "loom/Kernel.hpp"

#include "ir/DynamicShared.h"
#include "ir/Lower.h"
#include "ir/Printer.h"
#include "loom/KernelState.h"
#include "runtime/Device.h"
#include "runtime/GpuContext.h"
#include "runtime/GpuLinker.h"
#include "support/Error.h"
#include "support/Settings.h"

#include <algorithm>
#include <limits>
#include <sstream>

namespace loom {

Kernel detail::make_kernel(ir::Kernel kernel) {
  require_matching_headers();
  return Kernel(std::move(kernel));
}

Kernel::Kernel(ir::Kernel kernel) : state_(std::make_shared<KernelState>()) {
  state_->access = ir::summarize_accesses(kernel);
  state_->kernel = std::move(kernel);
  if (settings::bounds_check())
    state_->kernel.bounds_check = true;
  if (!settings::asserts())
    state_->kernel.asserts = false;
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
  state.drop_code();
  state.tunings.clear(), state.last_tuning = -1; // tuned for other code
}

} // namespace

void KernelState::drop_code() {
  drop_copies();
  gpu.reset();
  gpu_variants = {};
  optimizing = {}; // waits for background compiles of the old code
  cpu.reset();
  launches.invalidate();
}

namespace {

// The state whose code a call runs: the kernel's own, or, where arguments are views with strides
// of their own (or a device array not 16-byte aligned, which the GPU's vector loads need) that
// the target reads in place, that of a copy of the kernel reading those arrays through their
// strides (ir::Param::strided). Views the call stages through the target's memory (a host view
// on the GPU, a device view on the CPU) are copied dense, so they need no strided code.
KernelState &views_state(KernelState &state, std::span<const Argument> args,
                         ir::ArgumentValues &values) {
  const Argument::Kind native = state.target->target == ir::Target::GPU
                                    ? Argument::Kind::DeviceArray
                                    : Argument::Kind::HostArray;
  std::vector<char> strided;
  for (size_t p = 0; p < args.size(); ++p) {
    if (state.kernel.params[p].kind != ir::ParamKind::Array || args[p].kind != native)
      continue;
    if (values.strides[p].empty() && native == Argument::Kind::DeviceArray &&
        args[p].device % 16 != 0) {
      const std::vector<int64_t> &e = values.extents[p];
      values.strides[p].assign(e.size(), 1);
      for (size_t d = e.size() - 1; d-- > 0;)
        values.strides[p][d] = values.strides[p][d + 1] * e[d + 1];
    }
    if (!values.strides[p].empty()) {
      strided.resize(args.size());
      strided[p] = 1;
    }
  }
  state.last_views = nullptr;
  if (strided.empty())
    return state;
  for (auto &[key, views] : state.views)
    if (key == strided)
      return *(state.last_views = views.get());
  auto views = std::make_unique<KernelState>();
  views->kernel = state.kernel;
  for (size_t p = 0; p < strided.size(); ++p)
    views->kernel.params[p].strided = strided[p] != 0;
  views->access = state.access;
  views->target = state.target;
  views->tiered = state.tiered;
  views->launch_policy = state.launch_policy;
  views->shape = state.shape;
  state.views.emplace_back(std::move(strided), std::move(views));
  return *(state.last_views = state.views.back().second.get());
}

} // namespace

KernelState &KernelState::on_device(int ordinal) {
  if (bound_device < 0 || bound_device == ordinal) {
    bound_device = ordinal;
    return *this;
  }
  for (auto &[d, state] : devices)
    if (d == ordinal)
      return *state;
  auto copy = std::make_unique<KernelState>();
  copy->kernel = kernel;
  copy->access = access;
  copy->target = target;
  copy->tiered = tiered;
  copy->launch_policy = launch_policy;
  copy->shape = shape;
  copy->bound_device = ordinal;
  devices.emplace_back(ordinal, std::move(copy));
  return *devices.back().second;
}

namespace {

// The GPU a call of the kernel runs on: Kernel::on(Device)'s, else the calling thread's.
int call_device(const KernelState &state) {
  return state.device ? *state.device : runtime::current_device();
}

// ArgumentError unless every device array of the call (and the stream) is on `device`.
void check_devices(const KernelState &state, std::span<const Argument> args, int device,
                   const runtime::Stream *stream) {
  auto where = [&] {
    return state.device ? " (Kernel::on chose it)"
                        : " (the default device: call on(loom::Device(n)) to run it elsewhere)";
  };
  for (size_t p = 0; p < args.size(); ++p)
    if (args[p].kind == Argument::Kind::DeviceArray && args[p].device_ordinal != device)
      throw ArgumentError("argument " + std::to_string(p + 1) + " ('" +
                          state.kernel.params[p].name + "') of kernel '" + state.kernel.name +
                          "' is a DeviceArray on GPU " + std::to_string(args[p].device_ordinal) +
                          ", but the kernel runs on GPU " + std::to_string(device) + where() +
                          "; copy it over with to(loom::Device(" + std::to_string(device) +
                          ")) (this machine's GPUs: " + runtime::describe_devices() + ")");
  if (stream && stream->device() != device)
    throw ArgumentError("kernel '" + state.kernel.name + "' runs on GPU " + std::to_string(device) +
                        where() + ", but the stream is of GPU " + std::to_string(stream->device()));
}

// The kernel a stage dump of `request` shows: with the parameters it names strided.
ir::Kernel requested_kernel(const ir::Kernel &kernel, const VariantRequest &request) {
  ir::Kernel k = kernel;
  for (const std::string &name : request.strided) {
    auto p = std::find_if(k.params.begin(), k.params.end(),
                          [&](const ir::Param &q) { return q.name == name; });
    if (p == k.params.end() || p->kind != ir::ParamKind::Array) {
      std::string arrays;
      for (const ir::Param &q : k.params)
        if (q.kind == ir::ParamKind::Array)
          arrays += (arrays.empty() ? "'" : ", '") + q.name + "'";
      throw ArgumentError(
          "kernel '" + k.name + "' has no array parameter '" + name +
          "' to read as a strided view (its arrays: " + (arrays.empty() ? "none" : arrays) + ")");
    }
    p->strided = true;
  }
  return k;
}

} // namespace

Kernel &Kernel::bounds_check(bool on) {
  set_code_option(*state_, &ir::Kernel::bounds_check, on);
  return *this;
}

Kernel &Kernel::asserts(bool on) {
  set_code_option(*state_, &ir::Kernel::asserts, on);
  return *this;
}

Kernel &Kernel::tile(const TileSchedule &tile) {
  ir::Schedule schedule = ir::with_tile(ir().schedule, tile);
  schedule.autotune = false; // the caller's tile
  set_schedule(schedule);
  return *this;
}

// The name is checked here, not at the next call like what the tile schedule cannot do: the
// kernel's loops are known now, and a misspelt name is a mistake in this call's arguments.
Kernel &Kernel::unroll(const std::string &loop, int factor) {
  if (factor < 0 || factor > 64)
    throw ArgumentError("kernel '" + name() + "': unroll('" + loop +
                        "') takes a factor from 1 to 64 (or 0 for loom's choice), not " +
                        std::to_string(factor));
  ir::Schedule schedule = ir().schedule;
  schedule.loops[loop].unroll = factor;
  set_schedule(schedule);
  return *this;
}

Kernel &Kernel::vectorize(const std::string &loop, int width) {
  if (width < 0 || width > 16 || (width & (width - 1)) != 0)
    throw ArgumentError("kernel '" + name() + "': vectorize('" + loop +
                        "') takes a width of 1, 2, 4, 8 or 16 (or 0 for the automatic choice), "
                        "not " +
                        std::to_string(width));
  ir::Schedule schedule = ir().schedule;
  schedule.loops[loop].vectorize = width;
  set_schedule(schedule);
  return *this;
}

void Kernel::set_schedule(ir::Schedule schedule) {
  std::erase_if(schedule.loops,
                [](const auto &entry) { return entry.second == ir::LoopSchedule(); });
  if (std::string problem = ir::remap_problem(ir().schedule.mapping, schedule.mapping);
      !problem.empty())
    throw ArgumentError("kernel '" + name() + "': " + problem);
  if (std::string problem = ir::schedule_problem(schedule, state_->kernel); !problem.empty())
    throw ArgumentError(problem);
  set_code_option(*state_, &ir::Kernel::schedule, schedule);
}

Kernel &Kernel::block_per_iteration(int threads) {
  ir::Schedule schedule = ir::with_block_per_iteration(ir().schedule, threads);
  schedule.autotune = false;
  set_schedule(schedule);
  return *this;
}

Kernel &Kernel::autotune(bool on) {
  ir::Schedule schedule = ir().schedule;
  if (on && schedule.mapping != ir::Mapping::Parallel && schedule.mapping != ir::Mapping::Tile)
    throw ArgumentError("kernel '" + name() +
                        "': autotune chooses a tile schedule, which does not combine with " +
                        ir::mapping_name(schedule.mapping));
  if (on == schedule.autotune)
    return *this;
  if (!on)
    schedule = ir::with_tile(schedule, {}); // back to the default mapping
  schedule.autotune = on;
  set_schedule(schedule); // forgets the tunings with the code
  return *this;
}

Kernel &Kernel::schedule(ScheduleChoice choice) {
  ir::Schedule schedule = ir().schedule;
  if (schedule.mapping != ir::Mapping::Simt)
    schedule = ir::with_tile(ir::with_block_per_iteration(schedule, 0), {});
  schedule.automatic = choice.automatic;
  schedule.autotune = false;
  set_schedule(schedule);
  return *this;
}

Kernel &Kernel::fast_math(bool on) {
  set_code_option(*state_, &ir::Kernel::fast_math, on);
  return *this;
}

Kernel &Kernel::allow_tf32(bool on) {
  set_code_option(*state_, &ir::Kernel::tf32, on);
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
  if (state_->kernel.simt() && !state_->shape)
    throw ArgumentError("kernel '" + name() +
                        "' is a SIMT kernel and has no launch shape: call shape(grid, block) "
                        "before calling it");
  // The dynamic shared array's size (the limit of where it runs: CpuCall, GpuCall).
  ir::dynamic_shared_extent(state_->kernel.name, state_->kernel.shared,
                            state_->shape ? state_->shape->dynamic_shared_bytes : 0);
  for (size_t p = 0; stream && p < args.size(); ++p)
    if (args[p].kind == Argument::Kind::HostArray)
      throw ArgumentError("argument " + std::to_string(p + 1) + " ('" +
                          state_->kernel.params[p].name + "') of kernel '" + name() +
                          "' is a host array; an asynchronous launch takes device arrays "
                          "(loom::DeviceArray), as copying a host array would wait");
  if (state_->split) {
    if (stream)
      throw ArgumentError("kernel '" + name() + "' is split over " +
                          state_->split->devices.to_string() +
                          ": its calls are synchronous (launch_async takes one device's kernel)");
    run_split(*state_, args, values);
    return;
  }
  if (!state_->target)
    state_->target = choose_target();
  if (state_->target->target != ir::Target::GPU) {
    if (state_->kernel.schedule.autotune)
      loom::autotune(*state_, args, ir::Target::CPU, 0, -1, "CPU " + codegen::host_cpu_name(),
                     [&](std::span<const Argument> trial) {
                       run_on_cpu(views_state(*state_, trial, values), trial, values);
                     });
    run_on_cpu(views_state(*state_, args, values), args, values);
    return;
  }
  const int device = call_device(*state_);
  check_devices(*state_, args, device, stream);
  runtime::DeviceScope scope(device); // the call's GPU work goes to its device
  state_->last_device = device;
  if (state_->kernel.schedule.autotune) {
    const runtime::Device gpu(device);
    const std::string sm = resolve_variant(*state_, {}).sm;
    loom::autotune(*state_, args, ir::Target::GPU, sm_number(sm), device, gpu.name() + " " + sm,
                   [&](std::span<const Argument> trial) {
                     run_on_gpu(views_state(state_->on_device(device), trial, values), trial,
                                values, nullptr);
                   });
  }
  run_on_gpu(views_state(state_->on_device(device), args, values), args, values, stream);
}

void Kernel::compile() {
  std::lock_guard<std::mutex> lock(state_->mutex);
  if (!state_->target)
    state_->target = choose_target();
  if (state_->target->target == ir::Target::GPU) {
    const int device = call_device(*state_);
    runtime::DeviceScope scope(device);
    KernelState &state = state_->on_device(device);
    state.compiled_gpu(resolve_variant(state, {}));
  } else {
    state_->compiled_cpu();
  }
}

Kernel &Kernel::tiered(bool on) {
  std::lock_guard<std::mutex> lock(state_->mutex);
  state_->for_each_copy([&](KernelState &state) { state.tiered = on; });
  return *this;
}

void Kernel::await_optimized() {
  std::lock_guard<std::mutex> lock(state_->mutex);
  state_->for_each_copy([](KernelState &state) { state.await_optimized_gpu(); });
}

CompileTimes Kernel::compile_times() const {
  std::lock_guard<std::mutex> lock(state_->mutex);
  ir::Target target = state_->target ? state_->target->target : choose_target().target;
  return target == ir::Target::GPU ? state_->of_device(state_->last_device).gpu_times
                                   : state_->cpu_times;
}

std::string Kernel::ir_text() const {
  return ir::to_string(state_->kernel);
}

Variant Kernel::variant(const VariantRequest &request) const {
  std::lock_guard<std::mutex> lock(state_->mutex);
  // For the kernel's own device (its sm), where Kernel::on chose one.
  std::optional<runtime::DeviceScope> scope;
  if (state_->device)
    scope.emplace(*state_->device);
  return resolve_variant(*state_, request);
}

std::string Kernel::lowered(const VariantRequest &request, bool passes) const {
  Variant v = variant(request);
  ir::Kernel k = requested_kernel(state_->kernel, request);
  if (!passes)
    return ir::to_string(lower_variant(k, v));
  std::string out;
  lower_variant(k, v, [&](const std::string &pass, const std::string &text) {
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
  return codegen::emit_llvm(lower_variant(requested_kernel(state_->kernel, request), v), stage,
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
      if (code && code->variant == v && !code->ptx.empty() && request.strided.empty())
        return code->ptx;
  }
  return codegen::emit_ptx(lower_variant(requested_kernel(state_->kernel, request), v),
                           gpu_target_of(v));
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
  state_->drop_copies();
  return *this;
}

Kernel &Kernel::shape(Dim3 grid, Dim3 block, size_t shared_bytes) {
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
  else if (shared_bytes > size_t(std::numeric_limits<int32_t>::max()))
    why = std::to_string(shared_bytes) +
          " bytes of dynamic shared memory is far more than a block may take (" +
          std::to_string(ir::max_cpu_block_shared_bytes) + " on the CPU and an H200)";
  if (!why.empty())
    throw ArgumentError("kernel '" + name() + "': launch shape grid " + text(g) + " x block " +
                        text(b) + ": " + why);
  std::lock_guard<std::mutex> lock(state_->mutex);
  state_->shape = runtime::SimtShape{
      {g[0], g[1], g[2]}, {b[0], b[1], b[2]}, static_cast<int64_t>(shared_bytes)};
  state_->launches.invalidate();
  state_->drop_copies();
  return *this;
}

Kernel &Kernel::automatic_shape() {
  if (state_->kernel.simt())
    throw ArgumentError("kernel '" + name() +
                        "' is a SIMT kernel: its launch shape cannot be chosen automatically");
  std::lock_guard<std::mutex> lock(state_->mutex);
  state_->shape.reset();
  state_->launches.invalidate();
  state_->drop_copies();
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
  if (target != ir::Target::GPU)
    state_->device.reset();
  state_->split.reset();
  state_->drop_copies();
  return *this;
}

Kernel &Kernel::on(const Device &device) {
  std::lock_guard<std::mutex> lock(state_->mutex);
  state_->target =
      TargetChoice{ir::Target::GPU, "Kernel::on(" + device.to_string() + ") was called"};
  state_->device = device.ordinal();
  state_->device_reason = "Kernel::on(loom::Device(" + std::to_string(device.ordinal()) + "))";
  state_->split.reset();
  return *this;
}

Kernel &Kernel::on(const DeviceSet &devices) {
  std::lock_guard<std::mutex> lock(state_->mutex);
  state_->split = std::make_shared<SplitState>(devices);
  return *this;
}

} // namespace loom
