#include "runtime/DynamicShared.h"

#include "ir/DynamicShared.h"
#include "runtime/Device.h"
#include "runtime/Driver.h"
#include "runtime/GpuContext.h"
#include "runtime/GpuModule.h"

#include <atomic>
#include <mutex>

namespace loom::runtime {

namespace {
// What every kernel may take without opting in, static and dynamic together.
constexpr int64_t default_block_shared_bytes = 48 * 1024;
// Serialises the raising of GpuFunction::dynamic_shared_allowed: a function's code is shared by
// the Kernel objects of one cache key, which call it from any thread. The allowance only grows,
// so a launch that found it large enough stays allowed whatever another thread sets after, and
// a call that finds it so (every call after the first) reads it atomically without the lock.
std::mutex allowance_mutex;
} // namespace

void allow_dynamic_shared(GpuFunction &function, int64_t bytes, const DeviceInfo &device,
                          const std::string &kernel) {
  if (function.static_shared_bytes + bytes > device.max_shared_per_block_optin) // throws
    ir::check_block_shared_bytes(
        kernel, function.static_shared_bytes, bytes, device.max_shared_per_block_optin,
        "GPU " + std::to_string(device.ordinal) + " (" + device.name + ")");
  if (function.static_shared_bytes + bytes <= default_block_shared_bytes)
    return;
  std::atomic_ref<int> allowed(function.dynamic_shared_allowed);
  if (bytes <= allowed.load(std::memory_order_acquire))
    return;
  std::lock_guard<std::mutex> lock(allowance_mutex);
  if (bytes <= allowed.load(std::memory_order_relaxed))
    return;
  const Driver &cu = GpuContext::activate();
  cu.check(cu.cuFuncSetAttribute(function.handle, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                 static_cast<int>(bytes)),
           ("cuFuncSetAttribute(" + function.name +
            ", CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, " + std::to_string(bytes) + ")")
               .c_str());
  allowed.store(static_cast<int>(bytes), std::memory_order_release);
}

} // namespace loom::runtime
