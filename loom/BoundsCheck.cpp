// What a call of a kernel with bounds checks or assertions does after its tasks ran: read the
// record (support/Abi.h) and turn a claimed one into loom::BoundsError or
// loom::KernelAssertionError.
#include "loom/KernelState.h"
#include "support/Abi.h"
#include "support/Error.h"

namespace loom {

namespace {

[[noreturn]] void throw_assertion(const ir::LoweredKernel &kernel, const uint64_t *record) {
  namespace slot = bounds_record;
  const uint64_t site = record[slot::site];
  if (site >= kernel.assert_sites.size())
    throw Error("internal error: kernel '" + kernel.name + "' recorded assertion site " +
                std::to_string(site) + " of " + std::to_string(kernel.assert_sites.size()));
  const ir::AssertSite &s = kernel.assert_sites[site];
  KernelAssertionError::Indices indices;
  for (size_t k = 0; k < s.index_names.size() && k < ir::max_assert_indices; ++k)
    indices.push_back({s.index_names[k], static_cast<int64_t>(record[slot::indices + k])});
  throw KernelAssertionError(kernel.name, s.message, s.file, s.line, std::move(indices),
                             std::max<uint64_t>(record[slot::failures], 1));
}

} // namespace

void throw_if_failed(const ir::LoweredKernel &kernel, const uint64_t *record, bool bounds_only) {
  namespace slot = bounds_record;
  if (record[slot::claimed] == 0)
    return;
  if (record[slot::claimed] == slot::assertion) {
    if (bounds_only)
      return;
    throw_assertion(kernel, record);
  }
  const uint64_t array = record[slot::array];
  const uint64_t params = kernel.params.size();
  std::string name = array < params ? kernel.params[array].name
                     : array - params < kernel.shared.size()
                         ? kernel.shared[array - params]->name + " (shared)"
                     : array - params - kernel.shared.size() < kernel.locals.size()
                         ? kernel.locals[array - params - kernel.shared.size()]->name + " (local)"
                         : "parameter " + std::to_string(array);
  throw BoundsError(kernel.name, name, static_cast<int>(record[slot::dimension]),
                    static_cast<int64_t>(record[slot::index]),
                    static_cast<int64_t>(record[slot::extent]));
}

} // namespace loom
