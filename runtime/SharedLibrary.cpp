#include "runtime/SharedLibrary.h"

#include <dlfcn.h>

namespace loom::runtime {

std::optional<SharedLibrary> SharedLibrary::open(const std::string &path, std::string *why) {
  void *handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char *reason = dlerror();
    if (why)
      *why = reason ? reason : "unknown reason";
    return std::nullopt;
  }
  return SharedLibrary(handle);
}

const char *SharedLibrary::resolve(std::span<const EntryPoint> entry_points) const {
  for (const EntryPoint &point : entry_points) {
    *point.slot = dlsym(handle_, point.symbol);
    if (!*point.slot && point.older_symbol)
      *point.slot = dlsym(handle_, point.older_symbol);
    if (!*point.slot)
      return point.symbol;
  }
  return nullptr;
}

void SharedLibrary::clear(std::span<const EntryPoint> entry_points) {
  for (const EntryPoint &point : entry_points)
    *point.slot = nullptr;
}

std::string SharedLibrary::file_of(const void *address) {
  Dl_info info{};
  if (!dladdr(address, &info) || !info.dli_fname)
    return "";
  return info.dli_fname;
}

void SharedLibrary::close() {
  if (handle_)
    dlclose(handle_);
  handle_ = nullptr;
}

} // namespace loom::runtime
