#include "runtime/Stream.h"

#include "runtime/Driver.h"
#include "runtime/GpuContext.h"

#include <utility>

namespace loom::runtime {

Stream::Stream() {
  const Driver &cu = GpuContext::activate();
  cu.check(cu.cuStreamCreate(&stream_, CU_STREAM_NON_BLOCKING), "cuStreamCreate");
}

Stream::~Stream() {
  destroy();
}

Stream::Stream(Stream &&other) noexcept : stream_(std::exchange(other.stream_, nullptr)) {}

Stream &Stream::operator=(Stream &&other) noexcept {
  if (this != &other) {
    destroy();
    stream_ = std::exchange(other.stream_, nullptr);
  }
  return *this;
}

void Stream::destroy() noexcept {
  if (!stream_)
    return;
  try {
    const Driver &cu = GpuContext::activate();
    (void)cu.cuStreamSynchronize(stream_);
    (void)cu.cuStreamDestroy_v2(stream_);
  } catch (...) { // a poisoned context or the driver shutting down: nothing left to free
  }
  stream_ = nullptr;
}

void Stream::synchronize() const {
  const Driver &cu = GpuContext::activate();
  cu.check(cu.cuStreamSynchronize(stream_), "cuStreamSynchronize");
}

Event::Event() {
  const Driver &cu = GpuContext::activate();
  cu.check(cu.cuEventCreate(&event_, CU_EVENT_DEFAULT), "cuEventCreate");
}

Event::~Event() {
  destroy();
}

Event::Event(Event &&other) noexcept : event_(std::exchange(other.event_, nullptr)) {}

Event &Event::operator=(Event &&other) noexcept {
  if (this != &other) {
    destroy();
    event_ = std::exchange(other.event_, nullptr);
  }
  return *this;
}

void Event::destroy() noexcept {
  if (!event_)
    return;
  try {
    const Driver &cu = GpuContext::activate();
    (void)cu.cuEventDestroy_v2(event_);
  } catch (...) {
  }
  event_ = nullptr;
}

void Event::record(const Stream *stream) {
  const Driver &cu = GpuContext::activate();
  cu.check(cu.cuEventRecord(event_, stream ? stream->handle() : nullptr), "cuEventRecord");
}

bool Event::done() const {
  const Driver &cu = GpuContext::activate();
  CUresult result = cu.cuEventQuery(event_);
  if (result == CUDA_ERROR_NOT_READY)
    return false;
  cu.check(result, "cuEventQuery");
  return true;
}

void Event::synchronize() const {
  const Driver &cu = GpuContext::activate();
  cu.check(cu.cuEventSynchronize(event_), "cuEventSynchronize");
}

float Event::elapsed_ms(const Event &start) const {
  synchronize();
  const Driver &cu = GpuContext::activate();
  float milliseconds = 0;
  cu.check(cu.cuEventElapsedTime_v2(&milliseconds, start.event_, event_), "cuEventElapsedTime");
  return milliseconds;
}

} // namespace loom::runtime
