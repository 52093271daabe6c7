#include "runtime/HostMemory.h"

#include <cstdint>
#include <new>
#include <sys/mman.h>

namespace loom::runtime {
namespace {

constexpr size_t huge_page = size_t(2) << 20;

size_t mapped_size(size_t bytes) {
  return (bytes + huge_page - 1) & ~(huge_page - 1);
}

// A mapping of mapped_size(bytes) starting on a 2 MiB boundary: map 2 MiB more than that and
// give back the unaligned head and the tail.
void *map_aligned(size_t bytes) {
  size_t size = mapped_size(bytes);
  if (size < bytes || size > SIZE_MAX - huge_page)
    throw std::bad_alloc(); // the round-up, or the 2 MiB of slack, would overflow
  void *raw =
      mmap(nullptr, size + huge_page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (raw == MAP_FAILED)
    throw std::bad_alloc();
  uintptr_t start = reinterpret_cast<uintptr_t>(raw);
  uintptr_t aligned = (start + huge_page - 1) & ~uintptr_t(huge_page - 1);
  if (aligned > start)
    munmap(raw, aligned - start);
  if (size_t tail = huge_page - (aligned - start))
    munmap(reinterpret_cast<void *>(aligned + size), tail);
  return reinterpret_cast<void *>(aligned);
}

} // namespace

void *allocate_host(size_t bytes) {
  if (bytes < host_huge_page_threshold)
    return ::operator new(bytes, std::align_val_t(host_alignment));
  void *block = map_aligned(bytes);
  // Advice only: a kernel without transparent huge pages (EINVAL) or with them switched off
  // keeps 4 KiB pages, and the memory works the same.
  madvise(block, mapped_size(bytes), MADV_HUGEPAGE);
  return block;
}

void free_host(void *block, size_t bytes) noexcept {
  if (!block)
    return;
  if (bytes < host_huge_page_threshold)
    ::operator delete(block, std::align_val_t(host_alignment));
  else
    munmap(block, mapped_size(bytes));
}

} // namespace loom::runtime
