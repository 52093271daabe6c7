// Host memory for large arrays, with huge pages as numpy gives its own arrays: aligned to a cache
// line, and blocks of 4 MiB or more (numpy's threshold) mapped on their own, aligned to 2 MiB so
// that all of the block can be huge pages, and advised to use transparent huge pages. A streaming
// kernel over such arrays misses the TLB far less often: loom's stencil and saxpy ran faster than
// on std::vector's 4 KiB pages (docs/decisions.md, "Host arrays on huge pages, offered rather than
// imposed"). HostVector<T> is a std::vector on this memory; kernel calls, loom::view() and
// DeviceArray take it as they take a std::vector.
#pragma once

#include <cstddef>
#include <new>
#include <vector>

namespace loom::runtime {

// The alignment of every block: a cache line, and a full AVX-512 vector.
inline constexpr size_t host_alignment = 64;
// Blocks from this size up get a mapping of their own with huge pages advised (numpy's threshold).
inline constexpr size_t host_huge_page_threshold = size_t(4) << 20;

// `bytes` of host memory aligned to host_alignment (and to 2 MiB from the threshold up); throws
// std::bad_alloc when the system has none to give. free_host takes the same size back.
void *allocate_host(size_t bytes);
void free_host(void *block, size_t bytes) noexcept;

// A standard allocator on allocate_host, for containers: HostVector<float> x(n).
template <class T> struct HostAllocator {
  using value_type = T;
  HostAllocator() noexcept = default;
  template <class U> HostAllocator(const HostAllocator<U> &) noexcept {}
  T *allocate(size_t n) {
    if (n > static_cast<size_t>(-1) / sizeof(T))
      throw std::bad_array_new_length();
    return static_cast<T *>(allocate_host(n * sizeof(T)));
  }
  void deallocate(T *block, size_t n) noexcept { free_host(block, n * sizeof(T)); }
  template <class U> bool operator==(const HostAllocator<U> &) const noexcept { return true; }
};

template <class T> using HostVector = std::vector<T, HostAllocator<T>>;

} // namespace loom::runtime

namespace loom {
using runtime::HostAllocator;
using runtime::HostVector;
} // namespace loom
