// A driver object (a stream, an event) owned by one C++ object: Kind::create(device) makes it in
// that device's context, checking the driver call and naming it when it fails;
// Kind::destroy(handle, device) frees it when the owner goes, in the same context, and drops
// errors, as a destructor cannot report them. Moved, never copied; null once moved from.
#pragma once

#include "runtime/Device.h"

#include <utility>

namespace loom::runtime {

// Kind: struct { using Handle = CUstream; static CUstream create(int device); static void
// destroy(CUstream, int device) noexcept; }.
template <class Kind> class DriverHandle {
public:
  using Handle = typename Kind::Handle;

  // On the calling thread's device (current_device()), or on `device`.
  DriverHandle() : DriverHandle(current_device()) {}
  explicit DriverHandle(int device) : device_(device), handle_(Kind::create(device)) {}
  ~DriverHandle() { reset(); }
  DriverHandle(DriverHandle &&other) noexcept
      : device_(other.device_), handle_(std::exchange(other.handle_, nullptr)) {}
  DriverHandle &operator=(DriverHandle &&other) noexcept {
    if (this != &other) {
      reset();
      device_ = other.device_;
      handle_ = std::exchange(other.handle_, nullptr);
    }
    return *this;
  }
  DriverHandle(const DriverHandle &) = delete;
  DriverHandle &operator=(const DriverHandle &) = delete;

  Handle get() const { return handle_; }
  int device() const { return device_; }

private:
  void reset() noexcept {
    if (handle_)
      Kind::destroy(std::exchange(handle_, nullptr), device_);
  }

  int device_;
  Handle handle_ = nullptr;
};

} // namespace loom::runtime
