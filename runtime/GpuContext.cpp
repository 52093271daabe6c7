#include "runtime/GpuContext.h"

#include "runtime/Driver.h"
#include "support/Error.h"

namespace loom::runtime {

// Later calls report the first attempt's failure rather than retrying: a failed cuInit or context
// creation does not heal within a process.
struct GpuContext::Opened {
  GpuContext *context = nullptr;
  std::string failure;
};

const GpuContext::Opened &GpuContext::opened() {
  // Never destroyed, like the driver: objects freed after main returns still use the context.
  static const Opened once = [] {
    Opened result;
    const Driver &driver = Driver::get();
    if (!driver.available()) {
      result.failure = driver.unavailable_reason();
      return result;
    }
    auto *context = new GpuContext();
    try {
      context->open();
      result.context = context;
    } catch (const Error &e) {
      delete context;
      result.failure = e.what();
    }
    return result;
  }();
  return once;
}

GpuContext &GpuContext::get() {
  const Opened &result = opened();
  if (!result.context)
    throw TargetError("no usable GPU: " + result.failure);
  return *result.context;
}

bool GpuContext::usable(std::string *reason) {
  const Opened &result = opened();
  if (!result.context && reason)
    *reason = result.failure;
  return result.context != nullptr;
}

const Driver &GpuContext::activate() {
  Driver::get().throw_if_poisoned();
  get().make_current();
  return Driver::get();
}

void GpuContext::make_current() const {
  Driver::get().check(Driver::get().cuCtxSetCurrent(context_), "cuCtxSetCurrent");
}

void GpuContext::open() {
  const Driver &cu = Driver::get();
  cu.check(cu.cuDeviceGet(&device_, 0), "cuDeviceGet");
  // The primary context is the one cudart and other libraries share; retained for the process's
  // lifetime and never released, so nothing loom hands out can outlive it.
  cu.check(cu.cuDevicePrimaryCtxRetain(&context_, device_), "cuDevicePrimaryCtxRetain");
  make_current();

  char name[256] = {};
  cu.check(cu.cuDeviceGetName(name, sizeof(name) - 1, device_), "cuDeviceGetName");
  info_.name = name;
  auto attribute = [&](CUdevice_attribute which) {
    int value = 0;
    cu.check(cu.cuDeviceGetAttribute(&value, which, device_), "cuDeviceGetAttribute");
    return value;
  };
  info_.cc_major = attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
  info_.cc_minor = attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
  info_.sm_count = attribute(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
  info_.max_threads_per_block = attribute(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
  cu.check(cu.cuDriverGetVersion(&info_.driver_version), "cuDriverGetVersion");
  cu.check(cu.cuDeviceTotalMem_v2(&info_.total_memory, device_), "cuDeviceTotalMem_v2");
}

} // namespace loom::runtime
