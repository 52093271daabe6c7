#include "support/Abi.h"

namespace loom {

SimtEntryPoints &simt_entry_points() {
  static SimtEntryPoints table;
  return table;
}

} // namespace loom
