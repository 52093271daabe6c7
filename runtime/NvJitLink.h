// NVIDIA's nvJitLink, the CUDA toolkit's linker as a library, loaded at run time with dlopen (as
// the driver is, Driver.h) so that loom builds without a toolkit and runs where there is none. It
// turns PTX into a cubin inside the process, as the driver's cuLink* calls do (GpuLinker.h picks
// one of the two). loom declares the few types it uses itself; the values are nvJitLink's ABI (the
// enums of nvJitLink.h, CUDA 12.3 to 13.0) and must never change.
#pragma once

#include "runtime/SharedLibrary.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace loom::runtime {

enum nvJitLinkResult : int {
  NVJITLINK_SUCCESS = 0,
  NVJITLINK_ERROR_UNRECOGNIZED_OPTION = 1,
  NVJITLINK_ERROR_MISSING_ARCH = 2,
  NVJITLINK_ERROR_INVALID_INPUT = 3,
  NVJITLINK_ERROR_PTX_COMPILE = 4,
  NVJITLINK_ERROR_NVVM_COMPILE = 5,
  NVJITLINK_ERROR_INTERNAL = 6,
  NVJITLINK_ERROR_THREADPOOL = 7,
  NVJITLINK_ERROR_UNRECOGNIZED_INPUT = 8,
  NVJITLINK_ERROR_FINALIZE = 9,
  NVJITLINK_ERROR_NULL_INPUT = 10,
  NVJITLINK_ERROR_INCOMPATIBLE_OPTIONS = 11,
  NVJITLINK_ERROR_INCORRECT_INPUT_TYPE = 12,
  NVJITLINK_ERROR_ARCH_MISMATCH = 13,
  NVJITLINK_ERROR_OUTDATED_LIBRARY = 14,
  NVJITLINK_ERROR_MISSING_FATBIN = 15,
  NVJITLINK_ERROR_UNRECOGNIZED_ARCH = 16,
  NVJITLINK_ERROR_UNSUPPORTED_ARCH = 17,
  NVJITLINK_ERROR_LTO_NOT_ENABLED = 18,
};

// What nvJitLinkAddData is given; loom gives PTX only.
enum nvJitLinkInputType : int {
  NVJITLINK_INPUT_NONE = 0,
  NVJITLINK_INPUT_CUBIN = 1,
  NVJITLINK_INPUT_PTX = 2,
};

using nvJitLinkHandle = struct nvJitLink *; // opaque, as in nvJitLink.h

// Every entry point loom calls, X(symbol, parameter list), resolved by these unversioned names
// (nvJitLink.h maps them to versioned ones such as __nvJitLinkCreate_13_0 with inline wrappers;
// the libraries export both). nvJitLinkVersion arrived with 12.3, the oldest loom uses.
#define LOOM_NVJITLINK_ENTRY_POINTS(X)                                                             \
  X(nvJitLinkCreate, (nvJitLinkHandle * handle, uint32_t option_count, const char **options))      \
  X(nvJitLinkDestroy, (nvJitLinkHandle * handle))                                                  \
  X(nvJitLinkAddData, (nvJitLinkHandle handle, nvJitLinkInputType type, const void *data,          \
                       size_t bytes, const char *name))                                            \
  X(nvJitLinkComplete, (nvJitLinkHandle handle))                                                   \
  X(nvJitLinkGetLinkedCubinSize, (nvJitLinkHandle handle, size_t * bytes))                         \
  X(nvJitLinkGetLinkedCubin, (nvJitLinkHandle handle, void *cubin))                                \
  X(nvJitLinkGetErrorLogSize, (nvJitLinkHandle handle, size_t * bytes))                            \
  X(nvJitLinkGetErrorLog, (nvJitLinkHandle handle, char *log))                                     \
  X(nvJitLinkVersion, (unsigned int *major, unsigned int *minor))

#define LOOM_NVJITLINK_DECLARE_FN_TYPE(name, params) using name##_fn = nvJitLinkResult(*) params;
LOOM_NVJITLINK_ENTRY_POINTS(LOOM_NVJITLINK_DECLARE_FN_TYPE)
#undef LOOM_NVJITLINK_DECLARE_FN_TYPE

// The process's one handle on nvJitLink, loaded on the first get() (thread-safe); loading never
// throws: a failure becomes unavailable_reason(). Search order: $LOOM_NVJITLINK (a path) alone
// when set; else libnvJitLink.so.13, .so.12 and .so through the loader's path, then the same
// names in $CUDA_HOME/lib64, $CUDA_PATH/lib64, /usr/local/cuda/lib64 and
// /usr/local/cuda/targets/x86_64-linux/lib. Never unloaded.
class NvJitLink {
public:
  static NvJitLink &get();

  bool available() const { return available_; }
  // Why nvJitLink cannot be used (every place looked, and what failed); empty when available().
  const std::string &unavailable_reason() const { return unavailable_reason_; }
  // What was loaded, as given to dlopen ("libnvJitLink.so.13", or a path).
  const std::string &library() const { return library_; }
  // The version as the driver's is written (cuDriverGetVersion): major * 1000 + minor * 10.
  int version() const { return version_; }
  // "13.0"
  std::string version_text() const;
  // What the compile cache's key says of it: version, the file loaded, its size and mtime (a
  // patch release reports the same version but may make other code).
  const std::string &identity() const { return identity_; }
  // "NVJITLINK_ERROR_PTX_COMPILE", or "nvJitLink error N" for a code loom does not know.
  static std::string error_name(nvJitLinkResult result);

#define LOOM_NVJITLINK_DECLARE_MEMBER(name, params) name##_fn name = nullptr;
  LOOM_NVJITLINK_ENTRY_POINTS(LOOM_NVJITLINK_DECLARE_MEMBER)
#undef LOOM_NVJITLINK_DECLARE_MEMBER

  NvJitLink(const NvJitLink &) = delete;
  NvJitLink &operator=(const NvJitLink &) = delete;

private:
  NvJitLink();
  bool load();
  std::vector<EntryPoint> entry_points();
  bool resolve(const SharedLibrary &library);

  bool available_ = false;
  std::string unavailable_reason_, library_, identity_;
  int version_ = 0;
};

// "13.0" for 13000: a version as cuDriverGetVersion and NvJitLink::version() write it.
std::string cuda_version_text(int version);

// The cubin of `ptx` for compute capability cc_major.cc_minor, linked in this process by nvJitLink
// with -arch=sm_XY -O3; `name` names the input in its messages. Throws loom::LinkerError: when
// nvJitLink is unavailable (saying why), or naming the failed call, its result and nvJitLink's
// error log.
std::string link_with_nvjitlink(const std::string &ptx, const std::string &name, int cc_major,
                                int cc_minor);

} // namespace loom::runtime
