// One call of a kernel on the CPU: host arrays are used in place; device arrays are staged.
#include "loom/KernelState.h"
#include "runtime/CpuLaunch.h"
#include "runtime/DeviceBuffer.h"

#include <cstring>

namespace loom {

void run_on_cpu(KernelState &state, std::span<const Argument> args,
                const ir::ArgumentValues &values) {
  CompiledCpu &c = state.compiled_cpu();
  const std::vector<ir::Param> &params = c.lowered.params;

  // A DeviceArray passed while running on the CPU (LOOM_TARGET=cpu on a GPU machine) goes through
  // a host copy.
  std::vector<std::vector<unsigned char>> staged(args.size());
  std::vector<uint64_t> pointers(args.size(), 0);
  for (size_t p = 0; p < args.size(); ++p) {
    if (params[p].kind != ir::ParamKind::Array)
      continue;
    const Argument &a = args[p];
    if (a.kind == Argument::Kind::HostArray) {
      pointers[p] = reinterpret_cast<uint64_t>(a.host);
      continue;
    }
    size_t bytes = static_cast<size_t>(a.size()) * ir::byte_size(a.type);
    staged[p].resize(bytes);
    if (bytes && (state.access[p].read || state.access[p].written))
      runtime::copy_device_to_host(staged[p].data(), a.device, bytes);
    pointers[p] = reinterpret_cast<uint64_t>(staged[p].data());
  }

  PackedParams packed = pack_params(params, values, pointers);
  for (size_t t = 0; t < c.lowered.tasks.size(); ++t) {
    const ir::Task &task = c.lowered.tasks[t];
    bool parallel = task.kind == ir::TaskKind::Parallel;
    int64_t extent = parallel ? ir::evaluate(task.domain[0], params, values).i : 0;
    runtime::run_cpu_task(c.code->tasks()[t], packed.data(), extent, parallel);
  }

  for (size_t p = 0; p < args.size(); ++p)
    if (args[p].kind == Argument::Kind::DeviceArray && state.access[p].written &&
        !staged[p].empty())
      runtime::copy_host_to_device(args[p].device, staged[p].data(), staged[p].size());
}

} // namespace loom
