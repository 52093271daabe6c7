// How a Kernel object gets its code, per target: lower, then the in-memory cache (code this
// process compiled for an identical kernel), then the disk cache, then LLVM. Both caches key on
// the canonical lowered IR with everything else the code depends on (loom/CacheKey.h).
#include "ir/Lower.h"
#include "loom/DiskCache.h"
#include "loom/KernelState.h"
#include "loom/MemoryCache.h"
#include "runtime/GpuContext.h"
#include "runtime/GpuLinker.h"
#include "support/Error.h"
#include "support/Settings.h"

#include <array>
#include <chrono>
#include <cstdio>
#include <map>
#include <mutex>
#include <optional>

namespace loom {

namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

// Runs f, adding its time to *ms.
template <class F> auto timed(double &ms, F &&f) {
  auto start = Clock::now();
  struct Add {
    double &ms;
    Clock::time_point start;
    ~Add() { ms += ms_since(start); }
  } add{ms, start};
  return f();
}

void add_stage_times(CompileTimes &t, const codegen::StageTimes &stages) {
  t.llvm_ir_ms += stages.llvm_ir_ms;
  t.optimize_ms += stages.optimize_ms;
  t.emit_ms += stages.emit_ms;
}

// disk_cache::load, its time split between reading (cache_ms) and `use` (load_ms).
bool load_from_disk(const CacheKey &key, CompileTimes &t,
                    const std::function<void(std::string &&)> &use) {
  double use_ms = 0;
  auto start = Clock::now();
  bool hit = disk_cache::load(
      key, [&](std::string &&payload) { timed(use_ms, [&] { use(std::move(payload)); }); });
  t.cache_ms += ms_since(start) - use_ms;
  t.load_ms += use_ms;
  return hit;
}

// Never destroyed: kernels in static objects may still hold code at exit.
MemoryCache<CompiledCpu> &cpu_memory_cache() {
  static auto *cache = new MemoryCache<CompiledCpu>();
  return *cache;
}
MemoryCache<CompiledGpu> &gpu_memory_cache() {
  static auto *cache = new MemoryCache<CompiledGpu>();
  return *cache;
}

// The code for `key` from the process's memory cache, or `build`'s (which then goes in it).
template <class Compiled, class Build>
std::shared_ptr<Compiled> from_memory_cache(MemoryCache<Compiled> &cache, const CacheKey &key,
                                            CompileTimes &t, Build &&build) {
  bool hit = false;
  auto lookup = Clock::now();
  std::shared_ptr<Compiled> code = cache.get_or_compile(key.digest, build, &hit);
  if (hit) {
    t.source = CodeSource::MemoryCache;
    t.detail = "code this process compiled for an identical kernel";
    t.cache_ms += ms_since(lookup);
  }
  return code;
}

// After a miss, with `key`'s compile lock held: whether another process may have stored the
// entry meanwhile (it held the lock first, or the entry appeared), so that it is worth reading.
// An entry that was there before and was rejected is not read twice.
bool stored_meanwhile(const disk_cache::CompileLock &lock, const CacheKey &key, bool there_before) {
  return lock.waited() || (!there_before && disk_cache::has(key));
}

std::shared_ptr<CompiledCpu> build_cpu(ir::LoweredKernel lowered, const CacheKey &key,
                                       CompileTimes &t) {
  auto c = std::make_shared<CompiledCpu>();
  c->lowered = std::move(lowered);
  for (const ir::Task &task : c->lowered.tasks) {
    c->grains.push_back(cpu_grain(task));
    c->synchronizes.push_back(simt_synchronizes(task));
  }
  auto from_disk = [&] {
    return load_from_disk(key, t, [&](std::string &&object) {
      c->code = codegen::load_cpu_object(object, c->lowered);
    });
  };
  const bool there_before = disk_cache::has(key);
  if (from_disk()) {
    t.source = CodeSource::DiskCache;
    t.detail = "object code from the disk cache";
    return c;
  }
  std::optional<disk_cache::CompileLock> lock(std::in_place, key);
  if (stored_meanwhile(*lock, key, there_before)) {
    // The entry is there: let the next waiter go before loading, so that the waiters load at
    // once rather than one after another.
    lock.reset();
    if (from_disk()) {
      t.source = CodeSource::DiskCache;
      t.detail = "object code from the disk cache, compiled by another process meanwhile";
      return c;
    }
  }
  codegen::StageTimes stages;
  std::string object = codegen::compile_cpu_object(c->lowered, &stages);
  add_stage_times(t, stages);
  timed(t.load_ms, [&] { c->code = codegen::load_cpu_object(object, c->lowered); });
  timed(t.store_ms, [&] { disk_cache::store(key, object); }); // only code that loaded
  t.source = CodeSource::Compiled;
  t.detail = "compiled by LLVM";
  return c;
}

// Machine code this process linked, by cubin key, where the machine has more than one GPU: a
// kernel's first call on a second device of the same sm and driver loads it instead of compiling
// again (the memory cache's code is loaded in one device's context; the disk cache may be off).
class LinkedImages {
public:
  static LinkedImages &get() {
    static auto *images = new LinkedImages(); // never destroyed, as the memory caches
    return *images;
  }
  bool find(const CacheKey &key, std::string &cubin) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto found = images_.find(key.digest);
    if (found == images_.end())
      return false;
    cubin = found->second;
    return true;
  }
  void keep(const CacheKey &key, const std::string &cubin) {
    if (runtime::GpuContext::count() < 2)
      return;
    std::lock_guard<std::mutex> lock(mutex_);
    images_.emplace(key.digest, cubin);
  }

private:
  std::mutex mutex_;
  std::map<std::string, std::string> images_;
};

void find_functions(CompiledGpu &g) {
  g.functions.clear();
  for (const ir::Task &task : g.lowered.tasks)
    g.functions.push_back(g.module->function(task.name));
}

// The code of a lowered kernel: from the disk cache, else compiled (and then stored there). A
// quick compile (Tier::Quick) neither reads nor writes the cache: its code only bridges the time
// until the optimized code is ready.
std::shared_ptr<CompiledGpu> build_gpu(ir::LoweredKernel lowered, const Variant &variant,
                                       const CacheKey &ptx_key, const CacheKey &cubin_key,
                                       CompileTimes &t) {
  auto g = std::make_shared<CompiledGpu>();
  g->lowered = std::move(lowered);
  g->variant = variant;
  runtime::GpuContext::get().make_current();
  const bool quick = variant.tier == Tier::Quick;
  const bool cached = !quick;

  // Machine code from the disk cache: no LLVM, no driver JIT.
  // A refused cubin may leave a module behind: dropped, so that the PTX paths below start clean.
  auto cubin_from_disk = [&] {
    const bool hit = load_from_disk(cubin_key, t, [&](std::string &&cubin) {
      g->module = std::make_unique<runtime::GpuModule>(runtime::GpuModule::from_cubin(cubin));
      find_functions(*g);
      LinkedImages::get().keep(cubin_key, cubin);
    });
    if (!hit)
      g->module.reset();
    return hit;
  };
  if (std::string image; cached && LinkedImages::get().find(cubin_key, image)) {
    timed(t.load_ms, [&] {
      g->module = std::make_unique<runtime::GpuModule>(runtime::GpuModule::from_cubin(image));
      find_functions(*g);
    });
    t.source = CodeSource::MemoryCache;
    t.detail = "machine code this process linked for another GPU of the same sm";
    return g;
  }
  const bool there_before = cached && disk_cache::has(cubin_key);
  if (cached && cubin_from_disk()) {
    t.source = CodeSource::DiskCache;
    t.detail = "machine code (cubin) from the disk cache";
    return g;
  }
  std::optional<disk_cache::CompileLock> lock;
  if (cached)
    lock.emplace(cubin_key);
  if (lock && stored_meanwhile(*lock, cubin_key, there_before)) {
    lock.reset(); // as on the CPU: the waiters load at once
    if (cubin_from_disk()) {
      t.source = CodeSource::DiskCache;
      t.detail = "machine code (cubin) from the disk cache, compiled by another process meanwhile";
      return g;
    }
  }

  bool ptx_cached =
      cached && load_from_disk(ptx_key, t, [&](std::string &&ptx) { g->ptx = std::move(ptx); });
  if (!ptx_cached) {
    codegen::StageTimes stages;
    g->ptx = codegen::emit_ptx(g->lowered, gpu_target_of(variant), &stages);
    add_stage_times(t, stages);
  }
  // Machine code from a linker (nvJitLink or the driver's, runtime/GpuLinker.h), which the disk
  // cache can keep; where the driver cannot link, its JIT loads the PTX (and reports what is
  // wrong with it, if anything). nvJitLink's own failures throw only when LOOM_PTX_LINKER forced
  // it.
  std::string cubin, linked_by;
  try {
    cubin = timed(t.link_ms, [&] {
      return runtime::link_ptx(g->ptx, g->lowered.name, runtime::ptx_linker_mode(), &linked_by);
    });
    timed(t.load_ms, [&] {
      g->module = std::make_unique<runtime::GpuModule>(runtime::GpuModule::from_cubin(cubin));
    });
  } catch (const DriverError &) {
    cubin.clear();
  }
  if (!g->module)
    timed(t.load_ms, [&] { g->module = std::make_unique<runtime::GpuModule>(g->ptx); });
  find_functions(*g);
  if (cached && !cubin.empty())
    LinkedImages::get().keep(cubin_key, cubin);
  timed(t.store_ms, [&] {
    if (cached && !ptx_cached)
      disk_cache::store(ptx_key, g->ptx);
    if (cached && !cubin.empty())
      disk_cache::store(cubin_key, cubin);
  });
  t.source = ptx_cached ? CodeSource::DiskCache : CodeSource::Compiled;
  t.detail = std::string(ptx_cached ? "PTX from the disk cache"
                         : quick    ? "quick code compiled by LLVM"
                                    : "compiled by LLVM") +
             (cubin.empty() ? ", JIT-compiled by the driver when loaded"
                            : ", linked to machine code by " + linked_by);
  return g;
}

} // namespace

const codegen::GpuTarget &gpu_target_for_this_machine() {
  // Once per device, like the context it reads (every call resolves its variant against it):
  // the calling thread's device (a call's, in its DeviceScope), or sm_90 without a usable GPU.
  constexpr int slots = 65; // 64 devices (GpuContext's limit), then "no GPU"
  struct Slot {
    std::once_flag once;
    codegen::GpuTarget target;
  };
  static auto *targets = new std::array<Slot, slots>(); // never destroyed, as the contexts
  const int device = runtime::GpuContext::usable() ? runtime::current_device() : -1;
  Slot &slot = (*targets)[device >= 0 && device < slots - 1 ? device : slots - 1];
  std::call_once(slot.once, [&] {
    codegen::GpuTarget &t = slot.target;
    if (device >= 0) {
      const runtime::DeviceInfo &d = runtime::GpuContext::get(device).info();
      t.sm = codegen::sm_for_compute_capability(d.cc_major, d.cc_minor);
      t.ptx_version = std::min(codegen::ptx_version_for_driver(d.driver_version),
                               codegen::max_llvm_ptx_version());
    } else {
      t.ptx_version = codegen::max_llvm_ptx_version();
    }
  });
  return slot.target;
}

bool index32_allowed() {
  return settings::index_bits() == 32;
}

bool covering_allowed() {
  return !settings::grid_stride();
}

bool covering_launch_possible(const KernelState &state) {
  // Kernel::shape chooses the launch itself, and so does a launch policy, unless it leaves the
  // grid uncapped (one iteration per thread, whatever the block).
  const runtime::LaunchPolicy &policy = state.launch_policy;
  return !state.shape && (policy.max_waves == 0 ||
                          (policy.block[0] == 0 && policy.max_waves == runtime::max_grid_waves));
}

namespace {

// The optimized code of a tiered kernel, compiled on a thread of its own for the memory cache's
// entry `claim` (other Kernel objects of the same kernel wait for it there), and stored in the
// disk cache.
OptimizedGpu optimize_in_background(std::shared_ptr<MemoryCache<CompiledGpu>::Claim> claim,
                                    ir::LoweredKernel lowered, const Variant &variant,
                                    const CacheKey &ptx_key, const CacheKey &cubin_key,
                                    int device) {
  runtime::DeviceScope scope(device); // the code is loaded on the device of the call
  OptimizedGpu result;
  auto start = Clock::now();
  try {
    result.code = build_gpu(std::move(lowered), variant, ptx_key, cubin_key, result.times);
    claim->fulfil(result.code);
    result.times.detail =
        "optimized code, made in the background while quick code ran: " + result.times.detail;
  } catch (const std::exception &e) {
    result.error = e.what();
    claim->fail(std::current_exception());
  } catch (...) {
    result.error = "an exception that is not a std::exception";
    claim->fail(std::current_exception());
  }
  result.times.total_ms = ms_since(start);
  return result;
}

} // namespace

Tiering tiering() {
  return settings::tiered();
}

void KernelState::adopt_optimized_gpu(int variant) {
  OptimizedGpu result = optimizing[variant].get();
  optimizing[variant] = {};
  if (!result.code) {
    gpu_times.detail += "; it keeps this code, as its optimized compile failed: " + result.error;
    return;
  }
  if (gpu == gpu_variants[variant])
    gpu = result.code;
  gpu_variants[variant] = std::move(result.code);
  gpu_times = std::move(result.times);
}

void KernelState::await_optimized_gpu() {
  for (int variant = 0; variant < static_cast<int>(optimizing.size()); ++variant)
    if (optimizing[variant].valid())
      adopt_optimized_gpu(variant);
}

CompiledGpu &KernelState::compiled_gpu(const Variant &variant) {
  if (variant.target != Target::GPU || variant.tier != Tier::Optimized)
    throw Error("internal error: compiled_gpu of " + variant.to_string());
  const int slot = (variant.index32 ? 1 : 0) + (variant.covering ? 2 : 0);
  std::shared_ptr<CompiledGpu> &code = gpu_variants[slot];
  if (code && code->variant.sm != variant.sm)
    throw Error("internal error: compiled_gpu of " + variant.to_string() + " where the code is " +
                code->variant.to_string());
  if (optimizing[slot].valid() &&
      optimizing[slot].wait_for(std::chrono::seconds(0)) == std::future_status::ready)
    adopt_optimized_gpu(slot);
  if (!code) {
    auto start = Clock::now();
    CompileTimes t;
    ir::LoweredKernel lowered = timed(t.lower_ms, [&] { return lower_variant(kernel, variant); });
    const codegen::GpuTarget target = gpu_target_of(variant);
    const runtime::DeviceInfo &device = runtime::GpuContext::get().info();
    CacheKey ptx_key = timed(t.key_ms, [&] { return gpu_ptx_key(lowered, target); });
    CacheKey cubin_key = timed(
        t.key_ms, [&] { return gpu_cubin_key(ptx_key, device, runtime::ptx_linker_identity()); });
    // A tiered kernel in neither cache claims the memory cache's entry (so that other Kernel
    // objects of the kernel wait for its optimized code instead of compiling their own).
    const bool quick_only = tiering() == Tiering::QuickOnly;
    std::unique_ptr<MemoryCache<CompiledGpu>::Claim> claim;
    if (tiered && !quick_only && !disk_cache::has(cubin_key) && !disk_cache::has(ptx_key))
      claim = gpu_memory_cache().claim(cubin_key.digest + "@gpu" +
                                       std::to_string(runtime::current_device()));
    if (quick_only || claim) {
      // Quick code now, the optimized code on another thread (started first, so that it is
      // ready sooner). Should the quick compile fail, the optimized code is waited for.
      if (claim) {
        std::shared_ptr<MemoryCache<CompiledGpu>::Claim> shared = std::move(claim);
        try {
          optimizing[slot] = std::async(std::launch::async, optimize_in_background, shared, lowered,
                                        variant, ptx_key, cubin_key, runtime::current_device())
                                 .share();
        } catch (...) { // no thread: the claim is given up, as by a failed compile
          shared->fail(std::current_exception());
          throw;
        }
      }
      Variant quick = variant;
      quick.tier = Tier::Quick;
      try {
        // (The keys go unused: quick code is never cached.)
        code = build_gpu(std::move(lowered), quick, ptx_key, cubin_key, t);
        t.detail += quick_only ? "; no optimized code (LOOM_TIERED=quick)"
                               : "; the optimized code compiles in the background";
      } catch (const Error &) {
        if (quick_only || !optimizing[slot].get().code)
          throw;
        adopt_optimized_gpu(slot);
        gpu = code;
        return *gpu;
      }
    } else {
      // The memory cache holds loaded code, which is per device: its key names the device. (The
      // disk cache's does not: devices of one sm and driver share its machine code.)
      CacheKey loaded_key = cubin_key;
      loaded_key.digest += "@gpu" + std::to_string(runtime::current_device());
      code = from_memory_cache(gpu_memory_cache(), loaded_key, t, [&] {
        return build_gpu(std::move(lowered), variant, ptx_key, cubin_key, t);
      });
    }
    t.total_ms = ms_since(start);
    gpu_times = t;
  }
  gpu = code;
  return *gpu;
}

CompiledCpu &KernelState::compiled_cpu() {
  if (!cpu) {
    auto start = Clock::now();
    CompileTimes t;
    ir::LoweredKernel lowered =
        timed(t.lower_ms, [&] { return lower_variant(kernel, Variant{.target = Target::CPU}); });
    CacheKey key = timed(t.key_ms, [&] { return cpu_object_key(lowered); });
    cpu = from_memory_cache(cpu_memory_cache(), key, t,
                            [&] { return build_cpu(std::move(lowered), key, t); });
    t.total_ms = ms_since(start);
    cpu_times = t;
  }
  return *cpu;
}

CacheStats cache_stats() {
  CacheStats stats;
  stats.memory_hits = cpu_memory_cache().hits() + gpu_memory_cache().hits();
  stats.memory_misses = cpu_memory_cache().misses() + gpu_memory_cache().misses();
  disk_cache::add_stats(stats);
  return stats;
}

void reset_cache_stats() {
  cpu_memory_cache().reset_counts();
  gpu_memory_cache().reset_counts();
  disk_cache::reset_stats();
}

void clear_memory_cache() {
  cpu_memory_cache().clear();
  gpu_memory_cache().clear();
}

std::string cache_directory() {
  return disk_cache::directory();
}

const char *code_source_name(CodeSource source) {
  switch (source) {
  case CodeSource::NotCompiled:
    return "not compiled";
  case CodeSource::Compiled:
    return "compiled";
  case CodeSource::DiskCache:
    return "disk cache";
  case CodeSource::MemoryCache:
    return "memory cache";
  }
  return "?";
}

} // namespace loom
