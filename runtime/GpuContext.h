// The GPU loom runs on: device 0 and its primary context, shared with any CUDA runtime-API code in
// the same process (cudart uses the primary context too).
#pragma once

#include "runtime/CudaApi.h"

#include <cstddef>
#include <string>

namespace loom::runtime {

class Driver;

// What loom needs to know about the device to compile for it, size grids and explain its choices.
struct DeviceInfo {
  std::string name; // e.g. "NVIDIA H200"
  int cc_major = 0; // compute capability, e.g. 9.0 for sm_90
  int cc_minor = 0;
  int sm_count = 0;        // streaming multiprocessors
  int driver_version = 0;  // cuDriverGetVersion, e.g. 13000 for CUDA 13.0
  size_t total_memory = 0; // bytes
  int max_threads_per_block = 0;
};

class GpuContext {
public:
  // The process's context on device 0, created on first use (thread-safe). Throws
  // loom::TargetError("no usable GPU: <reason>") when there is none; later calls throw the same.
  static GpuContext &get();
  // Whether get() would succeed; never throws. When not, `reason` (if given) says why, e.g.
  // "cuInit failed: CUDA_ERROR_NO_DEVICE (no CUDA-capable device is detected)".
  static bool usable(std::string *reason = nullptr);
  // get(), then make_current() on the calling thread; returns the driver to call. The one line at
  // the top of every runtime operation that talks to the GPU.
  static const Driver &activate();

  const DeviceInfo &info() const { return info_; }
  CUdevice device() const { return device_; }
  CUcontext context() const { return context_; }
  // Makes the context current on the calling thread (a context is per thread in the driver API, so
  // calls from any thread need this first).
  void make_current() const;

  GpuContext(const GpuContext &) = delete;
  GpuContext &operator=(const GpuContext &) = delete;

private:
  struct Opened; // the outcome of the one attempt to open the context
  static const Opened &opened();
  GpuContext() = default;
  void open(); // throws DriverError

  CUdevice device_ = 0;
  CUcontext context_ = nullptr;
  DeviceInfo info_;
};

} // namespace loom::runtime
