// Code generation from lowered IR: LLVM IR, PTX for NVIDIA GPUs, and native code for the host CPU.
// This header is LLVM-free so that the rest of loom can call codegen without LLVM headers.
#pragma once

#include "ir/IR.h"
#include "support/Abi.h"

#include <memory>
#include <string>
#include <vector>

namespace loom::codegen {

// What the PTX is generated for.
struct GpuTarget {
  std::string sm = "sm_90";   // e.g. "sm_80"; see sm_for_compute_capability
  int ptx_version = 0;        // e.g. 85 for PTX ISA 8.5; 0 = the highest LLVM supports
  std::string libdevice_path; // empty: $LOOM_LIBDEVICE, else the CUDA installation's
  bool fast_math = false;
};

enum class LlvmStage { Unoptimized, Optimized };

// The LLVM IR module of a lowered kernel as text (for dumps and teaching). For GPU kernels `gpu`
// gives the target; libdevice is linked only at the Optimized stage.
std::string emit_llvm(const ir::LoweredKernel &kernel, LlvmStage stage,
                      const GpuTarget &gpu = GpuTarget());

// PTX text for a lowered GPU kernel: one .entry per task, named as the task.
std::string emit_ptx(const ir::LoweredKernel &kernel, const GpuTarget &gpu);

// Native code for a lowered CPU kernel, JIT-compiled in this process. Destroying it frees the code.
class CpuCode {
public:
  virtual ~CpuCode() = default;
  // Entry points, one per task, in task order.
  virtual const std::vector<CpuTaskFn> &tasks() const = 0;
};
std::unique_ptr<CpuCode> compile_cpu(const ir::LoweredKernel &kernel);

// The host CPU as LLVM names it (e.g. "znver3"), for explain().
std::string host_cpu_name();

// Highest PTX ISA version LLVM's NVPTX backend can emit (e.g. 85).
int max_llvm_ptx_version();
// Highest PTX ISA version a CUDA driver accepts, from cuDriverGetVersion's value (e.g. 12040).
int ptx_version_for_driver(int driver_version);
// "sm_XY" for a compute capability, clamped to the newest architecture LLVM supports.
std::string sm_for_compute_capability(int major, int minor);

} // namespace loom::codegen
