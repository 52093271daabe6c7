#include "runtime/NvJitLink.h"

#include "support/Env.h"
#include "support/Error.h"
#include "support/Settings.h"

#include <filesystem>
#include <vector>

namespace loom::runtime {

namespace {

constexpr const char *library_names[] = {"libnvJitLink.so.13", "libnvJitLink.so.12",
                                         "libnvJitLink.so"};

// Where a toolkit keeps its libraries when the loader's path does not include them (the usual
// case: installing the toolkit does not add it to ld.so.conf).
std::vector<std::string> toolkit_directories() {
  std::vector<std::string> dirs;
  if (std::optional<std::string> home = env("CUDA_HOME"))
    dirs.push_back(*home + "/lib64");
  if (std::optional<std::string> path = env("CUDA_PATH"))
    dirs.push_back(*path + "/lib64");
  dirs.push_back("/usr/local/cuda/lib64");
  dirs.push_back("/usr/local/cuda/targets/x86_64-linux/lib");
  return dirs;
}

// The file a loaded library came from (dlopen may have found it through the loader's path), with
// its size and modification time.
std::string file_identity(const void *symbol) {
  std::string loaded = SharedLibrary::file_of(symbol);
  if (loaded.empty())
    return "unknown file";
  std::error_code ec;
  std::filesystem::path file = std::filesystem::canonical(loaded, ec);
  if (ec)
    return loaded;
  uintmax_t size = std::filesystem::file_size(file, ec);
  auto modified = std::filesystem::last_write_time(file, ec);
  return file.string() + " " + std::to_string(size) + " " +
         std::to_string(modified.time_since_epoch().count());
}

} // namespace

NvJitLink &NvJitLink::get() {
  static NvJitLink *library = new NvJitLink(); // never destroyed, as Driver::get()
  return *library;
}

NvJitLink::NvJitLink() {
  available_ = load();
  if (!available_) {
    SharedLibrary::clear(entry_points());
    version_ = 0;
    identity_.clear();
  }
}

std::vector<EntryPoint> NvJitLink::entry_points() {
  return {LOOM_NVJITLINK_ENTRY_POINTS(LOOM_ENTRY_POINT)};
}

// Resolves every entry point and asks the version; on failure says why in unavailable_reason_.
bool NvJitLink::resolve(const SharedLibrary &library) {
  if (const char *missing = library.resolve(entry_points())) {
    unavailable_reason_ = library_ + " has no entry point " + missing +
                          ": it is older than nvJitLink 12.3, the oldest loom uses";
    return false;
  }
  unsigned major = 0, minor = 0;
  if (nvJitLinkResult r = nvJitLinkVersion(&major, &minor); r != NVJITLINK_SUCCESS) {
    unavailable_reason_ = library_ + ": nvJitLinkVersion failed: " + error_name(r);
    return false;
  }
  version_ = int(major) * 1000 + int(minor) * 10;
  identity_ = "nvJitLink " + version_text() + " " +
              file_identity(reinterpret_cast<const void *>(nvJitLinkCreate));
  return true;
}

bool NvJitLink::load() {
  if (const std::optional<std::string> &path = settings::nvjitlink()) {
    library_ = *path;
    std::string why;
    std::optional<SharedLibrary> library = SharedLibrary::open(*path, &why);
    if (!library) {
      unavailable_reason_ = *path + " (from LOOM_NVJITLINK) could not be loaded (" + why + ")";
      return false;
    }
    return resolve(*library);
  }

  std::vector<std::string> candidates(std::begin(library_names), std::end(library_names));
  std::vector<std::string> dirs = toolkit_directories();
  for (const std::string &dir : dirs)
    for (const char *name : library_names)
      candidates.push_back(dir + "/" + name);
  // A library that loads but cannot be used (too old) is passed over for the next one; if none
  // can be used, the first such reason is more telling than "not found".
  std::string rejected;
  for (const std::string &candidate : candidates) {
    std::optional<SharedLibrary> library = SharedLibrary::open(candidate, nullptr);
    if (!library)
      continue;
    library_ = candidate;
    if (resolve(*library))
      return true;
    if (rejected.empty())
      rejected = unavailable_reason_;
    library->close();
  }
  library_.clear();
  if (!rejected.empty()) {
    unavailable_reason_ = rejected;
    return false;
  }
  unavailable_reason_ = "no nvJitLink library (libnvJitLink.so.13, .so.12 or .so) through the "
                        "loader's path or in";
  for (size_t d = 0; d < dirs.size(); ++d)
    unavailable_reason_ += (d ? ", " : " ") + dirs[d];
  unavailable_reason_ += ": no CUDA toolkit is installed, or set LOOM_NVJITLINK to its path";
  return false;
}

std::string cuda_version_text(int version) {
  return std::to_string(version / 1000) + "." + std::to_string(version % 1000 / 10);
}

std::string NvJitLink::version_text() const {
  return cuda_version_text(version_);
}

std::string NvJitLink::error_name(nvJitLinkResult result) {
  static constexpr const char *names[] = {
      "NVJITLINK_SUCCESS",
      "NVJITLINK_ERROR_UNRECOGNIZED_OPTION",
      "NVJITLINK_ERROR_MISSING_ARCH",
      "NVJITLINK_ERROR_INVALID_INPUT",
      "NVJITLINK_ERROR_PTX_COMPILE",
      "NVJITLINK_ERROR_NVVM_COMPILE",
      "NVJITLINK_ERROR_INTERNAL",
      "NVJITLINK_ERROR_THREADPOOL",
      "NVJITLINK_ERROR_UNRECOGNIZED_INPUT",
      "NVJITLINK_ERROR_FINALIZE",
      "NVJITLINK_ERROR_NULL_INPUT",
      "NVJITLINK_ERROR_INCOMPATIBLE_OPTIONS",
      "NVJITLINK_ERROR_INCORRECT_INPUT_TYPE",
      "NVJITLINK_ERROR_ARCH_MISMATCH",
      "NVJITLINK_ERROR_OUTDATED_LIBRARY",
      "NVJITLINK_ERROR_MISSING_FATBIN",
      "NVJITLINK_ERROR_UNRECOGNIZED_ARCH",
      "NVJITLINK_ERROR_UNSUPPORTED_ARCH",
      "NVJITLINK_ERROR_LTO_NOT_ENABLED",
  };
  int code = static_cast<int>(result);
  if (code >= 0 && code < int(std::size(names)))
    return names[code];
  return "nvJitLink error " + std::to_string(code);
}

namespace {

// Destroys the handle, and with it the cubin and logs it owns, on every path out.
class LinkHandle {
public:
  LinkHandle(const NvJitLink &lib, const std::vector<std::string> &options) : lib_(lib) {
    std::vector<const char *> pointers;
    for (const std::string &o : options)
      pointers.push_back(o.c_str());
    nvJitLinkResult r = lib.nvJitLinkCreate(&handle_, uint32_t(pointers.size()), pointers.data());
    if (r != NVJITLINK_SUCCESS) {
      // A failed create may still return a handle holding the log (an unsupported -arch does);
      // no destructor runs for a constructor that throws, so it is destroyed here.
      LinkerError error = failure("nvJitLinkCreate", r);
      if (handle_)
        (void)lib_.nvJitLinkDestroy(&handle_);
      throw error;
    }
  }
  ~LinkHandle() {
    if (handle_)
      (void)lib_.nvJitLinkDestroy(&handle_);
  }
  LinkHandle(const LinkHandle &) = delete;
  LinkHandle &operator=(const LinkHandle &) = delete;
  nvJitLinkHandle get() const { return handle_; }

  // Throws LinkerError for a failed `call`, with nvJitLink's error log when there is one.
  [[noreturn]] void fail(const std::string &call, nvJitLinkResult result) const {
    throw failure(call, result);
  }

private:
  LinkerError failure(const std::string &call, nvJitLinkResult result) const {
    std::string log = error_log();
    std::string name = NvJitLink::error_name(result);
    std::string message = call + " failed: " + name + " (nvJitLink " + lib_.version_text() + ", " +
                          lib_.library() + ")";
    if (!log.empty())
      message += "\nnvJitLink error log:\n" + log;
    return LinkerError(message, call, int(result), name, log);
  }

  std::string error_log() const {
    size_t bytes = 0;
    if (!handle_ || lib_.nvJitLinkGetErrorLogSize(handle_, &bytes) != NVJITLINK_SUCCESS ||
        bytes == 0)
      return "";
    std::string log(bytes, '\0');
    if (lib_.nvJitLinkGetErrorLog(handle_, log.data()) != NVJITLINK_SUCCESS)
      return "";
    while (!log.empty() && (log.back() == '\0' || log.back() == '\n'))
      log.pop_back();
    return log;
  }

  const NvJitLink &lib_;
  nvJitLinkHandle handle_ = nullptr;
};

} // namespace

std::string link_with_nvjitlink(const std::string &ptx, const std::string &name, int cc_major,
                                int cc_minor) {
  const NvJitLink &lib = NvJitLink::get();
  if (!lib.available())
    throw LinkerError("nvJitLink cannot be used: " + lib.unavailable_reason(), "dlopen");
  // PTX for the architecture-specific variant of this GPU's (".target sm_90a": wgmma) links for
  // that variant; -arch=sm_90 refuses it.
  std::string arch = "sm_" + std::to_string(cc_major) + std::to_string(cc_minor);
  if (ptx.find(".target " + arch + "a") != std::string::npos)
    arch += "a";
  LinkHandle link(lib, {"-arch=" + arch, "-O3"});
  // PTX with its terminating NUL, as for the driver's linker.
  if (nvJitLinkResult r = lib.nvJitLinkAddData(link.get(), NVJITLINK_INPUT_PTX, ptx.c_str(),
                                               ptx.size() + 1, name.c_str());
      r != NVJITLINK_SUCCESS)
    link.fail("nvJitLinkAddData(" + name + ")", r);
  if (nvJitLinkResult r = lib.nvJitLinkComplete(link.get()); r != NVJITLINK_SUCCESS)
    link.fail("nvJitLinkComplete(" + name + ")", r);
  size_t bytes = 0;
  if (nvJitLinkResult r = lib.nvJitLinkGetLinkedCubinSize(link.get(), &bytes);
      r != NVJITLINK_SUCCESS)
    link.fail("nvJitLinkGetLinkedCubinSize(" + name + ")", r);
  if (bytes == 0)
    throw LinkerError("nvJitLinkGetLinkedCubinSize(" + name + ") returned no machine code",
                      "nvJitLinkGetLinkedCubinSize");
  std::string cubin(bytes, '\0');
  if (nvJitLinkResult r = lib.nvJitLinkGetLinkedCubin(link.get(), cubin.data());
      r != NVJITLINK_SUCCESS)
    link.fail("nvJitLinkGetLinkedCubin(" + name + ")", r);
  return cubin;
}

} // namespace loom::runtime
