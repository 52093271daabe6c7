#include "runtime/LaunchGraph.h"

#include "runtime/Driver.h"
#include "runtime/GpuContext.h"
#include "runtime/GpuModule.h"
#include "runtime/GridShape.h"

#include "support/Settings.h"

#include <cstring>

namespace loom::runtime {

LaunchGraph::~LaunchGraph() {
  release();
}

void LaunchGraph::release() {
  if (!exec_)
    return;
  try {
    const Driver &cu = GpuContext::activate(device_);
    (void)cu.cuGraphExecDestroy(exec_);
  } catch (...) { // a poisoned context or the driver shutting down: nothing left to free
  }
  exec_ = nullptr;
  graph_launches_.clear();
  graph_values_.clear();
}

void LaunchGraph::clear() {
  launches_.clear();
  values_.clear();
}

void LaunchGraph::add(const GpuFunction &function, const GridShape &shape, void *const *params,
                      size_t count, bool waits) {
  Launch l{function.handle, {}, {}, shape.dynamic_shared_bytes, values_.size(), count, waits};
  for (int d = 0; d < 3; ++d)
    l.grid[d] = shape.grid[d], l.block[d] = shape.block[d];
  for (size_t k = 0; k < count; ++k) {
    uint64_t v = 0;
    std::memcpy(&v, params[k], sizeof v); // each packed value sits in an 8-byte slot
    values_.push_back(v);
  }
  launches_.push_back(l);
}

const char *LaunchGraph::record(CUstream s, bool overlap, int *result) {
  const Driver &cu = Driver::get();
  overlapped_ = 0;
  for (size_t i = 0; i < launches_.size(); ++i) {
    const Launch &l = launches_[i];
    void **params = pointers_.data() + l.first;
    if (overlap && i > 0 && l.waits) {
      CUlaunchAttribute attribute{};
      attribute.id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
      attribute.value.programmaticStreamSerializationAllowed = 1;
      const CUlaunchConfig config{l.grid[0],
                                  l.grid[1],
                                  l.grid[2],
                                  l.block[0],
                                  l.block[1],
                                  l.block[2],
                                  l.dynamic_shared_bytes,
                                  s,
                                  &attribute,
                                  1};
      *result = cu.cuLaunchKernelEx(&config, l.function, params, nullptr);
      if (*result != CUDA_SUCCESS)
        return "cuLaunchKernelEx";
      ++overlapped_;
    } else {
      *result =
          cu.cuLaunchKernel(l.function, l.grid[0], l.grid[1], l.grid[2], l.block[0], l.block[1],
                            l.block[2], l.dynamic_shared_bytes, s, params, nullptr);
      if (*result != CUDA_SUCCESS)
        return "cuLaunchKernel";
    }
  }
  return nullptr;
}

void LaunchGraph::capture(const std::string &kernel) {
  const Driver &cu = GpuContext::activate();
  release();
  if (!capture_stream_ || capture_stream_->device() != current_device())
    capture_stream_.emplace();
  device_ = current_device();
  CUstream s = capture_stream_->handle();
  pointers_.resize(values_.size());
  for (size_t k = 0; k < values_.size(); ++k)
    pointers_[k] = &values_[k];
  // Overlapped launches where the driver has cuLaunchKernelEx and takes them in a capture (CUDA
  // 12.3 on); a driver that refuses them gets the plain sequence, captured again.
  bool overlap = settings::overlap_launches() && cu.cuLaunchKernelEx && !overlap_refused_;
  CUgraph graph = nullptr;
  for (;;) {
    cu.check(cu.cuStreamBeginCapture_v2(s, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL),
             "cuStreamBeginCapture");
    int failed = CUDA_SUCCESS;
    const char *call = record(s, overlap, &failed);
    graph = nullptr;
    CUresult ended = cu.cuStreamEndCapture(s, &graph); // ends the capture also after a failure
    if (call && graph)
      (void)cu.cuGraphDestroy(graph);
    if (call && overlap && std::strcmp(call, "cuLaunchKernelEx") == 0) {
      overlap = false;
      overlap_refused_ = true;
      continue;
    }
    if (call)
      cu.fail(static_cast<CUresult>(failed),
              std::string(call) + " (captured into the graph of " + kernel + ")");
    if (ended != CUDA_SUCCESS)
      cu.fail(ended, "cuStreamEndCapture (the graph of " + kernel + ")");
    break;
  }
  CUresult made = cu.cuGraphInstantiateWithFlags(&exec_, graph, 0);
  (void)cu.cuGraphDestroy(graph); // the executable graph keeps what it needs
  if (made != CUDA_SUCCESS) {
    exec_ = nullptr;
    cu.fail(made, "cuGraphInstantiateWithFlags (the graph of " + kernel + ")");
  }
  graph_launches_ = launches_;
  graph_values_ = values_;
}

void LaunchGraph::run(CUstream stream, const std::string &kernel) {
  const Driver &cu = GpuContext::activate();
  replayed_ = exec_ && launches_ == graph_launches_ && values_ == graph_values_;
  if (!replayed_)
    capture(kernel);
  CUresult result = cu.cuGraphLaunch(exec_, stream);
  if (result != CUDA_SUCCESS)
    cu.fail(result, "cuGraphLaunch (the graph of " + kernel + ")");
}

} // namespace loom::runtime
