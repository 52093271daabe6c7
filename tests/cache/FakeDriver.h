// loom's fake CUDA driver (FakeCudaDriver.cpp) as the tests use it: loom loads it through
// LOOM_CUDA_DRIVER, and the tests reach its control and counting functions by name. A test
// executable using it defines LOOM_FAKE_CUDA (where the build put the library).
#pragma once

#include "cache/CacheTestUtil.h"
#include "cache/FakeCopies.h"
#include "runtime/Driver.h"

#include <dlfcn.h>

#include <algorithm>
#include <cstdlib>
#include <string>
#include <vector>

namespace loomtest::fake_cuda {

inline const std::string &path() {
  static const std::string library = test_helper("libloom_fake_cuda.so", LOOM_FAKE_CUDA);
  return library;
}

// Points loom at the fake driver; call before anything in the process loads a driver. True when
// loom could load it (else Driver::unavailable_reason() says why). PTX is linked by the (fake)
// driver unless the test set LOOM_PTX_LINKER: a real nvJitLink on the machine, not newer than the
// fake driver, would make real cubins, which the fake refuses.
inline bool load() {
  setenv("LOOM_CUDA_DRIVER", path().c_str(), 1);
  setenv("LOOM_PTX_LINKER", "driver", 0);
  return loom::runtime::Driver::get().available();
}

// load() with loom's disk cache off, as the runtime tests use the fake: each test then compiles
// its kernels (and calls the fake's linker) whatever an earlier run left on disk.
inline bool load_without_disk_cache() {
  setenv("LOOM_CACHE", "off", 1);
  return load();
}

// One of the fake's own functions (dlopen of the same path returns the library loom loaded).
template <class F> F function(const char *name) {
  static void *library = dlopen(path().c_str(), RTLD_NOW | RTLD_LOCAL);
  return reinterpret_cast<F>(dlsym(library, name));
}

// How often loom called the driver entry point `name`.
inline int calls(const char *name) {
  return function<int (*)(const char *)>("loom_fake_cuda_count")(name);
}

// The copies between host and device memory since the last clear_copies(), in order.
inline std::vector<LoomFakeCopy> copies() {
  auto list = function<size_t (*)(LoomFakeCopy *, size_t)>("loom_fake_cuda_copies");
  std::vector<LoomFakeCopy> out(std::min(list(nullptr, 0), loom_fake_max_copies));
  size_t count = list(out.data(), out.size());
  if (count > out.size()) // more than the fake keeps
    ADD_FAILURE() << count << " copies made, " << out.size() << " recorded";
  return out;
}
inline void clear_copies() {
  function<void (*)()>("loom_fake_cuda_clear_copies")();
}

} // namespace loomtest::fake_cuda
