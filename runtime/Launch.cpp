#include "runtime/Launch.h"

#include "runtime/Driver.h"
#include "runtime/GpuContext.h"
#include "runtime/GpuModule.h"
#include "runtime/GridShape.h"

namespace loom::runtime {

void launch(const GpuFunction &function, const GridShape &shape, void **params, CUstream stream) {
  const Driver &cu = GpuContext::activate();
  CUresult result = cu.cuLaunchKernel(function.handle, shape.grid[0], shape.grid[1], shape.grid[2],
                                      shape.block[0], shape.block[1], shape.block[2],
                                      shape.dynamic_shared_bytes, stream, params,
                                      /*extra=*/nullptr);
  if (result != CUDA_SUCCESS)
    cu.fail(result, "cuLaunchKernel(" + function.name + ")",
            " [" + shape.to_string() + ", " + std::to_string(function.num_regs) +
                " registers per thread, at most " + std::to_string(function.max_threads_per_block) +
                " threads per block]");
}

void synchronize(std::string_view after) {
  const Driver &cu = GpuContext::activate();
  CUresult result = cu.cuCtxSynchronize();
  if (result != CUDA_SUCCESS)
    cu.fail(result,
            after.empty() ? "cuCtxSynchronize" : "cuCtxSynchronize after " + std::string(after));
}

void synchronize_stream(CUstream stream, std::string_view after) {
  const Driver &cu = GpuContext::activate();
  CUresult result = cu.cuStreamSynchronize(stream);
  if (result != CUDA_SUCCESS)
    cu.fail(result, after.empty() ? "cuStreamSynchronize"
                                  : "cuStreamSynchronize after " + std::string(after));
}

GpuTimer::GpuTimer() {
  const Driver &cu = GpuContext::activate();
  cu.check(cu.cuEventCreate(&start_, CU_EVENT_DEFAULT), "cuEventCreate");
  CUresult result = cu.cuEventCreate(&stop_, CU_EVENT_DEFAULT);
  if (result != CUDA_SUCCESS) {
    (void)cu.cuEventDestroy_v2(start_);
    cu.fail(result, "cuEventCreate");
  }
}

GpuTimer::~GpuTimer() {
  try {
    const Driver &cu = GpuContext::activate();
    (void)cu.cuEventDestroy_v2(start_);
    (void)cu.cuEventDestroy_v2(stop_);
  } catch (...) {
  }
}

void GpuTimer::start(CUstream stream) {
  const Driver &cu = GpuContext::activate();
  cu.check(cu.cuEventRecord(start_, stream), "cuEventRecord");
}

void GpuTimer::stop(CUstream stream) {
  const Driver &cu = GpuContext::activate();
  cu.check(cu.cuEventRecord(stop_, stream), "cuEventRecord");
}

float GpuTimer::elapsed_ms() const {
  const Driver &cu = GpuContext::activate();
  cu.check(cu.cuEventSynchronize(stop_), "cuEventSynchronize");
  float milliseconds = 0;
  cu.check(cu.cuEventElapsedTime_v2(&milliseconds, start_, stop_), "cuEventElapsedTime");
  return milliseconds;
}

} // namespace loom::runtime
