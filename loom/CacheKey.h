// What compiled code depends on, as the text that keys both compile caches. The whole text is
// stored in each disk entry, so that a file under the wrong name or a hash collision is caught;
// the digest names the file and the in-memory entry.
#pragma once

#include "codegen/Codegen.h"
#include "ir/IR.h"

#include <string>

namespace loom::runtime {
struct DeviceInfo;
}

namespace loom {

struct CacheKey {
  std::string kind;   // "cpu-object", "gpu-ptx" or "gpu-cubin"
  std::string text;   // what the code depends on, canonical lowered IR included
  std::string digest; // BLAKE3 of text, 64 hex digits

  // The entry's file name in the disk cache.
  std::string file_name() const { return kind + "-" + digest; }
};

// CPU object code: the canonical lowered IR, the options, loom's build, LLVM's version and the
// host's triple, CPU name and features.
CacheKey cpu_object_key(const ir::LoweredKernel &kernel); // fast_math from the kernel
// PTX: the canonical lowered IR, the target (sm, PTX version, fast math, index width), the
// libdevice file,
// loom's build and LLVM's version.
CacheKey gpu_ptx_key(const ir::LoweredKernel &kernel, const codegen::GpuTarget &target);
// GPU machine code: the PTX key, the device's compute capability, the driver's version and the
// linker that makes it (runtime::ptx_linker_identity(): "driver", or nvJitLink's version and
// file), since nvJitLink and the driver's own compiler may make different code.
CacheKey gpu_cubin_key(const CacheKey &ptx_key, const runtime::DeviceInfo &device,
                       const std::string &linker);

// An autotuning result (loom/Autotune.cpp): the kernel's text and options, the shape class and
// the machine (in `shape_class`), and loom's build.
CacheKey autotune_key(const std::string &kernel_text, const std::string &shape_class);

} // namespace loom
