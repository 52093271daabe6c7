// PTX to machine code ahead of loading, with the driver's linker (cuLinkCreate, cuLinkAddData,
// cuLinkComplete): the cubin is what the disk cache keeps, so that a later process loads it with
// GpuModule::from_cubin and skips the driver's JIT.
#pragma once

#include <string>

namespace loom::runtime {

// The cubin of `ptx` for the current device; `name` names the input in the linker's messages.
// Throws loom::TargetError without a usable GPU, and loom::DriverError naming the failed call,
// with the linker's error log, when the driver cannot link the PTX.
std::string link_ptx(const std::string &ptx, const std::string &name);

} // namespace loom::runtime
