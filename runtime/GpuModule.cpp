#include "runtime/GpuModule.h"

#include "runtime/Driver.h"
#include "runtime/GpuContext.h"
#include "runtime/JitLog.h"

#include <utility>

namespace loom::runtime {

GpuModule::GpuModule(const std::string &ptx) {
  const Driver &cu = GpuContext::activate();
  JitLogs logs;
  CUmodule module = nullptr;
  CUresult result = cu.cuModuleLoadDataEx(&module, ptx.c_str(), JitLogs::option_count,
                                          logs.options(), logs.values());
  if (result != CUDA_SUCCESS)
    cu.fail(result, "cuModuleLoadDataEx", logs.error_detail());
  module_ = module;
  device_ = current_device();
  info_log_ = logs.info();
}

GpuModule GpuModule::from_cubin(const std::string &cubin) {
  const Driver &cu = GpuContext::activate();
  GpuModule loaded;
  cu.check(cu.cuModuleLoadData(&loaded.module_, cubin.data()), "cuModuleLoadData");
  loaded.device_ = current_device();
  return loaded;
}

GpuModule::~GpuModule() {
  unload();
}

void GpuModule::unload() noexcept {
  if (!module_)
    return;
  try { // as for device memory: nothing can be reported from here, and exit may have torn CUDA down
    const Driver &cu = GpuContext::activate(device_);
    (void)cu.cuModuleUnload(module_);
  } catch (...) {
  }
  module_ = nullptr;
}

GpuModule::GpuModule(GpuModule &&other) noexcept
    : module_(std::exchange(other.module_, nullptr)), device_(other.device_),
      info_log_(std::move(other.info_log_)) {}

GpuModule &GpuModule::operator=(GpuModule &&other) noexcept {
  if (this != &other) {
    unload();
    module_ = std::exchange(other.module_, nullptr);
    device_ = other.device_;
    info_log_ = std::move(other.info_log_);
  }
  return *this;
}

GpuFunction GpuModule::function(const std::string &name) const {
  const Driver &cu = GpuContext::activate(device_);
  GpuFunction function;
  function.name = name;
  std::string call = "cuModuleGetFunction(" + name + ")";
  cu.check(cu.cuModuleGetFunction(&function.handle, module_, name.c_str()), call.c_str());
  std::string attribute_call = "cuFuncGetAttribute(" + name + ")";
  cu.check(cu.cuFuncGetAttribute(&function.num_regs, CU_FUNC_ATTRIBUTE_NUM_REGS, function.handle),
           attribute_call.c_str());
  cu.check(cu.cuFuncGetAttribute(&function.max_threads_per_block,
                                 CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, function.handle),
           attribute_call.c_str());
  cu.check(cu.cuFuncGetAttribute(&function.static_shared_bytes, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES,
                                 function.handle),
           attribute_call.c_str());
  return function;
}

} // namespace loom::runtime
