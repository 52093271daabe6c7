// Host <-> device copies of large pageable buffers through two pinned (page-locked) staging
// buffers of the process, double-buffered: while the DMA engine moves one chunk, the CPU copies
// the next into (or the last out of) the other buffer. The copies stay blocking and ordered after
// earlier work of the legacy default stream, as cuMemcpyHtoD/DtoH are. copy_host_to_device and
// copy_device_to_host (DeviceBuffer.h) use it for copies of at least `min_bytes`.
#pragma once

#include "runtime/CudaApi.h"

#include <cstddef>

namespace loom::runtime {

namespace staging {
constexpr size_t chunk_bytes = size_t(8) << 20; // each of the two pinned buffers
constexpr size_t min_bytes = size_t(1) << 20;   // below this, one direct copy is as fast

// False when the pinned buffers could not be had (page-locked memory is limited): copies then go
// direct, through the driver's own staging.
bool available();
} // namespace staging

// Blocking copies through the staging buffers; throw loom::DriverError naming the failed call.
// Thread-safe: copies from several threads take turns.
void staged_copy_to_device(CUdeviceptr destination, const void *source, size_t bytes);
void staged_copy_to_host(void *destination, CUdeviceptr source, size_t bytes);

} // namespace loom::runtime
