// Linking NVIDIA's libdevice (the bitcode library behind CUDA's math functions) into a module.
#pragma once

#include "codegen/Codegen.h"

#include <string>
#include <vector>

namespace llvm {
class Module;
}

namespace loom::codegen {

// If `module` calls any libdevice function (__nv_*), links the ones it needs, makes every
// function but the `entries` internal (so unused library code is dropped) and sets the
// nvvm-reflect-ftz flag that libdevice reads (on with `fast_math`). Throws CompileError when
// libdevice is needed and cannot be found: GpuTarget::libdevice_path if set, else $LOOM_LIBDEVICE
// if set, else the CUDA installation's usual places.
void link_libdevice(llvm::Module &module, const GpuTarget &gpu, bool fast_math,
                    const std::vector<std::string> &entries);

// The paths link_libdevice would try, in order.
std::vector<std::string> libdevice_candidates(const GpuTarget &gpu);

} // namespace loom::codegen
