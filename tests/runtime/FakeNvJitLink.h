// loom's fake nvJitLink (FakeNvJitLink.cpp) as the runtime_nvjitlink_* tests use it, beside the
// fake driver (tests/cache/FakeDriver.h): loom loads it through LOOM_NVJITLINK. nvJitLink loads
// once per process, so each test executable sets the environment it needs before anything loads
// either library. A test executable using it defines LOOM_FAKE_NVJITLINK (where the build put it).
#pragma once

#include "cache/FakeDriver.h"

#include <dlfcn.h>

#include <string>
#include <vector>

namespace loomtest::fake_nvjitlink {

inline const std::string &path() {
  static const std::string library = test_helper("libloom_fake_nvjitlink.so", LOOM_FAKE_NVJITLINK);
  return library;
}

// Points loom at the fake nvJitLink (`linker` as LOOM_PTX_LINKER, `version` as its version) and
// at the fake driver; true when the driver loaded. Call before anything loads either library.
inline bool load(const char *linker, const char *version = "12.3") {
  setenv("LOOM_NVJITLINK", path().c_str(), 1);
  setenv("LOOM_PTX_LINKER", linker, 1);
  setenv("FAKE_NVJITLINK_VERSION", version, 1);
  return fake_cuda::load();
}

// Whether the process has the fake nvJitLink loaded, without loading it.
inline bool is_loaded() {
  void *library = dlopen(path().c_str(), RTLD_NOW | RTLD_NOLOAD);
  if (library)
    dlclose(library); // drops only the reference just taken
  return library != nullptr;
}

template <class F> F function(const char *name) {
  static void *library = dlopen(path().c_str(), RTLD_NOW | RTLD_LOCAL);
  return reinterpret_cast<F>(dlsym(library, name));
}

// How often loom called nvJitLink's entry point `name`.
inline int calls(const char *name) {
  return function<int (*)(const char *)>("loom_fake_nvjitlink_count")(name);
}

// A new saxpy kernel on the GPU after one call on 100 elements, so that it was compiled and linked
// (the call throws what linking threw).
inline loom::Kernel saxpy_called_once() {
  loom::Kernel k = make_saxpy().on(loom::ir::Target::GPU);
  std::vector<float> x(100, 1.0f), y(100, 2.0f);
  k(2.0f, x, y);
  return k;
}

inline std::string last_options() {
  return function<const char *(*)()>("loom_fake_nvjitlink_last_options")();
}

} // namespace loomtest::fake_nvjitlink
