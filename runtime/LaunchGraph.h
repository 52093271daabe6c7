// A call's kernel launches recorded, then run as one CUDA graph: the graph of the last sequence is
// kept and launched again while the sequence stays the same (the same functions, launch shapes
// and parameter values), so a task loop's 1,000 launches cost one graph launch (ir::TaskLoop).
#pragma once

#include "runtime/CudaTypes.h"
#include "runtime/Stream.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace loom::runtime {

struct GpuFunction;
struct GridShape;

class LaunchGraph {
public:
  LaunchGraph() = default;
  ~LaunchGraph();
  LaunchGraph(const LaunchGraph &) = delete;
  LaunchGraph &operator=(const LaunchGraph &) = delete;

  // Starts a new sequence.
  void clear();
  // Appends a launch of `function` with `shape`; `params` holds the addresses of `count` flattened
  // parameters (support/Abi.h), each at most 8 bytes, which are copied. `waits`: the function
  // starts with griddepcontrol.wait (ir::Task::waits_for_grid), so that the graph may let it
  // begin while the launch before it finishes (programmatic dependent launch).
  void add(const GpuFunction &function, const GridShape &shape, void *const *params, size_t count,
           bool waits = false);
  size_t size() const { return launches_.size(); }
  // Runs the sequence on `stream` (null: the legacy default stream): the kept graph when it was
  // made from the same sequence, else a graph captured from it now (on a stream of its own) and
  // kept. Throws loom::DriverError naming the call that failed and `kernel`.
  void run(CUstream stream, const std::string &kernel);
  // Whether the last run launched the kept graph again (false: it captured a new one).
  bool replayed() const { return replayed_; }
  // Whether a graph is kept (a sequence has run).
  bool has_graph() const { return exec_ != nullptr; }
  // How many launches of the kept graph begin while the one before finishes (0 where the driver
  // has no cuLaunchKernelEx or refuses programmatic launches in a graph, or LOOM_OVERLAP_LAUNCHES
  // is 0).
  size_t overlapped() const { return overlapped_; }

private:
  struct Launch {
    CUfunction function;
    unsigned grid[3], block[3], dynamic_shared_bytes;
    size_t first, count; // its parameter values: values_[first, first + count)
    bool waits;
    bool operator==(const Launch &) const = default;
  };
  void capture(const std::string &kernel);
  // Records the sequence on the capture stream `s`, launches that wait as programmatic
  // dependents when `overlap`. Returns the name of the call that failed, with the driver's
  // result in *result; null when every launch was recorded.
  const char *record(CUstream s, bool overlap, int *result);
  void release();

  std::vector<Launch> launches_, graph_launches_;
  std::vector<uint64_t> values_, graph_values_;
  std::vector<void *> pointers_;
  CUgraphExec exec_ = nullptr;
  int device_ = 0;                       // whose context made exec_
  std::optional<Stream> capture_stream_; // made by the first capture
  bool replayed_ = false;
  size_t overlapped_ = 0;
  bool overlap_refused_ = false; // the driver refused a programmatic launch in a capture
};

} // namespace loom::runtime
