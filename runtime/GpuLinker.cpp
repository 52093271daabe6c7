#include "runtime/GpuLinker.h"

#include "runtime/Driver.h"
#include "runtime/GpuContext.h"
#include "runtime/JitLog.h"
#include "runtime/NvJitLink.h"
#include "support/Error.h"
#include "support/Settings.h"

#include <mutex>

namespace loom::runtime {

namespace {

// Destroys the link state, and with it the cubin it owns, on every path out.
class LinkState {
public:
  LinkState(const Driver &cu, JitLogs &logs) : cu_(cu) {
    CUresult result =
        cu.cuLinkCreate_v2(JitLogs::option_count, logs.options(), logs.values(), &state_);
    if (result != CUDA_SUCCESS)
      cu.fail(result, "cuLinkCreate_v2", logs.error_detail("linker"));
  }
  ~LinkState() { (void)cu_.cuLinkDestroy(state_); }
  LinkState(const LinkState &) = delete;
  LinkState &operator=(const LinkState &) = delete;
  CUlinkState get() const { return state_; }

private:
  const Driver &cu_;
  CUlinkState state_ = nullptr;
};

std::string link_with_driver(const std::string &ptx, const std::string &name) {
  const Driver &cu = GpuContext::activate();
  JitLogs logs;
  LinkState link(cu, logs);
  // PTX goes in with its terminating NUL, as the driver expects of text input.
  CUresult result =
      cu.cuLinkAddData_v2(link.get(), CU_JIT_INPUT_PTX, const_cast<char *>(ptx.c_str()),
                          ptx.size() + 1, name.c_str(), 0, nullptr, nullptr);
  if (result != CUDA_SUCCESS)
    cu.fail(result, "cuLinkAddData_v2(" + name + ")", logs.error_detail("linker"));
  void *cubin = nullptr;
  size_t bytes = 0;
  result = cu.cuLinkComplete(link.get(), &cubin, &bytes);
  if (result != CUDA_SUCCESS)
    cu.fail(result, "cuLinkComplete(" + name + ")", logs.error_detail("linker"));
  if (!cubin || bytes == 0)
    cu.fail(CUDA_ERROR_UNKNOWN, "cuLinkComplete(" + name + ")", ": it returned no machine code");
  return std::string(static_cast<const char *>(cubin), bytes);
}

// The first nvJitLink failure the driver's linker stood in for (auto mode), for explain().
std::mutex fallback_mutex;
std::string first_fallback;

void record_fallback(const std::string &reason) {
  std::lock_guard<std::mutex> lock(fallback_mutex);
  if (first_fallback.empty())
    first_fallback = reason;
}

} // namespace

PtxLinkerMode ptx_linker_mode() {
  // The driver's linker by default (docs/decisions.md, "PTX to machine code with nvJitLink when
  // the toolkit has it, loaded at run time").
  return settings::ptx_linker();
}

PtxLinkerChoice choose_ptx_linker(PtxLinkerMode mode, bool nvjitlink_available,
                                  const std::string &nvjitlink_unavailable_reason,
                                  int nvjitlink_version, int driver_version) {
  if (mode == PtxLinkerMode::Driver)
    return {false, "LOOM_PTX_LINKER=driver"};
  if (!nvjitlink_available) {
    if (mode == PtxLinkerMode::NvJitLink)
      throw LinkerError("LOOM_PTX_LINKER=nvjitlink, but nvJitLink cannot be used: " +
                            nvjitlink_unavailable_reason,
                        "dlopen");
    return {false, nvjitlink_unavailable_reason};
  }
  // Forced, nvJitLink is used whatever its version: the user asked for it.
  if (mode == PtxLinkerMode::Auto && nvjitlink_version > driver_version)
    return {false, "nvJitLink " + cuda_version_text(nvjitlink_version) +
                       " is newer than the driver (" + cuda_version_text(driver_version) +
                       "), which may not load its machine code"};
  return {true, ""};
}

PtxLinkerChoice choose_ptx_linker(PtxLinkerMode mode) {
  int driver_version = GpuContext::get().info().driver_version;
  if (mode == PtxLinkerMode::Driver) { // without loading nvJitLink
    PtxLinkerChoice choice = choose_ptx_linker(mode, false, "", 0, driver_version);
    if (!settings::ptx_linker_set())
      choice.why_driver = "the default (LOOM_PTX_LINKER=auto uses nvJitLink where it can)";
    return choice;
  }
  const NvJitLink &lib = NvJitLink::get();
  return choose_ptx_linker(mode, lib.available(), lib.unavailable_reason(), lib.version(),
                           driver_version);
}

std::string link_ptx(const std::string &ptx, const std::string &name) {
  return link_ptx(ptx, name, ptx_linker_mode());
}

std::string link_ptx(const std::string &ptx, const std::string &name, PtxLinkerMode mode,
                     std::string *linked_by) {
  PtxLinkerChoice choice = choose_ptx_linker(mode);
  if (choice.nvjitlink) {
    const DeviceInfo &device = GpuContext::get().info();
    try {
      std::string cubin = link_with_nvjitlink(ptx, name, device.cc_major, device.cc_minor);
      if (linked_by)
        *linked_by = "nvJitLink " + NvJitLink::get().version_text();
      return cubin;
    } catch (const LinkerError &e) {
      if (mode == PtxLinkerMode::NvJitLink)
        throw;
      record_fallback(e.what());
      if (linked_by)
        *linked_by = "the driver (nvJitLink failed: " + e.code_name() + ")";
      return link_with_driver(ptx, name);
    }
  }
  if (linked_by)
    *linked_by = "the driver";
  return link_with_driver(ptx, name);
}

std::string ptx_linker_identity() {
  PtxLinkerChoice choice = choose_ptx_linker(ptx_linker_mode());
  return choice.nvjitlink ? NvJitLink::get().identity() : "driver";
}

std::string ptx_linker_description() {
  PtxLinkerChoice choice;
  try { // explain() reports, never throws: a setting changed since the kernel compiled is shown
    choice = choose_ptx_linker(ptx_linker_mode());
  } catch (const LinkerError &e) {
    return e.what();
  }
  if (!choice.nvjitlink)
    return "the driver's linker (cuLink*), because: " + choice.why_driver;
  const NvJitLink &lib = NvJitLink::get();
  std::string text = "nvJitLink " + lib.version_text() + " (" + lib.library() + ", in process)";
  std::lock_guard<std::mutex> lock(fallback_mutex);
  if (!first_fallback.empty())
    text += "; the driver's linker for kernels nvJitLink failed on, the first: " + first_fallback;
  return text;
}

} // namespace loom::runtime
