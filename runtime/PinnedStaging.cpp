#include "runtime/PinnedStaging.h"

#include "runtime/Driver.h"
#include "runtime/GpuContext.h"

#include <algorithm>
#include <cstring>
#include <mutex>

namespace loom::runtime {

namespace {

// The process's two staging buffers, their completion events and the stream the copies run on
// (blocking: it waits for earlier work of the legacy default stream, as a plain cuMemcpy does).
// Created on first use, never freed (like the context, objects destroyed at exit may use them).
struct Staging {
  std::mutex mutex;
  bool ok = false;
  void *buffer[2] = {nullptr, nullptr};
  CUevent done[2] = {nullptr, nullptr};
  bool pending[2] = {false, false};
  CUstream stream = nullptr;

  static Staging &get() {
    static Staging *staging = [] {
      auto *s = new Staging();
      const Driver &cu = GpuContext::activate();
      bool ok = cu.cuStreamCreate(&s->stream, CU_STREAM_DEFAULT) == CUDA_SUCCESS;
      for (int k = 0; ok && k < 2; ++k)
        ok = cu.cuMemAllocHost_v2(&s->buffer[k], staging::chunk_bytes) == CUDA_SUCCESS &&
             cu.cuEventCreate(&s->done[k], CU_EVENT_DEFAULT) == CUDA_SUCCESS;
      s->ok = ok; // else: direct copies (whatever was created stays unused)
      return s;
    }();
    return *staging;
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
  return Staging::get().ok;
}

void staged_copy_to_device(CUdeviceptr destination, const void *source, size_t bytes) {
  const Driver &cu = GpuContext::activate();
  Staging &s = Staging::get();
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

void staged_copy_to_host(void *destination, CUdeviceptr source, size_t bytes) {
  const Driver &cu = GpuContext::activate();
  Staging &s = Staging::get();
  std::lock_guard<std::mutex> lock(s.mutex);
  if (!s.ok) {
    cu.check(cu.cuMemcpyDtoH_v2(destination, source, bytes), "cuMemcpyDtoH_v2");
    return;
  }
  auto *to = static_cast<unsigned char *>(destination);
  auto issue = [&](size_t offset, int k) {
    size_t n = std::min(staging::chunk_bytes, bytes - offset);
    cu.check(cu.cuMemcpyDtoHAsync_v2(s.buffer[k], source + offset, n, s.stream),
             "cuMemcpyDtoHAsync_v2");
    s.issued(cu, k);
  };
  // Chunk c goes through buffer c % 2: the next chunk is on its way while this one is copied out.
  issue(0, 0);
  int k = 0;
  for (size_t offset = 0; offset < bytes; offset += staging::chunk_bytes, k ^= 1) {
    if (offset + staging::chunk_bytes < bytes)
      issue(offset + staging::chunk_bytes, k ^ 1);
    s.wait(cu, k);
    std::memcpy(to + offset, s.buffer[k], std::min(staging::chunk_bytes, bytes - offset));
  }
}

} // namespace loom::runtime
