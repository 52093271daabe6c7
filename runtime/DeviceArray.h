// A dense row-major array resident on the GPU, for users who want to keep data on the device across
// kernel calls instead of copying it in and out on each call (PyCUDA's GPUArray, Numba's
// DeviceNDArray).
#pragma once

#include "runtime/Device.h"
#include "runtime/DeviceBuffer.h"
#include "support/Error.h"
#include "support/StridedLayout.h"

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

template <class T> class DeviceArray;

// A strided view of a DeviceArray's elements, as NumPy's views are: a slice, a step (negative
// too), a transpose, a column. It owns nothing: the array must outlive it. Strides are in
// elements, any sign, counted from the view's element [0, ..., 0]; a view never reaches outside
// its array (ArgumentError when it would). A kernel takes a view wherever it takes an array.
template <class T> class DeviceView {
public:
  const std::vector<int64_t> &shape() const { return shape_; }
  const std::vector<int64_t> &strides() const { return strides_; }
  int rank() const { return static_cast<int>(shape_.size()); }
  int64_t size() const {
    int64_t n = 1;
    for (int64_t e : shape_)
      n *= e;
    return n;
  }
  // The address of element [0, ..., 0].
  CUdeviceptr data() const { return base_ + static_cast<CUdeviceptr>(offset_) * sizeof(T); }
  // The device of its array.
  Device device() const { return Device(device_); }
  int device_ordinal() const { return device_; }
  // Whether it is the dense row-major layout of its shape (a kernel then reads it as an array).
  bool contiguous() const { return strided::is_row_major(shape_, strides_); }

  // Elements begin, begin + step, ... of dimension `dim`, up to but not including `end`, as
  // Python's a[begin:end:step] (a negative step walks backwards: begin > end; end -1 reaches
  // element 0). The indices are not wrapped: begin must be an element, end at most one past.
  DeviceView slice(int dim, int64_t begin, int64_t end, int64_t step = 1) const {
    check_dim(dim, "slice");
    const int64_t extent = shape_[dim];
    if (step == 0)
      throw ArgumentError("DeviceView::slice: the step is 0");
    int64_t count = step > 0 ? (end > begin ? (end - begin + step - 1) / step : 0)
                             : (begin > end ? (begin - end - step - 1) / -step : 0);
    if (count > 0 && (begin < 0 || begin >= extent || (step > 0 ? end > extent : end < -1)))
      throw ArgumentError("DeviceView::slice(" + std::to_string(dim) + ", " +
                          std::to_string(begin) + ", " + std::to_string(end) + ", " +
                          std::to_string(step) + "): outside dimension " + std::to_string(dim) +
                          " of shape " + shape_to_string(shape_));
    DeviceView v = *this;
    v.shape_[dim] = count;
    if (count > 0)
      v.offset_ += begin * strides_[dim];
    v.strides_[dim] *= step;
    return v;
  }
  // Element `index` of dimension `dim`: a view of one rank less (a column: a.select(1, j)).
  DeviceView select(int dim, int64_t index) const {
    check_dim(dim, "select");
    if (index < 0 || index >= shape_[dim])
      throw ArgumentError("DeviceView::select(" + std::to_string(dim) + ", " +
                          std::to_string(index) + "): outside shape " + shape_to_string(shape_));
    if (rank() == 1)
      throw ArgumentError("DeviceView::select: a view of rank 1 has no dimension left to keep");
    DeviceView v = *this;
    v.offset_ += index * strides_[dim];
    v.shape_.erase(v.shape_.begin() + dim);
    v.strides_.erase(v.strides_.begin() + dim);
    return v;
  }
  // The dimensions in reverse order (NumPy's a.T): the transpose of a matrix.
  DeviceView transposed() const {
    DeviceView v = *this;
    v.shape_.assign(shape_.rbegin(), shape_.rend());
    v.strides_.assign(strides_.rbegin(), strides_.rend());
    return v;
  }

  // Blocking copy of the view's elements only, row-major.
  std::vector<T> to_host() const {
    std::vector<T> dense(static_cast<size_t>(size()));
    strided::Reach r;
    strided::reach(shape_, strides_, r);
    if (r.empty)
      return dense;
    std::vector<T> span(static_cast<size_t>(r.span()));
    DeviceScope scope(device_);
    copy_device_to_host(span.data(), data() + r.lowest * static_cast<int64_t>(sizeof(T)),
                        span.size() * sizeof(T));
    strided::copy(reinterpret_cast<unsigned char *>(span.data() - r.lowest),
                  reinterpret_cast<unsigned char *>(dense.data()), shape_, strides_, sizeof(T),
                  strided::Direction::ToDense);
    return dense;
  }

private:
  friend class DeviceArray<T>;
  DeviceView(CUdeviceptr base, int device, int64_t base_size, std::vector<int64_t> shape,
             std::vector<int64_t> strides, int64_t offset)
      : base_(base), device_(device), base_size_(base_size), offset_(offset),
        shape_(std::move(shape)), strides_(std::move(strides)) {
    if (shape_.empty() || shape_.size() > 8 || strides_.size() != shape_.size())
      throw ArgumentError("DeviceArray::view: a view has 1 to 8 dimensions and one stride per "
                          "dimension; got shape " +
                          shape_to_string(shape_) + " and strides " + shape_to_string(strides_));
    for (int64_t e : shape_)
      if (e < 0)
        throw ArgumentError("DeviceArray::view: shape " + shape_to_string(shape_) +
                            " has a negative extent");
    strided::Reach r;
    if (!strided::reach(shape_, strides_, r) ||
        (!r.empty && (offset_ + r.lowest < 0 || offset_ + r.highest >= base_size_)))
      throw ArgumentError("DeviceArray::view: shape " + shape_to_string(shape_) + " with strides " +
                          shape_to_string(strides_) + " from element " + std::to_string(offset_) +
                          " reaches outside the array's " + std::to_string(base_size_) +
                          " elements");
  }
  void check_dim(int dim, const char *what) const {
    if (dim < 0 || dim >= rank())
      throw ArgumentError(std::string("DeviceView::") + what + ": dimension " +
                          std::to_string(dim) + " of a view of rank " + std::to_string(rank()));
  }

  CUdeviceptr base_;  // the array's first element
  int device_;        // the array's device
  int64_t base_size_; // and its element count
  int64_t offset_;    // of element [0, ..., 0] from base_, in elements
  std::vector<int64_t> shape_, strides_;
};

// Construction follows one rule, the same for every T: a braced list of integers is a shape, a
// vector or pointer is data. (A constructor taking the shape as std::vector<int64_t> would be
// ambiguous with the 1-D data constructor, and for DeviceArray<int64_t> could not be told apart.)
// An array lives on the device its constructor names first (a loom::Device), else on the default
// device (LOOM_DEVICE's, else 0); a kernel call on another device refuses it (ArgumentError).
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

  // The same on `device`: DeviceArray<float> a(loom::Device(1), {n, m}), ...
  DeviceArray(const Device &device, std::initializer_list<int64_t> shape)
      : DeviceArray(std::vector<int64_t>(shape), Uninitialized{}, device.ordinal()) {}
  static DeviceArray uninitialized(const Device &device, std::vector<int64_t> shape) {
    return DeviceArray(std::move(shape), Uninitialized{}, device.ordinal());
  }
  DeviceArray(const Device &device, const T *host, std::vector<int64_t> shape)
      : DeviceArray(std::move(shape), Uninitialized{}, device.ordinal()) {
    copy_from_host(host);
  }
  template <class A>
  DeviceArray(const Device &device, const std::vector<T, A> &host)
      : DeviceArray(device, host.data(), {static_cast<int64_t>(host.size())}) {}
  template <class A>
  DeviceArray(const Device &device, const std::vector<T, A> &host, std::vector<int64_t> shape)
      : DeviceArray(checked_shape_for(host.size(), std::move(shape)), Uninitialized{},
                    device.ordinal()) {
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
  // The address of the first element on its device: for CUDA libraries, and for CUDA-aware MPI,
  // which sends and receives device memory without a copy through the host.
  CUdeviceptr data() const { return buffer_.ptr(); }
  const DeviceBuffer &buffer() const { return buffer_; }
  // Where it lives.
  Device device() const { return Device(buffer_.device()); }
  int device_ordinal() const { return buffer_.device(); }

  // A copy on `device` (of the same device too): peer to peer where the two devices allow it,
  // else through host memory. Blocking.
  DeviceArray to(const Device &device) const {
    DeviceArray copy(shape_, Uninitialized{}, device.ordinal());
    copy.copy_from(*this);
    return copy;
  }
  // Overwrites the elements with `source`'s, of the same shape, from any device. Blocking.
  void copy_from(const DeviceArray &source) {
    if (source.shape_ != shape_)
      throw ArgumentError("DeviceArray::copy_from: shape " + shape_to_string(source.shape_) +
                          " into an array of shape " + shape_to_string(shape_));
    copy_between_devices(data(), device_ordinal(), source.data(), source.device_ordinal(), bytes());
  }

  // Blocking copies of all size() elements.
  void copy_to_host(T *destination) const { buffer_.copy_to_host(destination, bytes()); }
  void copy_from_host(const T *source) { buffer_.copy_from_host(source, bytes()); }
  std::vector<T> to_host() const {
    std::vector<T> host(static_cast<size_t>(size_));
    copy_to_host(host.data());
    return host;
  }

  // Views of the elements (runtime/DeviceArray.h, DeviceView): all of them, row-major...
  DeviceView<T> view() const {
    std::vector<int64_t> strides(shape_.size(), 1);
    for (size_t d = shape_.size() - 1; d-- > 0;)
      strides[d] = strides[d + 1] * shape_[d + 1];
    return DeviceView<T>(data(), device_ordinal(), size_, shape_, std::move(strides), 0);
  }
  // ... any layout within the array: strides in elements from element `offset` ...
  DeviceView<T> view(std::vector<int64_t> shape, std::vector<int64_t> strides,
                     int64_t offset = 0) const {
    return DeviceView<T>(data(), device_ordinal(), size_, std::move(shape), std::move(strides),
                         offset);
  }
  // ... and the views of DeviceView's slice, select and transposed, of the whole array.
  DeviceView<T> slice(int dim, int64_t begin, int64_t end, int64_t step = 1) const {
    return view().slice(dim, begin, end, step);
  }
  DeviceView<T> select(int dim, int64_t index) const { return view().select(dim, index); }
  DeviceView<T> transposed() const { return view().transposed(); }

private:
  struct Uninitialized {};
  DeviceArray(std::vector<int64_t> shape, Uninitialized)
      : shape_(std::move(shape)), size_(checked_size(shape_)), buffer_(bytes_for(size_)) {}
  DeviceArray(std::vector<int64_t> shape, Uninitialized, int device)
      : shape_(std::move(shape)), size_(checked_size(shape_)), buffer_(bytes_for(size_), device) {}

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
using runtime::DeviceView;
} // namespace loom
