// Dynamic shared memory on the GPU: a launch may give a block up to 48 KiB (static and dynamic
// together) as it is; more, up to the device's opt-in limit, once the kernel is allowed it
// (cuFuncSetAttribute CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES), as CUDA requires.
#pragma once

#include <cstdint>
#include <string>

namespace loom::runtime {

struct DeviceInfo;
struct GpuFunction;

// Makes `function` (of kernel `kernel`) launchable with `bytes` of dynamic shared memory per
// block on `device`. ArgumentError, naming the limit, past the device's opt-in bytes less the
// function's static shared bytes; above 48 KiB in all, sets the function's attribute (once for
// each larger size; DriverError naming cuFuncSetAttribute when the driver refuses).
void allow_dynamic_shared(GpuFunction &function, int64_t bytes, const DeviceInfo &device,
                          const std::string &kernel);

} // namespace loom::runtime
