// An untyped allocation of device memory that frees itself: the storage under DeviceArray and under
// the temporary copies a kernel call makes of host arguments.
#pragma once

#include "runtime/CudaTypes.h"

#include <cstddef>
#include <cstdint>
#include <string>

namespace loom::runtime {

class DeviceBuffer {
public:
  DeviceBuffer() = default; // empty: no memory, no GPU needed
  // Allocates `bytes` (uninitialised) on the calling thread's device (current_device()), or on
  // `device`. Zero bytes makes an empty buffer without touching the driver. Throws
  // loom::TargetError without a usable GPU, and loom::OutOfMemoryError, giving the size asked for
  // and the free memory, when the device cannot hold it.
  explicit DeviceBuffer(size_t bytes);
  DeviceBuffer(size_t bytes, int device);
  ~DeviceBuffer();

  DeviceBuffer(DeviceBuffer &&other) noexcept;
  DeviceBuffer &operator=(DeviceBuffer &&other) noexcept;
  DeviceBuffer(const DeviceBuffer &) = delete;
  DeviceBuffer &operator=(const DeviceBuffer &) = delete;

  // Blocking copies of the first `bytes` bytes; more than bytes() is a loom::ArgumentError.
  void copy_from_host(const void *source, size_t bytes);
  void copy_to_host(void *destination, size_t bytes) const;

  CUdeviceptr ptr() const { return pointer_; }
  size_t bytes() const { return bytes_; }
  int device() const { return device_; } // where it lives (an empty buffer: where it was made)

private:
  void release() noexcept;

  CUdeviceptr pointer_ = 0;
  size_t bytes_ = 0;
  int device_ = 0;
};

// Blocking copies between host memory and any device address of the calling thread's device (a
// DeviceArray's data(), a buffer's ptr() plus an offset). Zero bytes make no driver call; copies of
// 1 MiB or more go through the process's pinned staging buffers (runtime/PinnedStaging.h).
void copy_host_to_device(CUdeviceptr destination, const void *source, size_t bytes);
void copy_device_to_host(void *destination, CUdeviceptr source, size_t bytes);

// "8.00 GiB", "512 bytes": a size as people read it, for messages.
std::string format_bytes(uint64_t bytes);

} // namespace loom::runtime
