#include "runtime/DeviceBuffer.h"

#include "runtime/Driver.h"
#include "runtime/GpuContext.h"
#include "runtime/PinnedStaging.h"
#include "support/Error.h"

#include <cstdio>
#include <utility>

namespace loom::runtime {

std::string format_bytes(uint64_t bytes) {
  static const char *const units[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  if (bytes < 1024)
    return std::to_string(bytes) + (bytes == 1 ? " byte" : " bytes");
  double value = static_cast<double>(bytes) / 1024;
  int unit = 0;
  while (value >= 1024 && unit < 5) {
    value /= 1024;
    ++unit;
  }
  char text[32];
  std::snprintf(text, sizeof(text), "%.2f %s", value, units[unit]);
  return text;
}

DeviceBuffer::DeviceBuffer(size_t bytes) : DeviceBuffer(bytes, current_device()) {}

DeviceBuffer::DeviceBuffer(size_t bytes, int device) : device_(device) {
  if (bytes == 0)
    return;
  const Driver &cu = GpuContext::activate(device);
  CUdeviceptr pointer = 0;
  CUresult result = cu.cuMemAlloc_v2(&pointer, bytes);
  if (result == CUDA_ERROR_OUT_OF_MEMORY) {
    // Say how far off the request is: a size bug (8 TiB) reads differently from a near miss.
    std::string detail = ": out of device memory: asked for " + format_bytes(bytes) + " (" +
                         std::to_string(bytes) + " bytes)";
    size_t free_bytes = 0, total_bytes = 0;
    if (cu.cuMemGetInfo_v2(&free_bytes, &total_bytes) == CUDA_SUCCESS)
      detail += ", " + format_bytes(free_bytes) + " free of " + format_bytes(total_bytes);
    if (GpuContext::count() > 1)
      detail += " on GPU " + std::to_string(device);
    std::string message = "cuMemAlloc_v2 failed" + detail;
    throw OutOfMemoryError("cuMemAlloc_v2", result, cu.error_name(result), message);
  }
  cu.check(result, "cuMemAlloc_v2");
  pointer_ = pointer;
  bytes_ = bytes;
}

DeviceBuffer::~DeviceBuffer() {
  release();
}

void DeviceBuffer::release() noexcept {
  if (!pointer_)
    return;
  // Errors are dropped: a destructor cannot report them, and the usual one (the driver shutting
  // down at exit, or a context already broken by a faulting kernel) leaves nothing to free.
  try {
    const Driver &cu = GpuContext::activate(device_);
    (void)cu.cuMemFree_v2(pointer_);
  } catch (...) {
  }
  pointer_ = 0;
  bytes_ = 0;
}

DeviceBuffer::DeviceBuffer(DeviceBuffer &&other) noexcept
    : pointer_(std::exchange(other.pointer_, 0)), bytes_(std::exchange(other.bytes_, 0)),
      device_(other.device_) {}

DeviceBuffer &DeviceBuffer::operator=(DeviceBuffer &&other) noexcept {
  if (this != &other) {
    release();
    pointer_ = std::exchange(other.pointer_, 0);
    bytes_ = std::exchange(other.bytes_, 0);
    device_ = other.device_;
  }
  return *this;
}

namespace {

void check_copy_size(const char *what, size_t asked, size_t held) {
  if (asked > held)
    throw ArgumentError(std::string(what) + ": " + std::to_string(asked) +
                        " bytes asked for, but the device buffer holds " + std::to_string(held));
}

} // namespace

void DeviceBuffer::copy_from_host(const void *source, size_t bytes) {
  check_copy_size("DeviceBuffer::copy_from_host", bytes, bytes_);
  DeviceScope scope(device_);
  copy_host_to_device(pointer_, source, bytes);
}

void DeviceBuffer::copy_to_host(void *destination, size_t bytes) const {
  check_copy_size("DeviceBuffer::copy_to_host", bytes, bytes_);
  DeviceScope scope(device_);
  copy_device_to_host(destination, pointer_, bytes);
}

void copy_host_to_device(CUdeviceptr destination, const void *source, size_t bytes) {
  if (bytes == 0)
    return;
  if (bytes >= staging::min_bytes)
    return staged_copy_to_device(destination, source, bytes);
  const Driver &cu = GpuContext::activate();
  cu.check(cu.cuMemcpyHtoD_v2(destination, source, bytes), "cuMemcpyHtoD_v2");
}

void copy_device_to_host(void *destination, CUdeviceptr source, size_t bytes) {
  if (bytes == 0)
    return;
  const Driver &cu = GpuContext::activate();
  cu.check(cu.cuMemcpyDtoH_v2(destination, source, bytes), "cuMemcpyDtoH_v2");
}

} // namespace loom::runtime
