// The layout of a strided view: extents and strides in elements (any sign, NumPy's strides divided
// by the element size), counted from the view's element [0, ..., 0]. What every part of loom that
// takes views computes from them: how far the view reaches, whether it is the dense row-major
// layout, whether two of its index tuples can name one element, whether two views can share
// memory, and its elements copied to and from a dense row-major copy.
#pragma once

#include <cstdint>
#include <cstring>
#include <numeric>
#include <span>

namespace loom::strided {

// The lowest and highest element offset a view reaches from its element [0, ..., 0]: begin <= 0
// <= last. `empty` when an extent is 0 (then it reaches nothing).
struct Reach {
  int64_t lowest = 0, highest = 0;
  bool empty = false;
  // The elements from the lowest to the highest offset: what a copy of the span moves.
  int64_t span() const { return empty ? 0 : highest - lowest + 1; }
};

// False when the reach overflows 64 bits.
inline bool reach(std::span<const int64_t> shape, std::span<const int64_t> strides, Reach &r) {
  r = {};
  for (int64_t e : shape)
    if (e == 0) {
      r.empty = true;
      return true;
    }
  for (size_t d = 0; d < shape.size(); ++d) {
    int64_t far = 0;
    if (__builtin_mul_overflow(shape[d] - 1, strides[d], &far))
      return false;
    if (__builtin_add_overflow(far < 0 ? r.lowest : r.highest, far,
                               far < 0 ? &r.lowest : &r.highest))
      return false;
  }
  return true;
}

// Whether the strides are those of the dense row-major layout of `shape` (dimensions of extent 1
// may have any stride; an empty view is dense).
inline bool is_row_major(std::span<const int64_t> shape, std::span<const int64_t> strides) {
  int64_t expected = 1;
  for (int64_t e : shape)
    if (e == 0)
      return true;
  for (size_t d = shape.size(); d-- > 0;) {
    if (shape[d] != 1 && strides[d] != expected)
      return false;
    expected *= shape[d];
  }
  return true;
}

// Whether no two index tuples of the view name one element. Sufficient, as NumPy's quick check:
// ordered by |stride|, each stride steps past everything the smaller ones reach. (Views made by
// slicing, stepping and transposing a dense array always pass; a zero stride never does.)
inline bool elements_distinct(std::span<const int64_t> shape, std::span<const int64_t> strides) {
  const size_t rank = shape.size();
  size_t order[16];
  size_t n = 0;
  for (size_t d = 0; d < rank && d < 16; ++d)
    if (shape[d] > 1)
      order[n++] = d;
  if (n == 0)
    return true;
  auto magnitude = [&](size_t d) { return strides[d] < 0 ? -strides[d] : strides[d]; };
  for (size_t i = 1; i < n; ++i) // insertion sort by |stride|: at most 8 dimensions
    for (size_t j = i; j > 0 && magnitude(order[j]) < magnitude(order[j - 1]); --j) {
      size_t t = order[j];
      order[j] = order[j - 1];
      order[j - 1] = t;
    }
  int64_t reached = 0; // the largest offset the smaller strides reach
  for (size_t k = 0; k < n; ++k) {
    const size_t d = order[k];
    if (magnitude(d) <= reached)
      return false;
    int64_t far = 0;
    if (__builtin_mul_overflow(shape[d] - 1, magnitude(d), &far) ||
        __builtin_add_overflow(reached, far, &reached))
      return false;
  }
  return true;
}

// The gcd of a view's strides in bytes over its dimensions of extent above 1: every element it
// reaches starts at its first one's address plus a multiple of it. 0 for a view of at most one
// element; a dense array's is its element size.
inline int64_t byte_lattice(std::span<const int64_t> shape, std::span<const int64_t> strides,
                            int64_t element_bytes) {
  int64_t g = 0;
  for (size_t d = 0; d < shape.size(); ++d)
    if (shape[d] > 1)
      g = std::gcd(g, strides[d]); // non-negative whatever the signs
  if (g != 0 && __builtin_mul_overflow(g, element_bytes, &g))
    return 1; // the lattice of every address: no separation claimed
  return g;
}

// Whether two views can share a byte, judged by their lattices alone: the elements of one start
// at `a_first` plus multiples of `a_lattice` and are `a_bytes` long (byte_lattice), the other's
// alike. The differences of their start addresses are then `a_first - b_first` plus multiples of
// g = gcd(a_lattice, b_lattice); two elements share a byte when one such difference lies in
// (-a_bytes, b_bytes). False is exact (the even and odd elements of a vector, two columns of a
// matrix, the real and imaginary parts of a complex array); true may be a false alarm (two tiles
// side by side), which the reach of each view can still rule out.
inline bool lattices_meet(uint64_t a_first, int64_t a_lattice, int64_t a_bytes, uint64_t b_first,
                          int64_t b_lattice, int64_t b_bytes) {
  const int64_t g = std::gcd(a_lattice, b_lattice);
  const int64_t difference = static_cast<int64_t>(a_first - b_first); // wraps as addresses do
  if (g == 0)
    return -a_bytes < difference && difference < b_bytes;
  const int64_t r = ((difference % g) + g) % g; // in [0, g)
  return r < b_bytes || g - r < a_bytes;
}

// Copies every element of the view at `first` (the address of its element [0, ..., 0]) into
// `dense`, row-major; or back.
enum class Direction { ToDense, FromDense };
inline void copy(unsigned char *first, unsigned char *dense, std::span<const int64_t> shape,
                 std::span<const int64_t> strides, size_t element_bytes, Direction direction) {
  const size_t rank = shape.size();
  for (int64_t e : shape)
    if (e == 0)
      return;
  int64_t index[16] = {};
  const int64_t last = rank ? shape[rank - 1] : 1;
  const int64_t step = rank ? strides[rank - 1] * static_cast<int64_t>(element_bytes) : 0;
  while (true) {
    int64_t offset = 0;
    for (size_t d = 0; d + 1 < rank; ++d)
      offset += index[d] * strides[d];
    unsigned char *p = first + offset * static_cast<int64_t>(element_bytes);
    for (int64_t i = 0; i < last; ++i, p += step, dense += element_bytes)
      if (direction == Direction::ToDense)
        std::memcpy(dense, p, element_bytes);
      else
        std::memcpy(p, dense, element_bytes);
    size_t d = rank >= 1 ? rank - 1 : 0;
    while (d-- > 0) {
      if (++index[d] < shape[d])
        break;
      index[d] = 0;
    }
    if (d == static_cast<size_t>(-1))
      return;
  }
}

} // namespace loom::strided
