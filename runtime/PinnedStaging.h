// Host -> device copies of large pageable buffers through two pinned (page-locked) staging
// buffers of the process, double-buffered: while the DMA engine moves one chunk, the CPU copies
// the next into the other buffer. The copies stay blocking and ordered after earlier work of the
// legacy default stream, as cuMemcpyHtoD is. copy_host_to_device (DeviceBuffer.h) uses it for
// copies of at least `min_bytes`. Copies to the host go direct: on the H200 the driver's own
// pageable path was faster for them than staging through these buffers, and slower only for
// copies to the device (docs/decisions.md, "Large copies to the device through pinned staging
// buffers").
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

// A blocking copy through the staging buffers; throws loom::DriverError naming the failed call.
// Thread-safe: copies from several threads take turns.
void staged_copy_to_device(CUdeviceptr destination, const void *source, size_t bytes);

} // namespace loom::runtime
