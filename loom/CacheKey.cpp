#include "loom/CacheKey.h"

#include "codegen/Hash.h"
#include "ir/Printer.h"
#include "runtime/GpuContext.h"
#include "support/BuildId.h"

namespace loom {

namespace {

// Bumped when the meaning of a key changes without loom's build changing (never, so far).
constexpr const char *key_schema = "loom compile cache key 1";

CacheKey make_key(const std::string &kind, const std::string &body) {
  CacheKey key;
  key.kind = kind;
  key.text = std::string(key_schema) + "\nkind: " + kind + "\n" + body;
  key.digest = to_hex(content_hash(key.text));
  return key;
}

std::string toolchain() {
  return "loom: " LOOM_VERSION " build " + loom_build_id() + "\nllvm: " + codegen::llvm_version() +
         "\nllvm options: " + codegen::llvm_options() + "\n";
}

} // namespace

CacheKey autotune_key(const std::string &kernel_text, const std::string &shape_class) {
  return make_key("autotune", toolchain() + shape_class + "kernel:\n" + kernel_text);
}

CacheKey cpu_object_key(const ir::LoweredKernel &kernel) {
  return make_key("cpu-object", toolchain() + "host: " + codegen::host_cpu_identity() +
                                    "\nfast_math: " + (kernel.fast_math ? "1" : "0") + "\nir:\n" +
                                    ir::canonical_text(kernel));
}

CacheKey gpu_ptx_key(const ir::LoweredKernel &kernel, const codegen::GpuTarget &target) {
  return make_key("gpu-ptx", toolchain() + "target: " + target.sm + " ptx " +
                                 std::to_string(target.ptx_version) +
                                 "\nfast_math: " + (kernel.fast_math ? "1" : "0") +
                                 "\nindex bits: " + (target.index32 ? "32" : "64") +
                                 "\nlibdevice: " + codegen::libdevice_identity(target) + "\nir:\n" +
                                 ir::canonical_text(kernel));
}

CacheKey gpu_cubin_key(const CacheKey &ptx_key, const runtime::DeviceInfo &device,
                       const std::string &linker) {
  return make_key("gpu-cubin", "device: compute capability " + std::to_string(device.cc_major) +
                                   "." + std::to_string(device.cc_minor) +
                                   "\ndriver: " + std::to_string(device.driver_version) +
                                   "\nlinker: " + linker + "\nfrom " + ptx_key.text);
}

} // namespace loom
