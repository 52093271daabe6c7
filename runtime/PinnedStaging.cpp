#include "runtime/PinnedStaging.h"

#include "runtime/Driver.h"
#include "runtime/GpuContext.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>

namespace loom::runtime {

namespace {

// Each device's two staging buffers, their completion events and the stream the copies run on
// (blocking: it waits for earlier work of the legacy default stream, as a plain cuMemcpy does).
// Created on a device's first staged copy; the pinned buffers are freed at exit
// (compute-sanitizer's leak check counts them otherwise), after which copies go direct.
struct Staging {
  std::mutex mutex;
  bool ok = false;
  int device = 0;
  void *buffer[2] = {nullptr, nullptr};
  CUevent done[2] = {nullptr, nullptr};
  bool pending[2] = {false, false};
  CUstream stream = nullptr;

  // Never destroyed: copies may run while other static objects are destroyed at exit.
  static std::mutex &registry_mutex() {
    static auto *m = new std::mutex();
    return *m;
  }
  static std::map<int, Staging *> &registry() {
    static auto *r = new std::map<int, Staging *>();
    return *r;
  }

  static Staging &get(int device) {
    std::lock_guard<std::mutex> lock(registry_mutex());
    Staging *&slot = registry()[device];
    if (!slot) {
      if (registry().size() == 1)
        std::atexit([] {
          std::lock_guard<std::mutex> lock(registry_mutex());
          for (auto &[device, staging] : registry())
            staging->release();
        });
      auto *s = new Staging();
      s->device = device;
      const Driver &cu = GpuContext::activate(device);
      bool ok = cu.cuStreamCreate(&s->stream, CU_STREAM_DEFAULT) == CUDA_SUCCESS;
      for (int k = 0; ok && k < 2; ++k)
        ok = cu.cuMemAllocHost_v2(&s->buffer[k], staging::chunk_bytes) == CUDA_SUCCESS &&
             cu.cuEventCreate(&s->done[k], CU_EVENT_DEFAULT) == CUDA_SUCCESS;
      s->ok = ok; // else: direct copies (whatever was created stays unused)
      slot = s;
    }
    return *slot;
  }

  void release() {
    std::lock_guard<std::mutex> lock(mutex);
    if (!ok)
      return;
    ok = false;
    const Driver &cu = Driver::get();
    if (cu.poisoned()) // a context that faulted cannot be asked for anything
      return;
    (void)cu.cuCtxSetCurrent(GpuContext::get(device).context());
    (void)cu.cuStreamSynchronize(stream);
    for (void *b : buffer)
      (void)cu.cuMemFreeHost(b);
  }

  // Waits until buffer k's last copy has finished.
  void wait(const Driver &cu, int k) {
    if (pending[k]) {
      pending[k] = false;
      cu.check(cu.cuEventSynchronize(done[k]), "cuEventSynchronize (staging buffer)");
    }
  }
  void issued(const Driver &cu, int k) {
    cu.check(cu.cuEventRecord(done[k], stream), "cuEventRecord (staging buffer)");
    pending[k] = true;
  }
};

} // namespace

bool staging::available() {
  return Staging::get(current_device()).ok;
}

void staged_copy_to_device(CUdeviceptr destination, const void *source, size_t bytes) {
  const Driver &cu = GpuContext::activate();
  Staging &s = Staging::get(current_device());
  std::lock_guard<std::mutex> lock(s.mutex);
  if (!s.ok) {
    cu.check(cu.cuMemcpyHtoD_v2(destination, source, bytes), "cuMemcpyHtoD_v2");
    return;
  }
  const auto *from = static_cast<const unsigned char *>(source);
  int k = 0;
  for (size_t offset = 0; offset < bytes; offset += staging::chunk_bytes, k ^= 1) {
    size_t n = std::min(staging::chunk_bytes, bytes - offset);
    s.wait(cu, k); // the buffer's previous chunk has reached the device
    std::memcpy(s.buffer[k], from + offset, n);
    cu.check(cu.cuMemcpyHtoDAsync_v2(destination + offset, s.buffer[k], n, s.stream),
             "cuMemcpyHtoDAsync_v2");
    s.issued(cu, k);
  }
  s.pending[0] = s.pending[1] = false;
  cu.check(cu.cuStreamSynchronize(s.stream), "cuStreamSynchronize (staging)");
}

} // namespace loom::runtime
