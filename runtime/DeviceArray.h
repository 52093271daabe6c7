// A dense row-major array resident on the GPU, for users who want to keep data on the device across
// kernel calls instead of copying it in and out on each call (PyCUDA's GPUArray, Numba's
// DeviceNDArray).
#pragma once

#include "runtime/DeviceBuffer.h"
#include "support/Error.h"

#include <cstdint>
#include <initializer_list>
#include <limits>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace loom::runtime {

// "[2, 3]", for messages about shapes.
inline std::string shape_to_string(const std::vector<int64_t> &shape) {
  std::string text = "[";
  for (size_t k = 0; k < shape.size(); ++k)
    text += (k ? ", " : "") + std::to_string(shape[k]);
  return text + "]";
}

// Construction follows one rule, the same for every T: a braced list of integers is a shape, a
// vector or pointer is data. (A constructor taking the shape as std::vector<int64_t> would be
// ambiguous with the 1-D data constructor, and for DeviceArray<int64_t> could not be told apart.)
template <class T> class DeviceArray {
  static_assert(std::is_trivially_copyable_v<T>, "DeviceArray holds plain values copied bytewise");

public:
  // Uninitialised array of a literal shape (extents outermost first): DeviceArray<float> c({n, m}).
  explicit DeviceArray(std::initializer_list<int64_t> shape)
      : DeviceArray(std::vector<int64_t>(shape), Uninitialized{}) {}
  // Uninitialised array of any shape, e.g. one computed at run time.
  static DeviceArray uninitialized(std::vector<int64_t> shape) {
    return DeviceArray(std::move(shape), Uninitialized{});
  }
  // Copies size() elements from `host`, laid out row-major in `shape`.
  DeviceArray(const T *host, std::vector<int64_t> shape)
      : DeviceArray(std::move(shape), Uninitialized{}) {
    copy_from_host(host);
  }
  // A 1-D array holding a copy of `host` (a std::vector with any allocator: HostVector too).
  template <class A>
  explicit DeviceArray(const std::vector<T, A> &host)
      : DeviceArray(host.data(), {static_cast<int64_t>(host.size())}) {}
  // A copy of `host` viewed in `shape`, whose element count must be host.size().
  template <class A>
  DeviceArray(const std::vector<T, A> &host, std::vector<int64_t> shape)
      : DeviceArray(checked_shape_for(host.size(), std::move(shape)), Uninitialized{}) {
    copy_from_host(host.data());
  }

  DeviceArray(DeviceArray &&) noexcept = default;
  DeviceArray &operator=(DeviceArray &&) noexcept = default;
  DeviceArray(const DeviceArray &) = delete;
  DeviceArray &operator=(const DeviceArray &) = delete;

  const std::vector<int64_t> &shape() const { return shape_; }
  int rank() const { return static_cast<int>(shape_.size()); }
  int64_t dim(int k) const {
    if (k < 0 || k >= rank())
      throw ArgumentError("DeviceArray::dim(" + std::to_string(k) + ") of an array of rank " +
                          std::to_string(rank()));
    return shape_[k];
  }
  int64_t size() const { return size_; } // element count
  size_t bytes() const { return bytes_for(size_); }
  CUdeviceptr data() const { return buffer_.ptr(); }
  const DeviceBuffer &buffer() const { return buffer_; }

  // Blocking copies of all size() elements.
  void copy_to_host(T *destination) const { buffer_.copy_to_host(destination, bytes()); }
  void copy_from_host(const T *source) { buffer_.copy_from_host(source, bytes()); }
  std::vector<T> to_host() const {
    std::vector<T> host(static_cast<size_t>(size_));
    copy_to_host(host.data());
    return host;
  }

private:
  struct Uninitialized {};
  DeviceArray(std::vector<int64_t> shape, Uninitialized)
      : shape_(std::move(shape)), size_(checked_size(shape_)), buffer_(bytes_for(size_)) {}

  // Validates before any device memory is touched, so shape errors need no GPU to be reported.
  static int64_t checked_size(const std::vector<int64_t> &shape) {
    if (shape.empty() || shape.size() > 8)
      throw ArgumentError("DeviceArray: rank must be 1 to 8, got " + std::to_string(shape.size()) +
                          " (shape " + shape_to_string(shape) + ")");
    for (size_t k = 0; k < shape.size(); ++k)
      if (shape[k] < 0)
        throw ArgumentError("DeviceArray: extent " + std::to_string(k) + " of shape " +
                            shape_to_string(shape) + " is negative");
    for (int64_t extent : shape)
      if (extent == 0)
        return 0;
    int64_t size = 1;
    for (int64_t extent : shape) {
      if (size > std::numeric_limits<int64_t>::max() / static_cast<int64_t>(sizeof(T)) / extent)
        throw ArgumentError("DeviceArray: shape " + shape_to_string(shape) +
                            " has more bytes than a 64-bit size can count");
      size *= extent;
    }
    return size;
  }
  static std::vector<int64_t> checked_shape_for(size_t host_size, std::vector<int64_t> shape) {
    int64_t size = checked_size(shape);
    if (static_cast<uint64_t>(size) != host_size)
      throw ArgumentError("DeviceArray: the host vector has " + std::to_string(host_size) +
                          " elements but shape " + shape_to_string(shape) + " holds " +
                          std::to_string(size));
    return shape;
  }
  static size_t bytes_for(int64_t size) { return static_cast<size_t>(size) * sizeof(T); }

  std::vector<int64_t> shape_;
  int64_t size_;
  DeviceBuffer buffer_;
};

} // namespace loom::runtime

namespace loom {
using runtime::DeviceArray;
} // namespace loom
