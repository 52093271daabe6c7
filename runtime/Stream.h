// Streams and events of the process's GPU context, for kernels launched asynchronously
// (Kernel::launch_async): work queued on one stream runs in order, and concurrently with the
// host and with other streams; an event marks a point in a stream to wait for or time to.
#pragma once

#include "runtime/CudaTypes.h"

namespace loom::runtime {

class Stream {
public:
  // A new non-blocking stream (it does not wait for the legacy default stream). Throws
  // loom::TargetError without a usable GPU, loom::DriverError if the driver refuses.
  Stream();
  // Waits for the stream's work, then destroys it (errors are dropped: a destructor cannot
  // report them; synchronize() first to see them).
  ~Stream();
  Stream(Stream &&other) noexcept;
  Stream &operator=(Stream &&other) noexcept;
  Stream(const Stream &) = delete;
  Stream &operator=(const Stream &) = delete;

  // Waits until everything queued on the stream has run. A fault inside a kernel (an illegal
  // address, ...) surfaces here as loom::DriverError, and poisons the context.
  void synchronize() const;
  CUstream handle() const { return stream_; }

private:
  void destroy() noexcept;
  CUstream stream_ = nullptr;
};

class Event {
public:
  Event(); // throws as Stream() does
  ~Event();
  Event(Event &&other) noexcept;
  Event &operator=(Event &&other) noexcept;
  Event(const Event &) = delete;
  Event &operator=(const Event &) = delete;

  // Marks the current end of `stream`'s work (the legacy default stream when null).
  void record(const Stream *stream = nullptr);
  // Whether the work before the recorded point has run (never blocks).
  bool done() const;
  // Waits for the work before the recorded point.
  void synchronize() const;
  // Milliseconds from `start`'s point to this one's; waits for this one.
  float elapsed_ms(const Event &start) const;
  CUevent handle() const { return event_; }

private:
  void destroy() noexcept;
  CUevent event_ = nullptr;
};

} // namespace loom::runtime

namespace loom {
using runtime::Event;
using runtime::Stream;
} // namespace loom
