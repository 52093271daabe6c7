#include "ir/DynamicShared.h"

#include "support/Error.h"

#include <algorithm>

namespace loom::ir {

const Shared &dynamic_shared_array(const std::vector<Shared> &shared) {
  static const Shared none;
  for (const Shared &a : shared)
    if (a->dynamic)
      return a;
  return none;
}

// Every call checks its launch here: nothing is allocated unless it throws.
int64_t dynamic_shared_extent(const std::string &kernel, const std::vector<Shared> &shared,
                              int64_t bytes) {
  const Shared &a = dynamic_shared_array(shared);
  auto given = [&] { return std::to_string(bytes) + " bytes of dynamic shared memory"; };
  if (!a) {
    if (bytes != 0)
      throw ArgumentError("kernel '" + kernel + "' is launched with " + given() +
                          " but declares no dynamic shared array (shared.array(0, type), "
                          "loom::dynamic_shared_array<T>()); give it 0");
    return 0;
  }
  const int64_t element = byte_size(a->type);
  auto array = [&] {
    return "its dynamic shared array '" + a->name + "' of " + type_name(a->type);
  };
  if (bytes <= 0)
    throw ArgumentError("kernel '" + kernel + "': " + array() +
                        " takes its size from the launch, which gives it none: call "
                        "shape(grid, block, shared_bytes) with shared_bytes a positive multiple "
                        "of " +
                        std::to_string(element));
  if (bytes % element != 0)
    throw ArgumentError("kernel '" + kernel + "' is launched with " + given() +
                        ", which is not a whole number of elements of " + array() + " (" +
                        std::to_string(element) + " bytes each)");
  return bytes / element;
}

void check_block_shared_bytes(const std::string &kernel, int64_t static_bytes,
                              int64_t dynamic_bytes, int64_t limit, const std::string &where) {
  if (static_bytes + dynamic_bytes <= limit)
    return;
  std::string message = "kernel '" + kernel + "' is launched with " +
                        std::to_string(dynamic_bytes) + " bytes of dynamic shared memory; a " +
                        "block on " + where + " takes at most " + std::to_string(limit) + " bytes" +
                        (limit % 1024 == 0 ? " (" + std::to_string(limit / 1024) + " KiB)" : "") +
                        " of shared memory";
  if (static_bytes > 0)
    message += ", of which its static shared arrays take " + std::to_string(static_bytes);
  throw ArgumentError(message + ": at most " +
                      std::to_string(std::max<int64_t>(limit - static_bytes, 0)) +
                      " bytes of dynamic shared memory");
}

} // namespace loom::ir
