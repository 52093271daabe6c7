// Call arguments of a kernel, type-erased so one non-template function checks and passes them.
#pragma once

#include "frontend/DType.h"
#include "ir/Semantics.h"
#include "runtime/DeviceArray.h"

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

namespace loom {

// A host array with a shape: loom::view(vec, {rows, cols}) passes a std::vector (with any
// allocator: loom::HostVector too) as a 2-D array.
template <DslElement T> struct HostArray {
  T *data; // element [0, ..., 0]
  std::vector<int64_t> shape;
  std::vector<int64_t> strides = {}; // in elements, any sign; empty: dense row-major
};
// The shape must hold exactly v.size() elements (ArgumentError otherwise): a view that reached
// past the vector's end would let a kernel write outside it.
template <DslElement T, class A>
HostArray<T> view(std::vector<T, A> &v, std::vector<int64_t> shape) {
  int64_t elements = 1;
  bool negative = false, overflow = false;
  for (int64_t extent : shape) {
    negative |= extent < 0;
    overflow |= __builtin_mul_overflow(elements, extent, &elements);
  }
  if (negative || overflow || elements != static_cast<int64_t>(v.size()))
    throw ArgumentError("loom::view: shape " + runtime::shape_to_string(shape) +
                        " does not hold the vector's " + std::to_string(v.size()) + " elements" +
                        (negative   ? std::string(" (an extent is negative)")
                         : overflow ? std::string(" (its element count overflows)")
                                    : ": it holds " + std::to_string(elements)));
  return {v.data(), std::move(shape)};
}
template <DslElement T> HostArray<T> view(T *data, std::vector<int64_t> shape) {
  return {data, std::move(shape)};
}

// A strided view of a vector's elements, as NumPy's views are (a transpose, a column, a step):
// element [i0, i1, ...] is v[offset + i0 * strides[0] + i1 * strides[1] + ...], strides in
// elements and of any sign. ArgumentError when it would reach outside the vector. A kernel reads
// it in place on the CPU; a call on the GPU copies only the elements it covers.
template <DslElement T, class A>
HostArray<T> view(std::vector<T, A> &v, std::vector<int64_t> shape, std::vector<int64_t> strides,
                  int64_t offset = 0) {
  bool ok = !shape.empty() && shape.size() <= 8 && strides.size() == shape.size();
  for (int64_t extent : shape)
    ok &= extent >= 0;
  strided::Reach r;
  if (!ok)
    throw ArgumentError("loom::view: a view has 1 to 8 dimensions, extents of at least 0 and one "
                        "stride per dimension; got shape " +
                        runtime::shape_to_string(shape) + " and strides " +
                        runtime::shape_to_string(strides));
  if (!strided::reach(shape, strides, r) ||
      (!r.empty && (offset + r.lowest < 0 || offset + r.highest >= int64_t(v.size()))))
    throw ArgumentError("loom::view: shape " + runtime::shape_to_string(shape) + " with strides " +
                        runtime::shape_to_string(strides) + " from element " +
                        std::to_string(offset) + " reaches outside the vector's " +
                        std::to_string(v.size()) + " elements");
  return {v.data() + (r.empty ? 0 : offset), std::move(shape), std::move(strides)};
}
// The same on memory loom cannot check: every element the view reaches must be valid.
template <DslElement T>
HostArray<T> view(T *data, std::vector<int64_t> shape, std::vector<int64_t> strides) {
  if (strides.size() != shape.size())
    throw ArgumentError("loom::view: shape " + runtime::shape_to_string(shape) + " takes " +
                        std::to_string(shape.size()) + " strides, got " +
                        std::to_string(strides.size()));
  return {data, std::move(shape), std::move(strides)};
}

// An array argument's extents, outermost first, held inline so that passing an argument does not
// allocate. Holds up to max_rank extents; rank() still counts any beyond (an error to report).
class Shape {
public:
  static constexpr size_t max_rank = 8;
  Shape() = default;
  Shape(std::initializer_list<int64_t> extents) { assign(extents.begin(), extents.end()); }
  Shape(const std::vector<int64_t> &extents) {
    assign(extents.data(), extents.data() + extents.size());
  }
  size_t size() const { return rank_; }
  int64_t operator[](size_t k) const { return extents_[k]; }
  const int64_t *begin() const { return extents_; }
  const int64_t *end() const { return extents_ + std::min(rank_, max_rank); }

private:
  void assign(const int64_t *first, const int64_t *last) {
    rank_ = static_cast<size_t>(last - first);
    std::copy(first, first + std::min(rank_, max_rank), extents_);
  }
  int64_t extents_[max_rank] = {};
  size_t rank_ = 0;
};

struct Argument {
  enum class Kind { Scalar, HostArray, DeviceArray };
  Kind kind = Kind::Scalar;
  ir::ScalarType type = ir::ScalarType::I32; // scalar type, or element type of an array
  ir::ScalarValue scalar;                    // scalars
  void *host = nullptr;                      // host arrays
  bool host_const = false;                   // a const host array: the kernel may not write it
  uint64_t device = 0;                       // device arrays (a CUdeviceptr)
  int device_ordinal = 0;                    // and the GPU it is on
  Shape shape;                               // arrays
  Shape strides; // a strided view's, in elements (empty: dense row-major); from element 0

  int64_t size() const {
    int64_t n = 1;
    for (int64_t e : shape)
      n *= e;
    return n;
  }
};

template <class U>
requires std::is_arithmetic_v<U> Argument to_argument(U v) {
  Argument a;
  using T = dsl_type_t<U>;
  a.type = dtype_of<T>();
  if constexpr (std::is_floating_point_v<T>)
    a.scalar.f = v;
  else
    a.scalar.i = static_cast<int64_t>(v);
  return a;
}
// An f16 or bf16 scalar: passed as the float that holds it, for an f16 (bf16) parameter as it is;
// for another parameter converted as a C++ call would convert it.
template <class U>
requires is_half_v<U> Argument to_argument(U v) {
  Argument a;
  a.type = dtype_of<U>();
  a.scalar.f = static_cast<float>(v);
  return a;
}
// A complex scalar (std::complex<float> is a c64, std::complex<double> a c128).
template <class U>
requires is_complex_v<U> Argument to_argument(U v) {
  Argument a;
  a.type = dtype_of<U>();
  a.scalar.f = v.real();
  a.scalar.im = v.imag();
  return a;
}
template <DslElement T, class A> Argument to_argument(std::vector<T, A> &v) {
  Argument a;
  a.kind = Argument::Kind::HostArray;
  a.type = dtype_of<T>();
  a.host = v.data();
  a.shape = {static_cast<int64_t>(v.size())};
  return a;
}
template <DslElement T, class A> Argument to_argument(const std::vector<T, A> &v) {
  Argument a = to_argument(const_cast<std::vector<T, A> &>(v));
  a.host_const = true;
  return a;
}
template <DslElement T> Argument to_argument(const HostArray<T> &v) {
  Argument a;
  a.kind = Argument::Kind::HostArray;
  a.type = dtype_of<T>();
  a.host = v.data;
  a.shape = v.shape;
  a.strides = v.strides;
  return a;
}
template <DslElement T> Argument to_argument(const runtime::DeviceView<T> &v) {
  Argument a;
  a.kind = Argument::Kind::DeviceArray;
  a.type = dtype_of<T>();
  a.device = v.data();
  a.device_ordinal = v.device_ordinal();
  a.shape = v.shape();
  a.strides = v.strides();
  return a;
}
template <DslElement T> Argument to_argument(const runtime::DeviceArray<T> &v) {
  Argument a;
  a.kind = Argument::Kind::DeviceArray;
  a.type = dtype_of<T>();
  a.device = v.data();
  a.device_ordinal = v.device_ordinal();
  a.shape = v.shape();
  return a;
}

} // namespace loom
