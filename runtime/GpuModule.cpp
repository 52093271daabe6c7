#include "runtime/GpuModule.h"

#include "runtime/Driver.h"
#include "runtime/GpuContext.h"

#include <cstdint>
#include <cstring>
#include <utility>
#include <vector>

namespace loom::runtime {

namespace {

// Room for the JIT's logs; ptxas stops writing at the size given, so a longer log is cut, not lost
// in a crash.
constexpr size_t log_capacity = 16 * 1024;

// The log text the JIT wrote: it reports the bytes used (including the terminating NUL) in place of
// the size option's value.
std::string log_text(const std::vector<char> &buffer, void *reported_size) {
  size_t used = reinterpret_cast<uintptr_t>(reported_size);
  if (used > buffer.size())
    used = buffer.size();
  std::string text(buffer.data(), strnlen(buffer.data(), used));
  while (!text.empty() && (text.back() == '\n' || text.back() == '\0'))
    text.pop_back();
  return text;
}

} // namespace

GpuModule::GpuModule(const std::string &ptx) {
  const Driver &cu = GpuContext::activate();
  std::vector<char> error_log(log_capacity, '\0'), info_log(log_capacity, '\0');
  CUjit_option options[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
                            CU_JIT_INFO_LOG_BUFFER, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES};
  // Option values are passed in pointer-sized slots; sizes go in as integers, not addresses.
  void *values[] = {error_log.data(), reinterpret_cast<void *>(uintptr_t{log_capacity}),
                    info_log.data(), reinterpret_cast<void *>(uintptr_t{log_capacity})};
  CUmodule module = nullptr;
  CUresult result = cu.cuModuleLoadDataEx(&module, ptx.c_str(), 4, options, values);
  if (result != CUDA_SUCCESS) {
    std::string errors = log_text(error_log, values[1]);
    cu.fail(result, "cuModuleLoadDataEx", errors.empty() ? "" : "\nJIT error log:\n" + errors);
  }
  module_ = module;
  info_log_ = log_text(info_log, values[3]);
}

GpuModule::~GpuModule() {
  unload();
}

void GpuModule::unload() noexcept {
  if (!module_)
    return;
  try { // as for device memory: nothing can be reported from here, and exit may have torn CUDA down
    const Driver &cu = GpuContext::activate();
    (void)cu.cuModuleUnload(module_);
  } catch (...) {
  }
  module_ = nullptr;
}

GpuModule::GpuModule(GpuModule &&other) noexcept
    : module_(std::exchange(other.module_, nullptr)), info_log_(std::move(other.info_log_)) {}

GpuModule &GpuModule::operator=(GpuModule &&other) noexcept {
  if (this != &other) {
    unload();
    module_ = std::exchange(other.module_, nullptr);
    info_log_ = std::move(other.info_log_);
  }
  return *this;
}

GpuFunction GpuModule::function(const std::string &name) const {
  const Driver &cu = GpuContext::activate();
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
  return function;
}

} // namespace loom::runtime
