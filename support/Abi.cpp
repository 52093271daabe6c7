#include "support/Abi.h"

namespace loom {

PrintEntryPoint &print_entry_point() {
  static PrintEntryPoint entry;
  return entry;
}

SimtEntryPoints &simt_entry_points() {
  static SimtEntryPoints table;
  return table;
}

} // namespace loom
