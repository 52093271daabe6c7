// A driver object (a stream, an event) owned by one C++ object: Kind::create() makes it, checking
// the driver call and naming it when it fails; Kind::destroy() frees it when the owner goes, and
// drops errors, as a destructor cannot report them. Moved, never copied; null once moved from.
#pragma once

#include <utility>

namespace loom::runtime {

// Kind: struct { using Handle = CUstream; static CUstream create(); static void destroy(CUstream)
// noexcept; }.
template <class Kind> class DriverHandle {
public:
  using Handle = typename Kind::Handle;

  DriverHandle() : handle_(Kind::create()) {}
  ~DriverHandle() { reset(); }
  DriverHandle(DriverHandle &&other) noexcept : handle_(std::exchange(other.handle_, nullptr)) {}
  DriverHandle &operator=(DriverHandle &&other) noexcept {
    if (this != &other) {
      reset();
      handle_ = std::exchange(other.handle_, nullptr);
    }
    return *this;
  }
  DriverHandle(const DriverHandle &) = delete;
  DriverHandle &operator=(const DriverHandle &) = delete;

  Handle get() const { return handle_; }

private:
  void reset() noexcept {
    if (handle_)
      Kind::destroy(std::exchange(handle_, nullptr));
  }

  Handle handle_ = nullptr;
};

} // namespace loom::runtime
