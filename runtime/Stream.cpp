#include "runtime/Stream.h"

#include "runtime/Driver.h"
#include "runtime/GpuContext.h"
#include "support/Error.h"

#include <string>

namespace loom::runtime {

CUstream Stream::Kind::create(int device) {
  const Driver &cu = GpuContext::activate(device);
  CUstream stream = nullptr;
  cu.check(cu.cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING), "cuStreamCreate");
  return stream;
}

void Stream::Kind::destroy(CUstream stream, int device) noexcept {
  try {
    const Driver &cu = GpuContext::activate(device);
    (void)cu.cuStreamSynchronize(stream);
    (void)cu.cuStreamDestroy_v2(stream);
  } catch (...) { // a poisoned context or the driver shutting down: nothing left to free
  }
}

void Stream::synchronize() const {
  const Driver &cu = GpuContext::activate(device());
  cu.check(cu.cuStreamSynchronize(handle()), "cuStreamSynchronize");
}

CUevent Event::Kind::create(int device) {
  const Driver &cu = GpuContext::activate(device);
  CUevent event = nullptr;
  cu.check(cu.cuEventCreate(&event, CU_EVENT_DEFAULT), "cuEventCreate");
  return event;
}

void Event::Kind::destroy(CUevent event, int device) noexcept {
  try {
    const Driver &cu = GpuContext::activate(device);
    (void)cu.cuEventDestroy_v2(event);
  } catch (...) { // as for a stream
  }
}

void Event::record(const Stream *stream) {
  if (stream && stream->device() != device())
    throw ArgumentError("Event::record: the event belongs to GPU " + std::to_string(device()) +
                        " and the stream to GPU " + std::to_string(stream->device()) +
                        "; record it on a stream of its own device");
  const Driver &cu = GpuContext::activate(device());
  cu.check(cu.cuEventRecord(handle(), stream ? stream->handle() : nullptr), "cuEventRecord");
}

bool Event::done() const {
  const Driver &cu = GpuContext::activate(device());
  CUresult result = cu.cuEventQuery(handle());
  if (result == CUDA_ERROR_NOT_READY)
    return false;
  cu.check(result, "cuEventQuery");
  return true;
}

void Event::synchronize() const {
  const Driver &cu = GpuContext::activate(device());
  cu.check(cu.cuEventSynchronize(handle()), "cuEventSynchronize");
}

float Event::elapsed_ms(const Event &start) const {
  synchronize();
  const Driver &cu = GpuContext::activate(device());
  float milliseconds = 0;
  cu.check(cu.cuEventElapsedTime_v2(&milliseconds, start.handle(), handle()), "cuEventElapsedTime");
  return milliseconds;
}

} // namespace loom::runtime
