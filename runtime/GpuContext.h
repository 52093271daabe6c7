// The GPUs loom runs on: one context per device (the device's primary context, shared with any
// CUDA runtime-API code in the same process, as cudart uses it too), opened on first use, and the
// device each thread's GPU work goes to.
#pragma once

#include "runtime/CudaApi.h"
#include "runtime/Device.h"

#include <string>

namespace loom::runtime {

class Driver;

class GpuContext {
public:
  // How many devices the driver reports (0 without a usable driver); never throws.
  static int count();
  // The context of device `ordinal`, opened on its first use (thread-safe). Throws
  // loom::TargetError("no usable GPU: <reason>") when the driver is unusable, ArgumentError when
  // there is no device `ordinal` (naming those there are), and TargetError when the device could
  // not be opened (later calls throw the same).
  static GpuContext &get(int ordinal);
  // The context of the calling thread's device (current_device()).
  static GpuContext &get();
  // Whether get() of the default device (default_device()) would succeed; never throws. When
  // not, `reason` (if given) says why, e.g. "cuInit failed: CUDA_ERROR_NO_DEVICE (no
  // CUDA-capable device is detected)" or "LOOM_DEVICE=3, but ...".
  static bool usable(std::string *reason = nullptr);
  // get(ordinal) (or get()), then make_current() on the calling thread; returns the driver to
  // call. The one line at the top of every runtime operation that talks to the GPU.
  static const Driver &activate(int ordinal);
  static const Driver &activate();
  // The bytes of every GPU's print() buffer (the driver's printf FIFO): set now on the contexts
  // open, and on the others when they open. ArgumentError for 0.
  static void set_print_buffer(size_t bytes);

  int ordinal() const { return info_.ordinal; }
  const DeviceInfo &info() const { return info_; }
  CUdevice device() const { return device_; }
  CUcontext context() const { return context_; }
  // Makes the context current on the calling thread (a context is per thread in the driver API, so
  // calls from any thread need this first).
  void make_current() const;

  GpuContext(const GpuContext &) = delete;
  GpuContext &operator=(const GpuContext &) = delete;

private:
  struct Opened; // the outcome of the one attempt to open a device's context
  static const Opened &opened(int ordinal);
  static Opened *slots(); // one per ordinal
  GpuContext() = default;
  void open(int ordinal); // throws DriverError

  CUdevice device_ = 0;
  CUcontext context_ = nullptr;
  DeviceInfo info_;
};

} // namespace loom::runtime
