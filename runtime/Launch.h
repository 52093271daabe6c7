// Launching a loaded kernel, waiting for the GPU, and timing GPU work.
#pragma once

#include "runtime/CudaApi.h"

#include <string>
#include <string_view>

namespace loom::runtime {

struct GpuFunction;
struct GridShape;

// Launches `function` with `shape` (its dynamic shared memory allowed first: DynamicShared.h);
// `params` holds the address of each flattened parameter
// (support/Abi.h). Asynchronous: a fault inside the kernel surfaces at the next synchronize().
// Throws loom::DriverError naming the kernel ("cuLaunchKernel(saxpy_task0) failed: ...").
void launch(const GpuFunction &function, const GridShape &shape, void **params,
            CUstream stream = nullptr);

// Waits for all work in the context; throws loom::DriverError if any of it failed. `after`, when
// given, names the kernel just launched, so an asynchronous fault is attributed in the message.
void synchronize(std::string_view after = {});
// Waits for the work queued on `stream`; throws as synchronize() does, naming the stream.
void synchronize_stream(CUstream stream, std::string_view after = {});

// Elapsed GPU time between two points in a stream, measured with CUDA events (for benchmarks: it
// excludes the host's launch overhead).
class GpuTimer {
public:
  GpuTimer();
  ~GpuTimer();
  GpuTimer(const GpuTimer &) = delete;
  GpuTimer &operator=(const GpuTimer &) = delete;

  void start(CUstream stream = nullptr);
  void stop(CUstream stream = nullptr);
  // Milliseconds between start() and stop(); waits for the stop event to complete.
  float elapsed_ms() const;

private:
  CUevent start_ = nullptr;
  CUevent stop_ = nullptr;
};

} // namespace loom::runtime
