// Streams and events of the process's GPU context, for kernels launched asynchronously
// (Kernel::launch_async): work queued on one stream runs in order, and concurrently with the
// host and with other streams; an event marks a point in a stream to wait for or time to.
#pragma once

#include "runtime/CudaTypes.h"
#include "runtime/DriverHandle.h"

namespace loom::runtime {

// Both are created by their default constructor, which throws loom::TargetError without a usable
// GPU and loom::DriverError if the driver refuses; both move, never copy.
class Stream {
public:
  // A new non-blocking stream (it does not wait for the legacy default stream). When it goes, it
  // waits for its work, then is destroyed (errors are dropped: synchronize() first to see them).
  Stream() = default;

  // Waits until everything queued on the stream has run. A fault inside a kernel (an illegal
  // address, ...) surfaces here as loom::DriverError, and poisons the context.
  void synchronize() const;
  CUstream handle() const { return stream_.get(); }

private:
  struct Kind {
    using Handle = CUstream;
    static CUstream create();
    static void destroy(CUstream stream) noexcept;
  };
  DriverHandle<Kind> stream_;
};

class Event {
public:
  Event() = default;

  // Marks the current end of `stream`'s work (the legacy default stream when null).
  void record(const Stream *stream = nullptr);
  // Whether the work before the recorded point has run (never blocks).
  bool done() const;
  // Waits for the work before the recorded point.
  void synchronize() const;
  // Milliseconds from `start`'s point to this one's; waits for this one.
  float elapsed_ms(const Event &start) const;
  CUevent handle() const { return event_.get(); }

private:
  struct Kind {
    using Handle = CUevent;
    static CUevent create();
    static void destroy(CUevent event) noexcept;
  };
  DriverHandle<Kind> event_;
};

} // namespace loom::runtime

namespace loom {
using runtime::Event;
using runtime::Stream;
} // namespace loom
