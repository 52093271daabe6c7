// PTX loaded into the GPU context: the driver JIT-compiles it for the device at load time.
#pragma once

#include "runtime/CudaApi.h"

#include <string>

namespace loom::runtime {

// One kernel entry point of a loaded module, with what the driver reports about its resources
// (explain() shows them; grid sizing depends on them).
struct GpuFunction {
  CUfunction handle = nullptr;
  std::string name;
  int num_regs = 0;              // registers per thread
  int max_threads_per_block = 0; // the most a launch may use, given those registers
};

class GpuModule {
public:
  // JIT-compiles and loads `ptx`. Throws loom::TargetError without a usable GPU and
  // loom::DriverError when the driver rejects the PTX; that message holds the JIT's error log.
  explicit GpuModule(const std::string &ptx);
  ~GpuModule();

  GpuModule(GpuModule &&other) noexcept;
  GpuModule &operator=(GpuModule &&other) noexcept;
  GpuModule(const GpuModule &) = delete;
  GpuModule &operator=(const GpuModule &) = delete;

  // The .entry named `name`; throws loom::DriverError (CUDA_ERROR_NOT_FOUND) if there is none.
  GpuFunction function(const std::string &name) const;

  CUmodule handle() const { return module_; }
  // What the JIT said besides errors (usually empty), for verbose reports.
  const std::string &info_log() const { return info_log_; }

private:
  void unload() noexcept;

  CUmodule module_ = nullptr;
  std::string info_log_;
};

} // namespace loom::runtime
