// Code loaded into the GPU context: PTX, which the driver JIT-compiles for the device at load
// time, or machine code (a cubin from link_ptx in GpuLinker.h), which it loads as is.
#pragma once

#include "runtime/CudaApi.h"

#include <atomic>
#include <string>

namespace loom::runtime {

// One kernel entry point of a loaded module, with what the driver reports about its resources
// (explain() shows them; grid sizing depends on them).
struct GpuFunction {
  CUfunction handle = nullptr;
  std::string name;
  int num_regs = 0;              // registers per thread
  int max_threads_per_block = 0; // the most a launch may use, given those registers
  int static_shared_bytes = 0;   // its __shared__ arrays' (CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES)
  // The dynamic shared memory it has been allowed past the 48 KiB default
  // (CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES); 0: not raised. Only grows, and only
  // through allow_dynamic_shared (runtime/DynamicShared.h), under its lock; read and written
  // there through std::atomic_ref (aligned for it).
  alignas(std::atomic_ref<int>::required_alignment) int dynamic_shared_allowed = 0;
};

class GpuModule {
public:
  // JIT-compiles and loads `ptx`. Throws loom::TargetError without a usable GPU and
  // loom::DriverError when the driver rejects the PTX; that message holds the JIT's error log.
  explicit GpuModule(const std::string &ptx);
  // Loads machine code for this device (a cubin from link_ptx, maybe kept by a cache): no JIT.
  // Throws loom::DriverError when the driver refuses the image (CUDA_ERROR_INVALID_IMAGE, or
  // CUDA_ERROR_NO_BINARY_FOR_GPU for another architecture's).
  static GpuModule from_cubin(const std::string &cubin);
  ~GpuModule();

  GpuModule(GpuModule &&other) noexcept;
  GpuModule &operator=(GpuModule &&other) noexcept;
  GpuModule(const GpuModule &) = delete;
  GpuModule &operator=(const GpuModule &) = delete;

  // The .entry named `name`; throws loom::DriverError (CUDA_ERROR_NOT_FOUND) if there is none.
  GpuFunction function(const std::string &name) const;

  CUmodule handle() const { return module_; }
  int device() const { return device_; } // whose context it is loaded in
  // What the JIT said besides errors (usually empty), for verbose reports.
  const std::string &info_log() const { return info_log_; }

private:
  GpuModule() = default;
  void unload() noexcept;

  CUmodule module_ = nullptr;
  int device_ = 0;
  std::string info_log_;
};

} // namespace loom::runtime
