// What a bounds-checked call does after its tasks ran: read the bounds record (support/Abi.h)
// and turn a claimed one into loom::BoundsError.
#include "loom/KernelState.h"
#include "support/Abi.h"
#include "support/Error.h"

namespace loom {

void throw_if_out_of_bounds(const ir::LoweredKernel &kernel, const uint64_t *record) {
  namespace slot = bounds_record;
  if (record[slot::claimed] == 0)
    return;
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
