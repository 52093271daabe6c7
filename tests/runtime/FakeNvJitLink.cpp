// A stand-in for libnvJitLink.so, loaded through LOOM_NVJITLINK by the runtime_nvjitlink_* tests,
// so that the choice between nvJitLink and the driver's linker, and the fallbacks, run on machines
// without a CUDA toolkit or a GPU. Its "cubin" is what the fake driver (tests/cache/
// FakeCudaDriver.cpp) loads: "FAKECUBIN\n", a line saying it came from here with the options it
// was given, then the PTX, then a NUL.
//
// FAKE_NVJITLINK_VERSION=major.minor is what nvJitLinkVersion reports (default 12.3, older than
// the fake driver's 12.4). FAKE_NVJITLINK_FAIL=1 makes nvJitLinkComplete fail with
// NVJITLINK_ERROR_PTX_COMPILE and an error log. loom_fake_nvjitlink_count(name) says how often
// `name` was called; loom_fake_nvjitlink_last_options() the options of the last nvJitLinkCreate.
#include "runtime/NvJitLink.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <vector>

using namespace loom::runtime;

namespace {

constexpr const char *fake_log = "ptxas fatal   : the fake nvJitLink was told to fail";

struct Link {
  std::vector<std::string> options;
  std::string ptx, cubin, error_log;
};

std::mutex mutex;
std::map<std::string, int> counts;
std::string last_options;

void count(const char *name) {
  std::lock_guard<std::mutex> lock(mutex);
  ++counts[name];
}

bool told(const char *name) {
  const char *value = std::getenv(name);
  return value && std::strcmp(value, "1") == 0;
}

} // namespace

extern "C" {

int loom_fake_nvjitlink_count(const char *name) {
  std::lock_guard<std::mutex> lock(mutex);
  auto found = counts.find(name);
  return found == counts.end() ? 0 : found->second;
}

const char *loom_fake_nvjitlink_last_options() {
  std::lock_guard<std::mutex> lock(mutex);
  return last_options.c_str();
}

nvJitLinkResult nvJitLinkVersion(unsigned int *major, unsigned int *minor) {
  count("nvJitLinkVersion");
  *major = 12, *minor = 3;
  if (const char *version = std::getenv("FAKE_NVJITLINK_VERSION"))
    std::sscanf(version, "%u.%u", major, minor);
  return NVJITLINK_SUCCESS;
}

nvJitLinkResult nvJitLinkCreate(nvJitLinkHandle *handle, uint32_t option_count,
                                const char **options) {
  count("nvJitLinkCreate");
  auto *link = new Link();
  bool arch = false;
  std::string joined;
  for (uint32_t o = 0; o < option_count; ++o) {
    link->options.push_back(options[o]);
    joined += (o ? " " : "") + link->options.back();
    arch |= link->options.back().rfind("-arch=sm_", 0) == 0;
  }
  {
    std::lock_guard<std::mutex> lock(mutex);
    last_options = joined;
  }
  if (!arch) { // as the real one: an architecture is required
    delete link;
    return NVJITLINK_ERROR_MISSING_ARCH;
  }
  *handle = reinterpret_cast<nvJitLinkHandle>(link);
  return NVJITLINK_SUCCESS;
}

nvJitLinkResult nvJitLinkDestroy(nvJitLinkHandle *handle) {
  count("nvJitLinkDestroy");
  if (!handle || !*handle)
    return NVJITLINK_ERROR_INVALID_INPUT;
  delete reinterpret_cast<Link *>(*handle);
  *handle = nullptr;
  return NVJITLINK_SUCCESS;
}

nvJitLinkResult nvJitLinkAddData(nvJitLinkHandle handle, nvJitLinkInputType type, const void *data,
                                 size_t bytes, const char *) {
  count("nvJitLinkAddData");
  const char *text = static_cast<const char *>(data);
  if (type != NVJITLINK_INPUT_PTX || bytes == 0 || text[bytes - 1] != '\0')
    return NVJITLINK_ERROR_INVALID_INPUT; // loom passes PTX with its NUL
  reinterpret_cast<Link *>(handle)->ptx = text;
  return NVJITLINK_SUCCESS;
}

nvJitLinkResult nvJitLinkComplete(nvJitLinkHandle handle) {
  count("nvJitLinkComplete");
  Link *link = reinterpret_cast<Link *>(handle);
  if (told("FAKE_NVJITLINK_FAIL")) {
    link->error_log = std::string(fake_log) + "\n";
    return NVJITLINK_ERROR_PTX_COMPILE;
  }
  std::string options;
  for (const std::string &o : link->options)
    options += " " + o;
  link->cubin = "FAKECUBIN\n// linked by the fake nvJitLink with" + options + "\n" + link->ptx;
  link->cubin.push_back('\0'); // which the fake driver's cuModuleLoadData relies on
  return NVJITLINK_SUCCESS;
}

nvJitLinkResult nvJitLinkGetLinkedCubinSize(nvJitLinkHandle handle, size_t *bytes) {
  *bytes = reinterpret_cast<Link *>(handle)->cubin.size();
  return NVJITLINK_SUCCESS;
}

nvJitLinkResult nvJitLinkGetLinkedCubin(nvJitLinkHandle handle, void *cubin) {
  const std::string &bytes = reinterpret_cast<Link *>(handle)->cubin;
  std::memcpy(cubin, bytes.data(), bytes.size());
  return NVJITLINK_SUCCESS;
}

// The size includes the terminating NUL, as the real one's does.
nvJitLinkResult nvJitLinkGetErrorLogSize(nvJitLinkHandle handle, size_t *bytes) {
  const std::string &log = reinterpret_cast<Link *>(handle)->error_log;
  *bytes = log.empty() ? 0 : log.size() + 1;
  return NVJITLINK_SUCCESS;
}

nvJitLinkResult nvJitLinkGetErrorLog(nvJitLinkHandle handle, char *log) {
  const std::string &text = reinterpret_cast<Link *>(handle)->error_log;
  std::memcpy(log, text.c_str(), text.size() + 1);
  return NVJITLINK_SUCCESS;
}

} // extern "C"

// Every entry point loom resolves is defined above, with the parameter types loom calls it with.
#define LOOM_FAKE_NVJITLINK_CHECK(name, params)                                                    \
  [[maybe_unused]] static name##_fn check_##name = &::name;
LOOM_NVJITLINK_ENTRY_POINTS(LOOM_FAKE_NVJITLINK_CHECK)
#undef LOOM_FAKE_NVJITLINK_CHECK
