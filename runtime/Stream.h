// Streams and events of a GPU's context, for kernels launched asynchronously
// (Kernel::launch_async): work queued on one stream runs in order, and concurrently with the
// host and with other streams; an event marks a point in a stream to wait for or time to.
#pragma once

#include "runtime/CudaTypes.h"
#include "runtime/Device.h"
#include "runtime/DriverHandle.h"

namespace loom::runtime {

// Both belong to one device: the one their constructor names, else the calling thread's (the
// default device, LOOM_DEVICE's or 0, unless a kernel call is running). Constructors throw
// loom::TargetError without a usable GPU and loom::DriverError if the driver refuses; both move,
// never copy.
class Stream {
public:
  // A new non-blocking stream (it does not wait for the legacy default stream). When it goes, it
  // waits for its work, then is destroyed (errors are dropped: synchronize() first to see them).
  Stream() = default;
  explicit Stream(const Device &device) : stream_(device.ordinal()) {}

  // Waits until everything queued on the stream has run. A fault inside a kernel (an illegal
  // address, ...) surfaces here as loom::DriverError, and poisons the context.
  void synchronize() const;
  // The driver's handle, for CUDA libraries and CUDA-aware MPI that take one.
  CUstream handle() const { return stream_.get(); }
  int device() const { return stream_.device(); }

private:
  struct Kind {
    using Handle = CUstream;
    static CUstream create(int device);
    static void destroy(CUstream stream, int device) noexcept;
  };
  DriverHandle<Kind> stream_;
};

class Event {
public:
  Event() = default;
  explicit Event(const Device &device) : event_(device.ordinal()) {}

  // Marks the current end of `stream`'s work (the legacy default stream when null); a stream of
  // another device is an ArgumentError.
  void record(const Stream *stream = nullptr);
  // Whether the work before the recorded point has run (never blocks).
  bool done() const;
  // Waits for the work before the recorded point.
  void synchronize() const;
  // Milliseconds from `start`'s point to this one's; waits for this one.
  float elapsed_ms(const Event &start) const;
  CUevent handle() const { return event_.get(); }
  int device() const { return event_.device(); }

private:
  struct Kind {
    using Handle = CUevent;
    static CUevent create(int device);
    static void destroy(CUevent event, int device) noexcept;
  };
  DriverHandle<Kind> event_;
};

} // namespace loom::runtime

namespace loom {
using runtime::Event;
using runtime::Stream;
} // namespace loom
