#include "loom/Target.hpp"

#include "runtime/GpuContext.h"
#include "support/Error.h"
#include "support/Settings.h"

namespace loom {

TargetChoice choose_target() {
  settings::Target wanted = settings::target();
  if (wanted == settings::Target::Cpu)
    return {ir::Target::CPU, "LOOM_TARGET=cpu"};
  // A LOOM_DEVICE that names no device is a mistake to report, not a reason to use the CPU.
  if (runtime::GpuContext::count() > 0)
    runtime::default_device(); // throws TargetError saying which devices exist
  std::string why;
  if (runtime::GpuContext::usable(&why))
    return {ir::Target::GPU, std::string("LOOM_TARGET=") +
                                 (wanted == settings::Target::Gpu ? "gpu" : "auto") + " and " +
                                 runtime::GpuContext::get(runtime::default_device()).info().name +
                                 " is usable"};
  if (wanted == settings::Target::Gpu)
    throw TargetError("LOOM_TARGET=gpu but no GPU is usable: " + why);
  return {ir::Target::CPU, "no usable GPU: " + why};
}

} // namespace loom
