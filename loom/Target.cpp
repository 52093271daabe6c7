#include "loom/Target.hpp"

#include "runtime/GpuContext.h"
#include "support/Env.h"
#include "support/Error.h"

namespace loom {

TargetChoice choose_target() {
  std::string wanted = env("LOOM_TARGET").value_or("auto");
  if (wanted == "cpu")
    return {ir::Target::CPU, "LOOM_TARGET=cpu"};
  if (wanted != "auto" && wanted != "gpu")
    throw TargetError("LOOM_TARGET='" + wanted + "' is not a target; expected auto, gpu or cpu");
  std::string why;
  if (runtime::GpuContext::usable(&why))
    return {ir::Target::GPU, "LOOM_TARGET=" + wanted + " and " +
                                 runtime::GpuContext::get().info().name + " is usable"};
  if (wanted == "gpu")
    throw TargetError("LOOM_TARGET=gpu but no GPU is usable: " + why);
  return {ir::Target::CPU, "no usable GPU: " + why};
}

} // namespace loom
