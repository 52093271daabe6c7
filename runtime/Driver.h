// The CUDA driver, loaded at run time with dlopen so that loom runs (on the CPU) where there is no
// NVIDIA driver, and says precisely why the GPU cannot be used.
#pragma once

#include "runtime/CudaApi.h"
#include "runtime/SharedLibrary.h"

#include <atomic>
#include <mutex>
#include <string>
#include <vector>

namespace loom::runtime {

// The process's one handle on libcuda. Loading, resolving every entry point, cuInit and counting
// devices happen once, on the first get(); none of it throws: a failure becomes
// unavailable_reason(). The library is never unloaded (other objects may outlive this one at exit).
class Driver {
public:
  // Loads the driver on first use; thread-safe. The environment variable LOOM_CUDA_DRIVER names
  // another library to load instead of libcuda.so.1 (e.g. a driver outside the loader's path).
  static Driver &get();

  bool available() const { return available_; }
  // Why the driver cannot be used; empty when available().
  const std::string &unavailable_reason() const { return unavailable_reason_; }
  // Number of CUDA devices (0 when unavailable).
  int device_count() const { return device_count_; }
  // The library that was (or could not be) loaded.
  const std::string &library_path() const { return library_path_; }

  // Throws loom::DriverError (loom::OutOfMemoryError for CUDA_ERROR_OUT_OF_MEMORY) unless `result`
  // is CUDA_SUCCESS: "<call> failed: CUDA_ERROR_X (the driver's description)". A sticky error
  // (one that leaves the context unusable: an illegal address, a trap, ...) also poisons the
  // context: see throw_if_poisoned().
  void check(CUresult result, const char *call) const;
  // Throws as check does for a failed `result`, appending `detail` to the message.
  [[noreturn]] void fail(CUresult result, const std::string &call,
                         const std::string &detail = "") const;
  // "CUDA_ERROR_OUT_OF_MEMORY (out of memory)": the driver's name and description of a result,
  // with loom's own table (then the number) as fallback when the driver cannot say.
  std::string describe(CUresult result) const;
  std::string error_name(CUresult result) const;

  // Whether a sticky error has made the context unusable (thread-safe).
  bool poisoned() const { return poisoned_.load(std::memory_order_acquire); }
  // Throws loom::ContextPoisonedError, naming the call that poisoned the context, once it is;
  // GpuContext::activate() calls it first, so a poisoned process fails fast, without calling
  // the driver again.
  void throw_if_poisoned() const;

  // The entry points, named exactly as the symbols they were resolved from. Null when unavailable.
#define LOOM_CUDA_DECLARE_MEMBER(name, params) name##_fn name = nullptr;
  LOOM_CUDA_ENTRY_POINTS(LOOM_CUDA_DECLARE_MEMBER)
  // Null also where the driver is older than the entry point.
  LOOM_CUDA_OPTIONAL_ENTRY_POINTS(LOOM_CUDA_DECLARE_MEMBER)
#undef LOOM_CUDA_DECLARE_MEMBER

  Driver(const Driver &) = delete;
  Driver &operator=(const Driver &) = delete;

private:
  Driver();
  bool load();
  // Every entry point, each with the member it is resolved into.
  std::vector<EntryPoint> entry_points();
  std::vector<EntryPoint> optional_entry_points();

  bool available_ = false;
  std::string unavailable_reason_;
  std::string library_path_;
  int device_count_ = 0;

  // The first sticky failure: set once, read by every later GPU operation.
  mutable std::atomic<bool> poisoned_{false};
  mutable std::mutex poison_mutex_;
  mutable std::string poison_call_, poison_message_;
  mutable CUresult poison_code_ = CUDA_SUCCESS;
};

} // namespace loom::runtime
