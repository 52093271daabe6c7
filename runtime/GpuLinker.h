// PTX to machine code ahead of loading: the cubin is what the disk cache keeps, so that a later
// process loads it with GpuModule::from_cubin and skips the PTX compiler. Two linkers can make it:
// nvJitLink in this process (NvJitLink.h), when the CUDA toolkit's library is found and is not
// newer than the driver, or the driver's linker (cuLinkCreate, cuLinkAddData, cuLinkComplete).
// LOOM_PTX_LINKER=driver|auto|nvjitlink chooses (default driver, measured as fast; auto:
// nvJitLink when it can be used, else the driver's, and the driver's for a kernel nvJitLink
// fails on).
#pragma once

#include "support/Settings.h"

#include <string>

namespace loom::runtime {

using PtxLinkerMode = settings::PtxLinker; // Auto, NvJitLink, Driver

// LOOM_PTX_LINKER, Driver when unset. Throws loom::LinkerError for any other value.
PtxLinkerMode ptx_linker_mode();

// Which linker a mode comes to on this machine, and why when it is the driver's.
struct PtxLinkerChoice {
  bool nvjitlink = false;
  std::string why_driver; // e.g. "LOOM_PTX_LINKER=driver"; empty when nvjitlink
};
// The decision alone, from what is known of both linkers (versions as cuDriverGetVersion writes
// them: 12080 for 12.8). A cubin from a toolkit newer than the driver may not load, so auto takes
// nvJitLink only when it is not newer. Throws loom::LinkerError for Mode::NvJitLink when nvJitLink
// is unavailable. Reads nothing from the environment or the libraries: tests call it directly.
PtxLinkerChoice choose_ptx_linker(PtxLinkerMode mode, bool nvjitlink_available,
                                  const std::string &nvjitlink_unavailable_reason,
                                  int nvjitlink_version, int driver_version);
// choose_ptx_linker for this process: nvJitLink is loaded for Auto and NvJitLink only.
PtxLinkerChoice choose_ptx_linker(PtxLinkerMode mode);

// The cubin of `ptx` for the current device; `name` names the input in the linker's messages. The
// first form follows LOOM_PTX_LINKER; the second is given the mode (a benchmark comparing the
// linkers). *linked_by, when given, says which linker made it: "the driver", "nvJitLink 12.8", or
// "the driver (nvJitLink failed: ...)". Throws loom::TargetError without a usable GPU,
// loom::DriverError naming the failed call, with the linker's error log, when the driver's linker
// fails, and loom::LinkerError when nvJitLink was asked for and fails or cannot be used.
std::string link_ptx(const std::string &ptx, const std::string &name);
std::string link_ptx(const std::string &ptx, const std::string &name, PtxLinkerMode mode,
                     std::string *linked_by = nullptr);

// What the compile cache's key for a cubin says of the linker LOOM_PTX_LINKER comes to: "driver"
// (the driver's version is in the key already) or nvJitLink's identity (NvJitLink::identity()).
// A kernel nvJitLink fails on gets the driver's cubin under that key: the same pair of versions
// always makes the same choice.
std::string ptx_linker_identity();

// For explain(): "nvJitLink 12.8 (libnvJitLink.so.12, in process)" or "the driver's linker
// (cuLink*), because: ...", and the first nvJitLink failure the driver's linker stood in for.
// Never throws loom::LinkerError: its message is the description then.
std::string ptx_linker_description();

} // namespace loom::runtime
