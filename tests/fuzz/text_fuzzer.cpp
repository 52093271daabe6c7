// libFuzzer target over the text front end and the lowering passes: any input must either
// compile or raise one of loom's typed errors. A crash, a sanitizer report, an uncaught exception
// or a hang is a bug.
#include "frontend/text/Compile.h"
#include "ir/Lower.h"
#include "ir/Printer.h"
#include "support/Error.h"

#include <cstddef>
#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string source(reinterpret_cast<const char *>(data), size);
  try {
    for (const loom::ir::Kernel &k : loom::text::parse_kernels(source, "fuzz.loom")) {
      (void)loom::ir::to_string(k);
      for (loom::ir::Target t : {loom::ir::Target::GPU, loom::ir::Target::CPU})
        (void)loom::ir::to_string(loom::ir::lower(k, t));
    }
  } catch (const loom::Error &) {
    // A typed, reported error: the expected outcome for a bad program.
  }
  return 0;
}
