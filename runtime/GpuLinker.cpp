#include "runtime/GpuLinker.h"

#include "runtime/Driver.h"
#include "runtime/GpuContext.h"
#include "runtime/JitLog.h"

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

} // namespace

std::string link_ptx(const std::string &ptx, const std::string &name) {
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

} // namespace loom::runtime
